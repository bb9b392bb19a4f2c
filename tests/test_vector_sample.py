"""The packaging tests' sample of the vectors (tests/artifacts.py: packaging_sample) stands for the full set."""

from __future__ import annotations

import pytest
from artifacts import packaging_sample, sample_tags

from parity import vectors


def test_the_sample_covers_every_kind_and_rule_of_the_full_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SAGE_FLAGS_FULL", raising=False)
    every = vectors.load_all()
    sample = packaging_sample.__wrapped__()
    wanted = set().union(*(sample_tags(v) for v in every))
    covered = set().union(*(sample_tags(v) for v in sample))
    assert covered == wanted, sorted(wanted - covered)
    assert {rule for v in every for rule in v.rules} <= {rule for v in sample for rule in v.rules}
    assert len(sample) < len(every) / 4, f"{len(sample)} of {len(every)}: a sample should be small"
    assert packaging_sample.__wrapped__() == sample  # fixed: the same vectors on every run and machine


def test_a_lone_vector_with_a_new_rule_joins_the_sample(monkeypatch: pytest.MonkeyPatch) -> None:
    every = vectors.load_all()
    newcomer = vectors.Vector("zz-new", ("Z9",), (b"go",), b"", 0)
    monkeypatch.setattr(vectors, "load_all", lambda *a, **k: [*every, newcomer])
    monkeypatch.delenv("SAGE_FLAGS_FULL", raising=False)
    assert newcomer in packaging_sample.__wrapped__()


def test_sage_flags_full_gives_every_vector(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SAGE_FLAGS_FULL", "1")
    assert list(packaging_sample.__wrapped__()) == vectors.load_all()
