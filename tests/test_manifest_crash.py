"""persist killed with SIGKILL at random moments: the manifest is always the old or the new file (P6).

Each run starts a persist on a large manifest, kills its whole process group
(bash's mv/sync children too) after a random delay spread over the time a
persist takes, and compares the manifest byte for byte with the old and the new
version. Temp files of killed writers may stay behind (their names end with the
dead writer's pid); the next persist removes them.

SAGE_FLAGS_CRASH_RUNS sets the runs per layer (default 60; the counts in the
issue's closing note come from a larger run); a bash other than the one on PATH
(bash 3.2, 4.4: their read builtin makes one read(2) per byte, so each persist
of this manifest takes seconds) gets a tenth of them. The test prints its counts.
"""

from __future__ import annotations

import os
import random
import signal
import stat
import subprocess
import time
from pathlib import Path

import pytest

from parity.layers import SYSTEM_BASH, Layer, available_layers, bash_interpreters

RUNS = int(os.environ.get("SAGE_FLAGS_CRASH_RUNS", "60"))
OTHER_BASHES = {bash.name for bash in bash_interpreters()} - {SYSTEM_BASH}
TEMP_MARKER = ".sage-flags-tmp."
OLD = (
    b"---\r\ntitle: crash test\r\nflags:\r\n  quality_locked: false  # resolved value\r\n  autonomous: true\r\n---\r\n"
    + b"body line \xe2\x9c\x93 of a long cycle manifest\r\n" * 60000  # ~2.6 MB: writing it takes a while
)
LINE = (
    b'{"quality_locked": true, "autonomous": false, "goal": "go", "error": null, '
    b'"quality_locked_source": "flag", "autonomous_source": null}\n'
)


def writer_layers():
    return [layer for layer in available_layers("persist") if not layer.name.startswith("module-")]


def start(layer: Layer, manifest: Path, line_file: Path) -> subprocess.Popen:
    with line_file.open("rb") as stdin:
        return subprocess.Popen(
            layer.argv("persist", [os.fsencode(manifest)]),
            stdin=stdin,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={**os.environ, **layer.env},
            start_new_session=True,  # its own process group: the kill reaches mv/sync children too
        )


def temp_files(directory: Path):
    return sorted(p for p in directory.iterdir() if TEMP_MARKER in p.name)


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@pytest.mark.parametrize("layer", writer_layers(), ids=lambda layer: layer.name)
def test_kill_9_leaves_old_or_new(layer: Layer, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    line_file = tmp_path / "line.json"
    line_file.write_bytes(LINE)
    work = tmp_path / "work"
    work.mkdir()
    manifest = work / "manifest.md"

    # The new version, and how long an undisturbed persist takes.
    manifest.write_bytes(OLD)
    manifest.chmod(0o640)
    began = time.monotonic()
    assert start(layer, manifest, line_file).wait(60) == 0
    duration = time.monotonic() - began
    new = manifest.read_bytes()
    assert new != OLD and new.endswith(OLD[OLD.index(b"body line") :])

    runs = max(1, RUNS // 10) if layer.name in OTHER_BASHES else RUNS
    rng = random.Random(8)
    counts = {"old": 0, "new": 0, "failures": 0}
    leftovers = set()
    for _ in range(runs):
        manifest.write_bytes(OLD)
        proc = start(layer, manifest, line_file)
        time.sleep(rng.uniform(0, duration * 1.2))
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:  # already finished
            pass
        proc.wait(60)
        data = manifest.read_bytes()
        if data == OLD:
            counts["old"] += 1
        elif data == new:
            counts["new"] += 1
        else:
            counts["failures"] += 1
        assert not manifest.is_symlink() and stat.S_IMODE(manifest.stat().st_mode) == 0o640
        leftovers.update(p.name for p in temp_files(work))
    with capsys.disabled():
        print(f"\n{layer.name}: {runs} kill -9 runs: {counts}, temp files left by killed writers: {len(leftovers)}")
    assert counts["failures"] == 0, counts
    assert counts["old"] + counts["new"] == runs

    # The next persist removes the temp files of writers that are gone.
    manifest.write_bytes(OLD)
    assert start(layer, manifest, line_file).wait(60) == 0
    assert manifest.read_bytes() == new
    remaining = [p for p in temp_files(work) if not pid_alive(int(p.name.rsplit(".", 1)[1]))]
    assert remaining == [], remaining
