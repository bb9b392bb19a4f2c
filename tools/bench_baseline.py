"""The baseline mode of tools/bench.py (`--baseline REF`, `make bench BASELINE=REF`, issue 42): the trees whose
kept rows are timed side by side, the baseline's build in a temporary git worktree, and the comparison (pure: no
I/O), which flags a kept row whose figure is more than REGRESSION_LIMIT worse than the baseline's.

A kept row times a subject against a reference round by round (the two back to back in each round, the baseline's
pair in the same round), so both trees see one load; its figure is the median of the rounds' wall-time ratios.
"""

import os
import random
import shutil
import statistics
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple, TypeVar

ROOT = Path(__file__).resolve().parent.parent
REGRESSION_LIMIT = 0.10  # a kept row's figure may be at most 10% worse than the baseline's (issue 42)
THIS_TREE, BASELINE = "this tree", "baseline"
# What the baseline's build needs of this tree's: the build folders a setup fills (cargo's output: the
# registry's crates, built once, are reused; the baseline's own crates are rebuilt, their sources being newer).
REUSED_BUILD = ("target",)
Sample = Tuple[float, float]  # one run's (wall, CPU = user + system) seconds
Name = TypeVar("Name")


@dataclass(frozen=True)
class Tree:
    """A checkout whose `make setup` has run: its venv's Python and console script, its native executable."""

    label: str  # THIS_TREE, or BASELINE
    root: Path
    bin_dir: Path  # the venv's programs

    @property
    def python(self) -> Path:
        return self.bin_dir / "python"

    @property
    def console_script(self) -> Path:
        return self.bin_dir / "sage-flags"

    @property
    def native_exe(self) -> Path:  # as mk/cli.mk builds it (parity/layers.py NATIVE_EXE)
        return self.root / "target" / "native" / "sage-flags"


def commit_of(ref: str) -> str:
    """The full commit REF names in this checkout's repository (SystemExit when it names none)."""
    done = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--verify", "--quiet", ref + "^{commit}"],
                          capture_output=True, text=True)  # fmt: skip
    if done.returncode:
        raise SystemExit(f"bench: --baseline {ref}: no such commit in {ROOT}")
    return done.stdout.strip()


class BaselineTree:
    """The baseline REF checked out into a temporary git worktree under ``work`` and set up by its own `make setup`
    (its own venv and native build; pip's and cargo's caches, and a copy of this tree's target/, reused). A context
    manager: the worktree is removed at exit, whatever happened."""

    def __init__(self, ref: str, work: Path) -> None:
        self.ref, self.commit = ref, commit_of(ref)
        self.path = work / f"baseline-{self.commit[:12]}"
        self.log = work / "baseline-setup.log"

    def __enter__(self) -> Tree:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "--quiet", str(self.path), self.commit],
                       check=True)  # fmt: skip
        try:
            self.set_up()
        except BaseException:  # a failed or interrupted setup leaves no worktree either
            self.__exit__()
            raise
        return Tree(BASELINE, self.path, self.path / ".venv" / "bin")

    def set_up(self) -> None:
        for name in REUSED_BUILD:
            if (ROOT / name).is_dir():
                shutil.copytree(ROOT / name, self.path / name, symlinks=True)
        # Its own make, not this one's: none of this make's variables or jobserver reach it.
        env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "VIRTUAL_ENV")}
        with self.log.open("wb") as log:
            setup = ["make", "-C", str(self.path), "setup"]
            done = subprocess.run(setup, stdout=log, stderr=subprocess.STDOUT, env=env)
        if done.returncode:
            tail = self.log.read_text(errors="replace").splitlines()[-15:]
            raise SystemExit("bench: the baseline's `make setup` failed:\n" + "\n".join(tail))

    def __exit__(self, *_: Any) -> None:
        # Never `git worktree prune`: the repository's other worktrees are other people's.
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(self.path)], capture_output=True)
        shutil.rmtree(self.path, ignore_errors=True)


def rounds(labels: Sequence[Name], count: int) -> Iterator[List[Name]]:
    """The order of each round: ``labels`` forwards, then backwards, and so on, so that no command always runs
    first after a pause or right after another's (a subject and its reference stay side by side either way)."""
    for index in range(count):
        yield list(labels) if index % 2 == 0 else list(reversed(labels))


def ratio_figures(subject: Sequence[Sample], reference: Sequence[Sample]) -> Dict[str, float]:
    """A kept row's figures for one tree from its rounds (``subject[i]`` and ``reference[i]`` ran in round i):
    ``value``, the median of the rounds' wall-time ratios (the interleaved median ratio), its quartiles as the
    noise, and the CPU ratio: median CPU over median CPU (a 1 ms program's CPU can read 0 in a round)."""
    if len(subject) != len(reference) or not subject:
        raise ValueError("a kept row needs the same number (> 0) of subject and reference rounds")
    in_rounds = [s[0] / max(r[0], 1e-9) for s, r in zip(subject, reference)]
    ratios = sorted(in_rounds)
    quartiles = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else [ratios[0]] * 3
    medians = {
        k: statistics.median(x[i] for x in runs)
        for k, runs, i in (
            ("wall", subject, 0),
            ("cpu", subject, 1),
            ("ref_wall", reference, 0),
            ("ref_cpu", reference, 1),
        )
    }
    return {"value": statistics.median(ratios), "p25": quartiles[0], "p75": quartiles[2],
            "cpu_ratio": medians["cpu"] / max(medians["ref_cpu"], 1e-9), "rounds": len(ratios),
        "ratios": in_rounds,  # round by round: compare pairs a baseline's with them
            **{f"{k}_ms": 1000 * v for k, v in medians.items()}}  # fmt: skip


def compare(row: Dict[str, Any]) -> Dict[str, Any]:
    """``row`` (THIS_TREE's and BASELINE's figures, each a dict with ``value`` unless skipped) with the change
    this tree / baseline - 1 and whether it is flagged: more than REGRESSION_LIMIT worse (a smaller figure is
    better) and, where both trees' rounds are known, worse beyond the rounds' noise (``change_interval``'s low
    end above 0). A row the baseline measured and this tree could not is flagged too: a kept row that stopped
    working."""
    this, base = row.get(THIS_TREE, {}), row.get(BASELINE, {})
    if "value" in base and "value" not in this:
        return {**row, "flagged": True}
    if "value" not in this or "value" not in base:
        return row
    change = this["value"] / max(base["value"], 1e-9) - 1
    out = {**row, "change": change}
    if "cpu_ratio" in base:
        out["cpu_change"] = this["cpu_ratio"] / max(base["cpu_ratio"], 1e-9) - 1
    worse = change > REGRESSION_LIMIT + 1e-9  # 0.11 / 0.10 is +10%, not more
    if "ratios" in this and "ratios" in base:
        out["change_interval"] = change_interval(this["ratios"], base["ratios"])
        worse = worse and out["change_interval"][0] > 0
    return {**out, "flagged": worse}


def change_interval(this: Sequence[float], base: Sequence[float], draws: int = 2000) -> Tuple[float, float]:
    """The 95% interval of the change (median of ``this`` / median of ``base`` - 1) over the rounds: a paired
    bootstrap (the same rounds drawn for both trees, which ran in them side by side), seeded, so a report is
    reproducible. A change whose interval holds 0 is within the noise of the run."""
    if len(this) != len(base) or not this:
        raise ValueError("both trees need the same rounds (> 0)")
    draw, rounds = random.Random(42), range(len(this))
    changes = []
    for _ in range(draws):
        picked = draw.choices(rounds, k=len(this))
        low = statistics.median(base[i] for i in picked)
        changes.append(statistics.median(this[i] for i in picked) / max(low, 1e-9) - 1)
    changes.sort()
    return changes[int(0.025 * draws)], changes[int(0.975 * draws) - 1]


def regressions(rows: Dict[str, Dict[str, Any]]) -> List[str]:
    """One line per flagged row: what a person gating on `make bench BASELINE=REF` reads before its status 1."""
    return [f"bench: REGRESSION: {title}: {figure(r, r[THIS_TREE])} against the baseline's {figure(r, r[BASELINE])}"
            + (f" ({change_text(r)}; the limit is {REGRESSION_LIMIT:+.0%})" if "change" in r else "")
            for title, r in rows.items() if r.get("flagged")]  # fmt: skip


def within_noise(rows: Dict[str, Dict[str, Any]]) -> List[str]:
    """One line per row more than REGRESSION_LIMIT worse whose interval holds 0: not flagged, worth a rerun."""
    return [f"bench: note: {title}: {change_text(r)} is within this run's noise, not flagged; more rounds (the"
            " full bench) would tell" for title, r in rows.items()
            if r.get("change", 0) > REGRESSION_LIMIT + 1e-9 and not r.get("flagged")]  # fmt: skip


def change_text(row: Dict[str, Any]) -> str:
    """The change, its 95% interval where known, and the CPU ratio's change: "+23% (95%: -5% to +41%), CPU +2%"."""
    text = f"{row['change']:+.0%}"
    text += " (95%: {:+.0%} to {:+.0%})".format(*row["change_interval"]) if "change_interval" in row else ""
    return text + (f", CPU {row['cpu_change']:+.0%}" if "cpu_change" in row else "")


def figure(row: Dict[str, Any], figures: Dict[str, Any]) -> str:
    """A tree's figures of ``row`` as text: a ratio with its CPU ratio, or CPU seconds with the wall time."""
    if "value" not in figures:
        return f"not measured: {figures.get('skipped', 'not run')}"
    if row["unit"] == "x":
        return f"{figures['value']:.2f}x (CPU {figures['cpu_ratio']:.2f}x)"
    return f"{figures['value']:.2f} CPU s (wall {figures['wall_s']:.2f} s)"


def table(rows: Dict[str, Dict[str, Any]]) -> List[str]:
    """The kept rows as markdown: goal, this tree, the baseline, the change and the verdict."""
    lines = ["| row | goal | this tree | baseline | change | |", "|---|---|---|---|---|---|"]
    for title, r in rows.items():
        verdict = ("**WORSE > 10%**" if "change" in r else "**NOT MEASURED**") if r.get("flagged") else ""
        noisy = r.get("change", 0) > REGRESSION_LIMIT + 1e-9 and not r.get("flagged")
        verdict = verdict or ("> 10% within the noise: run again" if noisy else "ok" if "change" in r else "")
        change = change_text(r) if "change" in r else "-"
        cells = [title, f"<= {r['goal']:g}{r['unit']}", figure(r, r.get(THIS_TREE, {}))]
        cells += [figure(r, r[BASELINE]) if BASELINE in r else "-", change, verdict]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def noise(rows: Dict[str, Dict[str, Any]]) -> List[str]:
    """Each measured ratio's quartiles over its rounds and its medians in ms: how far one run can be trusted."""
    lines = ["| row | tree | ratio p25-p75 | subject ms (CPU) | reference ms (CPU) | rounds |", "|" + "---|" * 6]
    for title, r in rows.items():
        for tree in (THIS_TREE, BASELINE):
            f = r.get(tree, {})
            if r["unit"] == "x" and "value" in f:
                cells = [title, tree, f"{f['p25']:.2f}-{f['p75']:.2f}", f"{f['wall_ms']:.2f} ({f['cpu_ms']:.2f})",
                         f"{f['ref_wall_ms']:.2f} ({f['ref_cpu_ms']:.2f})", str(f["rounds"])]  # fmt: skip
                lines.append("| " + " | ".join(cells) + " |")
    return lines


def goal_met(row: Dict[str, Any]) -> Optional[bool]:
    """Whether this tree's figure meets the row's goal (None: not measured)."""
    this = row.get(THIS_TREE, {})
    return this["value"] <= row["goal"] if "value" in this else None
