"""The command a harness's hook file runs for ``sage-flags hook`` (docs/SPEC.md K9).

One place for it: tools/generate.py writes the shipped ``sage/core/flag_parser/hooks/codex/hooks.json`` from
``codex_hook_command()``, and ``sage-flags adopt`` writes a project's ``.codex/hooks.json`` from
``codex_hook_command(NAME, adopted=True)`` (docs/SPEC.md N5): one template, two programs.
Imports nothing of the package at import time (tools/generate.py loads this file by path, before ``_vocab.py``
exists); ``codex_commands_ever_written`` reads the vocabulary names when called.
"""

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import List, Optional

# A vocabulary's name as the command may carry it: written into the script as is, so no quoting is needed.
VOCABULARY_NAME = re.compile(r"[a-z0-9][a-z0-9._-]*\Z")

# The launcher a vendored project has, and the wrapper `sage-flags adopt` writes (N6): the two programs the Codex
# command may run. Relative to the project's root.
LAUNCHER = "sage/bin/sage-flags"
ADOPTED_WRAPPER = ".claude/skills/flag-parser/scripts/sage-flags"

# K9: from the working folder (Codex starts the command in the session's folder, the event's `cwd`) upward, the
# first folder holding both `.codex/` and the program (an executable `sage/bin/sage-flags`; for adopt, N5, its
# wrapper, run by `sh` so that a lost executable bit does not matter) is the project's root; the program answers
# with its `.sage/config.yaml`. None found: status 0, nothing read or written (the prompt goes on).
# The script is one line for `/bin/sh -c`, in single quotes, so whatever shell Codex starts it with (`$SHELL -c`:
# bash, zsh, dash, fish) passes it unchanged; the project's path is never part of the text, so no path can break it.
_CODEX_SCRIPT = (
    "d=$PWD; while :; do"
    ' if [ -d "$d/.codex" ] && [ {test} "$d/{program}" ]; then'
    ' exec {runner}"$d/{program}"{vocabulary} hook codex --config-path "$d/.sage/config.yaml"; fi;'
    " case $d in */*) d=${{d%/*}};; *) exit 0;; esac; done"
)


def codex_hook_command(vocabulary: "Optional[str]" = None, adopted: bool = False) -> str:
    """The `command` of the Codex `UserPromptSubmit` hook; with VOCABULARY, `--vocabulary NAME` before `hook`.
    ADOPTED: the form `sage-flags adopt` registers (N5), which runs the adopted wrapper instead of the launcher."""
    option = ""
    if vocabulary is not None:
        if not VOCABULARY_NAME.match(vocabulary):
            raise ValueError("not a vocabulary name: %r" % (vocabulary,))
        option = " --vocabulary " + vocabulary
    test, runner, program = ("-f", "sh ", ADOPTED_WRAPPER) if adopted else ("-x", "", LAUNCHER)
    script = _CODEX_SCRIPT.format(vocabulary=option, test=test, runner=runner, program=program)
    return "/bin/sh -c '" + script + "'"


def codex_commands_ever_written() -> "List[str]":
    """Every Codex `command` K9's template has written (docs/SPEC.md N5's closed list): the shipped form and
    adopt's, without a vocabulary and with each one this build carries. Provisional: today's template only."""
    from sage_flags._vocab import NAMES

    return [codex_hook_command(name, adopted) for name in (None, *NAMES) for adopted in (False, True)]


# K9's Claude Code files: the exec form (no shell between the harness and the launcher), in a project's
# settings and in a plugin's hooks.json. tools/generate.py writes the shipped files from these; adopt knows
# them as ours (N5).
CLAUDE_CODE_LAUNCHERS = ("${CLAUDE_PROJECT_DIR}/" + LAUNCHER, "${CLAUDE_PLUGIN_ROOT}/" + LAUNCHER)
CLAUDE_CODE_ARGS = ("hook", "claude-code", "--config-path", "${CLAUDE_PROJECT_DIR}/.sage/config.yaml")
