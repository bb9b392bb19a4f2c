"""`announce`: the announcement vectors on every layer, the escaping rule, and a differential fuzz test.

The parse/batch runner (parity/test_vectors.py) ignores "announce" vectors; they run here.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from process_trace import process_calls
from sage_flags._vocabulary import vocabulary
from sage_flags.announce import TERMINAL_ESCAPES, is_workflow_name, render, terminal_safe
from sage_flags.reference import parse

from parity import vectors
from parity.layers import PYTHON, ROOT, BashInterpreter, Layer, available_layers, bash_interpreters
from parity.test_vectors import skip_what_this_system_lacks

ANNOUNCE_VECTORS = vectors.load_all("announce")
LAYERS = available_layers("announce")
UNSAFE = {c for c in range(0x20) if c not in (0x09, 0x0A)} | {0x7F} | set(range(0x80, 0xA0))
# A5: the bidi controls and the line/paragraph separators are escaped too.
BIDI = {0x061C, 0x200E, 0x200F, 0x2028, 0x2029, *range(0x202A, 0x202F), *range(0x2066, 0x206A)}
OUR_LINES = ("Sage \u2192 ", "Sage: ", "Note: ", "Goal: ")


def assert_unforgeable(text: str, where: str) -> None:
    """A4/A5: no raw unsafe character, and every line at column 0 is one sage-flags wrote."""
    assert not {ord(c) for c in text} & (UNSAFE | BIDI), where
    lines = text.split("\n")[:-1]
    assert lines[0].startswith(OUR_LINES[:2]), where
    for line in lines[1:]:
        assert line.startswith(OUR_LINES[2:]) or line.startswith("      "), f"{where}: {line!r}"


check = vectors.assert_matches


@pytest.mark.parametrize("layer", LAYERS, ids=lambda layer: layer.name)
@pytest.mark.parametrize("vector", ANNOUNCE_VECTORS, ids=lambda v: v.name)
def test_announce_vector(layer: Layer, vector: vectors.Vector, tmp_path: Path) -> None:
    skip_what_this_system_lacks(vector)
    result = layer.run("announce", vector.materialise(tmp_path), stdin=vector.stdin, env=vector.env)
    check(vector, result, f"{layer.name} {vector.name}")


def test_vectors_cover_the_issue_cases() -> None:
    statuses = {v.status for v in ANNOUNCE_VECTORS}
    assert statuses == {0, 1, 2}
    outputs = b"".join(v.stdout for v in ANNOUNCE_VECTORS)
    assert b" (config)" in outputs and b"\\u001b" in outputs and b"\\u009b" in outputs
    assert any(v.argv[-1:] == (b"--config-path",) for v in ANNOUNCE_VECTORS)
    assert len(ANNOUNCE_VECTORS) >= 10


def test_vector_output_is_terminal_safe() -> None:
    """Every expected line is UTF-8, ends in LF, and holds no raw unsafe control character."""
    for vector in ANNOUNCE_VECTORS:
        text = vector.stdout.decode("utf-8")
        assert text == "" or text.endswith("\n"), vector.name
        if text:
            assert_unforgeable(text, vector.name)


def test_a_goal_cannot_forge_a_header_or_modes_line() -> None:
    """Issue 17: the goal's second line looked exactly like a real announcement."""
    forged = "Sage \u2192 build workflow. Modes: --quality-locked, --autonomous"
    text, status = render("build", parse("fix typo\n" + forged + "\r\n\u2028" + forged))
    assert status == 0
    assert text == (
        "Sage \u2192 build workflow.\nGoal: fix typo\n      " + forged + "\\u000d\n      \\u2028" + forged + "\n"
    )
    assert_unforgeable(text, "forged")


def test_every_layer_is_there() -> None:
    names = {layer.name for layer in LAYERS}
    assert {"cli-pure", "module-pure"} <= names
    assert {bash.name for bash in bash_interpreters()} <= names


def test_escape_table_is_exactly_the_unsafe_set() -> None:
    assert set(TERMINAL_ESCAPES) == UNSAFE | BIDI | {0x0A}
    codes = [c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
    got = terminal_safe("".join(map(chr, codes)))
    expected = {**{c: "\\u%04x" % c for c in UNSAFE | BIDI}, 0x0A: "\n      "}
    assert got == "".join(expected.get(c, chr(c)) for c in codes)


@pytest.mark.parametrize(
    ("name", "ok"),
    [
        (b"build", True),
        (b"a", True),
        (b"my-flow-2", True),
        (b"x-", True),
        (b"", False),
        (b"Build", False),
        (b"2x", False),
        (b"-x", False),
        (b"build\n", False),
        (b"bu ild", False),
        (b"b_x", False),
        (b"caf\xc3\xa9", False),
    ],
)
def test_workflow_name(name: bytes, ok: bool) -> None:
    assert is_workflow_name(name) is ok


def test_render_follows_the_vocabulary(monkeypatch: pytest.MonkeyPatch) -> None:
    """The mode list comes from the result's vocabulary: a third mode appears without touching announce.py."""
    from sage_flags import _vocab

    table = _vocab.TABLES["sage-1.1"]
    dry_run = {**table, "modes": (*table["modes"], ("dry_run", "dry-run"))}
    monkeypatch.setitem(_vocab.TABLES, "sage-dry-run", dry_run)

    class Result:
        vocabulary = "sage-dry-run"
        error = None
        goal = "g"
        quality_locked, quality_locked_source = False, None
        autonomous, autonomous_source = True, "config"
        dry_run, dry_run_source = True, "flag"

    text, status = render("build", Result())  # type: ignore[arg-type]
    assert (text, status) == ("Sage → build workflow. Modes: --autonomous (config), --dry-run\nGoal: g\n", 0)


def test_render_in_process_matches_the_cli() -> None:
    text, status = render("build", parse("--quality-locked  ship\x1b[0m it"))
    assert status == 0
    assert text == "Sage → build workflow. Modes: --quality-locked\nGoal: ship\\u001b[0m it\n"
    assert render("build", parse("--x")) == (
        "Sage: Unknown flag '--x'. Supported flags: " + vocabulary().supported_flags + ".\n",
        1,
    )


@pytest.mark.parametrize("backend", ["python", "native"])
def test_announce_uses_the_loaded_backend(backend: str) -> None:
    """announce goes through sage_flags.parse: with SAGE_FLAGS_BACKEND=native and no native core, it cannot run."""
    native = subprocess.run([PYTHON, "-c", "import sage_flags._native"], capture_output=True).returncode == 0
    env = dict(os.environ, SAGE_FLAGS_BACKEND=backend)
    code = "import sage_flags.announce as a, sage_flags; a.run_announce([b'build'], 'sage-1.1')"
    code += "; print(sage_flags.BACKEND)"
    result = subprocess.run([PYTHON, "-c", code], capture_output=True, env=env)
    if backend == "native" and not native:
        assert result.returncode != 0 and b"ImportError" in result.stderr
    else:
        assert result.stdout == f"Sage → build workflow.\n{backend}\n".encode()


def test_announce_does_not_load_explain_or_json() -> None:
    code = (
        "import sys; from sage_flags.cli import main; main(['announce', 'build', 'x']); sys.stdout.flush();"
        "print(sorted(m for m in ('re', 'json', 'typing', 'sage_flags.explain') if m in sys.modules))"
    )
    result = subprocess.run(
        [PYTHON, "-c", code], capture_output=True, env=dict(os.environ, SAGE_FLAGS_BACKEND="python")
    )
    assert result.stdout.splitlines()[-1] == b"[]"


# Differential fuzzing: every announce layer agrees on generated argument lists.
_PIECES = st.sampled_from(
    ["--quality-locked", "--no-quality-locked", "--autonomous", "--no-autonomous", "--", "--x", "--autonomous=1"]  # noqa: RUF005
    + [" ", "\t", "\n", "\r", "\x0b", "\x1b[1m", "\x7f", "\u0085", "\u009b", "\u00a0", "\u2028", "é", "ship", "-h", ""]
    + ["\u202e", "\u2066", "\u061c", "\u200f", "\u2029", "Sage \u2192 build workflow. Modes: --autonomous"]
)
_ITEM = st.lists(_PIECES, max_size=6).map("".join) | st.text(max_size=8).filter(lambda s: "\0" not in s)
_ARGV = st.lists(_ITEM.map(lambda s: s.encode("utf-8", "surrogateescape")) | st.binary(max_size=4), max_size=5)


def _run_all(args):
    results = {}
    for layer in LAYERS:
        done = layer.run("announce", args)
        results[layer.name] = (done.returncode, done.stdout, done.stderr if done.returncode != 2 else b"")
    return results


@settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(
    workflow=st.sampled_from([b"build", b"architect", b"Build", b""]),
    argv=_ARGV.filter(lambda items: all(b"\0" not in item for item in items)),
    config=st.sampled_from([None, "quality_locked: true\n", "autonomous: true\nquality_locked: true\n"]),
    trailing=st.sampled_from([[], [b"--config-path"]]),
)
def test_layers_agree_on_generated_arguments(tmp_path_factory, workflow, argv, config, trailing) -> None:
    tmp = tmp_path_factory.mktemp("announce")
    extra = []
    if config is not None:
        path = tmp / "config.yaml"
        path.write_text(config)
        extra = [b"--config-path", os.fsencode(path)]
    args = [workflow, *argv, *extra, *trailing]
    results = _run_all(args)
    assert len(set(results.values())) == 1, results
    status, stdout, _ = next(iter(results.values()))
    assert status in (0, 1, 2)
    if status in (0, 1):
        assert_unforgeable(stdout.decode("utf-8"), repr(args))


def test_a_new_mode_reaches_every_announce_layer(tmp_path: Path) -> None:
    """No announce layer names a mode: one entry in spec/flags.toml and the generator are enough."""
    ignore = shutil.ignore_patterns("__pycache__", "target", "*.so", "*.egg-info")
    for part in ("spec", "tools", "python", "sage"):
        shutil.copytree(ROOT / part, tmp_path / part, ignore=ignore)
    with open(tmp_path / "spec" / "flags.toml", "a", encoding="utf-8") as vocab:
        vocab.write('\n[[mode]]\nkey = "dry_run"\nname = "dry-run"\n')
    subprocess.run([PYTHON, "tools/generate.py", "--root", str(tmp_path)], check=True, capture_output=True)
    config = tmp_path / "c.yaml"
    config.write_bytes(b"dry_run: true\n")
    commands = {"python": [PYTHON, "-m", "sage_flags", "announce"]}
    for bash in bash_interpreters():
        commands[bash.name] = [bash.path, str(tmp_path / "python/sage_flags/bash/announce.sh")]
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "python"), SAGE_FLAGS_BACKEND="python")
    for name, command in commands.items():
        args = ["build", "--autonomous go", "--config-path", str(config)]
        result = subprocess.run([*command, *args], capture_output=True, env=env)
        assert result.stdout == "Sage → build workflow. Modes: --autonomous, --dry-run (config)\nGoal: go\n".encode(), (
            name
        )
        unknown = subprocess.run([*command, "build", "--x"], capture_output=True, env=env).stdout
        assert unknown.endswith(b"Supported flags: --quality-locked, --autonomous, --dry-run.\n"), name


MAX_ITEM = 131071  # the largest argv item Linux passes, without its NUL
_UNSAFE_BYTES = bytes(c for c in range(1, 32) if c not in (9, 10)) + b"\x7f" + "\u0080\u009b\u009f".encode()
LARGE_GOALS = {
    "unsafe-controls": _UNSAFE_BYTES * (MAX_ITEM // len(_UNSAFE_BYTES)),
    "ansi-escapes": b"\x1b[1mbold\x1b[0m " * (MAX_ITEM // 14),
    "c1-after-two-byte-chars": "\u00e9\u0085".encode() * (MAX_ITEM // 4),
    "c1-at-odd-offsets": ("x\u0085" * (MAX_ITEM // 3)).encode(),
    "bidi-at-odd-offsets": ("x\u202e\u061c" * (MAX_ITEM // 6)).encode(),
    "newlines": b"go\n" * (MAX_ITEM // 3),
}


@pytest.mark.parametrize("name", sorted(LARGE_GOALS))
def test_128_kib_goals_announce_in_linear_time(bash: BashInterpreter, name: str) -> None:
    """C21 for announce.sh: linear on every bash (the escapes go in pieces, never cut inside a C1 control).
    A generous bound only: bash 3.2 spends ~6 s on the worst of these here; quadratic was ~100 s."""
    goal = LARGE_GOALS[name]
    assert len(goal) <= MAX_ITEM
    script = ROOT / "python" / "sage_flags" / "bash" / "announce.sh"
    start = time.perf_counter()
    result = subprocess.run([bash.path, str(script), "build", goal], capture_output=True, timeout=120)
    elapsed = time.perf_counter() - start
    text, status = render("build", parse(goal.decode("utf-8")))
    assert (result.stdout, result.returncode, result.stderr) == (text.encode("utf-8"), status, b"")
    assert elapsed < 30, f"{name}: {elapsed:.1f} s: a quadratic path is back"


def test_announce_sh_does_not_fork(bash: BashInterpreter, tmp_path: Path) -> None:
    """bash rules of parse.sh: no fork, no external command (one execve: bash itself)."""
    script = ROOT / "python" / "sage_flags" / "bash" / "announce.sh"
    config = tmp_path / "c.yaml"
    config.write_bytes(b"autonomous: true\n")
    args = ["build", "--quality-locked \x1b[1m goal \u009b", "--config-path", str(config)]
    calls = process_calls([bash.path, str(script), *args], tmp_path)
    assert len(calls) == 1 and "execve(" in calls[0], calls
