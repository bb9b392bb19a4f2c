"""The pure-Python reference, in-process (the CLI is covered by the vectors)."""

from __future__ import annotations

import os
import threading
import time
from functools import lru_cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sage_flags import reference
from sage_flags._vocabulary import vocabulary
from sage_flags.reference import ParseResult, load_defaults, parse

MODES, SUPPORTED_FLAGS = vocabulary().modes, vocabulary().supported_flags  # the default's (B1)

KEYS = [key for key, _ in MODES]


def test_none_is_the_empty_string() -> None:  # C10
    assert parse(None) == parse("")
    assert parse(None).goal == ""


@pytest.mark.parametrize("text", ["\ud800", "go \udcff", "--autonomous \udfff x"])
def test_lone_surrogate_is_e4(text: str) -> None:  # C10
    result = parse(text)
    assert result.error == reference.E4
    assert not result.ok


def test_nul_is_an_ordinary_character_in_the_library() -> None:  # C10
    result = parse("--autonomous a\0b")
    assert result.goal == "a\0b"
    assert result.to_json().endswith(
        '"goal": "a\\u0000b", "error": null, "quality_locked_source": null, "autonomous_source": "flag"}'
    )


def test_to_dict_key_order_and_values() -> None:  # C16
    result = parse("--no-autonomous go", {"quality_locked": True})
    assert list(result.to_dict()) == [*KEYS, "goal", "error", *(k + "_source" for k in KEYS)]
    assert result.to_dict()["quality_locked_source"] == "config"
    assert result.to_dict()["autonomous"] is False
    assert result.autonomous_source == "flag"


def test_result_is_immutable_and_hashable() -> None:
    result = parse("go")
    with pytest.raises(AttributeError):
        result.goal = "x"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del result.goal
    with pytest.raises(AttributeError):
        result.no_such_field  # noqa: B018
    assert hash(result) == hash(parse("go"))
    assert result != parse("go!")
    assert "goal='go'" in repr(result)


def test_defaults_mapping_truthiness() -> None:  # C15
    assert parse("x", {"quality_locked": False}).quality_locked_source is None
    assert parse("x", {"autonomous": 1}).autonomous_source == "config"  # type: ignore[dict-item]
    assert parse("x", {"unknown_mode": True}).to_dict() == parse("x").to_dict()


def test_json_escapes_match_json_dumps() -> None:  # C17
    import json

    every = "".join(chr(i) for i in range(0x80)) + "\u2028\u2029\U0001f680\x85\xa0"
    line = ParseResult({}, {}, every).to_json()
    assert json.loads(line)["goal"] == every
    assert line == json.dumps(json.loads(line), ensure_ascii=False)


def test_supported_flags_text_comes_from_the_vocabulary() -> None:  # E1, written out by hand from spec/flags.toml
    assert parse("--nope").error == "Unknown flag '--nope'. Supported flags: --quality-locked, --autonomous."


def _elapsed(text: str) -> float:
    start = time.perf_counter()
    parse(text).to_json()
    return time.perf_counter() - start


def test_linear_time_10000_flags() -> None:  # C21; a generous bound that only a quadratic path misses
    flags = " ".join(["--quality-locked", "--autonomous"] * 5000)
    text = (flags + " " + "x" * 131072)[:131000]
    assert _elapsed(text) < 10
    tabs = "\t".join(["--autonomous"] * 10000) + "\tgoal"
    result = parse(tabs)
    assert result.goal == "goal" and result.autonomous


def test_load_defaults_on_paths(tmp_path: Path) -> None:  # C11-C14
    config = tmp_path / "config.yaml"
    config.write_bytes(b"\xef\xbb\xbfquality_locked: true\r\nautonomous: true")
    assert load_defaults(config) == {"quality_locked": True, "autonomous": True}
    assert load_defaults(str(config)) == load_defaults(os.fsencode(config))
    assert load_defaults(None) == {}
    assert load_defaults("") == {}
    assert load_defaults(b"") == {}
    assert load_defaults("a\0b") == {}
    assert load_defaults(tmp_path) == {}
    config.write_bytes(b"quality_locked: true\n\0")
    assert load_defaults(config) == {}


def test_load_defaults_never_blocks_on_a_fifo(tmp_path: Path) -> None:  # C12
    fifo = tmp_path / "config.yaml"
    os.mkfifo(fifo)
    outcome = []
    worker = threading.Thread(target=lambda: outcome.append(load_defaults(fifo)), daemon=True)
    worker.start()
    worker.join(10)
    assert outcome == [{}], "load_defaults blocked on a FIFO"


def test_load_defaults_relative_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "c.yaml").write_text("autonomous: true\n")
    monkeypatch.chdir(tmp_path)
    assert load_defaults("c.yaml") == {"autonomous": True}


# --- E1's suggestion (docs/SPEC.md S1-S7) -------------------------------------------------------

FORMS = [form for _, name in MODES for form in (name, "no-" + name)]  # S1, in vocabulary order


def _osa(a: str, b: str) -> int:
    """S3 written top-down from its definition (fewest edits, no substring edited twice), memoised."""

    @lru_cache(maxsize=None)
    def d(i: int, j: int) -> int:  # distance of a[:i] and b[:j]
        if i == 0 or j == 0:
            return i + j
        options = [d(i - 1, j) + 1, d(i, j - 1) + 1, d(i - 1, j - 1) + (a[i - 1] != b[j - 1])]
        if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
            options.append(d(i - 2, j - 2) + 1)
        return min(options)

    return d(len(a), len(b))


@pytest.mark.parametrize(
    ("a", "b", "distance"),
    [("autonomuos", "autonomous", 1), ("ca", "abc", 3), ("", "abc", 3), ("abc", "abc", 0), ("ab", "ba", 1)],
)
def test_osa_known_values(a: str, b: str, distance: int) -> None:  # S3: ("ca", "abc") is 2 for Damerau
    assert reference.osa_distance(a, b, 10) == _osa(a, b) == distance


_SMALL = st.text(alphabet="ab-é", max_size=7)


@settings(max_examples=400, deadline=None, derandomize=True)
@given(a=_SMALL, b=_SMALL, most=st.integers(0, 8))
def test_osa_distance_with_its_bound_agrees_with_the_definition(a: str, b: str, most: int) -> None:
    assert reference.osa_distance(a, b, most) == min(_osa(a, b), most + 1)


def _suggested(token: str):
    """S2-S5 for ``token``, straight from the SPEC's words (no early exit, no length limit)."""
    part = token.split("=", 1)[0][2:]
    part = "".join(c.lower() if "A" <= c <= "Z" else c for c in part)
    near = [(_osa(part, form), form) for form in FORMS if _osa(part, form) <= len(form) // 3]
    if not near:
        return None
    low = min(d for d, _ in near)
    best = [form for d, form in near if d == low]
    return "--" + best[0] if len(best) == 1 else None


_TYPO = st.lists(st.sampled_from([*"-_=aunotmsqlicyedkAQ", "é", "🚀"]), max_size=12).map("".join)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(body=st.one_of(st.sampled_from(FORMS), _TYPO), cut=st.integers(0, 20), extra=_TYPO)
def test_unknown_flag_suggests_as_the_spec_says(body: str, cut: int, extra: str) -> None:
    token = "--" + body[:cut] + extra
    error = parse(token).error
    if token == "--" or token.split("=", 1)[0][2:] in FORMS:
        return  # the end of the flags, a flag, or E2
    assert error is not None and error.startswith(f"Unknown flag '{token}'. Supported flags: {SUPPORTED_FLAGS}.")
    want = _suggested(token)
    assert error.endswith(f" Did you mean '{want}'?" if want else f"{SUPPORTED_FLAGS}.")


def test_suggest_limit_is_the_longest_part_that_can_be_near() -> None:  # S7
    assert vocabulary().suggest_limit == max(len(f) + len(f) // 3 for f in FORMS)
    for form in FORMS:
        longest = form + "\U0001f680" * (len(form) // 3)
        assert parse("--" + longest).error.endswith(f"Did you mean '--{form}'?")
        assert "Did you mean" not in parse("--" + longest + "\U0001f680").error


def test_no_suggestion_keeps_e1_byte_for_byte() -> None:  # S6
    for token in ("--foo", "--x", "---", "--=x", "--" + "autonomous" * 1000):
        assert parse(token).error == f"Unknown flag '{token}'. Supported flags: {SUPPORTED_FLAGS}."
