"""Issue 42's kept rows and issue 44's row for tools/bench.py, in every tree (this one, and the baseline's with
`--baseline REF`, bench_baseline.py): each row's commands as a tree runs them, checked to answer, then spawned
interleaved round by round. The Sage 1.3.21 project is installed by Sage's own installer (../shared/sage/README.md).
"""

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Tuple, Union

import bench_baseline
import sage_release
from bench_baseline import THIS_TREE, Sample, Tree

ROOT = Path(__file__).resolve().parent.parent
EXE_VS_TRUE, PURE_VS_PYTHON = 1.5, 1.15  # the start-up targets (issues 3, 20), tools/bench.py's BARE too
# Each kept row: (goal: the most its interleaved median ratio may be, the KeptRows method giving a tree's
# (subject, reference)); `--baseline REF` times each beside REF's and flags one > 10% worse (bench_baseline.py).
KEPT_ROWS = {
    "native executable vs /bin/true": (EXE_VS_TRUE, "exe_pair"),
    "console script, pure backend (cli-pure) vs python -c pass": (PURE_VS_PYTHON, "cli_pure_pair"),
    "adopted wrapper, Sage 1.3.21 project, native executable on PATH, vs Sage's sage_flags.py": (0.15, "wrapper_pair"),
}  # (issue 37's row, the launcher's PATH search in a Sage 1.3 project, is retired with that search)
# Issue 44's row (the slot: measured once adopt verifies, skipped with the reason before).
ADOPT_VERIFICATION = "adopt's verification of a Sage 1.3.21 project (`adopt --dry-run`): CPU seconds"
ADOPT_VERIFICATION_CPU_S = 10.0
SAGE_RELEASE = sage_release.archive("1.3.21")  # fetch-free: its README.md
SAGE_1_3_ARGS = "--subagents --parallel=3 Ship dark mode"
# In an adopted Sage 1.3 project, from its root: the wrapper as the adopted skill runs it, Sage's own step as its
# /build runs it (.claude/commands/build.md), both reading the project's config.
ADOPTED_WRAPPER = ["/bin/sh", ".claude/skills/flag-parser/scripts/sage-flags"]
SAGE_STEP = ["sage/runtime/tools/sage_flags.py"]  # after python3
SAGE_PROJECT_ARGS = ["parse", SAGE_1_3_ARGS, "--config-path", ".sage/config.yaml"]
WARMUP_ROUNDS = 3
# A row runs its rounds, and more while it has run for less than the budget (a 1 ms pair then runs hundreds: the
# median of a noisy ratio settles), at most ROUNDS_CAP times as many.
ROUNDS_CAP = 10


class Command(NamedTuple):
    """A process to spawn: argv (its program's absolute path first), its whole environment and its folder."""

    argv: Sequence[Union[str, bytes]]
    env: Dict[str, str]
    cwd: Optional[Path] = None


class NotMeasured(Exception):
    """A row that cannot be measured in a tree (the reason is printed and reported, never a failure of the bench)."""


def clean_env(path: Optional[str] = None) -> Dict[str, str]:
    """This environment without SAGE_FLAGS_* (a row sets what it means), PATH replaced when ``path`` is given."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SAGE_FLAGS_")}
    return {**env, "PATH": path} if path else env


def native_path(tree: Tree) -> str:
    """PATH with the tree's native executable first, as the native wheel installs it, then the system's programs."""
    return f"{tree.native_exe.parent}:/usr/bin:/bin"


def spawn(command: Command, stdin: Any, stdout: Any) -> Tuple[float, float, int]:
    """(wall s, CPU s, status) of one run, spawned as hyperfine -N does (no shell); CPU is user + system of the
    process and the children it waited for (wait4)."""
    if command.cwd:
        os.chdir(command.cwd)  # posix_spawn takes no folder: the child starts in ours (restored by the caller)
    actions = [(os.POSIX_SPAWN_DUP2, stdin.fileno(), 0), (os.POSIX_SPAWN_DUP2, stdout.fileno(), 1)]
    start = time.perf_counter()
    _, status, usage = os.wait4(os.posix_spawn(command.argv[0], command.argv, command.env, file_actions=actions), 0)
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime, os.waitstatus_to_exitcode(status)


def answer(command: Command, want: Optional[bytes] = None) -> bytes:
    """``command``'s stdout once it answered: status 0, no stderr, and ``want`` exactly unless it is None."""
    done = subprocess.run(command.argv, env=command.env, cwd=command.cwd, capture_output=True, timeout=120,
                          stdin=subprocess.DEVNULL)  # fmt: skip
    if done.returncode or done.stderr or (want is not None and done.stdout != want):
        raise NotMeasured(f"not the answer, not timed: {command.argv!r:.200}: status {done.returncode}, "
                          f"stdout {done.stdout[:300]!r}, stderr {done.stderr[:300]!r}")  # fmt: skip
    return done.stdout


class KeptRows:
    """The rows in ``trees``: ``rounds`` interleaved rounds per kept row, ``verification_runs`` of adopt; ``parse``
    is (the argv after the program, the answer) of the native executable's and the console script's rows."""

    def __init__(self, work: Path, trees: Sequence[Tree], rounds: Tuple[int, float], verification_runs: int,
                 parse: Tuple[List[str], bytes]) -> None:  # fmt: skip
        self.work, self.trees, self.verification_runs = work, trees, verification_runs
        self.rounds, self.seconds = rounds  # at least that many rounds, and rounds for at least that long
        self.parse_args, self.parse_answer = parse
        self.sage_project: Optional[Path] = None  # Sage 1.3.21 installed and a project made, once

    def kept_rows(self) -> Dict[str, Dict[str, Any]]:
        """Each kept row: every tree's (subject, reference) pair, all interleaved round by round; a row a tree
        cannot run (the baseline before it existed, no Sage release here) is reported as not measured there."""
        rows: Dict[str, Dict[str, Any]] = {}
        for title, (goal, pair) in KEPT_ROWS.items():
            row: Dict[str, Any] = {"goal": goal, "unit": "x"}
            pairs = {}
            for tree in self.trees:
                try:
                    pairs[tree.label] = getattr(self, pair)(tree)
                except NotMeasured as why:
                    print(f"bench: {title}, {tree.label}: not measured: {why}", file=sys.stderr, flush=True)
                    row[tree.label] = {"skipped": str(why)}
            row.update(self.interleaved(pairs))
            rows[title] = bench_baseline.compare(row)
        return rows

    def interleaved(self, pairs: Dict[str, Tuple[Command, Command]]) -> Dict[str, Dict[str, float]]:
        """Every tree's subject and reference, round by round after WARMUP_ROUNDS (bench_baseline.rounds), stdin
        and stdout /dev/null, self.rounds rounds and more until self.seconds have passed (ROUNDS_CAP): each tree's
        figures (bench_baseline.ratio_figures)."""
        if not pairs:
            return {}
        here, least, deadline = os.getcwd(), self.rounds + WARMUP_ROUNDS, time.monotonic() + self.seconds
        names = [(label, side) for label in pairs for side in (0, 1)]  # side 0: the subject, 1: its reference
        samples: Dict[Tuple[str, int], List[Sample]] = {name: [] for name in names}
        try:
            with open(os.devnull, "rb") as null_in, open(os.devnull, "wb") as null_out:
                for index, order in enumerate(bench_baseline.rounds(names, ROUNDS_CAP * self.rounds + WARMUP_ROUNDS)):
                    if index >= least and time.monotonic() >= deadline:
                        break
                    for label, side in order:
                        wall, cpu, status = spawn(pairs[label][side], null_in, null_out)
                        if status:
                            argv = pairs[label][side].argv
                            raise SystemExit(f"bench: {argv!r:.200}: status {status} in round {index}")
                        if index >= WARMUP_ROUNDS:
                            samples[(label, side)].append((wall, cpu))
        finally:
            os.chdir(here)
        return {label: bench_baseline.ratio_figures(samples[(label, 0)], samples[(label, 1)]) for label in pairs}

    def exe_pair(self, tree: Tree) -> Tuple[Command, Command]:
        exe = Command([str(tree.native_exe), *self.parse_args], clean_env(), self.work)
        self.checked(tree, exe, self.parse_answer)
        return exe, Command(["/bin/true"], clean_env(), self.work)

    def cli_pure_pair(self, tree: Tree) -> Tuple[Command, Command]:
        pure = {**clean_env(), "SAGE_FLAGS_BACKEND": "python"}
        cli = Command([str(tree.console_script), *self.parse_args], pure, self.work)
        bare = Command([str(tree.python), "-c", "pass"], clean_env(), self.work)
        self.checked(tree, cli, self.parse_answer)
        return cli, bare

    def wrapper_pair(self, tree: Tree) -> Tuple[Command, Command]:
        """The wrapper the tree's `adopt` wrote, run as the adopted skill runs it (whatever it does inside), against
        Sage's own step; both must give the same answer where their JSON shares keys (Sage's names every mode)."""
        project, env = self.adopted(tree), clean_env(native_path(tree))
        python3 = shutil.which("python3", path=env["PATH"])
        if not python3:
            raise NotMeasured(f"no python3 on {env['PATH']}")
        sage = Command([python3, *SAGE_STEP, *SAGE_PROJECT_ARGS], env, project)
        wrapper = Command([*ADOPTED_WRAPPER, *SAGE_PROJECT_ARGS], env, project)
        theirs, ours = json.loads(answer(sage)), json.loads(self.checked(tree, wrapper))
        shared = sorted(ours.keys() & theirs.keys())
        if (
            theirs.get("subagents") is not True
            or "subagents" not in shared
            or any(ours[k] != theirs[k] for k in shared)
        ):
            raise self.wrong(tree, f"the wrapper and Sage's step disagree, not timed: {ours} {theirs}")
        return wrapper, sage

    def checked(self, tree: Tree, command: Command, want: Optional[bytes] = None) -> bytes:
        """``command``'s answer (``answer``), or ``wrong``."""
        try:
            return answer(command, want)
        except NotMeasured as why:
            raise self.wrong(tree, str(why)) from None

    @staticmethod
    def wrong(tree: Tree, why: str) -> Exception:
        """A wrong answer in this tree ends the bench (a timing of a wrong answer is no timing); in the baseline's
        it leaves the row unmeasured there."""
        return SystemExit(f"bench: {why}") if tree.label == THIS_TREE else NotMeasured(why)

    def sage_1_3_project(self) -> Path:
        """A Sage 1.3.21 project as a user makes one (../shared/sage/README.md): the release installed by its own
        installer into the work folder, `sage init` in a new git repository; made once, copied by each row."""
        if self.sage_project:
            return self.sage_project
        if not SAGE_RELEASE.is_file():  # beside the checkout, as in shared/sage/README.md: no row without it
            raise NotMeasured(f"{SAGE_RELEASE} is missing")
        try:
            project = sage_release.SageInstall(self.work / "sage-1.3.21", "1.3.21").project
        except (RuntimeError, subprocess.CalledProcessError) as error:
            raise SystemExit(f"bench: Sage 1.3.21's install or `sage init` failed: {error!s:.500}") from None
        self.sage_project = project
        return project

    def project_copy(self, tree: Tree, purpose: str) -> Path:
        copy = self.work / f"{purpose}-{tree.label.replace(' ', '-')}"
        shutil.copytree(self.sage_1_3_project(), copy, symlinks=True)
        return copy

    def adopted(self, tree: Tree) -> Path:
        """A copy of the Sage project adopted by the tree's `sage-flags adopt` (its console script: adopt is
        Python's), the tree's native executable on PATH; byte-compiled by python3, as a run would leave it."""
        project, env = self.project_copy(tree, "adopted"), clean_env(native_path(tree))
        done = subprocess.run([str(tree.console_script), "adopt"], cwd=project, env=env, capture_output=True)
        if done.returncode:
            stderr = done.stderr.decode(errors="replace")
            raise NotMeasured(f"`sage-flags adopt` status {done.returncode}: {stderr!r:.300}")
        python3 = shutil.which("python3", path=env["PATH"]) or "python3"
        subprocess.run([python3, "-m", "compileall", "-q", str(project)], env=env, capture_output=True)
        return project

    def adopt_verification(self) -> Dict[str, Dict[str, Any]]:
        """Issue 44's row: the CPU seconds (user + system, adopt and every process it waited for) of `sage-flags
        adopt --dry-run` in a Sage 1.3.21 project, median of a few runs; a tree whose adopt does not verify is
        reported as not measured, with the reason (see adopt_lacks_verification)."""
        row: Dict[str, Any] = {"goal": ADOPT_VERIFICATION_CPU_S, "unit": " CPU s"}
        for tree in self.trees:
            try:
                row[tree.label] = self.verification_figures(tree)
            except NotMeasured as why:
                print(f"bench: {ADOPT_VERIFICATION}, {tree.label}: not measured: {why}", file=sys.stderr, flush=True)
                row[tree.label] = {"skipped": str(why)}
        return {ADOPT_VERIFICATION: bench_baseline.compare(row)}

    def verification_figures(self, tree: Tree) -> Dict[str, float]:
        project, env = self.project_copy(tree, "verify"), clean_env(native_path(tree))
        why = adopt_lacks_verification(tree, project, env)
        if why:
            raise NotMeasured(why)
        dry_run = Command([str(tree.console_script), "adopt", "--dry-run"], env, project)
        answer(dry_run)  # a verification that refuses this project is reported (not measured), not timed
        samples, here = [], os.getcwd()
        try:
            with open(os.devnull, "rb") as null_in, open(os.devnull, "wb") as null_out:
                for _ in range(self.verification_runs):
                    samples.append(spawn(dry_run, null_in, null_out))
        finally:
            os.chdir(here)
        if any(status for *_, status in samples):
            raise NotMeasured(f"`adopt --dry-run` statuses {[s[2] for s in samples]} (status 0 the first time)")
        cpu, wall = (sorted(s[i] for s in samples)[len(samples) // 2] for i in (1, 0))
        return {"value": cpu, "wall_s": wall, "runs": len(samples)}


def adopt_lacks_verification(tree: Tree, project: Path, env: Dict[str, str]) -> Optional[str]:
    """Why the tree's `adopt` cannot be measured verifying (None: it verifies): its `adopt --help` names no
    `--check`, and `adopt --check` in a project never adopted is a usage error (status 2) where issue 44 gives 3."""

    def run(*args: str) -> subprocess.CompletedProcess:
        argv = [str(tree.console_script), "adopt", *args]
        return subprocess.run(argv, cwd=project, env=env, capture_output=True, stdin=subprocess.DEVNULL, timeout=120)

    shown = run("--help")
    if shown.returncode == 0 and b"--check" in shown.stdout + shown.stderr:
        return None
    check = run("--check")
    if check.returncode != 2:
        return None
    return "adopt has no verification yet (`adopt --help` names no --check; `adopt --check`: status 2, a usage error)"
