"""Loaded for every test (tests/ and parity/): what a missing optional tool skips, and CI's rule about it."""

import pytest

pytest_plugins = ["parity.optional"]


def pytest_runtest_setup(item: pytest.Item) -> None:
    """A test given a vector that this machine cannot pose for want of something (a locale its environment names:
    without it the variable means the C locale, and bash warns on stderr) is skipped, whatever its layer."""
    # Here, not in parity/optional.py: parity/vectors.py imports that module.
    from parity.optional import PREFIX
    from parity.vectors import Vector, cannot_run_here

    for value in getattr(getattr(item, "callspec", None), "params", {}).values():
        reason = cannot_run_here(value) if isinstance(value, Vector) else None
        if reason and reason.startswith(PREFIX):
            pytest.skip(reason)
