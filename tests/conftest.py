"""Shared by the tests: the wheels `make wheels` builds, and the Python matrix's summary (tests/test_matrix.py)."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path
from typing import Dict

import pytest

ROOT = Path(__file__).resolve().parent.parent
MATRIX = "tests/test_matrix.py"


def clean_env() -> Dict[str, str]:
    """The environment of a user's shell: no backend choice, no path into this checkout, no make state."""
    drop = {"SAGE_FLAGS_BACKEND", "PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "MAKEFLAGS", "MFLAGS", "MAKELEVEL"}
    return {k: v for k, v in os.environ.items() if k not in drop}


@pytest.fixture(scope="session")
def wheel_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where `make wheels` put the native and the pure wheel.

    SAGE_FLAGS_WHEEL_DIR when set (make test-python builds them once, before pytest starts); else they are
    built here, once for all xdist workers: two `make wheels` at once share target/ and collide.
    """
    given = os.environ.get("SAGE_FLAGS_WHEEL_DIR")
    if given:
        return Path(given)
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base  # this run's, common to its workers
    out, done = shared / "wheels", shared / "wheels.done"
    try:
        os.close(os.open(shared / "wheels.lock", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:  # another worker builds them
        deadline = time.monotonic() + 1800
        while not done.exists():
            assert time.monotonic() < deadline, "no wheels after 30 minutes"
            time.sleep(0.5)
        assert done.read_text() == "ok", done.read_text()
        return out
    build = subprocess.run(
        ["make", "--no-print-directory", "-s", "wheels", f"DIST={out}"],
        cwd=ROOT,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=1800,
    )
    done.write_text("ok" if build.returncode == 0 else f"make wheels failed:\n{build.stdout}{build.stderr}")
    assert build.returncode == 0, done.read_text()
    return out


def pytest_terminal_summary(terminalreporter) -> None:
    """One line per interpreter and installation of the Python matrix, and one per version not found."""
    ran, missing = [], set()
    for outcome in ("passed", "failed", "skipped"):
        for report in terminalreporter.stats.get(outcome, []):
            if not getattr(report, "nodeid", "").startswith(MATRIX):
                continue
            ran += [value for name, value in report.user_properties if name == "python-matrix"]
            if outcome == "skipped" and isinstance(report.longrepr, tuple):
                missing.add(report.longrepr[2].replace("Skipped: ", ""))
    if not ran and not missing:
        return
    terminalreporter.write_sep("-", "Python matrix")
    kinds = ["pure", "native", "compat:"]
    for line in sorted(
        ran, key=lambda text: ([int(n) for n in text.split()[0].split(".")], kinds.index(text.split()[1]))
    ):
        terminalreporter.write_line(line)
    for reason in sorted(missing):
        terminalreporter.write_line("skipped: " + reason)
