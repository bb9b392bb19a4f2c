"""parity/tiers.py: the rules name tests that exist, and its covers hold what they promise."""

from __future__ import annotations

import ast

import pytest

from parity import tiers, vectors
from parity.layers import ROOT

NAMED = sorted(
    {*tiers.FULL_ONLY, *tiers.LAYER_VECTOR_RULES, *tiers.VECTOR_COVER_TESTS, *tiers.PRODUCT_TESTS, *tiers.EXTRA_RULES}
)


@pytest.mark.parametrize("name", NAMED)
def test_every_rule_names_a_test_that_exists(name: str) -> None:
    """A test renamed or removed must not leave its rule behind (its items would fall silently into the default)."""
    path, _, function = name.partition("::")
    assert (ROOT / path).is_file(), name
    if function:
        tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
        assert function in {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}, name


def test_a_rotation_cover_takes_each_value_once_and_every_choice() -> None:
    texts = [(f"t{i}", ["a", "b", "c"]) for i in range(7)]
    for salt in ("cli-pure", "module-pure", "launcher"):
        chosen = tiers.rotation_cover(texts, salt)
        assert sorted(a for a, _ in chosen) == sorted(a for a, _ in texts)
        assert {b for _, b in chosen} == {"a", "b", "c"}


def test_streamable_is_what_a_batch_record_can_carry() -> None:
    """A streamable parse vector's operands, joined, are a record whose line is the vector's stdout (C22)."""
    parse = vectors.load_all("parse")
    streamed = [v for v in parse if tiers.streamable(v)]
    assert len(streamed) > 100
    for vector in streamed:
        _, config, from_stdin = vectors.split_argv(vector.argv, stdin_switch=True)
        assert config is None and not from_stdin and not vector.env and vector.status != 2, vector.name
    assert all(not tiers.streamable(v) for v in parse if v.config or v.stdin or v.env), "one process each"


def test_the_parts_of_a_set_are_its_cover_and_the_rest() -> None:
    every = vectors.load_all("announce")
    cover, rest = tiers.part_of(every, "cover"), tiers.part_of(every, "rest")
    assert cover and rest and sorted(v.name for v in cover + rest) == sorted(v.name for v in every)
    assert tiers.part_of(every, "every") == every
