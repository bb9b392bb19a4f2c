"""The pure-Python reference, in-process (the CLI is covered by the vectors)."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest
from sage_flags import reference
from sage_flags._vocab import MODES, SUPPORTED_FLAGS
from sage_flags.reference import ParseResult, load_defaults, parse

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


def test_supported_flags_text_comes_from_the_vocabulary() -> None:
    assert SUPPORTED_FLAGS == ", ".join("--" + name for _, name in MODES)
    assert parse("--nope").error == f"Unknown flag '--nope'. Supported flags: {SUPPORTED_FLAGS}."


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
