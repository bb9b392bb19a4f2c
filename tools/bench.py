"""make bench: every layer's speed and how it scales, side by side, on standard tools.

    .venv/bin/python tools/bench.py                  # docs/PERFORMANCE.md, docs/performance.json, docs/scaling.png
    .venv/bin/python tools/bench.py --quick --out-dir build/bench
    .venv/bin/python tools/bench.py --only hook_start  # one part, printed as JSON (no report written)

hyperfine times whole processes: each comparison is one hyperfine run of several commands (its JSON export
is kept), and the config series is one run with --parameter-list. pyperf times in-process calls. This file
keeps only what those tools do not do: it checks every command's output byte for byte against the pure
reference before timing it (a timing of a wrong answer is no timing), judges the targets, and writes a short
report and the scaling plot. The layers and their command lines come from parity/layers.py. Every command,
bare runtimes included, runs through `env` (hyperfine cannot set a command's environment or folder), so the
ratios compare like with like. The notes section of docs/PERFORMANCE.md (from NOTES_HEADING on) is kept.
"""

import argparse
import datetime
import json
import os
import random
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "python")]

from sage_flags import reference  # noqa: E402
from sage_flags._vocab import MODES  # noqa: E402

from parity.layers import Layer, all_layers, bash_interpreters  # noqa: E402

PYTHON = sys.executable
NOTES_HEADING = "## Notes (written by hand; `make bench` keeps this section)"
KIB = 1024

# Targets (issues 3, 4, 6 and 20): (what, wanted, how a measured value passes).
PYTHON_START = 1.15  # entry / bare `python -c pass`
BASH_START = 1.5  # parse.sh / bare `bash -c :` of the same bash
NATIVE_VS_PURE_START = 1.05  # cli-native / cli-pure
EXE_START = 1.5  # the native executable / `/bin/true`
EXE_VS_CONSOLE_SCRIPT = 0.1  # the native executable / the console script it replaces (cli-native)
HOOK_EXE_START = 1.5  # issue 28: `sage-flags hook` for a prompt that is no workflow, native executable / `/bin/true`
NATIVE_SPEEDUP = 10.0  # in-process parse+to_json, pure / native, typical input
BIG_FLAGS_LIMIT_MS = 1000.0  # 128 KiB holding 10,000 flags, every layer
BASH_BATCH = 5_000  # records/s
NATIVE_BATCH = 100_000  # records/s, the native layers
LINEAR_SLACK = 2.0  # t(128 KiB) / t(16 KiB) may be at most this times the size ratio (a quadratic path: 64x)

FLAGS = ["--" + name for _, name in MODES]
TYPICAL = " ".join(FLAGS) + " Ship dark mode on the settings page"
SMALL_CONFIG = ("# .sage/config.yaml\nproject: shop\n%s: true\nmodel: default\n" % MODES[0][0]).encode()
# One argv item holds at most 131,072 bytes on Linux: "128 KiB" is 130,000.
ARG_SIZES = {"1 KiB": KIB, "16 KiB": 16 * KIB, "128 KiB": 130_000}
CONFIG_SIZES = {"1 KiB": KIB, "8 KiB": 8 * KIB, "60 KiB": 60 * KIB}  # under the config bound (SPEC H1)
BATCH_RECORDS = 10_000
# persist and resume (SPEC P10): a 1 MB body (copied, never scanned), a front matter at its 64 KiB bound (one
# long line, the shape that was quadratic in bash, issue 24) and one byte past it (refused: status 3, no modes).
MANIFEST_BOUND = 65536
MANIFEST_TAIL = b"\nflags:\n  %s: false\n  %s: true\n---\n" % (MODES[0][0].encode(), MODES[-1][0].encode())
MANIFEST_LINE_ARGS = [FLAGS[-1], "go"]  # the line persist records: what the manifests hold already (idempotent)
GOALS = ["Ship dark mode", 'Rename "userId"', "Übersetze die Hilfe", "修复登录", "green again 🚀", "a\tb\nc", ""]


def words(size: int) -> str:
    text = " ".join(random.Random(size).choice(["ship", "dark", "mode", "Fix", "the", "bug"]) for _ in range(size))
    return (FLAGS[0] + " " + text)[:size].rstrip()


def flags(size: int) -> str:
    flag = FLAGS[-1] + " "
    return flag * ((size - 8) // len(flag)) + "Ship it"


def config(size: int) -> bytes:
    """About ``size`` bytes whose last line turns a mode on, so every byte is read."""
    line = b"setting: value  # %s: true is not this line\n" % MODES[0][0].encode()
    tail = b"%s: true\n" % MODES[-1][0].encode()
    return line * ((size - len(tail)) // len(line)) + tail


def manifests() -> Dict[str, bytes]:
    """The manifests persist and resume are timed on, by name."""
    head = b"---\nimage: "
    at_bound = MANIFEST_BOUND - len(head) - len(MANIFEST_TAIL)
    return {
        "body 1 MB": b"---" + MANIFEST_TAIL + b"body line\n" * ((1 << 20) // 10),
        "front matter at bound": head + b"A" * at_bound + MANIFEST_TAIL,
        "front matter past bound": head + b"A" * (at_bound + 1) + MANIFEST_TAIL,
    }


def corpus() -> List[str]:
    rng = random.Random(22)
    sets = [[], [FLAGS[0]], FLAGS, ["--no-" + FLAGS[-1][2:]], ["--"], ["--typo"]]
    return [" ".join([*rng.choice(sets), rng.choice(GOALS)]) for _ in range(BATCH_RECORDS)]


def expected(arguments: str, config_path: Optional[Path]) -> bytes:
    defaults = reference.load_defaults(config_path) if config_path else None
    return reference.parse(arguments, defaults).to_json().encode() + b"\n"


class Bench:
    def __init__(self, runs: int, work: Path) -> None:
        self.runs, self.work = runs, work
        self.layers = {layer.name: layer for layer in all_layers() if "parse" in layer.commands}
        self.results: Dict[str, Any] = {"runs": runs, "layers": list(self.layers)}
        self.small = self.file("small.yaml", SMALL_CONFIG)
        # As pip does on install: without .pyc files (PYTHONDONTWRITEBYTECODE is set here) every start compiles.
        subprocess.run([PYTHON, "-m", "compileall", "-q", str(ROOT / "python"), str(ROOT / "sage")], check=True)

    def file(self, name: str, data: bytes) -> Path:
        path = self.work / name
        path.write_bytes(data)
        return path

    def command(self, layer: Layer, verb: str, args: Sequence[str]) -> str:
        """The layer's command line, through env (its variables and folder), as hyperfine -N runs it."""
        prefix = ["env"] + (["-C", str(layer.cwd)] if layer.cwd else []) + [f"{k}={v}" for k, v in layer.env.items()]
        return shlex.join(prefix + layer.commands[verb] + list(args))

    def check(self, command: str, want: bytes, stdin: Optional[Path] = None) -> None:
        done = subprocess.run(
            command if stdin else shlex.split(command), shell=bool(stdin), capture_output=True, timeout=120
        )
        if done.stdout != want:
            raise SystemExit(f"bench: wrong output, not timed: {command[:200]}\n{done.stdout[:300]!r}")

    def hyperfine(self, name: str, commands: Dict[str, str], shell: bool = False, **params: List[str]) -> dict:
        """One hyperfine run of every command (and parameter value); {name[/value]: stats}, JSON kept."""
        export = self.work / f"{name}.json"
        argv = ["hyperfine", "--style", "none", "--runs", str(self.runs), "--warmup", "2", "--export-json", str(export)]
        argv += ["--ignore-failure"] if shell else ["-N"]  # batch: status 1 when a record is an error (C22)
        for var, values in params.items():
            argv += ["--parameter-list", var, ",".join(values)]
        for label, command in commands.items():  # with parameters hyperfine takes no names: matched back below
            argv += ([] if params else ["--command-name", label]) + [command]
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
        out = {}
        for entry in json.loads(export.read_text())["results"]:
            times = sorted(entry["times"])
            label = entry["command"]
            for var, value in entry.get("parameters", {}).items():
                name = next(n for n, c in commands.items() if c.replace("{%s}" % var, value) == label)
                label = f"{name}/{value}"
            out[label] = summary(entry["median"], times, entry["user"] + entry["system"])
        self.results.setdefault("hyperfine", {})[name] = out
        return out

    def cold_start(self) -> None:
        args = ["--config-path", str(self.small), "--", TYPICAL]
        commands = {name: self.command(layer, "parse", args) for name, layer in self.layers.items()}
        for command in commands.values():
            self.check(command, expected(TYPICAL, self.small))
        bare = {"python -c pass": shlex.join(["env", PYTHON, "-c", "pass"]), "/bin/true": "env /bin/true"}
        bare.update({f"{b.name} -c :": shlex.join(["env", b.path, "-c", ":"]) for b in bash_interpreters()})
        self.results["cold_start"] = self.hyperfine("cold_start", {**commands, **bare})

    def in_process(self) -> None:
        """pyperf: microseconds per parse()+to_json(), pure reference and native core, typical and large input."""
        texts = {"typical": TYPICAL, "words 128 KiB": words(ARG_SIZES["128 KiB"]), "flags 128 KiB": flags(130_000)}
        out: Dict[str, Dict[str, float]] = {}
        for backend, module in (("pure", "sage_flags.reference"), ("native", "sage_flags._native")):
            for label, text in texts.items():
                path = self.file("text.txt", text.encode())
                result = self.work / f"pyperf-{backend}-{label.replace(' ', '-')}.json"
                setup = f"import {module} as m; t = open({str(path)!r}, encoding='utf-8').read()"
                argv = [PYTHON, "-m", "pyperf", "timeit", "-q", "-p", "3", "-n", "5", "-o", str(result), "-s", setup]
                if subprocess.run([*argv, "m.parse(t).to_json()"], capture_output=True).returncode != 0:
                    continue  # no native core built: not measured
                runs = json.loads(result.read_text())["benchmarks"][0]["runs"]
                values = sorted(v for run in runs for v in run.get("values", []))
                out.setdefault(backend, {})[label] = 1e6 * values[len(values) // 2]
        self.results["in_process_us"] = out

    def import_time(self) -> None:
        """-X importtime: the sage_flags modules' self time in one `parse` through the console script on the native
        backend (cli-native), over many runs: the median, and p90 - p10 as its noise (what a change must beat)."""
        layer = self.layers["cli-native"]
        argv = layer.argv("parse", [b"--config-path", os.fsencode(self.small), b"--", TYPICAL.encode()])
        env = {**os.environ, **layer.env, "PYTHONPROFILEIMPORTTIME": "1"}
        totals, modules = [], []
        for _ in range(max(self.runs * 4, 20)):
            lines = subprocess.run(argv, env=env, capture_output=True, cwd=layer.cwd).stderr.decode().splitlines()
            rows = [line.split("|") for line in lines if line.startswith("import time:") and "sage_flags" in line]
            modules = [row[2].strip() for row in rows]
            totals.append(sum(int(row[0].split(":")[1]) for row in rows))
        totals.sort()
        low, high = totals[len(totals) // 10], totals[len(totals) * 9 // 10]
        middle = {"median": totals[len(totals) // 2], "min": totals[0], "max": totals[-1], "noise": high - low}
        self.results["import_time_us"] = {**middle, "modules": modules}

    def scaling(self) -> None:
        series: Dict[str, Dict[str, Dict[str, float]]] = {}
        for kind, make in (("words", words), ("flags", flags)):
            for size_name, size in ARG_SIZES.items():
                text = make(size)
                commands = {n: self.command(layer, "parse", ["--", text]) for n, layer in self.layers.items()}
                for command in commands.values():
                    self.check(command, expected(text, None))
                for name, stats in self.hyperfine(f"{kind}-{size_name.replace(' ', '')}", commands).items():
                    series.setdefault(kind, {}).setdefault(name, {})[size_name] = stats["median_ms"]
        path = str(self.work / "config-{size}.yaml")  # hyperfine's --parameter-list fills {size}
        template = {n: self.command(layer, "parse", ["--config-path", path, "go"]) for n, layer in self.layers.items()}
        sizes = [name.replace(" ", "") for name in CONFIG_SIZES]
        for size, short in zip(CONFIG_SIZES.values(), sizes):
            real = self.file(f"config-{short}.yaml", config(size))
            for command in template.values():
                self.check(command.replace("{size}", short), expected("go", real))
        for label, stats in self.hyperfine("config", template, size=sizes).items():
            name, size = label.rsplit("/", 1)
            series.setdefault("config", {}).setdefault(name, {})[size[:-3] + " KiB"] = stats["median_ms"]
        self.results["scaling_ms"] = series

    def batch(self) -> None:
        records = corpus()
        stream = self.file("corpus.bin", b"\0".join(r.encode() for r in records))
        want = b"".join(expected(r, None) for r in records)
        commands = {}
        for name, layer in self.layers.items():
            if "batch" in layer.commands:
                commands[name] = self.command(layer, "batch", []) + " < " + shlex.quote(str(stream))
                self.check(commands[name], want, stdin=stream)
        stats = self.hyperfine("batch", commands, shell=True)
        self.results["batch_records_per_s"] = {n: BATCH_RECORDS / (s["median_ms"] / 1000) for n, s in stats.items()}

    def manifests(self) -> None:
        """persist and resume on each manifest of manifests(), every layer, medians and ratios to cli-pure."""
        layers = {layer.name: layer for layer in all_layers() if "persist" in layer.commands}
        parse = layers["cli-pure"].run("parse", [a.encode() for a in MANIFEST_LINE_ARGS])
        line = self.file("line.json", parse.stdout)
        out: Dict[str, Dict[str, Dict[str, float]]] = {}
        for label, data in manifests().items():
            for verb in ("persist", "resume"):
                path = self.file(f"manifest-{verb}-{label.replace(' ', '-')}.md", data)
                args = [str(path)] + (["go"] if verb == "resume" else [])
                commands = {n: self.command(layer, verb, args) for n, layer in layers.items()}
                if verb == "persist":
                    commands = {n: c + " < " + shlex.quote(str(line)) for n, c in commands.items()}
                want = None
                for name, command in commands.items():  # every layer answers as the pure reference, byte for byte
                    done = subprocess.run(command, shell=True, capture_output=True, timeout=600)
                    got = (done.returncode, done.stdout, path.read_bytes())
                    want = want or got
                    if got != want:
                        raise SystemExit(f"bench: {name} {verb} on {label}: {got[:2]!r}, expected {want[:2]!r}")
                stats = self.hyperfine(f"{verb}-{label.replace(' ', '-')}", commands, shell=True)
                pure = stats["cli-pure"]["median_ms"]
                out[f"{verb}, {label} (status {want[0]})"] = {
                    n: {"median_ms": st["median_ms"], "cpu_ms": st["cpu_ms"], "vs_cli_pure": st["median_ms"] / pure}
                    for n, st in stats.items()
                }
        self.results["manifests_ms"] = out

    def hook_start(self) -> None:
        """Issue 28: the hook for a prompt that is no workflow (a Claude Code UserPromptSubmit event on stdin)
        through HOOK_LAYERS beside `/bin/true`, spawned here as hyperfine -N spawns them (hyperfine 1.15 gives no
        stdin without a shell, whose start would swamp a 1 ms program), interleaved run by run."""
        path = self.file("event.json", json.dumps(HOOK_EVENT).encode())
        hook = {layer.name: layer for layer in all_layers() if "hook" in layer.commands}
        args = [b"claude-code", b"--config-path", os.fsencode(self.small)]
        env = {k: v for k, v in os.environ.items() if k != "SAGE_FLAGS_BACKEND"}
        commands = {name: (hook[name].argv("hook", args), {**env, **hook[name].env}) for name in HOOK_LAYERS}
        for name, (argv, command_env) in commands.items():
            done = subprocess.run(argv, stdin=path.open("rb"), capture_output=True, env=command_env, timeout=60)
            if (done.returncode, done.stdout, done.stderr) != (0, b"", b""):
                raise SystemExit(f"bench: {name}: a prompt that is no workflow must give nothing, not timed: {done}")
        # /bin/true right before the native executable in every round: the two are compared, so they see one load.
        commands = {"/bin/true": ([b"/bin/true"], env), **commands}
        self.results["hook_start"] = spawn_times(commands, path, max(self.runs * 10, 30))


HOOK_LAYERS = ("exe", "cli-native", "cli-pure", "launcher", "launcher-exe")
HOOK_EVENT = dict(
    session_id="abc123", transcript_path="/home/user/.claude/projects/app/abc123.jsonl", cwd="/home/user/app",
    permission_mode="default", hook_event_name="UserPromptSubmit",
    prompt="Fix the login bug on the settings page, then run the tests.",
)  # fmt: skip


def spawn_times(commands: Dict[str, Tuple[List[bytes], Dict[str, str]]], stdin: Path, runs: int) -> dict:
    """Wall and CPU time of each command, spawned as hyperfine -N does, stdin from ``stdin``; 3 warm-up rounds."""
    walls: Dict[str, List[float]] = {name: [] for name in commands}
    cpus: Dict[str, List[float]] = {name: [] for name in commands}
    with open(os.devnull, "wb") as null, stdin.open("rb") as source:
        for round_ in range(runs + 3):
            for name, (argv, env) in commands.items():
                source.seek(0)
                actions = [(os.POSIX_SPAWN_DUP2, source.fileno(), 0), (os.POSIX_SPAWN_DUP2, null.fileno(), 1)]
                start = time.perf_counter()
                pid = os.posix_spawn(argv[0], argv, env, file_actions=actions)
                _, _, usage = os.wait4(pid, 0)
                if round_ >= 3:
                    walls[name].append(time.perf_counter() - start)
                    cpus[name].append(usage.ru_utime + usage.ru_stime)
    middle = len(walls["/bin/true"]) // 2
    return {n: summary(sorted(walls[n])[middle], sorted(walls[n]), sorted(cpus[n])[middle]) for n in commands}


def summary(median: float, times: List[float], cpu: float) -> Dict[str, float]:
    """Seconds (``times`` sorted) as the ms every table shows."""
    return {"median_ms": 1000 * median, "min_ms": 1000 * times[0], "max_ms": 1000 * times[-1], "cpu_ms": 1000 * cpu}


Row = Tuple[str, str, str, bool]


def hook_targets(r: Dict[str, Any]) -> List[Row]:
    hook = r.get("hook_start", {})
    if "exe" not in hook:
        return []
    wall = hook["exe"]["median_ms"] / hook["/bin/true"]["median_ms"]
    cpu = hook["exe"]["cpu_ms"] / max(hook["/bin/true"]["cpu_ms"], 1e-9)
    row = "hook cold start, no workflow, exe vs /bin/true"
    return [(row, f"<= {HOOK_EXE_START:.2f}x", f"{wall:.2f}x (CPU {cpu:.2f}x)", wall <= HOOK_EXE_START)]


def targets(r: Dict[str, Any]) -> List[Row]:
    """(target, wanted, measured, passed) for every target; a layer not present is not a row."""
    rows, cold = hook_targets(r), r["cold_start"]

    def ratio(row: str, a: str, b: str, limit: float) -> None:
        if a in cold and b in cold:
            wall, cpu = cold[a]["median_ms"] / cold[b]["median_ms"], cold[a]["cpu_ms"] / cold[b]["cpu_ms"]
            rows.append((row, f"<= {limit:.2f}x", f"{wall:.2f}x (CPU {cpu:.2f}x)", wall <= limit))

    for name in r["layers"]:
        if name.startswith("bash"):
            ratio(f"cold start, {name} vs its bare bash", name, f"{name} -c :", BASH_START)
        elif name == "exe":
            ratio("cold start, exe vs /bin/true", name, "/bin/true", EXE_START)
        else:
            ratio(f"cold start, {name} vs bare python", name, "python -c pass", PYTHON_START)
    ratio("cold start, cli-native vs cli-pure", "cli-native", "cli-pure", NATIVE_VS_PURE_START)
    ratio("cold start, exe vs the console script (cli-native)", "exe", "cli-native", EXE_VS_CONSOLE_SCRIPT)
    us = r["in_process_us"]
    if "native" in us:
        speedup = us["pure"]["typical"] / us["native"]["typical"]
        row = "in-process, native speed-up, typical"
        rows.append((row, f">= {NATIVE_SPEEDUP:.0f}x", f"{speedup:.1f}x", speedup >= NATIVE_SPEEDUP))
    for kind, layers in r["scaling_ms"].items():
        sizes = ARG_SIZES if kind != "config" else CONFIG_SIZES
        for name, points in layers.items():
            first, last = list(points)[1], list(points)[-1]
            growth, limit = points[last] / points[first], LINEAR_SLACK * sizes[last] / sizes[first]
            rows.append((f"linear in {kind}, {name}", f"growth <= {limit:.0f}x", f"{growth:.1f}x", growth <= limit))
    for name, points in r["scaling_ms"]["flags"].items():
        ms, row = points["128 KiB"], f"128 KiB of 10,000 flags, {name}"
        rows.append((row, f"< {BIG_FLAGS_LIMIT_MS:.0f} ms", f"{ms:.1f} ms", ms < BIG_FLAGS_LIMIT_MS))
    for name, rate in r["batch_records_per_s"].items():
        limit = BASH_BATCH if name.startswith("bash") else NATIVE_BATCH if "native" in name or name == "exe" else None
        if limit:
            rows.append((f"batch, {name}", f">= {limit:,} records/s", f"{rate:,.0f} records/s", rate >= limit))
    return rows


def times_table(stats: Dict[str, Dict[str, float]]) -> List[str]:
    """Whole-process times in ms: median, min-max, CPU."""
    lines = ["| command | median | min-max | CPU |", "|---|---|---|---|"]
    return lines + [
        f"| {n} | {s['median_ms']:.2f} | {s['min_ms']:.2f}-{s['max_ms']:.2f} | {s['cpu_ms']:.2f} |"
        for n, s in stats.items()
    ]


HEADER = """# Performance

Produced by `make bench` (tools/bench.py) on {date}; do not edit above the notes.
Raw numbers: [performance.json](performance.json); the scaling: [scaling.png](scaling.png).

Machine: {machine}. Load average at start {load0}, at end {load1}: other work on
the machine adds noise. Medians of hyperfine runs (each comparison one run of all its commands), with
CPU time (user + system) beside the ratios; in-process figures are pyperf medians.

## Targets

| target | wanted | measured | result |
|---|---|---|---|"""


def report(r: Dict[str, Any], notes: str) -> str:
    lines = HEADER.format(**r, load0=r["load"][0], load1=r["load"][1]).split("\n")
    lines += [f"| {t} | {w} | {m} | {'PASS' if ok else '**MISS**'} |" for t, w, m, ok in targets(r)]
    lines += ["", "## Cold start: one parse with a small config (ms)", "", *times_table(r["cold_start"])]
    lines += import_time_table(r)
    us = r["in_process_us"]
    lines += ["", "## In-process parse + to_json (µs, pyperf)", "", "| input | " + " | ".join(us) + " |"]
    lines += ["|---|" + "---|" * len(us)]
    lines += [
        f"| {label} | " + " | ".join(f"{v[label]:.1f}" for v in us.values()) + " |" for label in next(iter(us.values()))
    ]
    lines += ["", "## Scaling (ms, median; the plot is scaling.png)", ""]
    for kind, layers in r["scaling_ms"].items():
        sizes = list(next(iter(layers.values())))
        lines += [f"| {kind} | " + " | ".join(sizes) + " |", "|---|" + "---|" * len(sizes)]
        lines += [f"| {n} | " + " | ".join(f"{p[s]:.1f}" for s in sizes) + " |" for n, p in layers.items()] + [""]
    lines += ["## Batch (10,000 records)", "", "| layer | records/s |", "|---|---|"]
    lines += [f"| {n} | {v:,.0f} |" for n, v in r["batch_records_per_s"].items()]
    lines += ["", "## Hook cold start: a prompt that is no workflow (ms; SPEC K3)", ""]
    lines += [*times_table(r.get("hook_start", {})), "", *manifest_table(r)]
    return "\n".join(lines) + "\n\n" + notes


def import_time_table(r: Dict[str, Any]) -> List[str]:
    """The sage_flags modules' own import time in one parse through cli-native (-X importtime), with its noise."""
    t = r.get("import_time_us")
    if not t:
        return []
    head = "## Import time: the sage_flags modules' self time, `parse` through cli-native (µs, -X importtime)"
    cells = f"| {t['median']:.0f} | {t['min']:.0f}-{t['max']:.0f} | {t['noise']:.0f} | {', '.join(t['modules'])} |"
    return ["", head, "", "| median | min-max | noise (p90 - p10) | modules |", "|---|---|---|---|", cells]


def manifest_table(r: Dict[str, Any]) -> List[str]:
    """persist and resume (SPEC P10): ms, median, and the ratio to the Python layer (cli-pure) beside it."""
    runs = r.get("manifests_ms")
    if not runs:
        return []
    names = list(next(iter(runs.values())))
    lines = ["## persist and resume (ms, median; x = ratio to cli-pure)", ""]
    lines += ["| run | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for run, layers in runs.items():
        cells = [f"{v['median_ms']:.0f} ({v['vs_cli_pure']:.1f}x)" for v in layers.values()]
        lines.append(f"| {run} | " + " | ".join(cells) + " |")
    return [*lines, ""]


def plot(r: Dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    kinds = r["scaling_ms"]
    figure, axes = pyplot.subplots(1, len(kinds), figsize=(5 * len(kinds), 4.5), constrained_layout=True)
    for axis, (kind, layers) in zip(axes, kinds.items()):
        sizes = ARG_SIZES if kind != "config" else CONFIG_SIZES
        for name, points in layers.items():
            axis.plot([sizes[s] / KIB for s in points], list(points.values()), marker="o", label=name)
        axis.set(xscale="log", yscale="log", xlabel=f"{kind}: KiB", ylabel="ms (median, whole process)")
        axis.set_title({"words": "ARGUMENTS of words", "flags": "ARGUMENTS of flags", "config": "config size"}[kind])
        axis.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize="small")
    figure.savefig(path, dpi=90)


PARTS = ("cold_start", "import_time", "in_process", "scaling", "batch", "manifests", "hook_start")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="3 runs per command (tries the harness out)")
    parser.add_argument("--out-dir", type=Path, default=ROOT / "docs")
    parser.add_argument("--only", choices=PARTS, help="run this part alone and print its results (no report)")
    options = parser.parse_args()
    loads = [" ".join("%.2f" % x for x in os.getloadavg())]
    with tempfile.TemporaryDirectory(prefix="sage-flags-bench-") as work:
        bench = Bench(3 if options.quick else 15, Path(work))
        for part in [options.only] if options.only else PARTS:
            print(f"bench: {part}", file=sys.stderr, flush=True)
            getattr(bench, part)()
    results, uname = {**bench.results, "load": [*loads, " ".join("%.2f" % x for x in os.getloadavg())]}, os.uname()
    if options.only:  # its results as JSON, and its table or target where it has one; no report
        print(json.dumps({k: v for k, v in results.items() if k != "hyperfine"}, indent=1))
        print(
            "\n".join({"manifests": manifest_table, "import_time": import_time_table}.get(options.only, list)(results))
        )
        for row in hook_targets(results) if options.only == "hook_start" else []:
            print("bench: %s: wanted %s, measured %s: %s" % (*row[:3], "PASS" if row[3] else "MISS"))
        return 0
    results.update(
        date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        machine=f"{os.cpu_count()} CPUs, {uname.sysname} {uname.release} ({uname.machine}), Python {sys.version[:6]}",
    )
    out = options.out_dir
    out.mkdir(parents=True, exist_ok=True)
    old = out / "PERFORMANCE.md"
    notes = old.read_text(encoding="utf-8") if old.exists() else ""
    notes = notes[notes.index(NOTES_HEADING) :] if NOTES_HEADING in notes else NOTES_HEADING + "\n"
    (out / "performance.json").write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    old.write_text(report(results, notes), encoding="utf-8")
    plot(results, out / "scaling.png")
    missed = [row for row in targets(results) if not row[3]]
    print(f"bench: {len(targets(results)) - len(missed)} targets met, {len(missed)} missed; see {old}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
