"""Shared fixtures.

``bash``: one bash interpreter per parameter (parity.layers.bash_interpreters(): $SAGE_FLAGS_BASHES, or the
bash on PATH), named in the test id (``test_x[bash-3.2]``). A test of the bash layer takes it and runs
``bash.path``, so that it runs under every bash the suite was given.
"""

from __future__ import annotations

import pytest

from parity.layers import BashInterpreter, bash_interpreters


@pytest.fixture(params=bash_interpreters(), ids=lambda interpreter: interpreter.name)
def bash(request: pytest.FixtureRequest) -> BashInterpreter:
    return request.param
