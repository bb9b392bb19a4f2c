"""What the suite needs from the machine beyond the checkout: strace, dash, the locales the vectors name, the old
bashes built from ../shared/bash/, the Pythons of the matrix. `make test` installs none of them (no apt, no
root): a test that needs one that is missing here is skipped with a reason made by ``missing``, and the end of the
run names each such reason once, on one line, with the tests it skipped. Under CI=true (.ci/run installs every
one of them first) such a skip is a failure, so CI runs everything; SAGE_FLAGS_MAY_SKIP (comma-separated
patterns, fnmatch) names what a CI job knowingly lacks, e.g. "Python 2.7,locale *" on a hosted runner.

Loaded for every test by the root conftest.py (``pytest_plugins``).
"""

from __future__ import annotations

import fnmatch
import os
import shutil
from collections import Counter
from typing import Dict, Optional

import pytest

PREFIX = "needs "


def missing(what: str, why: str) -> str:
    """The skip reason for a test that needs ``what`` (e.g. "strace"), missing here: ``why`` says what for."""
    return f"{PREFIX}{what}: {why}"


def skip_without_program(program: str, why: str) -> str:
    """The program's path, or the test is skipped (``missing``)."""
    found = shutil.which(program)
    if found is None:
        pytest.skip(missing(program, f"not on PATH; {why}"))
    return found


def _reason(report: pytest.TestReport) -> Optional[str]:
    """The skip reason of a skipped report, when it is one of ``missing``'s."""
    if not report.skipped or not isinstance(report.longrepr, tuple):
        return None
    reason = report.longrepr[2].replace("Skipped: ", "", 1)
    return reason if reason.startswith(PREFIX) else None


def _may_skip(reason: str) -> bool:
    what = reason[len(PREFIX) :].split(":", 1)[0]
    allowed = [p.strip() for p in os.environ.get("SAGE_FLAGS_MAY_SKIP", "").split(",") if p.strip()]
    return any(fnmatch.fnmatchcase(what, pattern) for pattern in allowed)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    report = yield
    reason = _reason(report)
    if reason and os.environ.get("CI") == "true" and not _may_skip(reason):
        report.outcome = "failed"
        report.longrepr = f"CI=true: skipped because it {reason}. .ci/run installs it: a skip here is a failure."
    return report


def pytest_terminal_summary(terminalreporter) -> None:
    """One line per missing thing: what for (the first reason given), how many tests it skipped, in which files."""
    skipped: Dict[str, Counter] = {}
    first: Dict[str, str] = {}
    for report in terminalreporter.stats.get("skipped", []):
        reason = _reason(report)
        if reason:
            what = reason.split(":", 1)[0]
            first.setdefault(what, reason)
            skipped.setdefault(what, Counter())[report.nodeid.split("::", 1)[0]] += 1
    if not skipped:
        return
    terminalreporter.write_sep("-", "skipped: what this machine lacks (CI=true makes each a failure)")
    for what, files in sorted(skipped.items()):
        where = ", ".join(f"{name} ({count})" for name, count in sorted(files.items()))
        terminalreporter.write_line(f"{first[what]}: skipped {sum(files.values())} tests in {where}")
