"""The strict JSON scanner (python/sage_flags/_strict_json.py) and the settings editor (_settings_edit.py), tested
directly (docs/SPEC.md N4, N5): the scanner reads what Python's json reads, minus what JSON does not allow; the
editor leaves exactly one handler of ours and every other byte as it was. tests/test_adopt_in_place.py runs
them through adopt's entries."""

from __future__ import annotations

import json
import time
from typing import List

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sage_flags import _settings_edit
from sage_flags._strict_json import MAX_DEPTH, NotStrictJson, scan, to_python
from sage_flags.adopt import CLAUDE_MATCHER, claude_command, forms_ever_written
from sage_flags.hook_commands import CLAUDE_CODE_ARGS, CLAUDE_CODE_LAUNCHERS, codex_hook_command

FORMS = forms_ever_written()
# Deterministic (the same examples every run: a failure is a bug to find, never a flake) and no deadline (the
# machine is shared).
PROPERTY = settings(deadline=None, database=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
EVENT = "UserPromptExpansion"
HANDLER = {"type": "command", "command": claude_command("sage-1.3.18"), "timeout": 10}
GROUP = {"matcher": CLAUDE_MATCHER, "hooks": [HANDLER]}
OLD_OURS = [
    {"type": "command", "command": CLAUDE_CODE_LAUNCHERS[0], "args": list(CLAUDE_CODE_ARGS), "timeout": 10},
    {"type": "command", "command": claude_command("sage-1.1"), "timeout": 10},
    {"type": "command", "command": codex_hook_command(None), "timeout": 10},
]


def register(data: bytes) -> bytes:
    return _settings_edit.register(data, EVENT, GROUP, FORMS)


def ours(value: dict) -> List[dict]:
    return [
        handler
        for groups in value.get("hooks", {}).values()
        for group in groups
        for handler in group.get("hooks", [])
        if _settings_edit.handler_form(handler) in FORMS
    ]


# The scanner

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=25,
)


@PROPERTY
@given(json_values, st.sampled_from([None, 0, 1, 4, "\t"]), st.booleans())
def test_the_scanner_reads_what_json_reads(value, indent, ascii_only):
    text = json.dumps(value, indent=indent, ensure_ascii=ascii_only)
    assert to_python(scan(text.encode("utf-8"))) == json.loads(text)


@PROPERTY
@given(json_values)
def test_every_span_is_its_values_bytes(value):
    data = json.dumps({"k": value}, indent=2, ensure_ascii=False).encode("utf-8")
    node = scan(data).member("k")
    assert node is not None and json.loads(data[node.start : node.end]) == value


@pytest.mark.parametrize(
    "data, why",
    [
        (b"NaN", "NaN"),
        (b"[Infinity]", "Infinity"),
        (b"-Infinity", "Infinity"),
        (b'"\\udc80"', "lone surrogate"),
        (b'"\\ud83d"', "lone surrogate"),
        (b'"\\ud83d\\u0041"', "lone surrogate"),
        (b'{"a": 1, "\\u0061": 2}', "twice"),
        (b"\xef\xbb\xbf{}", "byte order mark"),
        (b'"\xc3"', "UTF-8"),
        (b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1), "deeper"),
        (b"{} {}", "after"),
        (b"[1,]", "unexpected"),
        (b"01", "after"),
        (b'"\t"', "string"),
        (b"'a'", "unexpected"),
        (b"", "end of the file"),
    ],
)
def test_what_json_does_not_allow_is_refused(data, why):
    with pytest.raises(NotStrictJson, match=why):
        scan(data)


def test_a_refusal_is_one_line_whatever_the_key():
    with pytest.raises(NotStrictJson) as refusal:
        scan(b'{"a\\nb\\u2028\\u0000": 1, "a\\nb\\u2028\\u0000": 2}')
    assert str(refusal.value).isascii() and str(refusal.value).isprintable(), refusal.value


def test_depth_at_the_bound_is_read_and_escapes_are_decoded():
    deepest = b"[" * MAX_DEPTH + b"]" * MAX_DEPTH
    assert scan(deepest).kind == "array"
    assert to_python(scan(b'"\\ud83d\\ude00\\u00e9\\/\\n"')) == "\U0001f600\u00e9/\n"
    assert scan(b" 1E5 ").value == "1E5" and scan(b"-0").value == "-0"


# The editor


def test_a_new_file_is_sages_own_form():
    data = _settings_edit.new_file(EVENT, GROUP)
    assert data == (json.dumps({"hooks": {EVENT: [GROUP]}}, indent=2) + "\n").encode()
    assert register(data) == data


@pytest.mark.parametrize(
    "data",
    [b"{}", b"{}\n", b'{"a": 1}', b'{\n    "a": 1\n}', b'{\r\n\t"hooks": {}\r\n}', b'{"hooks": {"Stop": []}}'],
)
def test_ours_is_added_once_to_any_shape(data):
    after = register(data)
    value = json.loads(after)
    assert ours(value) == [HANDLER] and value["hooks"][EVENT] == [GROUP]
    assert register(after) == after
    if b"\n" not in data.strip():
        assert b"\n" not in after.strip(), "an object on one line stays on one line"


def test_a_container_on_one_line_gets_its_insertion_on_that_line():
    data = b'{\n  "hooks": {"Stop": [{"hooks": []}]},\n  "b": [1]\n}\n'
    after = register(data)
    assert after.count(b"\n") == data.count(b"\n") and json.loads(after)["hooks"][EVENT] == [GROUP]
    keeper = json.dumps({EVENT: [{"hooks": [OLD_OURS[0]]}]})[1:-1].encode()
    after = register(data.replace(b'"Stop": [{"hooks": []}]', keeper))  # ours on one line: replaced on it
    assert after.count(b"\n") == data.count(b"\n") and ours(json.loads(after)) == [HANDLER]


def test_only_exact_forms_are_ours():
    near = [
        {"type": "command", "command": HANDLER["command"] + " "},
        {"type": "command", "command": CLAUDE_CODE_LAUNCHERS[0], "args": [*CLAUDE_CODE_ARGS, "x"]},
        {"type": "command", "command": CLAUDE_CODE_LAUNCHERS[0]},  # no args: not the K9 form
        {"type": "command", "command": "sage/bin/sage-flags hook claude-code"},
        {"type": "command", "command": HANDLER["command"], "args": 5},
        {"type": "command", "command": HANDLER["command"], "args": []},
    ]
    for handler in near:
        assert _settings_edit.handler_form(handler) not in FORMS, handler
    for handler in OLD_OURS:
        assert _settings_edit.handler_form(handler) in FORMS, handler


handlers = st.fixed_dictionaries({"type": st.just("command"), "command": st.text(min_size=1, max_size=8)})
groups = st.fixed_dictionaries(
    {"hooks": st.lists(handlers | st.sampled_from(OLD_OURS), max_size=3)}, optional={"matcher": st.text(max_size=5)}
)
settings_docs = st.fixed_dictionaries(
    {},
    optional={
        "hooks": st.dictionaries(st.sampled_from([EVENT, "Stop", "UserPromptSubmit", "PreToolUse"]), st.lists(groups)),
        "env": st.dictionaries(st.text(max_size=4), st.text(max_size=4)),
    },
)


def without_ours(value: dict) -> dict:
    """The document with every handler of ours taken out, and every group, event and ``hooks`` left empty
    dropped (on both sides of a comparison, so what adopt removes or adds around ours does not count)."""
    hooks = {}
    for event, event_groups in value.get("hooks", {}).items():
        kept = []
        for group in event_groups:
            left = [h for h in group["hooks"] if _settings_edit.handler_form(h) not in FORMS]
            if left:
                kept.append({**group, "hooks": left})
        if kept:
            hooks[event] = kept
    rest = {key: item for key, item in value.items() if key != "hooks"}
    return {**rest, "hooks": hooks} if hooks else rest


@settings(PROPERTY, max_examples=300)
@given(settings_docs, st.sampled_from([None, 2, 4, "\t"]), st.booleans(), st.booleans())
def test_the_editor_keeps_everything_but_ours(value, indent, crlf, final_newline):
    text = json.dumps(value, indent=indent, ensure_ascii=False) + ("\n" if final_newline else "")
    data = (text.replace("\n", "\r\n") if crlf else text).encode("utf-8")
    after = register(data)
    result = json.loads(after)
    assert ours(result) == [HANDLER], "exactly one handler of ours"
    assert register(after) == after, "a second run changes nothing"
    assert without_ours(result) == without_ours(value), "every other key, group and handler kept, in order"
    if not ours(value):  # nothing of ours before: one insertion, every byte of the file kept around it
        cut = next((i for i in range(len(data)) if data[i] != after[i]), len(data))
        assert after[:cut] + after[cut + len(after) - len(data) :] == data
    if crlf:
        assert b"\n" not in after.replace(b"\r\n", b"")


def test_a_wrong_hooks_shape_is_refused():
    for data in (b'{"hooks": []}', b'{"hooks": {"Stop": {}}}', b'{"hooks": {"Stop": 1}}', b"[]"):
        with pytest.raises(NotStrictJson):
            register(data)


def test_a_file_of_a_mebibyte_is_edited_in_reasonable_time():
    """Measured, with a generous bound: the scanner is pure Python, and adopt refuses anything larger."""
    filler = [{"hooks": [{"type": "command", "command": "x" * 60}]} for _ in range(5000)]
    data = json.dumps({"hooks": {"Stop": filler}}, indent=2).encode()
    assert 1 << 19 < len(data) <= 1 << 20
    started = time.perf_counter()
    after = register(data)
    elapsed = time.perf_counter() - started
    print("register on %d bytes: %.2f s" % (len(data), elapsed))
    assert ours(json.loads(after)) == [HANDLER] and elapsed < 20
