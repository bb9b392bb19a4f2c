"""ARGUMENTS on standard input (docs/SPEC.md section 16, I1-I6) through every layer's real command line.

The fixed cases are vectors (stdin-*, announce-stdin-*, resume-stdin-* in parity/vectors/sage-1.1.jsonl, run by
parity/test_vectors.py, tests/test_announce.py, tests/test_manifest.py and, through the launcher, by
tests/test_launcher.py). Here: the bound (I4), a terminal (I5), and the operand/stdin equivalence (I2) on a
sample of every parse vector.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from process_trace import process_calls

from parity import vectors
from parity.layers import ROOT, BashInterpreter, Layer, available_layers

LIMIT = 262144
PARSE_LAYERS = available_layers("parse")
ANNOUNCE_LAYERS = available_layers("announce")
RESUME_LAYERS = available_layers("resume")


def goal_of(stdout: bytes) -> bytes:
    return stdout.split(b'"goal": "', 1)[1].split(b'", "error"', 1)[0]


def assert_usage_error(result, where: str) -> None:
    assert (result.returncode, result.stdout) == (2, b""), where
    assert result.stderr.endswith(b"\n") and result.stderr.count(b"\n") == 1, where


@pytest.mark.parametrize("layer", PARSE_LAYERS, ids=lambda layer: layer.name)
def test_the_bound(layer: Layer) -> None:
    """I4: 262144 bytes parse; one more is a usage error; a NUL before that byte is E4 (I3)."""
    exactly = b"--autonomous " + b"x" * (LIMIT - 13)
    done = layer.run("parse", [b"--stdin"], stdin=exactly)
    assert (done.returncode, done.stderr) == (0, b""), layer.name
    assert goal_of(done.stdout) == b"x" * (LIMIT - 13), layer.name
    assert_usage_error(layer.run("parse", [b"--stdin"], stdin=exactly + b"\n"), layer.name)
    assert_usage_error(layer.run("parse", [b"--stdin"], stdin=exactly * 8), layer.name)
    nul_last = layer.run("parse", [b"--stdin"], stdin=exactly + b"\0")
    assert (nul_last.returncode, b"not valid UTF-8" in nul_last.stdout) == (1, True), layer.name
    nul_first = layer.run("parse", [b"--stdin"], stdin=b"go\0" + exactly * 2)
    assert (nul_first.returncode, b"not valid UTF-8" in nul_first.stdout) == (1, True), layer.name


def _run_on_a_terminal(layer: Layer, command: str, args: list) -> "subprocess.CompletedProcess[bytes]":
    pty = pytest.importorskip("pty", reason="no pseudo-terminals on this system")
    controller, terminal = pty.openpty()
    try:
        full_env = {**os.environ, **layer.env}
        done = subprocess.run(
            layer.argv(command, args), stdin=terminal, capture_output=True, env=full_env, cwd=layer.cwd, timeout=30
        )
    finally:
        os.close(terminal)
        os.close(controller)
    return done


@pytest.mark.parametrize("layer", ANNOUNCE_LAYERS, ids=lambda layer: layer.name)
def test_a_terminal_is_never_waited_for(layer: Layer) -> None:
    """I5: with a terminal as standard input, --stdin is a usage error at once (a hang fails by the timeout)."""
    for command, args in (("parse", [b"--stdin"]), ("announce", [b"build", b"--stdin"])):
        assert_usage_error(_run_on_a_terminal(layer, command, args), f"{layer.name} {command}")


@pytest.mark.parametrize("layer", RESUME_LAYERS, ids=lambda layer: layer.name)
def test_resume_on_a_terminal(layer: Layer, tmp_path: Path) -> None:
    assert_usage_error(_run_on_a_terminal(layer, "resume", [os.fsencode(tmp_path / "m.md"), b"--stdin"]), layer.name)


def sample() -> list:
    """Every fourth parse vector that an operand can carry (no usage error, no environment, no stdin)."""
    cases = [
        v for v in vectors.load_all("parse") if v.status != 2 and not v.env and not v.stdin and b"--stdin" not in v.argv
    ]
    return cases[::4]


@pytest.mark.parametrize("layer", PARSE_LAYERS, ids=lambda layer: layer.name)
def test_stdin_gives_the_operands_bytes(layer: Layer, tmp_path: Path) -> None:
    """I2: each sampled vector's ARGUMENTS on standard input, with the LF a heredoc adds (C6), gives the
    vector's stdout; options first, as SKILL.md teaches (--config-path P --stdin)."""
    cases = sample()
    assert len(cases) > 40
    for i, vector in enumerate(cases):
        work = tmp_path / str(i)
        work.mkdir()
        operands, config, _ = vectors.split_argv(vector.materialise(work))
        options = [b"--config-path", config] if config is not None else []
        done = layer.run("parse", [*options, b"--stdin"], stdin=b" ".join(operands) + b"\n")
        where = f"{layer.name} {vector.name}"
        assert (done.stdout, done.returncode, done.stderr) == (vector.stdout, vector.status, b""), where


@pytest.mark.parametrize("script", ["parse", "announce", "resume"])
def test_bash_reads_stdin_without_forking(bash: BashInterpreter, script: str, tmp_path: Path) -> None:
    """D24: --stdin is read by the read builtin: one execve (bash itself), no fork."""
    path = ROOT / "python" / "sage_flags" / "bash" / f"{script}.sh"
    head = {"parse": [], "announce": ["build"], "resume": [str(tmp_path / "m.md")]}[script]
    stdin = "--autonomous ship \u202e it\nnext line\n".encode()
    calls = process_calls([bash.path, str(path), *head, "--stdin"], tmp_path, stdin)
    assert len(calls) == 1 and "execve(" in calls[0], calls
