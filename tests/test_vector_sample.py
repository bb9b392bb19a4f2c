"""The cover of the vectors (parity/tiers.py: cover) stands for the full set: every entry but the primary ones runs
it in make test, the rest in make test-full."""

from __future__ import annotations

from artifacts import packaging_sample

from parity import tiers, vectors


def test_the_cover_has_every_kind_and_rule_of_the_full_set() -> None:
    every = vectors.load_all()
    sample = tiers.cover(every)
    wanted = set().union(*(tiers.tags(v) for v in every))
    covered = set().union(*(tiers.tags(v) for v in sample))
    assert covered == wanted, sorted(wanted - covered)
    assert {rule for v in every for rule in v.rules} <= {rule for v in sample for rule in v.rules}
    assert len(sample) < len(every) / 4, f"{len(sample)} of {len(every)}: a cover should be small"
    assert tiers.cover(list(reversed(every))) == sample  # fixed: the same vectors on every run and machine


def test_a_lone_vector_with_a_new_rule_joins_the_cover() -> None:
    newcomer = vectors.Vector("zz-new", ("Z9",), (b"go",), b"", 0)
    assert newcomer in tiers.cover([*vectors.load_all(), newcomer])


def test_the_parts_split_the_set() -> None:
    every = vectors.load_all()
    cover, rest = packaging_sample("cover"), packaging_sample("rest")
    assert sorted(v.name for v in cover + rest) == sorted(v.name for v in every)
    assert not {v.name for v in cover} & {v.name for v in rest}
    assert list(packaging_sample("every")) == every
