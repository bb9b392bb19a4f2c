"""make bench: every layer's speed and scaling, side by side, in one run.

    .venv/bin/python tools/bench.py                 # writes docs/PERFORMANCE.md and docs/performance.json
    .venv/bin/python tools/bench.py --quick         # a few runs per cell, for trying the harness out
    .venv/bin/python tools/bench.py --out-dir DIR   # write the two files somewhere else

Four parts (issue 6):
1. cold start of one ``parse`` with a small config, per layer, against the bare runtime it needs;
2. in-process microseconds per ``parse() + to_json()``, pure-Python reference against the native core;
3. scaling (C21): ARGUMENTS of 1 KiB, 16 KiB, 128 KiB (words only, and flags) and configs of
   1 KiB, 8 KiB, 64 KiB (the bound, H1), with the growth factor that makes a quadratic path visible;
4. batch throughput (C22) on a corpus of 10,000 realistic records.

Whole processes are timed by hyperfine (-N, no shell, except for batch, whose stdin redirection
needs one); in-process calls by timeit. Every comparison is measured in one interleaved run:
the commands of a group take turns, one hyperfine call of a few runs each, in ABBA order, so
machine noise hits every member alike. The layers and their command lines come from
parity/layers.py (one source of truth); a layer whose code is not in the checkout is reported
as "not present". Before a command is timed its output is checked byte for byte against the
pure-Python reference: a timing of a wrong answer is no timing.

The notes section at the end of docs/PERFORMANCE.md (from NOTES_HEADING on) is written by
hand and kept when the file is regenerated.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import itertools
import json
import os
import platform
import random
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "python"))  # when run outside the venv's editable install

from sage_flags import reference  # noqa: E402

from parity.layers import NATIVE_EXE, Layer, all_layers  # noqa: E402

PYTHON = sys.executable
BASH = shutil.which("bash") or "/bin/bash"
EMPTY_MODULE = "sage_flags_bench_empty"
NOTES_HEADING = "## Notes (written by hand; `make bench` keeps this section)"

# Every layer the project means to have, in table order; parity/layers.py says which exist.
EXPECTED_LAYERS = [
    "cli-pure",
    "cli-native",
    "module-pure",
    "module-native",
    "compat-pure",
    "compat-native",
    "bash",
    "exe",
]
LAYER_COMMANDS = {
    "cli-pure": "sage-flags parse (SAGE_FLAGS_BACKEND=python)",
    "cli-native": "sage-flags parse (SAGE_FLAGS_BACKEND=native)",
    "module-pure": "python -m sage_flags parse (python)",
    "module-native": "python -m sage_flags parse (native)",
    "compat-pure": "cd sage && python -m core.flag_parser parse (python)",
    "compat-native": "cd sage && python -m core.flag_parser parse (native)",
    "bash": "bash sage/core/flag_parser/parse.sh",
    "exe": "sage-flags parse (the native executable, target/native)",
}
# Pure/native pairs compared head to head (target: native within 5% of pure).
BACKEND_PAIRS = [("cli-pure", "cli-native"), ("module-pure", "module-native"), ("compat-pure", "compat-native")]

# Targets, as issue 6 (and issues 3 and 4) state them.
PYTHON_START_TARGET = 1.15  # x bare `python -c pass`
BASH_START_TARGET = 1.5  # x bare `bash -c :`
NATIVE_START_TARGET = 1.05  # native cold start / pure cold start
NATIVE_SPEEDUP_TARGET = 10.0  # in-process, typical input
BIG_FLAGS_LIMIT_S = 1.0  # 128 KiB with 10,000 flags, every layer
BASH_BATCH_TARGET = 5_000  # records/s
NATIVE_BATCH_TARGET = 100_000  # records/s
# The native executable (issue 20): x bare `/bin/true`, and x the Python console script `sage-flags parse`.
EXE_START_TARGET = 1.5
EXE_VS_CONSOLE_SCRIPT_TARGET = 0.1
# A growth at most this many times the linear expectation counts as linear (a quadratic
# path from 16 KiB to 128 KiB grows 64/8.5 = 7.5 times faster than linear).
LINEAR_SLACK = 2.0

# Inputs. Linux passes one argv item of at most MAX_ARG_STRLEN = 131072 bytes (NUL included);
# hyperfine receives the whole command line as one item, so the 128 KiB inputs stay ~1 KiB under.
MAX_ARG_STRLEN = 131072
KIB = 1024
TYPICAL = "--quality-locked --autonomous Ship dark mode on the settings page"
SMALL_CONFIG = b"# .sage/config.yaml\nproject: shop\nquality_locked: true\nautonomous: false\nmodel: default\n"
ARG_SIZES = [("1 KiB", 1 * KIB), ("16 KiB", 16 * KIB), ("128 KiB", 130_000)]
FLAG_COUNTS = [("1 KiB", 78), ("16 KiB", 1_260), ("128 KiB", 10_000)]  # 13 bytes a flag
CONFIG_SIZES = [("1 KiB", KIB), ("8 KiB", 8 * KIB), ("64 KiB", 64 * KIB)]  # 64 KiB: the bound (H1)
BATCH_RECORDS = 10_000
IMPORTTIME_RUNS = 5
WORDS = (
    "ship dark mode on the settings page fix login bug Safari refactor payment module naïve café "
    '"quoted" path\\to\\file 日本語 emoji🚀 tab\tinside line\nbreak and keep the tests green'
).split(" ")

# Runs: medians of at least 20 runs per cell; a whole-process cell whose single run takes
# longer than SLOW_RUN_S gets fewer runs (at least MIN_SLOW_RUNS), said in the table.
RUNS = 20
SLOW_RUN_S = 2.5
MIN_SLOW_RUNS = 3
CELL_BUDGET_S = 40.0  # seconds of runs per command, at most, for the slow ones
# Past SOFT_DEADLINE_S of bench time every further cell gets DEADLINE_RUNS runs, so that a slow
# layer cannot push `make bench` past its 10 minutes on this 2-core machine.
SOFT_DEADLINE_S = 400.0
DEADLINE_RUNS = 5
BENCH_STARTED = time.monotonic()
TIMEOUT_S = 20.0  # a layer slower than this on one input is reported as a timeout, not waited for
BATCH_TIMEOUT_S = 60.0  # the same for a whole batch corpus
VERY_SLOW_RUN_S = 15.0  # a command this slow is timed once more after its check run, no more


# ---------------------------------------------------------------- inputs


def words_text(size: int) -> str:
    """Words only (no flag), at most ``size`` UTF-8 bytes, with characters JSON must escape."""
    rng = random.Random(size)
    parts: List[str] = []
    total = -1
    while True:
        word = rng.choice(WORDS)
        cost = len(word.encode("utf-8")) + 1
        if total + cost > size:
            break
        parts.append(word)
        total += cost
    return " ".join(parts)


def flags_text(count: int) -> str:
    """``count`` flags (all valid, the shortest one repeated: 10,000 fit in 128 KiB), then a goal."""
    return " ".join(["--quality-locked"] + ["--autonomous"] * (count - 1) + ["Ship it"])


def mixed_text(size: int) -> str:
    """A few flags and a goal of about ``size`` bytes: the in-process "16 KiB input"."""
    return "--quality-locked --autonomous " + words_text(size - 30)


def config_bytes(size: int) -> bytes:
    """A YAML-ish config of about ``size`` bytes whose last line turns a default on (so all of it is read)."""
    lines = []
    total = 0
    tail = b"quality_locked: true\n"
    i = 0
    while total + len(tail) < size:
        line = (b"setting_%07d: value %d  # a comment, quality_locked: true is not this\n" % (i, i * 7))[
            : size - total - len(tail)
        ]
        if not line.endswith(b"\n"):
            line = line[:-1] + b"\n"
        lines.append(line)
        total += len(line)
        i += 1
    return b"".join(lines) + tail


def batch_corpus(count: int) -> List[str]:
    """Realistic records: what users type after a slash command, a few mistakes included."""
    rng = random.Random(22)
    goals = [
        "Ship dark mode",
        "Fix the login bug on Safari 17",
        "Refactor the payment module to use the new API",
        "Add a --verbose option to the export command",
        'Rename "userId" to "accountId" everywhere',
        "Übersetze die Hilfeseite ins Deutsche",
        "修复登录页面的错误",
        "Make the build green again 🚀",
        "Write tests for C:\\Users\\path handling",
        "Update README\n\nAlso mention the new flags",
        "Investigate\tflaky test in ci",
        "",
    ]
    flag_sets = [[], [], ["--quality-locked"], ["--autonomous"], ["--quality-locked", "--autonomous"]]
    flag_sets += [["--no-quality-locked"], ["--autonomous", "--autonomous"], ["--no-autonomous"], ["--"]]
    mistakes = ["--quality-lock", "--autonomous=true", "--quality-locked --no-quality-locked", "-- verbose"]
    records = []
    for _ in range(count):
        roll = rng.random()
        if roll < 0.03:
            record = rng.choice(mistakes) + " " + rng.choice(goals)
        else:
            record = " ".join([*rng.choice(flag_sets), rng.choice(goals)])
            if roll > 0.9:
                record = "  " + record + " \n"
        records.append(record)
    return records


def expected_line(arguments: str, config: Optional[Path]) -> bytes:
    defaults = reference.load_defaults(config) if config else None
    return reference.parse(arguments, defaults).to_json().encode("utf-8") + b"\n"


# ---------------------------------------------------------------- whole processes


@dataclass
class Command:
    """One whole-process invocation: what hyperfine runs."""

    label: str
    argv: List[str]
    env: Dict[str, str] = field(default_factory=dict)
    cwd: Optional[Path] = None
    stdin: Optional[Path] = None  # needs a shell for the redirection
    expected: Optional[bytes] = None  # stdout that the check before timing demands
    ok_statuses: Tuple[int, ...] = (0,)
    timeout: float = TIMEOUT_S

    def shell_line(self) -> str:
        line = " ".join(shlex.quote(a) for a in self.argv)
        if self.stdin is not None:
            line = "exec %s < %s" % (line, shlex.quote(str(self.stdin)))
        return line

    def full_env(self) -> Dict[str, str]:
        env = dict(os.environ)
        env.update(self.env)
        return env

    def describe(self) -> Dict[str, Any]:
        shown = [a if len(a) <= 120 else a[:60] + "...(%d bytes)" % len(a.encode("utf-8")) for a in self.argv]
        return {"argv": shown, "env": self.env, "cwd": str(self.cwd) if self.cwd else None, "stdin": str(self.stdin)}


class TimingFailed(Exception):
    """hyperfine saw a bad exit status: the command broke between the check and the timing."""


@dataclass
class Sample:
    """The timings of one command (seconds), or why there are none."""

    times: List[float] = field(default_factory=list)
    cpu_times: List[float] = field(default_factory=list)  # user + system of each hyperfine call, per run
    problem: Optional[str] = None  # "wrong output", "timeout", ...

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    def summary(self) -> Dict[str, Any]:
        if self.problem and self.problem.startswith("timeout"):
            return {"problem": self.problem, "lower_bound": float(self.problem.split("> ")[1].split(" s")[0])}
        if self.problem:
            return {"problem": self.problem}
        return {
            "n": len(self.times),
            "median": self.median,
            "min": min(self.times),
            "max": max(self.times),
            "times": [round(t, 7) for t in self.times],
            # CPU time hardly counts the time spent waiting for a busy CPU: a load-robust cross-check.
            "cpu_mean": statistics.mean(self.cpu_times) if self.cpu_times else None,
        }

    def cpu_summary(self) -> Dict[str, Any]:
        """The CPU times as a summary of their own (in-process loops: exact per loop)."""
        return Sample(times=self.cpu_times).summary()


def check_output(command: Command) -> Tuple[Optional[str], float]:
    """Run once, untimed by hyperfine: (problem or None, wall seconds)."""
    started = time.perf_counter()
    try:
        stdin = command.stdin.open("rb") if command.stdin else subprocess.DEVNULL
        try:
            done = subprocess.run(
                command.argv,
                stdin=stdin,
                capture_output=True,
                env=command.full_env(),
                cwd=command.cwd,
                timeout=command.timeout,
            )
        finally:
            if command.stdin:
                stdin.close()
    except subprocess.TimeoutExpired:
        return "timeout (> %g s)" % command.timeout, command.timeout
    elapsed = time.perf_counter() - started
    if done.returncode not in command.ok_statuses:
        return "exit status %d: %s" % (done.returncode, done.stderr.decode("utf-8", "replace")[:200]), elapsed
    if command.expected is not None and done.stdout != command.expected:
        return "wrong output (differs from the pure-Python reference)", elapsed
    return None, elapsed


def hyperfine(command: Command, runs: int, warmup: int) -> Tuple[List[float], float]:
    """Wall seconds of each run, and the mean user + system seconds of a run."""
    with tempfile.NamedTemporaryFile(suffix=".json") as export:
        options = ["--runs", str(runs), "--warmup", str(warmup), "--style", "none", "--export-json", export.name]
        if command.stdin is None:
            options.append("-N")  # no shell: nothing to subtract, nothing to distort
        if command.ok_statuses != (0,):
            options.append("--ignore-failure")  # batch exits 1 when a record is a mistake (C22)
        done = subprocess.run(
            ["hyperfine", *options, command.shell_line()],
            env=command.full_env(),
            cwd=command.cwd,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,  # "Ignoring non-zero exit code" warnings; shown only on failure
        )
        if done.returncode != 0:
            raise TimingFailed(done.stderr.decode("utf-8", "replace").strip().splitlines()[-1][:200])
        result = json.load(open(export.name))["results"][0]
        return result["times"], result["user"] + result["system"]


def measure_group(commands: Sequence[Command], runs: int, per_call: int = 1) -> List[Sample]:
    """Time the commands interleaved: rounds of ``per_call`` runs each, ABBA order."""
    samples = [Sample() for _ in commands]
    live = []
    slowest = 0.0
    for sample, command in zip(samples, commands):
        sample.problem, elapsed = check_output(command)
        if sample.problem is None:
            live.append((sample, command))
            slowest = max(slowest, elapsed)
    warmup = 1
    if slowest > SLOW_RUN_S:  # keep `make bench` within its 10 minutes; the check run warmed the caches
        runs = max(1 if slowest > VERY_SLOW_RUN_S else MIN_SLOW_RUNS, min(runs, int(CELL_BUDGET_S / slowest)))
        warmup = 0
    if time.monotonic() - BENCH_STARTED > SOFT_DEADLINE_S:
        runs = min(runs, DEADLINE_RUNS)
    rounds = -(-runs // per_call)
    for round_no in range(rounds):
        order = live if round_no % 2 == 0 else live[::-1]
        for sample, command in order:
            if sample.problem:
                continue
            try:
                times, cpu = hyperfine(command, per_call, warmup=warmup if round_no == 0 else 0)
                sample.times += times
                sample.cpu_times += [cpu] * len(times)
            except TimingFailed as error:
                sample.problem = "failed while timed: %s" % error
                log("%s: %s" % (command.label, sample.problem))
    return samples


# ---------------------------------------------------------------- in-process


def timed_loop(call: Callable[[], object], number: int) -> Tuple[float, float]:
    """timeit's inner loop (garbage collector off): wall and CPU seconds per call."""
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in itertools.repeat(None, number):
            call()
        return (time.perf_counter() - wall) / number, (time.process_time() - cpu) / number
    finally:
        if gc_was_enabled:
            gc.enable()


def time_in_process(calls: Dict[str, Callable[[], object]], runs: int, target_s: float = 0.01) -> Dict[str, Sample]:
    """Seconds per call, interleaved: ``runs`` repeats of each call's loop, ABBA order."""
    loops = {}
    for name, call in calls.items():
        number = 1
        while number * timed_loop(call, number)[0] < 0.1:  # warms the caches, finds the loop length
            number *= 4
        loops[name] = max(1, int(target_s / timed_loop(call, number)[0]))
    samples = {name: Sample() for name in calls}
    names = list(calls)
    for round_no in range(runs):
        for name in names if round_no % 2 == 0 else names[::-1]:
            wall, cpu = timed_loop(calls[name], loops[name])
            samples[name].times.append(wall)
            samples[name].cpu_times.append(cpu)
    return samples


def native_module() -> Optional[Any]:
    try:
        from sage_flags import _native  # type: ignore[attr-defined]
    except ImportError:
        return None
    return _native


# ---------------------------------------------------------------- the bench


class Bench:
    def __init__(self, runs: int, workdir: Path) -> None:
        self.runs = runs
        self.workdir = workdir
        self.layers: Dict[str, Layer] = {layer.name: layer for layer in all_layers()}
        self.small_config = self.write("small-config.yaml", SMALL_CONFIG)
        self.write(EMPTY_MODULE + ".py", b"")
        self.results: Dict[str, Any] = {}

    def write(self, name: str, data: bytes) -> Path:
        path = self.workdir / name
        path.write_bytes(data)
        return path

    def bare_for(self, layer: Layer) -> Command:
        """The bare runtime a layer cannot start without: its own bash, or the same Python interpreter."""
        program = layer.commands["parse"][0]
        if Path(program).name == "bash":
            return Command("bash -c :", [program, "-c", ":"], cwd=layer.cwd)
        if program == str(NATIVE_EXE):  # a process that starts and exits: the floor for a native program
            return Command("/bin/true", ["/bin/true"], cwd=layer.cwd)
        return Command("python -c pass", [PYTHON, "-c", "pass"], cwd=layer.cwd)

    def parse_command(self, name: str, arguments: str, config: Optional[Path]) -> Command:
        layer = self.layers[name]
        args = [arguments] + (["--config-path", str(config)] if config else [])
        argv = [str(a) for a in layer.commands["parse"]] + args
        if argv[0] == "bash":
            argv[0] = BASH
        line_length = len(" ".join(shlex.quote(a) for a in argv).encode("utf-8"))
        assert line_length < MAX_ARG_STRLEN, "%s: command line of %d bytes" % (name, line_length)
        return Command(name, argv, dict(layer.env), layer.cwd, expected=expected_line(arguments, config))

    def present(self) -> List[str]:
        return [name for name in EXPECTED_LAYERS if name in self.layers] + [
            name for name in self.layers if name not in EXPECTED_LAYERS
        ]

    # 1. cold start
    def cold_start(self) -> None:
        out: Dict[str, Any] = {}
        for name in self.present():
            layer = self.layers[name]
            if "parse" not in layer.commands:
                continue
            entry, bare = self.parse_command(name, TYPICAL, self.small_config), self.bare_for(layer)
            commands = [entry, bare]
            if "-m" in layer.commands["parse"]:
                # What any `python -m` costs (runpy and importlib.util come with it), for the notes.
                commands.append(Command("python -m (empty module)", [PYTHON, "-m", EMPTY_MODULE], cwd=self.workdir))
            samples = measure_group(commands, self.runs)
            entry_sample, bare_sample = samples[0], samples[1]
            out[name] = {
                "command": entry.describe(),
                "bare": bare.describe(),
                "bare_label": bare.label,
                "entry": entry_sample.summary(),
                "bare_runtime": bare_sample.summary(),
                "ratio": ratio(entry_sample, bare_sample),
                "cpu_ratio": cpu_ratio(entry_sample, bare_sample),
            }
            if len(samples) > 2:
                out[name]["python_m_empty"] = samples[2].summary()
                out[name]["python_m_empty_ratio"] = ratio(samples[2], bare_sample)
                out[name]["ratio_to_python_m_empty"] = ratio(entry_sample, samples[2])
            log("cold start %-14s %s" % (name, fmt_ratio(out[name]["ratio"])))
        pairs = {}
        for pure, native in BACKEND_PAIRS:
            if pure in self.layers and native in self.layers:
                commands = [self.parse_command(n, TYPICAL, self.small_config) for n in (pure, native)]
                pure_sample, native_sample = measure_group(commands, self.runs)
                pairs["%s/%s" % (native, pure)] = {
                    "pure": pure_sample.summary(),
                    "native": native_sample.summary(),
                    "ratio": ratio(native_sample, pure_sample),
                    "cpu_ratio": cpu_ratio(native_sample, pure_sample),
                }
                log("cold start %s/%s %s" % (native, pure, fmt_ratio(pairs["%s/%s" % (native, pure)]["ratio"])))
        self.results["cold_start"] = {"layers": out, "native_vs_pure": pairs, "arguments": TYPICAL}
        if "exe" in self.layers and "cli-native" in self.layers:
            # The executable against the interpreter's floor and against the console script it replaces.
            console = self.parse_command("cli-native", TYPICAL, self.small_config)
            console.env = {}  # the console script as installed: its default backend
            commands = [self.parse_command("exe", TYPICAL, self.small_config), console]
            commands.append(Command("python -c pass", [PYTHON, "-c", "pass"]))
            exe, script, python = measure_group(commands, self.runs)
            self.results["cold_start"]["exe"] = {
                "exe": exe.summary(),
                "console_script": script.summary(),
                "python": python.summary(),
                "ratio_to_console_script": ratio(exe, script),
                "ratio_to_python": ratio(exe, python),
                "cpu_ratio_to_console_script": cpu_ratio(exe, script),
            }
            log("cold start exe/console script %s" % fmt_ratio(ratio(exe, script)))

    # 2. in-process
    def in_process(self) -> None:
        native = native_module()
        backends = {"pure": reference} if native is None else {"pure": reference, "native": native}
        inputs = [
            ("typical", TYPICAL),
            ("16 KiB (flags + text)", mixed_text(16 * KIB)),
            ("128 KiB, 10,000 flags", flags_text(10_000)),
        ]
        inputs += [("words %s" % label, words_text(size)) for label, size in ARG_SIZES]
        inputs += [("flags %s" % label, flags_text(count)) for label, count in FLAG_COUNTS[:2]]
        out: Dict[str, Any] = {}
        for label, text in inputs:
            calls = {}
            for backend_name, module in backends.items():
                defaults = module.load_defaults(str(self.small_config))
                expected = expected_line(text, self.small_config).decode("utf-8")[:-1]
                assert module.parse(text, defaults).to_json() == expected, "%s: %s gives other bytes" % (
                    label,
                    backend_name,
                )
                calls[backend_name] = make_call(module, text, defaults)
            samples = time_in_process(calls, self.runs)
            row: Dict[str, Any] = {"bytes": len(text.encode("utf-8"))}
            for backend_name, sample in samples.items():
                row[backend_name] = sample.cpu_summary()  # judged: CPU time, see render_in_process
                row[backend_name + "_wall"] = sample.summary()
            if "native" in samples:
                row["cpu_speedup"] = row["pure"]["median"] / row["native"]["median"]
                row["wall_speedup"] = ratio(samples["pure"], samples["native"])
            out[label] = row
            log("in-process %-24s %s" % (label, row.get("cpu_speedup", "")))
        configs = {}
        for label, size in CONFIG_SIZES:
            path = self.write("config-%d.yaml" % size, config_bytes(size))
            calls = {name: make_load(module, str(path)) for name, module in backends.items()}
            samples = time_in_process(calls, self.runs, target_s=0.05)
            configs[label] = {"bytes": size}
            for backend_name, sample in samples.items():
                configs[label][backend_name] = sample.cpu_summary()
                configs[label][backend_name + "_wall"] = sample.summary()
        series = {
            "words": [out["words %s" % label] for label, _ in ARG_SIZES],
            "flags": [out["flags 1 KiB"], out["flags 16 KiB"], out["128 KiB, 10,000 flags"]],
            "config (load_defaults)": list(configs.values()),
        }
        growths = {
            backend: {name: in_process_growth(points, backend) for name, points in series.items()}
            for backend in backends
        }
        self.results["in_process"] = {
            "parse_to_json": out,
            "load_defaults": configs,
            "growth": growths,
            "native_present": bool(native),
        }

    # 3. scaling
    def scaling(self) -> None:
        series: Dict[str, List[Tuple[str, str, Optional[Path]]]] = {
            "words": [(label, words_text(size), None) for label, size in ARG_SIZES],
            "flags": [(label, flags_text(count), None) for label, count in FLAG_COUNTS],
            "config": [
                (label, TYPICAL, self.write("config-%d.yaml" % size, config_bytes(size)))
                for label, size in CONFIG_SIZES
            ],
        }
        out: Dict[str, Any] = {}
        for name in self.present():
            if "parse" not in self.layers[name].commands:
                continue
            out[name] = {}
            for series_name, points in series.items():
                commands = [self.parse_command(name, text, config) for _, text, config in points]
                samples = measure_group(commands, self.runs)
                out[name][series_name] = {
                    label: {"bytes": point_bytes(text, config), **sample.summary()}
                    for (label, text, config), sample in zip(points, samples)
                }
                out[name][series_name]["growth"] = growth(out[name][series_name])
                log("scaling %-14s %-7s %s" % (name, series_name, out[name][series_name]["growth"]))
        self.results["scaling"] = out

    # 4. batch
    def batch(self) -> None:
        records = batch_corpus(BATCH_RECORDS)
        corpus = self.write("corpus.bin", b"".join(r.encode("utf-8") + b"\0" for r in records))
        empty = self.write("empty.bin", b"")
        defaults = reference.load_defaults(self.small_config)
        expected = b"".join(reference.parse(r, defaults).to_json().encode("utf-8") + b"\n" for r in records)
        out: Dict[str, Any] = {}
        for name in self.present():
            layer = self.layers[name]
            if "batch" not in layer.commands:
                continue
            argv = [str(a) for a in layer.commands["batch"]] + ["--config-path", str(self.small_config)]
            if argv[0] == "bash":
                argv[0] = BASH
            full = Command(name, argv, dict(layer.env), layer.cwd, corpus, expected, (0, 1), BATCH_TIMEOUT_S)
            start_only = Command(name + " (no records)", argv, dict(layer.env), layer.cwd, empty, b"")
            full_sample, empty_sample = measure_group([full, start_only], self.runs, per_call=3)
            row: Dict[str, Any] = {
                "records": len(records),
                "corpus_bytes": corpus.stat().st_size,
                "command": full.describe(),
                "corpus": full_sample.summary(),
                "no_records": empty_sample.summary(),
            }
            if not full_sample.problem:
                row["records_per_s"] = len(records) / full_sample.median
                row["cpu_records_per_s"] = len(records) / statistics.mean(full_sample.cpu_times)
                if not empty_sample.problem and full_sample.median > empty_sample.median:
                    row["steady_records_per_s"] = len(records) / (full_sample.median - empty_sample.median)
            out[name] = row
            log("batch %-14s %s" % (name, row.get("records_per_s", full_sample.problem)))
        self.results["batch"] = out

    # why: what each Python entry imports beyond the bare interpreter
    def imports(self) -> None:
        def imported(argv: List[str], env: Dict[str, str], cwd: Optional[Path]) -> Dict[str, Tuple[int, int]]:
            """Module -> (self µs, cumulative µs), each the least of IMPORTTIME_RUNS runs (less noise)."""
            full_env = dict(os.environ, **env)
            found: Dict[str, Tuple[int, int]] = {}
            for _ in range(IMPORTTIME_RUNS):
                done = subprocess.run([PYTHON, "-X", "importtime", *argv], capture_output=True, env=full_env, cwd=cwd)
                for line in done.stderr.decode("utf-8", "replace").splitlines():
                    if line.startswith("import time:") and "|" in line and "self [us]" not in line:
                        self_us, cumulative_us, module = line[len("import time:") :].split("|")
                        times = (int(self_us), int(cumulative_us))
                        module = module.strip()
                        found[module] = min(found.get(module, times), times)
            return found

        bare = imported(["-c", "pass"], {}, None)
        out = {}
        for name in self.present():
            argv = [str(a) for a in self.layers[name].commands.get("parse", [])]
            if not argv or Path(argv[0]).name == "bash" or argv[0] == str(NATIVE_EXE):
                continue
            if argv[0] != PYTHON:  # a console script: run its file with the same interpreter
                argv = [PYTHON, *argv]
            layer = self.layers[name]
            extra = imported([*argv[1:], TYPICAL, "--config-path", str(self.small_config)], layer.env, layer.cwd)
            out[name] = {
                "bare_modules": len(bare),
                "extra": {module: times for module, times in extra.items() if module not in bare},
                "extra_self_us": sum(t[0] for m, t in extra.items() if m not in bare),
            }
        self.results["start_up_imports"] = out

    def byte_compile(self) -> None:
        """Write the .pyc files pip writes when it installs a wheel.

        An editable install has none, and with PYTHONDONTWRITEBYTECODE set (as on this project's
        machines) every start would compile the package from source again: that measures the
        compiler, not the parser.
        """
        directories = [str(Path(reference.__file__).parent), str(ROOT / "sage" / "core")]
        subprocess.run([PYTHON, "-m", "compileall", "-q", *directories], check=True, stdout=subprocess.DEVNULL)
        self.results["byte_compiled"] = directories

    def run_all(self) -> Dict[str, Any]:
        started = time.time()
        self.byte_compile()
        self.results["machine"] = machine()
        # Table order: the expected layers, then any other layer parity/layers.py has grown.
        self.results["layers"] = {
            name: ("present" if name in self.layers else "not present") for name in EXPECTED_LAYERS + self.present()
        }
        self.results["runs_per_cell"] = self.runs
        durations = {}
        for part in (self.cold_start, self.in_process, self.scaling, self.batch, self.imports):
            part_started = time.monotonic()
            part()
            durations[part.__name__] = round(time.monotonic() - part_started, 1)
        self.results["part_seconds"] = durations
        self.results["machine"]["load_average_at_end"] = load_average()
        self.results["bench_seconds"] = round(time.time() - started, 1)
        return self.results


def make_call(module: Any, text: str, defaults: Any) -> Callable[[], object]:
    parse = module.parse
    return lambda: parse(text, defaults).to_json()


def make_load(module: Any, path: str) -> Callable[[], object]:
    load_defaults = module.load_defaults
    return lambda: load_defaults(path)


def point_bytes(text: str, config: Optional[Path]) -> int:
    return config.stat().st_size if config else len(text.encode("utf-8"))


def ratio(numerator: Sample, denominator: Sample) -> Optional[float]:
    if numerator.problem or denominator.problem:
        return None
    return numerator.median / denominator.median


def cpu_ratio(numerator: Sample, denominator: Sample) -> Optional[float]:
    if numerator.problem or denominator.problem or not numerator.cpu_times or not denominator.cpu_times:
        return None
    return statistics.mean(numerator.cpu_times) / statistics.mean(denominator.cpu_times)


def growth(points: Dict[str, Any]) -> Dict[str, Any]:
    """Growth of the input-dependent cost from the middle to the largest point, against linear.

    Cost above the smallest point: d_mid = t(mid) - t(small), d_big = t(big) - t(small).
    Linear cost gives d_big / d_mid = (big - small) / (mid - small) (8.5 for 1/16/128 KiB, 9.0 for
    1/8/64 KiB); quadratic cost gives about that squared. d_mid below the noise floor
    (twice the interquartile range of the small point's runs, at least 1 ms) is replaced by the floor.
    """
    small, mid, big = (points[k] for k in list(points)[:3])
    if "problem" in small or "problem" in mid or ("problem" in big and "lower_bound" not in big):
        return {"verdict": "not measured"}
    linear = (big["bytes"] - small["bytes"]) / (mid["bytes"] - small["bytes"])
    quartiles = statistics.quantiles(small["times"], n=4) if len(small["times"]) > 1 else [0.0, 0.0, 0.0]
    floor = max(1e-3, 2 * (quartiles[2] - quartiles[0]))
    d_mid = mid["median"] - small["median"]
    d_big = big.get("median", big.get("lower_bound", 0.0)) - small["median"]  # a timeout: at least that long
    factor = d_big / max(d_mid, floor)
    superlinear = d_big > floor and factor > LINEAR_SLACK * linear
    if "lower_bound" in big and not superlinear:
        return {"verdict": "not measured"}
    verdict = "SUPERLINEAR" if superlinear else "linear"
    found = {"linear_factor": linear, "factor": factor, "noise_floor": floor, "verdict": verdict}
    if "lower_bound" in big:
        found["factor_is_lower_bound"] = True
    return found


def in_process_growth(points: List[Dict[str, Any]], backend: str) -> Dict[str, Any]:
    """Time growth against size growth for each step; linear within LINEAR_SLACK on the last step."""
    sizes = [p["bytes"] for p in points]
    medians = [p[backend]["median"] for p in points]
    time_steps = [medians[i + 1] / medians[i] for i in range(len(points) - 1)]
    size_steps = [sizes[i + 1] / sizes[i] for i in range(len(points) - 1)]
    linear = time_steps[-1] <= LINEAR_SLACK * size_steps[-1]
    return {
        "bytes": sizes,
        "medians": medians,
        "time_steps": time_steps,
        "size_steps": size_steps,
        "verdict": "linear" if linear else "SUPERLINEAR",
    }


def machine() -> Dict[str, str]:
    def first(command: List[str]) -> str:
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            return "not installed"
        return (done.stdout or done.stderr).strip().splitlines()[0] if (done.stdout or done.stderr) else "?"

    cpu = "?"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    memory = "?"
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal:"):
            memory = "%.1f GiB" % (int(line.split()[1]) / KIB / KIB)
    distro = "?"
    if Path("/etc/os-release").exists():
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                distro = line.split("=", 1)[1].strip('"')
    return {
        "load_average_at_start": load_average(),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": "%s, %d logical CPUs" % (cpu, os.cpu_count() or 0),
        "memory": memory,
        "os": "%s, Linux %s (%s)" % (distro, platform.release(), platform.machine()),
        "python": "%s (%s)" % (platform.python_version(), PYTHON),
        "bash": first([BASH, "--version"]),
        "hyperfine": first(["hyperfine", "--version"]),
        "rustc": first(["rustc", "--version"]),
        "commit": first(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"]) + uncommitted(),
    }


def uncommitted() -> str:
    """Which measured sources differ from the commit (the working tree is shared while layers land)."""
    done = subprocess.run(
        ["git", "-C", str(ROOT), "status", "--porcelain", "--", "python", "sage", "crates", "parity/layers.py"],
        capture_output=True,
        text=True,
    )
    changed = [line[3:] for line in done.stdout.splitlines() if line.strip()]
    return " (+ uncommitted changes: %s)" % ", ".join(changed) if changed else ""


def load_average() -> str:
    """1, 5 and 15 minute load averages: how busy the machine was besides the bench."""
    return " ".join("%.2f" % x for x in os.getloadavg())


def log(message: str) -> None:
    print("bench: " + message, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- the report


def fmt_ratio(value: Optional[float]) -> str:
    return "n/a" if value is None else "%.2fx" % value


def fmt_time(summary: Dict[str, Any], unit: str = "ms") -> str:
    """Median (min-max), in ms or µs."""
    if "problem" in summary:
        return summary["problem"]
    scale, digits = (1e3, 1) if unit == "ms" else (1e6, 2)
    if unit == "ms" and summary["median"] < 0.01:
        digits = 2
    if unit == "µs" and summary["median"] * scale >= 100:
        digits = 0
    text = "%.*f (%.*f–%.*f)" % (
        digits,
        summary["median"] * scale,
        digits,
        summary["min"] * scale,
        digits,
        summary["max"] * scale,
    )
    if summary["n"] < 20:
        text += " n=%d" % summary["n"]
    return text


def start_target(name: str, cold_layers: Dict[str, Any]) -> float:
    """The cold-start limit of a layer: bash's for a bash script, the interpreter's otherwise."""
    if name == "bash" or cold_layers.get(name, {}).get("bare_label") == "bash -c :":
        return BASH_START_TARGET
    if name == "exe":
        return EXE_START_TARGET
    return PYTHON_START_TARGET


def with_cpu(wall: Optional[float], cpu: Optional[float], limit: float) -> str:
    """The wall-time ratio (judged), with the CPU-time ratio beside it; flagged when they disagree."""
    text = fmt_ratio(wall)
    if wall is not None and cpu is not None:
        text += " (CPU time %s%s)" % (fmt_ratio(cpu), "" if (cpu <= limit) == (wall <= limit) else ", disagrees")
    return text


def ratio_verdict(value: Optional[float], limit: float) -> str:
    return verdict(None if value is None else value <= limit)


def verdict(passed: Optional[bool]) -> str:
    return "not measured" if passed is None else ("PASS" if passed else "**MISS**")


def render(results: Dict[str, Any], notes: str) -> str:
    m = results["machine"]
    lines = [
        "# Performance",
        "",
        "Produced by `make bench` (tools/bench.py) on %s; do not edit the tables by hand." % m["date"],
        "Raw numbers: [performance.json](performance.json).",
        "",
        "Machine: %s; %s RAM; %s. Python %s; %s; %s; %s. Commit %s; the bench took %s s. Load average"
        " (1, 5, 15 min) at start %s, at end %s: other work on the machine adds noise to every number."
        % (
            m["cpu"],
            m["memory"],
            m["os"],
            m["python"],
            m["bash"],
            m["hyperfine"],
            m["rustc"],
            m["commit"],
            results["bench_seconds"],
            m["load_average_at_start"],
            m["load_average_at_end"],
        ),
        "",
        "Layers: "
        + ", ".join("%s %s" % (name, state) for name, state in results["layers"].items())
        + ". A layer that is not present is not measured; every other one is checked byte for byte against the"
        " pure-Python reference before it is timed.",
        "",
    ]
    lines += render_targets(results)
    lines += render_cold_start(results)
    lines += render_in_process(results)
    lines += render_scaling(results)
    lines += render_batch(results)
    lines += render_imports(results)
    lines += render_how(results)
    lines += [notes.rstrip(), ""]
    return "\n".join(lines)


def render_targets(results: Dict[str, Any]) -> List[str]:
    rows: List[Tuple[str, str, str, str]] = []
    cold = results["cold_start"]["layers"]
    for name in results["layers"]:
        limit = start_target(name, cold)
        bare = "/bin/true" if name == "exe" else "bash" if limit == BASH_START_TARGET else "python"
        what = "1. cold start, %s vs bare %s" % (name, bare)
        if name not in cold:
            rows.append((what, "<= %.2fx" % limit, "not present", "not measured"))
            continue
        value = cold[name]["ratio"]
        rows.append(
            (what, "<= %.2fx" % limit, with_cpu(value, cold[name].get("cpu_ratio"), limit), ratio_verdict(value, limit))
        )
    pair = results["cold_start"]["native_vs_pure"].get("cli-native/cli-pure")
    value = pair["ratio"] if pair else None
    rows.append(
        (
            "1. cold start, sage-flags parse native vs pure",
            "<= %.2fx" % NATIVE_START_TARGET,
            with_cpu(value, pair.get("cpu_ratio"), NATIVE_START_TARGET) if pair else "native not present",
            ratio_verdict(value, NATIVE_START_TARGET),
        )
    )
    exe = results["cold_start"].get("exe")
    value = exe["ratio_to_console_script"] if exe else None
    rows.append(
        (
            "1. cold start, native executable vs the Python console script",
            "<= %.2fx" % EXE_VS_CONSOLE_SCRIPT_TARGET,
            "%s; vs python -c pass %s" % (fmt_ratio(value), fmt_ratio(exe["ratio_to_python"]))
            if exe
            else "not present",
            ratio_verdict(value, EXE_VS_CONSOLE_SCRIPT_TARGET),
        )
    )
    typical = results["in_process"]["parse_to_json"]["typical"]
    value = typical.get("cpu_speedup")
    rows.append(
        (
            "2. in-process parse+to_json, native speed-up on typical input",
            ">= %.0fx" % NATIVE_SPEEDUP_TARGET,
            ("%.1fx (wall time %.1fx)" % (value, typical["wall_speedup"])) if value else "native not present",
            verdict(None if value is None else value >= NATIVE_SPEEDUP_TARGET),
        )
    )
    for backend in ("pure", "native"):
        growths = results["in_process"]["growth"].get(backend)
        what = "3. scaling, in-process %s (words, flags, config)" % backend
        if growths is None:
            rows.append((what, "linear", "not present", "not measured"))
            continue
        bad = [name for name, g in growths.items() if g["verdict"] != "linear"]
        rows.append((what, "linear", "; ".join("%s SUPERLINEAR" % b for b in bad) or "linear", verdict(not bad)))
    scaling = results["scaling"]
    for name in results["layers"]:
        if name not in scaling:
            rows.append(("3. scaling, %s" % name, "linear", "not present", "not measured"))
            rows.append(("3. 128 KiB, 10,000 flags, %s" % name, "< 1 s", "not present", "not measured"))
            continue
        verdicts = {s: scaling[name][s]["growth"]["verdict"] for s in ("words", "flags", "config")}
        bad = [s for s, v in verdicts.items() if v != "linear"]
        passed: Optional[bool] = not bad
        if bad and "SUPERLINEAR" not in [verdicts[s] for s in bad]:
            passed = None  # nothing superlinear seen, but not everything measured
        rows.append(
            (
                "3. scaling, %s (words, flags, config)" % name,
                "linear",
                "linear" if not bad else "; ".join("%s %s" % (s, verdicts[s]) for s in bad),
                verdict(passed),
            )
        )
        big = scaling[name]["flags"]["128 KiB"]
        rows.append(
            (
                "3. 128 KiB, 10,000 flags, %s" % name,
                "< %g s" % BIG_FLAGS_LIMIT_S,
                fmt_time(big)
                + (
                    ""
                    if "problem" in big
                    else " ms (CPU time %.0f ms%s)"
                    % (
                        big["cpu_mean"] * 1e3,
                        ""
                        if (big["cpu_mean"] < BIG_FLAGS_LIMIT_S) == (big["median"] < BIG_FLAGS_LIMIT_S)
                        else ", disagrees",
                    )
                ),
                verdict(
                    False if "lower_bound" in big else None if "problem" in big else big["median"] < BIG_FLAGS_LIMIT_S
                ),
            )
        )
    batch = results["batch"]
    for name, limit in (("bash", BASH_BATCH_TARGET), ("cli-native", NATIVE_BATCH_TARGET), ("exe", NATIVE_BATCH_TARGET)):
        row = batch.get(name)
        value = row.get("records_per_s") if row else None
        if row is None:
            measured, passed = "not present", None
        elif value is not None:
            cpu_rate = row["cpu_records_per_s"]
            measured = "{:,.0f} records/s (CPU time {:,.0f}{})".format(
                value, cpu_rate, "" if (cpu_rate >= limit) == (value >= limit) else ", disagrees"
            )
            passed = value >= limit
        elif "lower_bound" in row["corpus"]:  # a timeout: at most this fast
            at_most = row["records"] / row["corpus"]["lower_bound"]
            measured = "< {:,.0f} records/s ({})".format(at_most, row["corpus"]["problem"])
            passed = False if at_most < limit else None
        else:
            measured, passed = row["corpus"]["problem"], None
        rows.append(("4. batch throughput, %s" % name, ">= {:,} records/s".format(limit), measured, verdict(passed)))
    lines = [
        "## Targets",
        "",
        "Whole processes are judged on wall time (medians), in-process calls on CPU time. Beside a whole-process"
        " figure, the same in CPU time (user + system);"
        ' "disagrees" marks a verdict that CPU time would reverse. On a busy machine waiting for a CPU inflates'
        " wall times (absolute targets look worse) and adds the same milliseconds to both sides of a ratio (ratios"
        " look closer to 1); CPU time is hardly affected.",
        "",
        "| target | wanted | measured | result |",
        "|---|---|---|---|",
    ]
    lines += ["| %s | %s | %s | %s |" % row for row in rows]
    return [*lines, ""]


def render_cold_start(results: Dict[str, Any]) -> List[str]:
    cold = results["cold_start"]
    lines = [
        "## 1. Cold start: one `parse` with a small config",
        "",
        "ARGUMENTS `%s`, a 5-line config. Milliseconds, median (min–max) of interleaved runs; the ratio is"
        " entry / bare runtime, both measured in the same run." % cold["arguments"],
        "",
        "| layer | command | entry ms | bare runtime | bare ms | ratio | target | CPU-time ratio"
        " | `python -m` empty module: ms, / bare, entry / it |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name in results["layers"]:
        if name not in cold["layers"]:
            lines.append("| %s | %s | not present | | | | | | |" % (name, LAYER_COMMANDS[name]))
            continue
        row = cold["layers"][name]
        limit = start_target(name, cold["layers"])
        lines.append(
            "| %s | %s | %s | %s | %s | %s | <= %.2fx %s | %s | %s |"
            % (
                name,
                LAYER_COMMANDS.get(name, " ".join(row["command"]["argv"][:4])),
                fmt_time(row["entry"]),
                row["bare_label"],
                fmt_time(row["bare_runtime"]),
                fmt_ratio(row["ratio"]),
                limit,
                verdict(None if row["ratio"] is None else row["ratio"] <= limit),
                fmt_ratio(row.get("cpu_ratio")),
                "%s, %s, %s"
                % (
                    fmt_time(row["python_m_empty"]),
                    fmt_ratio(row["python_m_empty_ratio"]),
                    fmt_ratio(row["ratio_to_python_m_empty"]),
                )
                if "python_m_empty" in row
                else "",
            )
        )
    exe = cold.get("exe")
    if exe:
        lines += [
            "",
            "The native executable against `python -c pass` and the Python console script (native backend),"
            " interleaved in one run:",
            "",
        ]
        lines += [
            "| executable ms | console script ms | python -c pass ms | exe / console script | exe / python |",
            "|---|---|---|---|---|",
        ]
        lines.append(
            "| %s | %s | %s | %s | %s |"
            % (
                fmt_time(exe["exe"]),
                fmt_time(exe["console_script"]),
                fmt_time(exe["python"]),
                fmt_ratio(exe["ratio_to_console_script"]),
                fmt_ratio(exe["ratio_to_python"]),
            )
        )
    lines += ["", "Native against pure, head to head (target for `sage-flags parse`: within 5%):", ""]
    lines += ["| pair | pure ms | native ms | native / pure | CPU-time ratio |", "|---|---|---|---|---|"]
    if not cold["native_vs_pure"]:
        lines.append("| native not present | | | | |")
    for pair, row in cold["native_vs_pure"].items():
        lines.append(
            "| %s | %s | %s | %s | %s |"
            % (
                pair,
                fmt_time(row["pure"]),
                fmt_time(row["native"]),
                fmt_ratio(row["ratio"]),
                fmt_ratio(row.get("cpu_ratio")),
            )
        )
    return [*lines, ""]


def render_in_process(results: Dict[str, Any]) -> List[str]:
    part = results["in_process"]
    lines = [
        "## 2. In-process: µs per `parse(text, defaults).to_json()`",
        "",
        "A timeit loop (gc off), median (min–max) of %d interleaved repeats, each a loop of about 10 ms; defaults"
        " loaded once. Judged on CPU time (`process_time`): a loop preempted by other work on the machine loses"
        " wall time, not CPU time. Speed-up = pure median / native median; the wall-clock speed-up is beside it."
        % results["runs_per_cell"],
        "",
        "| input | bytes | pure µs (CPU) | native µs (CPU) | native speed-up | wall-clock speed-up |",
        "|---|---|---|---|---|---|",
    ]
    for label, row in part["parse_to_json"].items():
        native = fmt_time(row["native"], "µs") if "native" in row else "not present"
        speedup = ("%.1fx" % row["cpu_speedup"]) if row.get("cpu_speedup") else "n/a"
        wall = ("%.1fx" % row["wall_speedup"]) if row.get("wall_speedup") else "n/a"
        lines.append(
            "| %s | {:,} | %s | %s | %s | %s |".format(row["bytes"])
            % (label, fmt_time(row["pure"], "µs"), native, speedup, wall)
        )
    lines += ["", "`load_defaults(path)` on the scaling configs (µs, CPU):", ""]
    lines += ["| config | bytes | pure µs | native µs |", "|---|---|---|---|"]
    for label, row in part["load_defaults"].items():
        native = fmt_time(row["native"], "µs") if "native" in row else "not present"
        lines.append("| %s | {:,} | %s | %s |".format(row["bytes"]) % (label, fmt_time(row["pure"], "µs"), native))
    return [*lines, ""]


def render_scaling(results: Dict[str, Any]) -> List[str]:
    lines = [
        "## 3. Scaling (C21): whole-process ms per input size",
        "",
        "Growth = (t(largest) − t(smallest)) / (t(middle) − t(smallest)): the input-dependent cost from the"
        " middle to the largest size. Linear cost gives about 8.5 for 1/16/128 KiB and 9 for 1/8/64 KiB;"
        " a quadratic path gives about the square (72, 81); verdict linear up to %.0fx the linear value. A middle"
        " step below the noise floor (twice the interquartile range of the smallest point, at least 1 ms) is taken"
        " as the floor. Config series: the typical ARGUMENTS with a"
        " config of that size (its last line is `quality_locked: true`, so every byte is read)." % LINEAR_SLACK,
        "",
        "| layer | series | sizes, bytes | small ms | middle ms | large ms | growth (linear) | verdict |",
        "|---|---|---|---|---|---|---|---|",
    ]
    scaling = results["scaling"]
    for name in results["layers"]:
        if name not in scaling:
            lines.append("| %s | | not present | | | | | |" % name)
            continue
        for series, points in scaling[name].items():
            labels = [k for k in points if k != "growth"]
            g = points["growth"]
            sizes = " / ".join("{:,}".format(points[k].get("bytes", 0)) for k in labels)
            factor = "n/a"
            if "factor" in g:
                at_least = ">= " if g.get("factor_is_lower_bound") else ""
                factor = "%s%.1f (%.1f)" % (at_least, g["factor"], g["linear_factor"])
            cells = [fmt_time(points[k]) for k in labels]
            lines.append(
                "| %s | %s | %s | %s | %s | %s | %s | %s |"
                % (
                    name,
                    series,
                    sizes,
                    *cells,
                    factor,
                    g["verdict"] if g["verdict"] == "linear" else "**%s**" % g["verdict"],
                )
            )
    lines += [
        "",
        "In-process (no start-up to subtract): CPU µs per parse+to_json (words, flags) or per load_defaults (config),"
        " and each step's time growth against its size growth; linear when the last step's time grows at most"
        " %.0fx as much as the size." % LINEAR_SLACK,
        "",
        "| backend | series | sizes, bytes | µs | time growth | size growth | verdict |",
        "|---|---|---|---|---|---|---|",
    ]
    for backend in ("pure", "native"):
        if backend not in results["in_process"]["growth"]:
            lines.append("| %s | | not present | | | | |" % backend)
            continue
        for series, g in results["in_process"]["growth"][backend].items():
            lines.append(
                "| %s | %s | %s | %s | %s | %s | %s |"
                % (
                    backend,
                    series,
                    " / ".join("{:,}".format(b) for b in g["bytes"]),
                    " / ".join("%.1f" % (t * 1e6) for t in g["medians"]),
                    ", ".join("×%.1f" % x for x in g["time_steps"]),
                    ", ".join("×%.1f" % x for x in g["size_steps"]),
                    g["verdict"] if g["verdict"] == "linear" else "**%s**" % g["verdict"],
                )
            )
    return [*lines, ""]


def render_batch(results: Dict[str, Any]) -> List[str]:
    lines = [
        "## 4. Batch throughput (C22)",
        "",
        "{:,} realistic NUL-terminated records (typical slash-command texts, flags, non-ASCII, tabs and newlines,"
        " 3% mistakes), small config, stdin redirected from a file. records/s = records / median wall time of the"
        " whole process (judged); steady state subtracts the same command's run on empty stdin (start-up);"
        " records per CPU second divides by user + system time instead.".format(BATCH_RECORDS),
        "",
        "| layer | 10,000 records ms | empty stdin ms | records/s | steady-state records/s | records per CPU second"
        " | target |",
        "|---|---|---|---|---|---|---|",
    ]
    batch = results["batch"]
    targets = {"bash": BASH_BATCH_TARGET, "cli-native": NATIVE_BATCH_TARGET, "exe": NATIVE_BATCH_TARGET}
    for name in results["layers"]:
        if name not in batch:
            lines.append("| %s | not present | | | | | |" % name)
            continue
        row = batch[name]
        rate = row.get("records_per_s")
        limit = targets.get(name)
        target = "" if limit is None else ">= {:,} %s".format(limit) % verdict(None if rate is None else rate >= limit)
        lines.append(
            "| %s | %s | %s | %s | %s | %s | %s |"
            % (
                name,
                fmt_time(row["corpus"]),
                fmt_time(row["no_records"]),
                "{:,.0f}".format(rate) if rate else "n/a",
                "{:,.0f}".format(row["steady_records_per_s"]) if row.get("steady_records_per_s") else "n/a",
                "{:,.0f}".format(row["cpu_records_per_s"]) if row.get("cpu_records_per_s") else "n/a",
                target,
            )
        )
    return [*lines, ""]


def render_imports(results: Dict[str, Any]) -> List[str]:
    lines = [
        "## Start-up: what each Python entry imports beyond `python -c pass`",
        "",
        "`python -X importtime`, the least self µs of %d runs per module (still noisy; the module list is exact)."
        % IMPORTTIME_RUNS,
        "",
        "| layer | modules beyond bare | self µs | modules |",
        "|---|---|---|---|",
    ]
    for name, row in results["start_up_imports"].items():
        modules = sorted(row["extra"].items(), key=lambda kv: -kv[1][0])
        shown = ", ".join("%s %d" % (m, t[0]) for m, t in modules)
        lines.append("| %s | %d | %d | %s |" % (name, len(modules), row["extra_self_us"], shown))
    return [*lines, ""]


def render_how(results: Dict[str, Any]) -> List[str]:
    return [
        "## How measured",
        "",
        "- `make bench` runs `tools/bench.py` with the venv's interpreter after `make setup`; the layers and their"
        " command lines come from `parity/layers.py`, the same ones the parity tests run.",
        "- Whole processes: hyperfine `-N` (no shell) with the exact argv a workflow uses; batch needs a shell for"
        " `< corpus`, and hyperfine subtracts the shell's own start-up. Each command's output and exit status are"
        " checked against the pure-Python reference before timing.",
        "- Pairs and series are interleaved: one hyperfine call of 1 run (batch: 3) per command in turn, ABBA order,"
        " one warm-up run each in the first round; %d runs per command; a ratio is median over median from the same"
        " interleaved run. A command whose single run takes over %.1f s gets fewer runs (n shown)."
        % (results["runs_per_cell"], SLOW_RUN_S),
        "- In-process: timeit's loop (garbage collector off), loops of about 10 ms, %d repeats per backend, pure"
        " and native alternating; µs = loop time / loop count, CPU (`process_time`, judged) and wall clock"
        " (`perf_counter`)." % results["runs_per_cell"],
        "- The 128 KiB inputs are 130,000 bytes (words) and 130,011 bytes (10,000 flags): under Linux's"
        " MAX_ARG_STRLEN of 131,072 bytes per argv item, with room for the rest of hyperfine's command line.",
        "- Cold-start targets compare each entry with the bare runtime it cannot do without (`python -c pass` with"
        " the same venv interpreter, `bash -c :`); the native start-up target compares the two backends directly."
        " The CPU-time ratio (user + system, mean per run, from hyperfine) is a cross-check that waiting for a busy"
        " CPU hardly affects; the targets are judged on wall time.",
        "",
    ]


def to_json(results: Dict[str, Any]) -> str:
    """Indented JSON with every list of numbers on one line (the raw times stay readable)."""
    text = json.dumps(results, indent=1, ensure_ascii=False)
    number_list = re.compile(r"\[\s*(-?[0-9.e+-]+(?:,\s*-?[0-9.e+-]+)*)\s*\]")
    return number_list.sub(lambda m: "[" + ", ".join(x.strip() for x in m.group(1).split(",")) + "]", text) + "\n"


def kept_notes(path: Path) -> str:
    if path.exists():
        text = path.read_text(encoding="utf-8")
        at = text.find(NOTES_HEADING)
        if at >= 0:
            return text[at:]
    return NOTES_HEADING + "\n\n(none yet)\n"


def main() -> int:
    options = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    options.add_argument("--quick", action="store_true", help="3 runs per cell: try the harness, publish nothing")
    options.add_argument("--out-dir", type=Path, default=ROOT / "docs")
    args = options.parse_args()
    if shutil.which("hyperfine") is None:
        sys.exit("bench: hyperfine is not installed (make bench installs it: apt-get install hyperfine)")
    runs = 3 if args.quick else RUNS
    with tempfile.TemporaryDirectory(prefix="sage-flags-bench-") as workdir:
        results = Bench(runs, Path(workdir)).run_all()
    args.out_dir.mkdir(parents=True, exist_ok=True)
    markdown = args.out_dir / "PERFORMANCE.md"
    (args.out_dir / "performance.json").write_text(to_json(results))
    markdown.write_text(render(results, kept_notes(markdown)), encoding="utf-8")
    log("wrote %s and performance.json (%.0f s)" % (markdown, results["bench_seconds"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
