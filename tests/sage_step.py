"""The flag-parsing step of the tests' stand-in Sage projects (docs/SPEC.md N2).

adopt verifies a vocabulary by running the project's own step (tests/e2e/test_adopt_verify_sage.py does, on Sage
installed by its own installer). A stand-in project that only exercises the files adopt writes carries the
bundle's drop-in instead: a `sage/core/flag_parser/parse.sh` that is sage-flags' own, against which adopt has
nothing to verify, so the release's vocabulary is B5's table's, as before verification existed.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tools import sage_release

OWN_PARSE_SH = "# shellcheck shell=bash\n# parse.sh: the bash layer of the sage-flags contract (a stand-in)\n"


def lay_own_step(root: Path) -> None:
    """Put the bundle's drop-in (its parse.sh) into the Sage project at ROOT."""
    folder = root / "sage" / "core" / "flag_parser"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "parse.sh").write_text(OWN_PARSE_SH)


def require_sage(release: str) -> Path:
    """Sage RELEASE's tarball (tools/sage_release.py); a test without it is skipped, and fails under CI=true."""
    archive = sage_release.archive(release)
    if not archive.is_file():
        reason = "%s is missing (Sage's releases, ../shared/sage/README.md)" % archive
        if os.environ.get("CI") == "true":
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)
    return archive
