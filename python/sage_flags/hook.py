"""``sage-flags hook HARNESS [--config-path P] [--workflow NAME]...``: a prompt hook (docs/SPEC.md K1-K12).

Reads one hook event (JSON) from standard input and answers in the harness's protocol: the parse
result and the announcement for a workflow's slash command, a block with the error message for
E1-E5, nothing for any other prompt. Its own failures (command line, event) fail open: status 3,
one stderr line, nothing on stdout, so the harness goes on without it (K8).
"""

import json
import os

from sage_flags._io import FAIL_OPEN_LINE, OK, UNAVAILABLE, _write, read_bounded, say
from sage_flags._vocab import DEFAULT, HOOK_LABEL
from sage_flags._vocabulary import vocabulary as _vocabulary
from sage_flags.announce import is_workflow_name, render

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, List, Optional, Sequence, Tuple

# K2: the events each harness's hook answers; K3: the namespace a workflow's command may carry there.
EVENTS = {b"claude-code": ("UserPromptExpansion", "UserPromptSubmit"), b"codex": ("UserPromptSubmit",)}
NAMESPACES = {b"claude-code": "sage:", b"codex": "prompts:"}
EVENT_LIMIT = 1 << 20  # K2: bytes of one event
DEPTH_LIMIT = 128  # K2: nesting of arrays and objects, the event's own object included
CAP = 10000  # K7: the harnesses' limit on one string, in UTF-16 code units
CUT_TO = 9000  # K7: what a cut string keeps
FAIL_OPEN = UNAVAILABLE  # K8 (D19)
WHITESPACE = " \t\n\x0b\x0c\r"  # C5
READ_FIELDS = ("hook_event_name", "prompt", "command_name", "command_args")  # K2: every other field is ignored
# K2/K8: the one reason for every event that is not K2's JSON (the native hook says the same).
NOT_JSON = (
    "the event is not one JSON object (RFC 8259 in UTF-8, at most %d levels deep, no field the hook reads twice)"
    % DEPTH_LIMIT
)


class HookFailure(Exception):
    """Our own failure (K8): status 3, one stderr line, nothing on stdout."""


def _options(items: "Sequence[bytes]") -> "Tuple[bytes, Optional[bytes], Tuple[str, ...]]":
    """K1: the harness, the config path and the workflows named (none: the vocabulary's, K3)."""
    if not items or items[0] not in EVENTS:
        raise HookFailure("the first item must be the harness: claude-code or codex")
    config_path = None
    workflows: List[str] = []
    rest = list(items[1:])
    while rest:
        item = rest.pop(0)
        name, equals, value = item.partition(b"=")
        if name not in (b"--config-path", b"--workflow"):
            raise HookFailure("unknown item in the command line (only --config-path P and --workflow NAME)")
        if not equals:
            if not rest:
                raise HookFailure("%s needs a value" % name.decode())
            value = rest.pop(0)
        if name == b"--config-path":
            config_path = value
        elif is_workflow_name(value):
            workflows.append(value.decode("ascii"))
        else:
            raise HookFailure("a --workflow name must match ^[a-z][a-z0-9-]*$")
    return items[0], config_path, tuple(workflows)


class _Object(list):
    """A JSON object as its (key, value) pairs: only the event's own keys are checked (K2)."""


def _refuse(_text: str) -> None:
    raise ValueError("NaN and Infinity are not JSON")


def _too_deep(event: _Object) -> bool:
    """K2: more than DEPTH_LIMIT arrays and objects nest, the event's own object counted."""
    level: List[Any] = [event]
    for _ in range(DEPTH_LIMIT):
        level = [
            child
            for item in level
            for child in ([value for _, value in item] if isinstance(item, _Object) else item)
            if isinstance(child, list)
        ]
    return bool(level)


def read_stdin() -> bytes:
    """K2: standard input's bytes, at most EVENT_LIMIT (never read from a terminal)."""
    if os.isatty(0):
        raise HookFailure("standard input is a terminal, not a hook event")
    try:
        data = read_bounded(0, EVENT_LIMIT)
    except OSError:
        raise HookFailure("cannot read standard input") from None
    if len(data) > EVENT_LIMIT:
        raise HookFailure("the event exceeds %d bytes" % EVENT_LIMIT)
    return data


def parse_event(data: bytes) -> dict:
    """K2: one JSON object (RFC 8259, UTF-8), at most DEPTH_LIMIT levels deep, its keys Unicode text and no
    field the hook reads given twice; what is inside the other fields is only checked to be JSON."""
    try:
        event = json.loads(
            data.decode("utf-8"),
            object_pairs_hook=_Object,
            parse_constant=_refuse,
            parse_int=len,  # numbers are never used: never converted (no digit limit, no overflow)
            parse_float=len,
        )
    except (ValueError, RecursionError):  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise HookFailure(NOT_JSON) from None
    if not isinstance(event, _Object) or _too_deep(event):
        raise HookFailure(NOT_JSON)
    keys = [key for key, _ in event]
    if not all(map(_is_text, keys)) or any(keys.count(name) > 1 for name in READ_FIELDS):
        raise HookFailure(NOT_JSON)
    return dict(event)


def _is_text(text: str) -> bool:
    """Unicode text: no lone surrogate (which a ``\\udXXX`` escape alone gives)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _text_field(event: dict, name: str) -> str:
    value = event.get(name)
    if not isinstance(value, str):
        raise HookFailure("the event's %s is not a string" % name)
    if not _is_text(value):
        raise HookFailure("the event's %s holds a lone surrogate escape" % name)
    return value


def _workflow(command: str, namespace: str, workflows: "Tuple[str, ...]") -> "Optional[str]":
    """K3: the workflow a command name calls (``build``, or ``build`` namespaced), or None."""
    if command.startswith(namespace):
        command = command[len(namespace) :]
    return command if command in workflows else None


def invocation(event: dict, harness: bytes, workflows: "Tuple[str, ...]") -> "Tuple[str, Optional[str], str]":
    """K2-K4: (event name, workflow or None, ARGUMENTS)."""
    name = event.get("hook_event_name")
    if name not in EVENTS[harness]:
        raise HookFailure("the event is not one this hook answers (%s)" % ", ".join(EVENTS[harness]))
    if name == "UserPromptExpansion":
        command, arguments = _text_field(event, "command_name"), _text_field(event, "command_args")
        return name, _workflow(command, NAMESPACES[harness], workflows), arguments
    prompt = _text_field(event, "prompt")
    if not prompt.startswith("/"):
        return name, None, ""
    end = min((i for i in map(prompt.find, WHITESPACE) if i >= 0), default=len(prompt))
    return name, _workflow(prompt[1:end], NAMESPACES[harness], workflows), prompt[end:].lstrip(WHITESPACE)


def _units(text: str) -> int:
    """K7: the length the harnesses limit, in UTF-16 code units."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def fit(text: str) -> str:
    """K7: ``text`` itself when within the cap, else its longest prefix of at most CUT_TO units and a note."""
    total = _units(text)
    if total <= CAP:
        return text
    head = text[:CUT_TO]
    units = _units(head)
    while units > CUT_TO:
        units -= 2 if ord(head[-1]) > 0xFFFF else 1
        head = head[:-1]
    note = "…\n(sage-flags: the first %d of %d characters; hook output is limited to %d)" % (units, total, CAP)
    return head + note + ("\n" if text.endswith("\n") else "")


def _json(value: "Any") -> str:
    return json.dumps(value, ensure_ascii=False)  # C17's string form


def _digest(text: str) -> "Tuple[int, str]":
    import hashlib

    data = text.encode("utf-8")
    return len(data), hashlib.sha256(data).hexdigest()


def context(workflow: str, arguments: str, result: "Any") -> str:
    """K5-K7: the agent's context: the label, then parse's line (or K7's short form of it)."""
    size, digest = _digest(arguments)
    label = "%s for /%s (ARGUMENTS: %d bytes, SHA-256 %s); " % (HOOK_LABEL, workflow, size, digest)
    line = result.to_json()
    full = label + "sage-flags parse printed:\n" + line + "\n"
    if _units(full) <= CAP:
        return full
    texts = {"goal"} | {row.note_field for row in _vocabulary(result.vocabulary).value_modes}
    members = []
    for key, value in result.to_dict().items():
        if key in texts and isinstance(value, str):
            size, digest = _digest(value)
            members.append('"%s_bytes": %d, "%s_sha256": "%s"' % (key, size, key, digest))
        else:
            members.append("%s: %s" % (_json(key), _json(value)))
    return fit(
        label + "sage-flags parse printed a line of %d characters, over the %d-character limit of hook output;"
        " here it is with each text replaced by its UTF-8 length and SHA-256 (the text is in the command's"
        " arguments):\n{%s}\n" % (_units(line), CAP, ", ".join(members))
    )


def answer(
    event: dict,
    harness: bytes,
    config_path: "Optional[bytes]",
    workflows: "Tuple[str, ...]",
    vocabulary: str = DEFAULT,
) -> bytes:
    """K4-K7: the whole stdout for one event in ``vocabulary`` (empty for a prompt that is no workflow)."""
    import sage_flags

    event_name, workflow, arguments = invocation(event, harness, workflows or _vocabulary(vocabulary).workflows)
    if workflow is None:
        return b""
    defaults = sage_flags.load_defaults(config_path, vocabulary) if config_path else None  # C11, C20
    # K6: a NUL is E4, as on standard input (I3).
    result = sage_flags.parse("\udcff" if "\0" in arguments else arguments, defaults, vocabulary=vocabulary)
    announcement, status = render(workflow, result)
    if status != OK:
        out = '{"decision": "block", "reason": %s}' % _json(fit(announcement[:-1]))
    else:
        hook_output = '{"hookEventName": %s, "additionalContext": %s}' % (
            _json(event_name),
            _json(context(workflow, arguments, result)),
        )
        out = '{"hookSpecificOutput": %s, "systemMessage": %s}' % (hook_output, _json(fit(announcement)))
    return out.encode("utf-8") + b"\n"


def run_hook(items: "Sequence[bytes]", vocabulary: str) -> int:
    try:
        harness, config_path, workflows = _options(items)
        out = answer(parse_event(read_stdin()), harness, config_path, workflows, vocabulary)
    except Exception as error:  # a hook never blocks a prompt, nor prints a traceback (K8)
        why = error if isinstance(error, HookFailure) else type(error).__name__
        # K8: status 3 even when stderr is closed (the line is lost, not the status).
        say(FAIL_OPEN_LINE % why)
        return FAIL_OPEN
    if out:
        _write(out)
    return OK
