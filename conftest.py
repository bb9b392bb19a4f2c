"""Loaded for every test (tests/ and parity/): the tiers (parity/tiers.py), what a missing optional tool skips, and
CI's rule about it."""

import os

import pytest

pytest_plugins = ["parity.optional"]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--tier",
        choices=("default", "full", "all"),
        default=os.environ.get("SAGE_FLAGS_TIER", "default"),
        help="default: what `make test` runs; full: its complement (`make test-full`); all: both (parity/tiers.py)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "full: the test runs in `make test-full` only (parity/tiers.py)")


@pytest.hookimpl(trylast=True)  # after -k and -m: the counts below are of what was asked for
def pytest_collection_modifyitems(config: pytest.Config, items: list) -> None:
    """Keep the items of the tier asked for (--tier), the others deselected and counted."""
    from parity import tiers

    wanted = config.getoption("tier")
    by_tier = tiers.split(items, tiers.Assigner(items))
    config.stash[TIER_COUNTS] = {tier: len(found) for tier, found in by_tier.items()}
    if wanted == "all":
        return
    other = [item for tier, found in by_tier.items() if tier != wanted for item in found]
    if other:
        config.hook.pytest_deselected(items=other)
    items[:] = by_tier[wanted]


TIER_COUNTS = pytest.StashKey[dict]()


def pytest_sessionfinish(session: pytest.Session) -> None:
    """An xdist worker hands its counts to the controller, which prints them (the controller collects nothing)."""
    counts = session.config.stash.get(TIER_COUNTS, None)
    if counts and hasattr(session.config, "workeroutput"):
        session.config.workeroutput["tier_counts"] = counts


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:
    counts = getattr(node, "workeroutput", {}).get("tier_counts")
    if counts:
        node.config.stash[TIER_COUNTS] = counts


def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:
    counts = config.stash.get(TIER_COUNTS, None)
    if counts:
        terminalreporter.write_line(
            f"tiers: {counts['default']} tests of make test, {counts['full']} of make test-full among those collected "
            f"(--tier={config.getoption('tier')} ran; parity/tiers.py)"
        )


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
