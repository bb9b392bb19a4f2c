"""The baseline mode of `make bench` (tools/bench_baseline.py, issue 42): the interleaved median ratio, the change
against the baseline, and the flag that makes `make bench BASELINE=REF` fail. Pure functions: no process is timed."""

import math
import random
import statistics
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))

import bench_baseline
from bench_baseline import BASELINE, THIS_TREE


def row(this: float, base: float) -> dict:
    """A kept row whose trees' interleaved median ratios are ``this`` and ``base`` (CPU ratios alike)."""
    figures = lambda value: {"value": value, "cpu_ratio": value}  # noqa: E731
    return {"goal": 1.5, "unit": "x", THIS_TREE: figures(this), BASELINE: figures(base)}


def test_the_ratio_is_the_median_of_the_rounds_ratios_not_the_ratio_of_the_medians() -> None:
    # Round by round the subject costs 2x, 0.5x, 2.5x its reference: the machine's speed drifted between rounds,
    # which the ratio of the medians (3 / 4) would take for a faster subject.
    subject = [(2.0, 0.2), (3.0, 0.3), (10.0, 1.0)]
    reference = [(1.0, 0.1), (6.0, 0.6), (4.0, 0.4)]
    figures = bench_baseline.ratio_figures(subject, reference)
    assert figures["value"] == 2.0
    assert figures["cpu_ratio"] == pytest.approx(0.3 / 0.4)
    assert (figures["wall_ms"], figures["ref_wall_ms"], figures["rounds"]) == (3000.0, 4000.0, 3)


def test_a_reference_whose_cpu_reads_zero_in_a_round_gives_a_finite_cpu_ratio() -> None:
    figures = bench_baseline.ratio_figures([(0.002, 0.001)] * 3, [(0.001, 0.0), (0.001, 0.001), (0.001, 0.001)])
    assert figures["cpu_ratio"] == pytest.approx(1.0)
    assert figures["value"] == pytest.approx(2.0)


def test_rounds_unequal_in_number_are_refused() -> None:
    with pytest.raises(ValueError):
        bench_baseline.ratio_figures([(1.0, 1.0)], [])


@pytest.mark.parametrize(
    "this, base, flagged",
    [
        (0.11, 0.10, False),  # 10% worse: at the limit, kept
        (0.1102, 0.10, True),  # just past it
        (0.33, 0.10, True),
        (0.05, 0.10, False),  # better
        (1.0, 1.0, False),
    ],
)
def test_a_kept_row_more_than_ten_percent_worse_is_flagged(this: float, base: float, flagged: bool) -> None:
    compared = bench_baseline.compare(row(this, base))
    assert compared["flagged"] is flagged
    assert compared["change"] == pytest.approx(this / base - 1)
    lines = bench_baseline.regressions({"native executable vs /bin/true": compared})
    assert len(lines) == flagged
    if flagged:
        assert "native executable vs /bin/true" in lines[0] and f"{this:.2f}x" in lines[0]


def test_a_row_the_baseline_could_not_run_has_no_change_and_is_not_flagged() -> None:
    skipped = {**row(0.5, 0.1), BASELINE: {"skipped": "adopt has no verification yet"}}
    compared = bench_baseline.compare(skipped)
    assert "change" not in compared and not compared.get("flagged")
    assert bench_baseline.regressions({"r": compared}) == []
    assert "not measured: adopt has no verification yet" in "\n".join(bench_baseline.table({"r": compared}))


def test_rounds_alternate_their_order_and_keep_each_pair_side_by_side() -> None:
    names = [("this", 0), ("this", 1), ("base", 0), ("base", 1)]
    orders = list(bench_baseline.rounds(names, 3))
    assert orders == [names, names[::-1], names]
    for order in orders:
        for label in ("this", "base"):
            assert abs(order.index((label, 0)) - order.index((label, 1))) == 1


def test_a_row_the_baseline_measured_and_this_tree_could_not_is_flagged() -> None:
    broken = {**row(0.1, 0.1), THIS_TREE: {"skipped": "`sage-flags adopt` status 3"}}
    compared = bench_baseline.compare(broken)
    assert compared["flagged"] is True and "change" not in compared
    (line,) = bench_baseline.regressions({"adopted wrapper": compared})
    assert "adopted wrapper: not measured: `sage-flags adopt` status 3 against the baseline's 0.10x" in line
    assert "**NOT MEASURED**" in "\n".join(bench_baseline.table({"adopted wrapper": compared}))


def noisy_rounds(seed: int, rounds: int, shift: float) -> dict:
    """A kept row timed in ``rounds`` rounds on a loaded machine: each round's load slows both trees alike, and
    each run has noise of its own (log-normal, sigma 0.3, as at load 6-8 here); this tree's ratio is ``shift``
    times the baseline's."""
    draw = random.Random(seed)
    load = [math.exp(draw.gauss(0, 0.3)) for _ in range(rounds)]
    trees = {}
    for tree, factor in ((BASELINE, 1.0), (THIS_TREE, shift)):
        ratios = [0.1 * factor * load[i] * math.exp(draw.gauss(0, 0.3)) for i in range(rounds)]
        trees[tree] = {"value": statistics.median(ratios), "cpu_ratio": 0.1, "ratios": ratios}
    return {"goal": 0.15, "unit": "x", **trees}


def test_an_a_a_run_is_not_flagged_where_its_change_is_within_the_noise() -> None:
    """Both trees the same program: over 10 such quick runs (30 rounds) some medians differ by more than 10%,
    which the rounds' noise explains; none is flagged."""
    compared = [bench_baseline.compare(noisy_rounds(seed, 30, 1.0)) for seed in range(10)]
    assert any(c["change"] > 0.10 for c in compared)  # what a gate on the medians alone would fail
    assert not any(c["flagged"] for c in compared)
    low, high = compared[0]["change_interval"]
    assert low < 0 < high
    rows = {f"run {seed}": c for seed, c in enumerate(compared)}
    assert bench_baseline.regressions(rows) == []
    notes = bench_baseline.within_noise(rows)
    assert len(notes) == sum(c["change"] > 0.10 for c in compared) and "within this run's noise" in notes[0]


def test_a_real_regression_is_flagged_once_the_rounds_resolve_it() -> None:
    """This tree 30% slower, 150 rounds (the full bench): flagged every time, beyond the noise."""
    for seed in range(4):
        compared = bench_baseline.compare(noisy_rounds(seed, 150, 1.3))
        assert compared["flagged"] and compared["change_interval"][0] > 0, compared["change"]
