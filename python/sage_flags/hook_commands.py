"""The command a harness's hook file runs for ``sage-flags hook`` (docs/SPEC.md K9).

One place for it: tools/generate.py writes the shipped ``sage/core/flag_parser/hooks/codex/hooks.json`` from
``codex_hook_command()``, and a tool that writes a project's ``.codex/hooks.json`` imports the same function.
Imports nothing of the package (tools/generate.py loads this file by path, before ``_vocab.py`` exists).
"""

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Optional

# A vocabulary's name as the command may carry it: written into the script as is, so no quoting is needed.
VOCABULARY_NAME = re.compile(r"[a-z0-9][a-z0-9._-]*\Z")

# K9: from the working folder (Codex starts the command in the session's folder, the event's `cwd`) upward, the
# first folder holding both `.codex/` and an executable `sage/bin/sage-flags` is the project's root; its launcher
# answers with its `.sage/config.yaml`. None found: status 0, nothing read or written (the prompt goes on).
# The script is one line for `/bin/sh -c`, in single quotes, so whatever shell Codex starts it with (`$SHELL -c`:
# bash, zsh, dash, fish) passes it unchanged; the project's path is never part of the text, so no path can break it.
_CODEX_SCRIPT = (
    "d=$PWD; while :; do"
    ' if [ -d "$d/.codex" ] && [ -x "$d/sage/bin/sage-flags" ]; then'
    ' exec "$d/sage/bin/sage-flags"{vocabulary} hook codex --config-path "$d/.sage/config.yaml"; fi;'
    " case $d in */*) d=${{d%/*}};; *) exit 0;; esac; done"
)


def codex_hook_command(vocabulary: "Optional[str]" = None) -> str:
    """The `command` of the Codex `UserPromptSubmit` hook; with VOCABULARY, `--vocabulary NAME` before `hook`."""
    option = ""
    if vocabulary is not None:
        if not VOCABULARY_NAME.match(vocabulary):
            raise ValueError("not a vocabulary name: %r" % (vocabulary,))
        option = " --vocabulary " + vocabulary
    return "/bin/sh -c '" + _CODEX_SCRIPT.format(vocabulary=option) + "'"
