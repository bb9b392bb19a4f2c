"""Loaded for every test (tests/ and parity/): what a missing optional tool skips, and CI's rule about it."""

pytest_plugins = ["parity.optional"]
