"""Shared by the tests: the wheels of `make dist`, the Python matrix's summary (tests/test_matrix.py), and

``bash``: one bash interpreter per parameter (parity.layers.bash_interpreters(): $SAGE_FLAGS_BASHES, or the
bash on PATH), named in the test id (``test_x[bash-3.2]``). A test of the bash layer takes it and runs
``bash.path``, so that it runs under every bash the suite was given.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Dict

import pytest

from parity.layers import BashInterpreter, bash_interpreters

ROOT = Path(__file__).resolve().parent.parent
MATRIX = "tests/test_matrix.py"


def clean_env() -> Dict[str, str]:
    """The environment of a user's shell: no backend choice, no path into this checkout, no make state."""
    drop = {"SAGE_FLAGS_BACKEND", "PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "MAKEFLAGS", "MFLAGS", "MAKELEVEL"}
    return {k: v for k, v in os.environ.items() if k not in drop}


@pytest.fixture(scope="session")
def wheel_dir() -> Path:
    """Where the native and the pure wheel of `make dist` are (tests/artifacts.py builds them when needed).

    SAGE_FLAGS_WHEEL_DIR when set (make test-python points it at dist/, built before pytest starts).
    """
    given = os.environ.get("SAGE_FLAGS_WHEEL_DIR")
    if given:
        return Path(given)
    from artifacts import artifacts

    return artifacts().native_wheel.parent


def pytest_terminal_summary(terminalreporter) -> None:
    """One line per interpreter and installation of the Python matrix (a version not found: parity/optional.py)."""
    ran = []
    for outcome in ("passed", "failed"):
        for report in terminalreporter.stats.get(outcome, []):
            if getattr(report, "nodeid", "").startswith(MATRIX):
                ran += [value for name, value in report.user_properties if name == "python-matrix"]
    if not ran:
        return
    terminalreporter.write_sep("-", "Python matrix")
    kinds = ["pure", "native", "compat:"]
    for line in sorted(
        ran, key=lambda text: ([int(n) for n in text.split()[0].split(".")], kinds.index(text.split()[1]))
    ):
        terminalreporter.write_line(line)


@pytest.fixture(params=bash_interpreters(), ids=lambda interpreter: interpreter.name)
def bash(request: pytest.FixtureRequest) -> BashInterpreter:
    return request.param
