"""Section 15 of docs/SPEC.md: what a hostile repository or environment can and cannot do (issue 16).

The bash entries under every bash of SAGE_FLAGS_BASHES with functions exported into their environment or
defined by a BASH_ENV file, aliases, shell options, traps and variables such as TMOUT and FUNCNEST (H2-H4);
the config bound shared by every layer (H1). The launcher's part (H5-H7) is in tests/test_launcher.py, the
bound's vectors cfg-*limit*, cfg-sparse-4gib and cfg-symlink-to-huge-file in parity/vectors/sage-1.1.jsonl.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import pytest

from parity.layers import ROOT, BashInterpreter, Layer, available_layers
from parity.strategies import HIJACKED_BUILTINS, HIJACKING_FUNCTION, HOSTILE_BASH_ENV

DIR = ROOT / "python" / "sage_flags" / "bash"
MANIFEST = b"---\ntitle: x\nflags:\n  quality_locked: false\n---\nbody\n"

HIJACKED = list(HIJACKED_BUILTINS)
BASH_ENV_FILE = HOSTILE_BASH_ENV


def exported_functions(bash: BashInterpreter) -> Dict[str, str]:
    """The environment that defines each HIJACKED name as a function in a bash started with it."""
    if bash.version < (4, 0):  # bash 3.2.48 (never patched for Shellshock) imports `name=() {...}`
        return {name: HIJACKING_FUNCTION for name in HIJACKED}
    return {f"BASH_FUNC_{name}%%": HIJACKING_FUNCTION for name in HIJACKED}


def entries(tmp: Path) -> List[Tuple[str, List[bytes], bytes]]:
    """(script, argv, stdin) of every bash entry, each meeting a config and a manifest in ``tmp``."""
    config = tmp / "config.yaml"
    config.write_bytes(b"autonomous: true\n")
    manifest = tmp / "manifest.md"
    manifest.write_bytes(MANIFEST)
    c = [b"--config-path", os.fsencode(config)]
    line = b'{"quality_locked": true, "autonomous": false, "goal": "x", "error": null, '
    line += b'"quality_locked_source": "flag", "autonomous_source": null}\n'
    return [
        ("parse.sh", [b"--quality-locked", b"  go\tcaf\xc3\xa9 [a-z]* ", *c], b""),
        ("parse.sh", [b"--bogus", b"x"], b""),
        ("parse.sh", [b"--autonomus x" + b" y" * 700, *c], b""),  # a long typo: the one parse path
        ("batch.sh", c, b"a\0--no-autonomous b\0\xff\0--x"),
        ("announce.sh", [b"build", b"--quality-locked", b"go\x1b", *c], b""),
        ("persist.sh", [os.fsencode(manifest)], line),
        ("resume.sh", [os.fsencode(manifest), b"--no-quality-locked", b"again", *c], b""),
    ]


def run_entries(bash: BashInterpreter, tmp: Path, env: Optional[Dict[str, str]] = None) -> List[tuple]:
    tmp.mkdir()
    results = []
    for script, argv, stdin in entries(tmp):
        full_env = {k: v for k, v in os.environ.items() if not k.startswith("BASH_FUNC_")}
        full_env.update(env or {})
        done = subprocess.run(
            [bash.path, str(DIR / script), *argv], input=stdin, capture_output=True, env=full_env, timeout=60, cwd=tmp
        )
        out = done.stdout.replace(os.fsencode(tmp), b"TMP")
        results.append((script, done.returncode, out, done.stderr, (tmp / "manifest.md").read_bytes()))
    return results


def test_clean_runs_are_what_the_entries_print(bash: BashInterpreter, tmp_path: Path) -> None:
    """The baseline the tests below compare with: every entry ran and printed (no hijack happened here)."""
    clean = run_entries(bash, tmp_path / "clean")
    assert [status for _, status, *_ in clean] == [0, 1, 1, 1, 0, 3, 0]  # persist.sh refuses (SPEC P12)
    assert all(out and (not err) == (script != "persist.sh") for script, _, out, err, _ in clean)
    assert clean[-1][-1] == MANIFEST  # nothing wrote it


def test_exported_functions_change_nothing(bash: BashInterpreter, tmp_path: Path) -> None:
    """H2: `env 'BASH_FUNC_printf%%=() { builtin echo hijacked; }' bash parse.sh ...` printed `hijacked`."""
    clean = run_entries(bash, tmp_path / "clean")
    assert run_entries(bash, tmp_path / "hostile", exported_functions(bash)) == clean


def test_a_bash_env_file_that_only_defines_changes_nothing(bash: BashInterpreter, tmp_path: Path) -> None:
    """H2-H3: functions (also `.`, `[`, `:`), aliases, shell options and traps from BASH_ENV are undone before
    the first byte is written."""
    env_file = tmp_path / "bash_env.sh"
    env_file.write_text(BASH_ENV_FILE)
    clean = run_entries(bash, tmp_path / "clean")
    assert run_entries(bash, tmp_path / "hostile", {"BASH_ENV": str(env_file)}) == clean


def test_what_a_bash_env_file_prints_is_out_of_reach(bash: BashInterpreter, tmp_path: Path) -> None:
    """H4: bash sources BASH_ENV before the script's first line; what it prints, a direct call prints too (the
    launcher removes BASH_ENV, H5)."""
    env_file = tmp_path / "bash_env.sh"
    env_file.write_text("builtin echo from-bash-env\n")
    clean = run_entries(bash, tmp_path / "clean")
    hostile = run_entries(bash, tmp_path / "hostile", {"BASH_ENV": str(env_file)})
    assert [(s, st, b"from-bash-env\n" + out, e, m) for s, st, out, e, m in clean] == hostile


@pytest.mark.parametrize(
    "env",
    [
        {"CDPATH": ".:/tmp:/"},
        {"FUNCNEST": "1"},
        {"TMOUT": "1"},
        {"ENV": "/nonexistent"},
        {"SHELLOPTS": "errexit:nounset:pipefail:noclobber:allexport:errtrace:functrace:keyword"},
        {"BASHOPTS": "nocasematch:extglob:nullglob:failglob:dotglob:xpg_echo:compat31:shift_verbose:lastpipe"},
        {"POSIXLY_CORRECT": "1", "IFS": "-a"},
    ],
    ids=lambda env: ",".join(env),
)
def test_shell_variables_change_nothing(bash: BashInterpreter, env: Dict[str, str], tmp_path: Path) -> None:
    """H3 (and C20)."""
    clean = run_entries(bash, tmp_path / "clean")
    assert run_entries(bash, tmp_path / "hostile", env) == clean


def test_tmout_does_not_end_a_slow_batch(bash: BashInterpreter) -> None:
    """H3: TMOUT is read's default timeout; a record arriving 1.5 s later is still answered."""
    env = dict(os.environ, TMOUT="1")
    process = subprocess.Popen(
        [bash.path, str(DIR / "batch.sh")], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env
    )
    assert process.stdin and process.stdout
    process.stdin.write(b"a\0")
    process.stdin.flush()
    first = process.stdout.readline()
    time.sleep(1.5)
    process.stdin.write(b"b\0")
    process.stdin.close()
    rest = process.stdout.read()
    assert process.wait(timeout=30) == 0
    assert b'"goal": "a"' in first and b'"goal": "b"' in rest


# --- H1: one bound for every layer --------------------------------------------------------------------------


def test_the_config_bound_is_one_number_in_every_layer() -> None:
    from sage_flags.reference import CONFIG_LIMIT

    rust = (ROOT / "crates" / "sage-flags-core" / "src" / "config.rs").read_text()
    bash = (DIR / "parse.sh").read_text()
    assert re.search(r"pub const CONFIG_LIMIT: u64 = 64 \* 1024;", rust)
    assert re.search(r"read -r -d '' -n 65537 text; } .*# H1: over 65,536 bytes", bash)
    assert CONFIG_LIMIT == 64 * 1024 == 65536


# --- H8-H9: standard streams, in every layer -------------------------------------------------------------------

WRITE_FAILED_MESSAGE = b"sage-flags: cannot write the output to stdout (closed, full or a broken pipe)\n"
CONTRACT_LINE = b'{"quality_locked": true, "autonomous": false, "goal": "x", "error": null, '
CONTRACT_LINE += b'"quality_locked_source": "flag", "autonomous_source": null}\n'


def stream_cases(tmp: Path) -> List[Tuple[str, List[bytes], bytes]]:
    manifest = tmp / "manifest.md"
    manifest.write_bytes(MANIFEST)
    return [
        ("parse", [b"--autonomous", b"go"], b""),
        ("parse", [b"--nope"], b""),
        ("batch", [], b"a\0--nope\0"),
        ("announce", [b"build", b"go"], b""),
        ("resume", [os.fsencode(manifest), b"go"], b""),
        ("persist", [os.fsencode(manifest)], CONTRACT_LINE),
    ]


def layer_cases(command: str) -> List[object]:
    return [pytest.param(layer, id=layer.name) for layer in available_layers(command)]


def run_layer(layer: Layer, command: str, args: List[bytes], stdin: bytes, stdout, close: Tuple[int, ...] = ()):
    """The layer's real command line; the fds in ``close`` closed in the child (a caller's `>&-`, `<&-`)."""
    env = dict(os.environ, **layer.env)
    process = subprocess.Popen(
        layer.argv(command, args),
        stdin=subprocess.PIPE if 0 not in close else None,
        stdout=stdout,
        stderr=subprocess.PIPE,
        env=env,
        cwd=layer.cwd,
        preexec_fn=(lambda: [os.close(fd) for fd in close]) if close else None,
    )
    if process.stdin:
        process.stdin.write(stdin)
        process.stdin.close()
    assert process.stderr
    stderr = process.stderr.read()
    return process.wait(timeout=60), stderr


@pytest.mark.parametrize("how", ["closed", "full", "broken-pipe"])
@pytest.mark.parametrize("command", ["parse", "batch", "announce", "resume", "persist"])
def test_an_unwritable_stdout_is_status_4_and_one_line(command: str, how: str, tmp_path: Path) -> None:
    """H9, in every layer that has the command: no traceback, no bash error, no silent success."""
    layers = available_layers(command)
    assert layers
    for layer in layers:
        work = tmp_path / layer.name
        work.mkdir()
        for name, args, stdin in stream_cases(work):
            if name != command:
                continue
            if how == "closed":
                status, stderr = run_layer(layer, command, args, stdin, subprocess.DEVNULL, close=(1,))
            elif how == "full":
                with open("/dev/full", "wb") as full:
                    status, stderr = run_layer(layer, command, args, stdin, full)
            else:
                read_end, write_end = os.pipe()
                os.close(read_end)  # the reader is gone before the first write (SIGPIPE: default in the child)
                try:
                    status, stderr = run_layer(layer, command, args, stdin, write_end)
                finally:
                    os.close(write_end)
            if how == "closed" and layer.name == "exe":
                # Rust's runtime reopens a closed stdout on /dev/null before main: like `>/dev/null` (H9).
                assert (status, stderr) == run_layer(layer, command, args, stdin, subprocess.DEVNULL), args
                continue
            assert (status, stderr) == (4, WRITE_FAILED_MESSAGE), (layer.name, args)


@pytest.mark.parametrize("layer", layer_cases("batch"))
def test_a_closed_stdin_is_no_records(layer: Layer) -> None:
    """H8 (D22.1): `batch <&-` is status 0, nothing on stdout or stderr, in every layer."""
    process = subprocess.run(
        layer.argv("batch", []),
        capture_output=True,
        env=dict(os.environ, **layer.env),
        cwd=layer.cwd,
        preexec_fn=lambda: os.close(0),
        timeout=60,
    )
    assert (process.returncode, process.stdout, process.stderr) == (0, b"", b""), layer.name


@pytest.mark.parametrize("layer", layer_cases("parse"))
def test_parse_ignores_a_closed_stdin(layer: Layer) -> None:
    """H8: parse, announce and resume never read stdin."""
    process = subprocess.run(
        layer.argv("parse", [b"--autonomous", b"go"]),
        capture_output=True,
        env=dict(os.environ, **layer.env),
        cwd=layer.cwd,
        preexec_fn=lambda: os.close(0),
        timeout=60,
    )
    assert (process.returncode, process.stderr) == (0, b""), layer.name
    assert b'"autonomous": true, "goal": "go"' in process.stdout
