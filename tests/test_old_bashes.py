"""bash 3.2 (macOS's /bin/bash) and 4.4 are proven by running them (STANDARDS): `make old-bash` builds them from
../shared/bash/ and SAGE_FLAGS_BASHES lists them for every bash test. Where they could not be built (no sources,
no bison), the bash tests ran under the other bashes only: this test says so, as a skip naming what is missing
(parity/optional.py; under CI=true a failure)."""

from __future__ import annotations

import pytest

from parity.layers import bash_interpreters
from parity.optional import missing

OLD = ((3, 2), (4, 4))


def test_the_old_bashes_run_the_bash_tests() -> None:
    here = bash_interpreters()
    lacking = [f"bash {major}.{minor}" for major, minor in OLD if (major, minor) not in {b.version for b in here}]
    if lacking:
        why = "SAGE_FLAGS_BASHES does not list it (make old-bash builds it from ../shared/bash/ with bison)"
        ran = ", ".join(b.name for b in here)
        pytest.skip(missing(" and ".join(lacking), f"{why}; the bash tests ran under {ran}"))
    assert len(here) >= 3, here  # the old ones and the system bash
