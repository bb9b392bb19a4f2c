"""The command a harness's hook file runs for ``sage-flags hook`` (docs/SPEC.md K9).

One place for it: tools/generate.py writes the manual recipe's ``docs/recipes/hooks/codex/hooks.json`` from
``codex_hook_command(NAME)``, and ``sage-flags adopt`` writes a project's ``.codex/hooks.json`` from
``codex_hook_command(NAME, adopted=True)`` (docs/SPEC.md N5): one template, two programs.
``codex_commands_ever_written()`` is every form the Codex command has had, so that adopt knows each as ours.
Imports nothing of the package at import time (tools/generate.py loads this file by path, before ``_vocab.py``
exists).
"""

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import FrozenSet, Optional

# A vocabulary's name as the command may carry it: written into the script as is, so no quoting is needed.
VOCABULARY_NAME = re.compile(r"[a-z0-9][a-z0-9._-]*\Z")

# The launcher a vendored project has, and the wrapper `sage-flags adopt` writes (N6): the two programs the Codex
# command may run. Relative to the project's root.
LAUNCHER = "sage/bin/sage-flags"
ADOPTED_WRAPPER = ".claude/skills/flag-parser/scripts/sage-flags"

# K9: from the working folder (Codex starts the command in the session's folder, the event's `cwd`) upward, the
# first folder holding `.codex/hooks.json` is the project's root (a `.codex/` with only `config.toml` is passed
# over), and the walk never goes above the first folder holding `.git`. At the root, the program runs only when
# the person owns the root and the program, and the program is a regular file, not a link (for the launcher also
# executable; adopt's wrapper runs as `sh WRAPPER`, so a lost executable bit does not matter); else, or with no
# root, status 0 and nothing read or written (the prompt goes on). So nothing planted in a folder above the
# project (a shared /tmp, another user's work folder) ever runs. `-O` is not in POSIX's `test`, but dash, bash,
# zsh, ksh, busybox and the BSDs' sh have it; a shell without it fails the test, so nothing runs (never the
# reverse).
# The script is one line for `/bin/sh -c`, in single quotes, so whatever shell Codex starts it with (`$SHELL -c`:
# bash, zsh, dash, fish) passes it unchanged; the project's path is never part of the text, so no path can break it.
_CODEX_SCRIPT = (
    "d=$PWD; while :; do"
    ' if [ -f "$d/.codex/hooks.json" ]; then'
    ' if [ -O "$d/." ] && [ -f "$d/{program}" ] && [ ! -L "$d/{program}" ] && [ -O "$d/{program}" ]{test}; then'
    ' exec {runner}"$d/{program}"{vocabulary} hook codex --config-path "$d/.sage/config.yaml"; fi; exit 0; fi;'
    ' if [ -e "$d/.git" ] || [ -L "$d/.git" ]; then exit 0; fi;'
    " case $d in */*) d=${{d%/*}};; *) exit 0;; esac; done"
)


def _vocabulary_option(vocabulary: "Optional[str]") -> str:
    if vocabulary is None:
        return ""
    if not VOCABULARY_NAME.match(vocabulary):
        raise ValueError("not a vocabulary name: %r" % (vocabulary,))
    return " --vocabulary " + vocabulary


def codex_hook_command(vocabulary: "Optional[str]" = None, adopted: bool = False) -> str:
    """The `command` of the Codex `UserPromptSubmit` hook; with VOCABULARY, `--vocabulary NAME` before `hook`.
    ADOPTED: the form `sage-flags adopt` registers (N5), which runs the adopted wrapper instead of the launcher."""
    option = _vocabulary_option(vocabulary)
    test, runner, program = ("", "sh ", ADOPTED_WRAPPER) if adopted else (' && [ -x "$d/%s" ]' % LAUNCHER, "", LAUNCHER)
    script = _CODEX_SCRIPT.format(vocabulary=option, test=test, runner=runner, program=program)
    return "/bin/sh -c '" + script + "'"


# Every earlier form, frozen as it was written (docs/SPEC.md K9, N5): a project's `.codex/hooks.json` may still
# carry any of them, and `sage-flags adopt` replaces each as its own.
# The shipped file before the walk (commit 8fb67ff): relative paths, so only from the project's root.
_SHIPPED_RELATIVE = "sage/bin/sage-flags hook codex --config-path .sage/config.yaml"
# The first walk (7160d99 shipped, ff44f52 adopted): the first folder up holding `.codex/` and the program, with
# no boundary and no owner.
_FIRST_WALK = (
    "d=$PWD; while :; do"
    ' if [ -d "$d/.codex" ] && [ {test} "$d/{program}" ]; then'
    ' exec {runner}"$d/{program}"{vocabulary} hook codex --config-path "$d/.sage/config.yaml"; fi;'
    " case $d in */*) d=${{d%/*}};; *) exit 0;; esac; done"
)
# adopt before the walk (8031bf6 to ff44f52): git's top level, with a notice when the wrapper is missing.
_ADOPT_GIT_TOPLEVEL = (
    'r=$(git rev-parse --show-toplevel 2>/dev/null) || r=.; w="$r/%s"; if [ -f "$w" ]; then exec sh "$w"'
    ' --vocabulary %%s hook codex --config-path "$r/.sage/config.yaml"; fi;'
    " printf '%%%%s\\n' '%s'"
) % (
    ADOPTED_WRAPPER,
    '{"systemMessage": "sage-flags: %s is missing, so Sage parses the flags itself (run sage-flags adopt at the'
    ' project root to restore it)"}' % ADOPTED_WRAPPER,
)
# The vocabularies any release has carried (adopt writes only names its build carries; this build's are added).
VOCABULARIES_EVER = ("sage-1.1", "sage-1.3", "sage-1.3.18")


def codex_commands_ever_written() -> "FrozenSet[str]":
    """Every `command` string the Codex hook has been written as, by `sage-flags adopt` or in the shipped
    `hooks.json`, in any release: each earlier form and the current one, for no vocabulary and each vocabulary's
    name, adopted or not (docs/SPEC.md K9, N5)."""
    from sage_flags import _vocab  # here, not at import: tools/generate.py loads this file before _vocab exists

    names = sorted(set(VOCABULARIES_EVER) | set(_vocab.NAMES))
    commands = {_SHIPPED_RELATIVE}
    for vocabulary in [None, *names]:
        option = _vocabulary_option(vocabulary)
        for adopted in (False, True):
            commands.add(codex_hook_command(vocabulary, adopted))
            test, runner, program = ("-f", "sh ", ADOPTED_WRAPPER) if adopted else ("-x", "", LAUNCHER)
            script = _FIRST_WALK.format(vocabulary=option, test=test, runner=runner, program=program)
            commands.add("/bin/sh -c '" + script + "'")
        if vocabulary is not None:
            commands.add(_ADOPT_GIT_TOPLEVEL % vocabulary)
    return frozenset(commands)


# K9's Claude Code files: the exec form (no shell between the harness and the launcher), in a project's
# settings and in a plugin's hooks.json. tools/generate.py writes the shipped files from these; adopt knows
# them as ours (N5).
CLAUDE_CODE_LAUNCHERS = ("${CLAUDE_PROJECT_DIR}/" + LAUNCHER, "${CLAUDE_PLUGIN_ROOT}/" + LAUNCHER)
CLAUDE_CODE_ARGS = ("hook", "claude-code", "--config-path", "${CLAUDE_PROJECT_DIR}/.sage/config.yaml")
