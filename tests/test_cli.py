"""Process-level behaviour beyond the vectors: help, usage errors, streaming, size, relative paths."""

from __future__ import annotations

import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from parity.layers import PYTHON, SAGE_DIR, SAGE_FLAGS, Layer, available_layers


def run(*argv: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([SAGE_FLAGS, *argv], capture_output=True, timeout=30, **kwargs)


@pytest.mark.parametrize("argv", [["--help"], ["-h"], ["help"]])
def test_help_outside_parse(argv) -> None:  # C4
    result = run(*argv)
    assert result.returncode == 0 and result.stderr == b""
    assert result.stdout.startswith(b"usage: sage-flags parse")


def test_version() -> None:
    import sage_flags

    result = run("--version")
    names = ", ".join(sage_flags._vocab.NAMES)  # docs/SPEC.md B4
    assert result.stdout == f"sage-flags {sage_flags.__version__} (vocabularies: {names})\n".encode()
    assert names == "sage-1.1, sage-1.3, sage-1.3.18"
    assert result.returncode == 0


@pytest.mark.parametrize("argv", [[], ["frobnicate"], ["PARSE", "x"], ["batch", "operand"], ["parse", "--config-path"]])
def test_usage_errors_are_one_stderr_line(argv) -> None:  # C3, C19
    result = run(*argv)
    assert result.returncode == 2
    assert result.stdout == b""
    assert result.stderr.count(b"\n") == 1 and result.stderr.startswith(b"sage-flags: ")


def test_bad_backend_choice_is_one_line_not_a_traceback() -> None:
    result = run("parse", "x", env={**os.environ, "SAGE_FLAGS_BACKEND": "fortran"})
    assert result.returncode == 3 and result.stdout == b""
    assert result.stderr.count(b"\n") == 1 and b"SAGE_FLAGS_BACKEND" in result.stderr


def test_stdout_closed_early_is_quiet() -> None:
    proc = subprocess.Popen(
        [SAGE_FLAGS, "batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    proc.stdout.close()
    _, err = proc.communicate(b"x\0" * 100000, timeout=60)
    assert b"Traceback" not in err


@pytest.mark.parametrize("layer", available_layers("batch"), ids=lambda layer: layer.name)
def test_batch_answers_each_record_before_reading_the_next(layer: Layer) -> None:  # C22
    env = {**os.environ, **layer.env}
    proc = subprocess.Popen(layer.argv("batch", []), stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
    try:
        for record, goal in ((b"first", b"first"), (b"--autonomous second", b"second"), (b"third", b"third")):
            proc.stdin.write(record + b"\0")
            proc.stdin.flush()
            ready, _, _ = select.select([proc.stdout], [], [], 20)
            assert ready, f"{layer.name}: no answer to a record while stdin stays open"
            assert b'"goal": "' + goal + b'"' in proc.stdout.readline()
    finally:
        proc.stdin.close()
        proc.wait(20)
    assert proc.returncode == 0


@pytest.mark.parametrize("layer", available_layers("batch"), ids=lambda layer: layer.name)
def test_batch_without_stdin(layer: Layer) -> None:  # C22: no records at all
    env = {**os.environ, **layer.env}
    result = subprocess.run(layer.argv("batch", []), stdin=subprocess.DEVNULL, capture_output=True, env=env, timeout=30)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


@pytest.mark.parametrize("layer", available_layers("parse"), ids=lambda layer: layer.name)
def test_128_kib_with_10000_flags(layer: Layer) -> None:  # C21, generous bound: catches a quadratic path
    # 10,000 flags just under MAX_ARG_STRLEN (131,072 bytes with the NUL): the largest argv item Linux passes.
    flags = " ".join(["--autonomous"] * 10000)
    argument = flags + " goal" * ((131000 - len(flags)) // 5)
    assert 130000 < len(argument) < 131072
    start = time.monotonic()
    result = layer.run("parse", [argument.encode()])
    assert time.monotonic() - start < 10
    assert result.returncode == 0
    assert result.stdout.startswith(b'{"quality_locked": false, "autonomous": true, "goal": "goal goal')


@pytest.mark.parametrize("layer", available_layers("parse"), ids=lambda layer: layer.name)
def test_relative_config_path_resolves_against_the_working_directory(layer: Layer, tmp_path: Path) -> None:
    (tmp_path / ".sage").mkdir()
    (tmp_path / ".sage" / "config.yaml").write_bytes(b"autonomous: true\n")
    argv = [a.replace("{sage}", str(SAGE_DIR)) for a in layer.commands["parse"]]
    env = {**os.environ, **layer.env, "PYTHONPATH": str(SAGE_DIR)}
    result = subprocess.run(
        [*argv, "go", "--config-path", ".sage/config.yaml"], capture_output=True, cwd=tmp_path, env=env, timeout=30
    )
    assert result.stdout.startswith(b'{"quality_locked": false, "autonomous": true, "goal": "go"')


def test_compat_entry_without_sage_flags_exits_with_one_line(tmp_path: Path) -> None:
    """Neither an installed sage_flags nor a checkout next to it: fall through to bash."""
    shutil.copytree(SAGE_DIR / "core", tmp_path / "core", ignore=shutil.ignore_patterns("__pycache__"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    result = subprocess.run(
        [PYTHON, "-S", "-m", "core.flag_parser", "parse", "x"], capture_output=True, cwd=tmp_path, env=env, timeout=30
    )
    assert result.returncode == 3 and result.stdout == b""
    assert result.stderr.count(b"\n") == 1


def test_compat_entry_falls_back_to_the_checkout() -> None:
    """No installed package (python -S): the checkout's python/ is found relative to the entry."""
    result = subprocess.run(
        [PYTHON, "-S", "-m", "core.flag_parser", "parse", "--autonomous go"],
        capture_output=True,
        cwd=SAGE_DIR,
        env={**os.environ, "SAGE_FLAGS_BACKEND": "python"},
        timeout=30,
    )
    assert result.returncode == 0, result.stderr
    assert b'"autonomous": true, "goal": "go"' in result.stdout


def test_predecessor_api() -> None:
    code = (
        "from core.flag_parser.parser import parse, ParseResult\n"
        "from core.flag_parser.config_loader import load_defaults\n"
        "import sys\n"
        "d = load_defaults(sys.argv[1])\n"
        "r = parse('--autonomous ship', defaults=d)\n"
        "assert d == {'quality_locked': True}, d\n"
        "assert isinstance(r, ParseResult)\n"
        "print(r.quality_locked, r.quality_locked_source, r.autonomous, r.goal, r.to_dict()['error'])\n"
    )
    with tempfile.NamedTemporaryFile("wb", suffix=".yaml") as handle:
        handle.write(b"quality_locked: true\n")
        handle.flush()
        result = subprocess.run([PYTHON, "-c", code, handle.name], capture_output=True, cwd=SAGE_DIR, timeout=30)
    assert result.stdout == b"True config True ship None\n", result.stderr


def test_python_m_sage_flags_and_the_console_script_print_the_contract_line() -> None:  # C16, C17
    argv = ["parse", "--quality-locked", "Ship \u00e9"]
    expected = (
        '{"quality_locked": true, "autonomous": false, "goal": "Ship \u00e9", "error": null, '
        '"quality_locked_source": "flag", "autonomous_source": null}\n'
    ).encode("utf-8")
    for result in (subprocess.run([PYTHON, "-m", "sage_flags", *argv], capture_output=True, timeout=30), run(*argv)):
        assert (result.returncode, result.stdout, result.stderr) == (0, expected, b"")
