"""``sage-flags announce WORKFLOW ARGV...``: the line a workflow shows its user.

ARGV is handled exactly as by ``parse`` (C1-C3); the result is rendered as

    Sage → build workflow. Modes: --quality-locked, --autonomous (config)
    Goal: Ship dark mode

(status 0), or ``Sage: <error message>`` (status 1). A mode that takes a value
is written with its number (``--<name>=3``), and each note gets a line
``Note: ...`` before the goal (docs/SPEC.md A2). Text that came from the
user is made terminal-safe first: C0 controls other than TAB and LF, DEL and
the C1 controls are written as ``\\u00XX``, so an escape sequence in a goal
never reaches the terminal raw (A4); bidi controls and U+2028/U+2029 as
``\\uXXXX``, and every LF is followed by six spaces, so no goal can forge a
line that starts at column 0 (A5). Uses the loaded backend's parse/load_defaults,
so it runs on the native core and on the pure-Python reference alike.
"""

from sage_flags import parse_command_line
from sage_flags._io import OK, PARSE_ERROR, UsageError, _write
from sage_flags._vocabulary import vocabulary as _vocabulary

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Sequence, Tuple

    from sage_flags.reference import ParseResult

# A4: U+0000-U+001F except TAB and LF, U+007F, U+0080-U+009F -> \u00XX (lowercase hex).
# A5: the bidi controls and U+2028/U+2029 -> \uXXXX; LF -> LF and six spaces (GOAL_INDENT), so a
# goal's later lines are indented under "Goal: " and never read as a line of ours.
_UNSAFE = [c for c in range(0x20) if c not in (0x09, 0x0A)] + [0x7F] + list(range(0x80, 0xA0))
BIDI_AND_SEPARATORS = [0x061C, 0x200E, 0x200F, 0x2028, 0x2029, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
GOAL_INDENT = "      "
TERMINAL_ESCAPES = {c: "\\u%04x" % c for c in _UNSAFE + BIDI_AND_SEPARATORS}
TERMINAL_ESCAPES[0x0A] = "\n" + GOAL_INDENT

_LOWER = b"abcdefghijklmnopqrstuvwxyz"
_WORKFLOW_REST = _LOWER + b"0123456789-"


def terminal_safe(text: str) -> str:
    """``text`` with every control character that could act on a terminal escaped."""
    return text.translate(TERMINAL_ESCAPES)


def is_workflow_name(name: bytes) -> bool:
    """``^[a-z][a-z0-9-]*$`` on bytes (ASCII only, no trailing newline)."""
    return bool(name) and name[0] in _LOWER and all(b in _WORKFLOW_REST for b in name)


def render(workflow: str, result: "ParseResult") -> "Tuple[str, int]":
    """(text, status) for one parse result: the announcement or the error line, in the result's vocabulary."""
    error = result.error
    if error is not None:
        return "Sage: " + terminal_safe(error) + "\n", PARSE_ERROR
    vocabulary = _vocabulary(result.vocabulary)
    active = []
    number_fields = {row.mode: row.field for row in vocabulary.value_modes}
    for index, (key, name) in enumerate(vocabulary.modes):
        if getattr(result, key):  # the vocabulary decides which fields exist
            flag = "--" + name
            if index in number_fields:
                flag += "=%d" % getattr(result, number_fields[index])
            config_only = getattr(result, key + "_source") == "config"
            active.append(flag + (" (config)" if config_only else ""))
    text = "Sage → " + workflow + " workflow."
    if active:
        text += " Modes: " + ", ".join(active)
    text += "\n"
    for row in vocabulary.value_modes:
        note = getattr(result, row.note_field)
        if note is not None:
            text += "Note: " + terminal_safe(note) + "\n"
    goal = result.goal
    if goal:
        text += "Goal: " + terminal_safe(goal) + "\n"  # TAB raw; LF raw, then the indent (A5)
    return text, OK


def run_announce(items: "Sequence[bytes]", vocabulary: str) -> int:
    if not items:
        raise UsageError("announce needs a WORKFLOW name")
    workflow = items[0]
    if not is_workflow_name(workflow):
        raise UsageError("the WORKFLOW name must match ^[a-z][a-z0-9-]*$")
    result = parse_command_line(items[1:], vocabulary)  # exactly as parse
    text, status = render(workflow.decode("ascii"), result)
    _write(text.encode("utf-8"))
    return status
