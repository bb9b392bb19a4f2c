"""SPEC rules stated as properties, checked on every layer's real `parse` command line.

The vectors compare the layers with expectations; these tests do not ask any implementation
what the answer is. Each property derives the expected output from the rule it cites, with
the vocabulary read from spec/flags.toml, so a bug the reference shares with the other layers
(and that regenerated vectors would copy) still fails here. Seeds are fixed: a failure replays.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from parity import tiers
from parity.layers import PROJECT, available_layers

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the dev venv is 3.11
    tomllib = pytest.importorskip("tomli")

MODES: List[Tuple[str, str]] = [
    (m["key"], m["name"])
    for m in tomllib.loads((PROJECT / "spec" / "flags.toml").read_text(encoding="utf-8"))["mode"]
    if "value" not in m  # modes that take a value have rules of their own (V1-V8)
]
KEYS = [key for key, _ in MODES]
FLAGS = {f"--{name}": (key, True) for key, name in MODES}
FLAGS.update({f"--no-{name}": (key, False) for key, name in MODES})
WHITESPACE = " \t\n\x0b\x0c\r"  # C5, exactly
E1_PREFIX = "Unknown flag '{}'. Supported flags: " + ", ".join(f"--{name}" for _, name in MODES) + "."
E4 = "Arguments are not valid UTF-8."

LAYERS = available_layers("parse")
# make test checks each example on the primary layers (the pure reference, the binding, the executable, each bash),
# make test-full on the other entries (parity/tiers.py: a part "rest" is test-full's).
PARTS = {
    "primary": [layer for layer in LAYERS if tiers.is_primary(layer)],
    "rest": [layer for layer in LAYERS if not tiers.is_primary(layer)],
}
EXAMPLES = 25  # each example runs once per layer of the part
PROPERTY = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)


# -- strategies ------------------------------------------------------------------------------------

whitespace_runs = st.text(alphabet=WHITESPACE, min_size=1, max_size=4)
# Goal text: any character an argv item can hold (no NUL), whitespace of every kind inside.
goal_chars = st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00")
goals = st.text(goal_chars, min_size=1, max_size=40).filter(
    lambda g: g.strip(WHITESPACE) != "" and not g.strip(WHITESPACE).startswith("--")
)
# A consistent set of leading flags: at most one direction per mode, each possibly repeated.
flag_settings = st.dictionaries(st.sampled_from(KEYS), st.booleans(), max_size=len(KEYS))
some_flags = st.dictionaries(st.sampled_from(KEYS), st.booleans(), min_size=1, max_size=len(KEYS))


def flag_tokens(setting: Dict[str, bool]) -> List[str]:
    names = dict(MODES)
    return [f"--{names[key]}" if on else f"--no-{names[key]}" for key, on in setting.items()]


def unknown_names(draw_name: str) -> bool:
    """A `--NAME` token that C7 must answer with E1: neither a flag nor a flag with `=VALUE` (E2)."""
    token = "--" + draw_name
    return token not in FLAGS and token.split("=", 1)[0] not in FLAGS


unknown_tokens = st.text(
    st.characters(whitelist_categories=("Ll", "Lu", "Nd"), whitelist_characters="-=_."), min_size=1, max_size=20
).filter(unknown_names)


# -- expectations, from the rules ------------------------------------------------------------------


def expected_line(modes: Dict[str, bool], sources: Dict[str, Optional[str]], goal: str, error: Optional[str]) -> bytes:
    """C16/C17: the one JSON line, keys in vocabulary order, json.dumps(ensure_ascii=False) escaping."""
    obj: Dict[str, object] = {key: modes.get(key, False) for key in KEYS}
    obj["goal"] = goal
    obj["error"] = error
    obj.update({f"{key}_source": sources.get(key) for key in KEYS})
    return (json.dumps(obj, ensure_ascii=False) + "\n").encode("utf-8")


def resolved(setting: Dict[str, bool], defaults: Sequence[str] = ()) -> bytes:
    """C15 for a clean parse (goal filled in by the caller)."""
    modes = {key: setting.get(key, key in defaults) for key in KEYS}
    sources = {key: "flag" if key in setting else "config" if key in defaults else None for key in KEYS}
    return expected_line(modes, sources, "\0GOAL\0", None)


def with_goal(line: bytes, goal: str) -> bytes:
    return line.replace(b'"\\u0000GOAL\\u0000"', json.dumps(goal, ensure_ascii=False).encode("utf-8"))


def error_line(message: str) -> bytes:
    """C18."""
    return expected_line({}, {}, "", message)


_part: List[str] = ["primary"]


@pytest.fixture(autouse=True, params=sorted(PARTS))
def part(request: pytest.FixtureRequest):
    """The layers this item's examples run on (a module global: hypothesis calls the test, not pytest)."""
    _part[0] = request.param
    yield request.param


def run_everywhere(arguments: bytes, config: Optional[Path] = None) -> Dict[str, Tuple[int, bytes, bytes]]:
    # Options first, then `--` (C1): an ARGUMENTS that looks like `--config-path` stays an operand.
    argv = ([b"--config-path", bytes(config)] if config is not None else []) + [b"--", arguments]
    out = {}
    for layer in PARTS[_part[0]]:
        result = layer.run("parse", argv)
        out[layer.name] = (result.returncode, result.stdout, result.stderr)
    return out


def assert_everywhere(arguments: bytes, status: int, stdout: bytes, config: Optional[Path] = None) -> None:
    wrong = {name: got for name, got in run_everywhere(arguments, config).items() if got != (status, stdout, b"")}
    assert not wrong, f"ARGUMENTS {arguments!r}: expected status {status} and {stdout!r}; got {wrong}"


# -- properties -------------------------------------------------------------------------------------


@seed(16)
@PROPERTY
@given(setting=flag_settings, gaps=st.lists(whitespace_runs, min_size=4, max_size=4), goal=goals)
def test_c6_c9_the_goal_comes_back_exactly(setting: Dict[str, bool], gaps: List[str], goal: str) -> None:
    """C6, C7, C9: leading flags are taken off; the goal is the rest, trimmed at both ends, byte for byte."""
    tokens = flag_tokens(setting)
    text = gaps[0] + "".join(t + gaps[1] for t in tokens) + goal + gaps[2]
    expected = with_goal(resolved(setting), goal.strip(WHITESPACE))
    assert_everywhere(text.encode("utf-8"), 0, expected)


@seed(7)
@PROPERTY
@given(setting=some_flags, repeat=st.integers(1, 3), data=st.data())
def test_c7_flag_order_and_repetition_do_not_matter(setting: Dict[str, bool], repeat: int, data) -> None:
    """C7: any permutation of consistent leading flags, each repeated, gives the same modes."""
    tokens = data.draw(st.permutations(flag_tokens(setting) * repeat))
    expected = with_goal(resolved(setting), "go")
    assert_everywhere((" ".join(tokens) + " go").encode("utf-8"), 0, expected)


@seed(5)
@PROPERTY
@given(setting=some_flags, runs=st.lists(whitespace_runs, min_size=3, max_size=3))
def test_c5_any_whitespace_run_is_one_separator(setting: Dict[str, bool], runs: List[str]) -> None:
    """C5: a run of the six whitespace characters between flags is one separator; nothing else is whitespace."""
    tokens = flag_tokens(setting)
    text = runs[0].join(tokens) + runs[1] + "ship" + runs[2]
    assert_everywhere(text.encode("utf-8"), 0, with_goal(resolved(setting), "ship"))
    # A Unicode space (C5's ordinary characters) glues the next word to the flag: E1 names the whole token.
    glued = tokens[0] + "\u00a0ship"
    named = f"Unknown flag '{glued}'."
    for layer, (status, stdout, stderr) in run_everywhere(glued.encode("utf-8")).items():
        assert (status, stderr) == (1, b""), (layer, status, stderr)
        assert json.loads(stdout)["error"].startswith(named), (layer, stdout)


@seed(9)
@PROPERTY
@given(setting=flag_settings, after=st.lists(st.sampled_from(sorted(FLAGS)), max_size=3), goal=goals)
def test_c7_double_dash_ends_the_flags(setting: Dict[str, bool], after: List[str], goal: str) -> None:
    """C7: `--` ends flag parsing; flags after it are goal text and change no mode."""
    rest = " ".join([*after, goal]).strip(WHITESPACE)
    text = " ".join([*flag_tokens(setting), "--", rest])
    assert_everywhere(text.encode("utf-8"), 0, with_goal(resolved(setting), rest))


@seed(14)
@PROPERTY
@given(
    setting=flag_settings,
    defaults=st.sets(st.sampled_from(KEYS)),
    noise=st.lists(st.sampled_from(KEYS), max_size=3),
    spelling=st.sampled_from(
        ["{}: True", " {}: true", "{}:true", "{}: true # on", "{}:  true", "{}: yes", "{}: 'true'"]
    ),
    crlf=st.booleans(),
)
def test_c14_c15_exactly_the_true_lines_set_defaults(
    tmp_path_factory, setting: Dict[str, bool], defaults, noise: List[str], spelling: str, crlf: bool
) -> None:
    """C13-C15: a line `KEY: true` makes KEY default-on (source config unless a flag set it); other spellings don't."""
    end = "\r\n" if crlf else "\n"
    lines = [spelling.format(key) for key in noise] + [f"{key}: true" for key in sorted(defaults)]
    config = tmp_path_factory.mktemp("config") / "config.yaml"
    config.write_bytes(end.join(["# sage", *lines, "other: 1"]).encode("utf-8") + end.encode())
    text = " ".join([*flag_tokens(setting), "go"])
    assert_everywhere(text.encode("utf-8"), 0, with_goal(resolved(setting, sorted(defaults)), "go"), config)


@seed(1)
@PROPERTY
@given(before=flag_settings, name=unknown_tokens, after=st.lists(st.sampled_from(sorted(FLAGS)), max_size=2))
def test_e1_names_exactly_the_unknown_token(before: Dict[str, bool], name: str, after: List[str]) -> None:
    """C7, C8, E1, C18: the first unknown `--token` in the leading flags is the error, named as typed."""
    token = "--" + name
    text = " ".join([*flag_tokens(before), token, *after, "go"])
    for layer, (status, stdout, stderr) in run_everywhere(text.encode("utf-8")).items():
        assert (status, stderr) == (1, b""), (layer, status, stderr)
        message = json.loads(stdout)["error"]
        assert message.startswith(E1_PREFIX.format(token)), (layer, message)
        # What may follow is only E1's suggestion (S1-S7): one of the flags.
        assert re.fullmatch(r"( Did you mean '--[a-z-]+'\?)?", message[len(E1_PREFIX.format(token)) :]), message
        assert stdout == error_line(message), (layer, stdout)


@seed(3)
@PROPERTY
@given(setting=some_flags, data=st.data())
def test_e3_the_opposite_flag_conflicts(setting: Dict[str, bool], data) -> None:
    """C7, E3: a mode's opposite flag after it was set is a conflict, named after that mode."""
    key = data.draw(st.sampled_from(sorted(setting)))
    name = dict(MODES)[key]
    opposite = f"--{name}" if not setting[key] else f"--no-{name}"
    text = " ".join([*flag_tokens(setting), opposite, "go"])
    message = f"Conflicting flags for {key}: both --{name} and --no-{name} passed."
    assert_everywhere(text.encode("utf-8"), 1, error_line(message))


@seed(4)
@PROPERTY
@given(
    head=st.text(goal_chars, max_size=10),
    bad=st.sampled_from([b"\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe2\x82", b"\x80"]),
    tail=st.text(goal_chars, max_size=10),
)
def test_e4_any_invalid_utf8_is_e4(head: str, bad: bytes, tail: str) -> None:
    """C10, D10.1: invalid UTF-8 anywhere in ARGUMENTS is E4, decided before any token."""
    assert_everywhere(head.encode("utf-8") + bad + tail.encode("utf-8"), 1, error_line(E4))


@seed(2)
@PROPERTY
@given(text=st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=60))
def test_c16_c19_one_json_line_in_key_order(text: str) -> None:
    """C16, C17, C19: any ARGUMENTS gives one line of JSON, keys in C16 order, status 0 or 1, stderr empty."""
    order = [*KEYS, "goal", "error", *[f"{key}_source" for key in KEYS]]
    for layer, (status, stdout, stderr) in run_everywhere(text.encode("utf-8")).items():
        assert status in (0, 1) and stderr == b"", (layer, status, stderr)
        assert stdout.endswith(b"\n") and stdout.count(b"\n") == 1, (layer, stdout)
        obj = json.loads(stdout)
        assert list(obj) == order, (layer, list(obj))
        assert (json.dumps(obj, ensure_ascii=False) + "\n").encode("utf-8") == stdout, (layer, stdout)
        assert (status == 1) == (obj["error"] is not None), (layer, status, obj)


def test_the_properties_cover_every_layer(part: str) -> None:
    """The properties above run on every layer of parity/layers.py, the bash interpreters included: the primary
    ones in one part, the other entries in the other."""
    names = {layer.name for layer in PARTS[part]}
    assert {layer.name for layer in PARTS["primary"] + PARTS["rest"]} == {layer.name for layer in LAYERS}
    if part == "primary":
        assert "cli-pure" in names and any(name == "bash" or name.startswith("bash-") for name in names), names
    else:
        assert {"module-pure", "compat-pure"} <= names, names
