"""make bench: every layer's speed and how it scales, side by side (`--quick --out-dir build/bench` tries it out;
`--only PART` prints one part). hyperfine times whole processes, pyperf in-process calls; the hook and the Sage
1.3 project are spawned here beside /bin/true. Every command first answers as the pure reference (a timing of a
wrong answer is no timing) and runs through `env`, bare runtimes too, so ratios compare like with like. The
layers come from parity/layers.py; the notes of docs/PERFORMANCE.md are kept.
"""

import argparse
import json
import os
import random
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import pyperf  # make bench installs it (requirements-bench.txt)

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "python")]

from sage_flags import reference  # noqa: E402
from sage_flags._vocabulary import vocabulary  # noqa: E402

from parity.layers import NATIVE_EXE, Layer, all_layers, bash_interpreters, vendored_bundle  # noqa: E402

MODES = vocabulary().modes  # the default's (B1)

PYTHON = sys.executable
NOTES_HEADING = "## Notes (written by hand; `make bench` keeps this section)"
KIB = 1024

# Targets (issues 3, 4, 6, 20, 28, 37). Start-up: a layer's parse beside its runtime's bare start (what, command,
# the most its median may be times that one's), then fixed pairs (results key, row, a, b, that limit).
BARE = {"python": ("bare python", "python -c pass", 1.15), "bash": ("its bare bash", "{} -c :", 1.5)}
BARE["exe"] = ("/bin/true", "/bin/true", 1.5)
SAGE_1_3 = ("launcher (native), Sage 1.3 project", "Sage 1.3's sage_flags.py", 0.25)  # issue 37
FIXED_RATIOS = [
    ("hook_start", "hook cold start, no workflow, exe vs /bin/true", "exe", "/bin/true", BARE["exe"][2]),
    ("cold_start", "cold start, cli-native vs cli-pure", "cli-native", "cli-pure", 1.05),
    ("cold_start", "cold start, exe vs the console script (cli-native)", "exe", "cli-native", 0.1),
    ("sage_1_3", "{} vs {}".format(*SAGE_1_3), *SAGE_1_3),
]
NATIVE_SPEEDUP = 10.0  # in-process parse+to_json, pure / native, typical input
BIG_FLAGS_MS = 1000.0  # 128 KiB holding 10,000 flags, every layer
BASH_BATCH = 5_000  # records/s
NATIVE_BATCH = 100_000  # records/s, the native layers
LINEAR_SLACK = 2.0  # t(128 KiB) / t(16 KiB) may be at most this times the size ratio (a quadratic path: 64x)
FLAGS = ["--" + name for _, name in MODES]
TYPICAL = " ".join(FLAGS) + " Ship dark mode on the settings page"
SMALL_CONFIG = ("# .sage/config.yaml\nproject: shop\n%s: true\nmodel: default\n" % MODES[0][0]).encode()
# One argv item holds at most 131,072 bytes on Linux: "128 KiB" is 130,000.
ARG_SIZES = {"1 KiB": KIB, "16 KiB": 16 * KIB, "128 KiB": 130_000}
CONFIG_SIZES = {"1 KiB": KIB, "8 KiB": 8 * KIB, "60 KiB": 60 * KIB}  # under the config bound (SPEC H1)
SIZES = {"words": ARG_SIZES, "flags": ARG_SIZES, "config": CONFIG_SIZES}  # the scaling series
# Flags (10,000 in 128 KiB), and a config whose last line turns a mode on, so every byte is read: (unit, last).
CONFIG_LINE = "setting: value  # %s: true is not this line\n" % MODES[0][0]
REPEATED = {"flags": (FLAGS[-1] + " ", "Ship it"), "config": (CONFIG_LINE, "%s: true\n" % MODES[-1][0])}
BATCH_RECORDS = 10_000
# persist and resume (SPEC P10): a 1 MB body (copied, never scanned), a front matter at its 64 KiB bound (one
# long line, the shape that was quadratic in bash, issue 24) and one byte past it (refused: status 3, no modes).
MANIFEST_BOUND = 65536
MANIFEST_TAIL = b"\nflags:\n  %s: false\n  %s: true\n---\n" % (MODES[0][0].encode(), MODES[-1][0].encode())
MANIFEST_LINE_ARGS = [FLAGS[-1], "go"]  # the line persist records: what the manifests hold already (idempotent)
EDGES = (("at", 0), ("past", 1))  # the front matter's length (all of it one line) at its bound, one byte past it
HOOK_LAYERS = ("exe", "cli-native", "cli-pure", "launcher", "launcher-exe")
HOOK_EVENT = dict(session_id="abc123", transcript_path="/home/user/.claude/projects/app/abc123.jsonl",
    cwd="/home/user/app", permission_mode="default", hook_event_name="UserPromptSubmit",
    prompt="Fix the login bug on the settings page, then run the tests.")  # fmt: skip
SAGE_RELEASE = (ROOT / ".." / "shared" / "sage" / "sage-1.3.21.tar.gz").resolve()  # fetch-free: its README.md
SAGE_1_3_ARGS = "--subagents --parallel=3 Ship dark mode"
GOALS = ["Ship dark mode", 'Rename "userId"', "Übersetze die Hilfe", "修复登录", "green again 🚀", "a\tb\nc", ""]


def sized(kind: str, size: int) -> str:
    """About ``size`` bytes of the scaling series ``kind``: ARGUMENTS of words, of flags, or a config (REPEATED)."""
    if kind != "words":
        unit, tail = REPEATED[kind]
        return unit * ((size - len(tail)) // len(unit)) + tail
    text = " ".join(random.Random(size).choice(["ship", "dark", "mode", "Fix", "the", "bug"]) for _ in range(size))
    return (FLAGS[0] + " " + text)[:size].rstrip()


def expected(arguments: str, config_path: Optional[Path]) -> bytes:
    defaults = reference.load_defaults(config_path) if config_path else None
    return reference.parse(arguments, defaults).to_json().encode() + b"\n"


def summary(median: float, times: List[float], cpu: float) -> Dict[str, float]:
    return {"median_ms": 1000 * median, "min_ms": 1000 * times[0], "max_ms": 1000 * times[-1], "cpu_ms": 1000 * cpu}


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
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return path

    def command(self, layer: Layer, verb: str, args: Sequence[str], stdin: Optional[Path] = None) -> str:
        """The layer's command line, through env (its variables and folder), as hyperfine -N runs it."""
        prefix = ["env"] + (["-C", str(layer.cwd)] if layer.cwd else []) + [f"{k}={v}" for k, v in layer.env.items()]
        redirect = f" < {shlex.quote(str(stdin))}" if stdin else ""  # hyperfine then runs it in a shell
        return shlex.join(prefix + layer.commands[verb] + list(args)) + redirect

    def timed(self, name: str, commands: Dict[str, str], want: Optional[bytes], path=None, bare=None) -> tuple:
        """(stats, status): one hyperfine run of ``commands`` and ``bare`` (JSON export kept), each of ``commands`` run
        once before: all must answer alike (status, stdout, ``path`` after) and print ``want`` unless it is None."""
        answers = set()
        for command in commands.values():
            done = subprocess.run(command, shell=True, capture_output=True, timeout=600)
            answers.add((done.returncode, done.stdout, path.read_bytes() if path else b""))
        if len(answers) != 1 or want not in (None, next(iter(answers))[1]):
            raise SystemExit(f"bench: wrong output, not timed: {[a[:2] for a in answers]!r:.500}")
        commands = {**commands, **(bare or {})}  # cold start: the bare runtimes beside the layers
        export = self.work / f"{name}.json"
        argv = ["hyperfine", "--style", "none", "--runs", str(self.runs), "--warmup", "2", "--export-json", str(export)]
        # Batch and the manifests' commands read stdin in a shell; batch is status 1 when a record is an error (C22).
        argv += ["--ignore-failure"] if any(" < " in c for c in commands.values()) else ["-N"]
        names = [a for item in commands.items() for a in ("--command-name", *item)]
        subprocess.run(argv + names, check=True, stdout=subprocess.DEVNULL)
        entries = json.loads(export.read_text())["results"]
        out = {e["command"]: summary(e["median"], sorted(e["times"]), e["user"] + e["system"]) for e in entries}
        self.results.setdefault("hyperfine", {})[name] = out
        return out, answers.pop()[0]

    def cold_start(self) -> None:
        args = ["--config-path", str(self.small), "--", TYPICAL]
        commands = {name: self.command(layer, "parse", args) for name, layer in self.layers.items()}
        bare = {"python -c pass": f"env {shlex.quote(PYTHON)} -c pass", "/bin/true": "env /bin/true"}
        bare.update({f"{b.name} -c :": shlex.join(["env", b.path, "-c", ":"]) for b in bash_interpreters()})
        self.results["cold_start"] = self.timed("cold_start", commands, expected(TYPICAL, self.small), None, bare)[0]

    def in_process(self) -> None:
        """pyperf: microseconds per parse()+to_json(), pure reference and native core, typical and large input."""
        texts = {"typical": TYPICAL, "words 128 KiB": sized("words", 130_000), "flags 128 KiB": sized("flags", 130_000)}
        out: Dict[str, Dict[str, float]] = {}
        for backend, module in (("pure", "sage_flags.reference"), ("native", "sage_flags._native")):
            for label, text in texts.items():
                path = self.file("text.txt", text.encode())
                result = self.work / f"pyperf-{backend}-{label.replace(' ', '-')}.json"
                setup = f"import {module} as m; t = open({str(path)!r}, encoding='utf-8').read()"
                argv = [PYTHON, "-m", "pyperf", "timeit", "-q", "-p", "3", "-n", "5", "-o", str(result), "-s", setup]
                if subprocess.run([*argv, "m.parse(t).to_json()"], capture_output=True).returncode != 0:
                    continue  # no native core built: not measured
                out.setdefault(backend, {})[label] = 1e6 * pyperf.Benchmark.load(str(result)).median()
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
        t = sorted(totals)
        stats = {"median": t[len(t) // 2], "min": t[0], "max": t[-1], "noise": t[len(t) * 9 // 10] - t[len(t) // 10]}
        self.results["import_time_us"] = {**stats, "modules": modules}

    def scaling(self) -> None:
        """Whole-process medians by input size: ARGUMENTS of words, of flags, and the config's size."""
        series: Dict[str, Dict[str, Dict[str, float]]] = {}
        for kind, sizes in SIZES.items():
            for size_name, size in sizes.items():
                short = f"{kind}-{size_name.replace(' ', '')}"
                path = self.file(short + ".yaml", sized(kind, size).encode()) if kind == "config" else None
                text = "go" if path else sized(kind, size)
                args = ["--config-path", str(path), text] if path else ["--", text]
                commands = {n: self.command(layer, "parse", args) for n, layer in self.layers.items()}
                for name, stats in self.timed(short, commands, expected(text, path))[0].items():
                    series.setdefault(kind, {}).setdefault(name, {})[size_name] = stats["median_ms"]
        self.results["scaling_ms"] = series

    def batch(self) -> None:
        rng, sets = random.Random(22), [[], [FLAGS[0]], FLAGS, ["--no-" + FLAGS[-1][2:]], ["--"], ["--typo"]]
        records = [" ".join([*rng.choice(sets), rng.choice(GOALS)]) for _ in range(BATCH_RECORDS)]
        layers = {n: layer for n, layer in self.layers.items() if "batch" in layer.commands}
        stream = self.file("corpus.bin", b"\0".join(r.encode() for r in records))
        commands = {n: self.command(layer, "batch", [], stream) for n, layer in layers.items()}
        stats = self.timed("batch", commands, b"".join(expected(r, None) for r in records))[0]
        self.results["batch_records_per_s"] = {n: BATCH_RECORDS / (s["median_ms"] / 1000) for n, s in stats.items()}

    def manifests(self) -> None:
        """persist and resume on each manifest (MANIFEST_BOUND), every layer, medians and ratios to cli-pure."""
        head, tail = b"---\nimage: ", MANIFEST_TAIL
        at_bound = MANIFEST_BOUND - len(head) - len(tail)
        cases = {"body 1 MB": b"---" + tail + b"body line\n" * ((1 << 20) // 10)}
        cases.update({f"front matter {at} bound": head + b"A" * (at_bound + extra) + tail for at, extra in EDGES})
        layers = {layer.name: layer for layer in all_layers() if "persist" in layer.commands}
        line = self.file("line.json", layers["cli-pure"].run("parse", [a.encode() for a in MANIFEST_LINE_ARGS]).stdout)
        out: Dict[str, Dict[str, Dict[str, float]]] = {}
        for label, data in cases.items():
            for verb in ("persist", "resume"):
                name = f"{verb}-{label.replace(' ', '-')}"
                path = self.file(name + ".md", data)
                args, stdin = ([str(path)], line) if verb == "persist" else ([str(path), "go"], None)
                commands = {n: self.command(layer, verb, args, stdin) for n, layer in layers.items()}
                stats, status = self.timed(name, commands, None, path)  # every layer answers alike
                pure = stats["cli-pure"]["median_ms"]
                ratios = {n: {**st, "vs_cli_pure": st["median_ms"] / pure} for n, st in stats.items()}
                out[f"{verb}, {label} (status {status})"] = ratios
        self.results["manifests_ms"] = out

    def hook_start(self) -> None:
        """Issue 28: the hook for a prompt that is no workflow (a Claude Code UserPromptSubmit event on stdin)."""
        path = self.file("event.json", json.dumps(HOOK_EVENT).encode())
        hook = {layer.name: layer for layer in all_layers() if "hook" in layer.commands}
        args = [b"claude-code", b"--config-path", os.fsencode(self.small)]
        env = {k: v for k, v in os.environ.items() if k != "SAGE_FLAGS_BACKEND"}
        commands = {n: (hook[n].argv("hook", args), {**env, **hook[n].env}) for n in HOOK_LAYERS}
        self.spawned("hook_start", commands, path, b"")

    def sage_1_3(self) -> None:
        """Issue 37: in a Sage 1.3.21 project, `parse` through our launcher (the vocabulary as a sage-1.3.18 bundle
        records it, on PATH the native executable the native wheel installs) beside Sage 1.3's own sage_flags.py."""
        if not SAGE_RELEASE.is_file():  # beside the checkout, as in shared/sage/README.md: no row without it
            return print(f"bench: {SAGE_RELEASE} is missing: no Sage 1.3 row", file=sys.stderr)
        shutil.unpack_archive(SAGE_RELEASE, self.work / "project", filter="data")
        sage = (self.work / "project" / "sage-1.3.21").rename(self.work / "project" / "sage")
        # The bundle's launcher runs its own bundle's package (SPEC L1): the vocabulary named as a caller names it.
        launcher = vendored_bundle() / "sage" / "bin" / "sage-flags"
        env = {k: v for k, v in os.environ.items() if not k.startswith("SAGE_FLAGS_")}
        env["PATH"] = f"{NATIVE_EXE.parent}:/usr/bin:/bin"  # the native executable as the native wheel installs it
        args = ["parse", SAGE_1_3_ARGS, "--config-path", self.small]
        own = [shutil.which("python3", path=env["PATH"]) or "python3", sage / "runtime" / "tools" / "sage_flags.py"]
        commands = {
            SAGE_1_3[0]: ([launcher, "--vocabulary", "sage-1.3.18", *args], env),
            SAGE_1_3[1]: ([*own, *args], env),
        }
        self.spawned("sage_1_3", commands, self.small, b'"subagents": true')

    def spawned(self, key: str, commands: Dict[str, Tuple[list, Dict[str, str]]], stdin: Path, want: bytes) -> None:
        """Each command's wall and CPU time beside `/bin/true`, spawned as hyperfine -N does (hyperfine 1.15 gives
        no stdin without a shell, whose start would swamp a 1 ms program), stdin from ``stdin``, interleaved round
        by round after 3 warm-up rounds. Each first answers: status 0, no stderr, ``want`` in stdout (b"": none)."""
        for name, (argv, env) in commands.items():
            done = subprocess.run(argv, stdin=stdin.open("rb"), capture_output=True, env=env, timeout=60)
            if done.returncode or done.stderr or (want not in done.stdout if want else done.stdout):
                raise SystemExit(f"bench: {name}: not the answer, not timed: {done}")
        # /bin/true right before the others in every round: they are compared, so they see one load.
        commands = {"/bin/true": (["/bin/true"], next(iter(commands.values()))[1]), **commands}
        runs, times = max(self.runs * 10, 30), {name: [] for name in commands}
        with open(os.devnull, "wb") as null, stdin.open("rb") as source:
            for round_ in range(runs + 3):
                for name, (argv, env) in commands.items():
                    source.seek(0)
                    actions = [(os.POSIX_SPAWN_DUP2, source.fileno(), 0), (os.POSIX_SPAWN_DUP2, null.fileno(), 1)]
                    start = time.perf_counter()
                    _, _, usage = os.wait4(os.posix_spawn(argv[0], argv, env, file_actions=actions), 0)
                    if round_ >= 3:
                        times[name].append((time.perf_counter() - start, usage.ru_utime + usage.ru_stime))
        walls, cpus = ({n: sorted(t[i] for t in ts) for n, ts in times.items()} for i in (0, 1))
        self.results[key] = {n: summary(walls[n][runs // 2], walls[n], cpus[n][runs // 2]) for n in commands}


def targets(r: Dict[str, Any]) -> List[Tuple[str, str, str, bool]]:
    """(target, wanted, measured, passed) for every target whose numbers ``r`` holds."""
    ratios = FIXED_RATIOS[:1]
    for n in r["layers"]:
        what, bare, limit = BARE["bash" if n.startswith("bash") else "exe" if n == "exe" else "python"]
        ratios.append(("cold_start", f"cold start, {n} vs {what}", n, bare.format(n), limit))
    rows = []
    for key, row, a, b, limit in ratios + FIXED_RATIOS[1:]:  # when both were measured
        stats = r.get(key, {})
        if a in stats and b in stats:
            wall, cpu = (stats[a][k] / max(stats[b][k], 1e-9) for k in ("median_ms", "cpu_ms"))
            rows.append((row, f"<= {limit:.2f}x", f"{wall:.2f}x (CPU {cpu:.2f}x)", wall <= limit))
    us, scaling = r.get("in_process_us", {}), r.get("scaling_ms", {})
    if "native" in us:
        x, row = us["pure"]["typical"] / us["native"]["typical"], "in-process, native speed-up, typical"
        rows.append((row, f">= {NATIVE_SPEEDUP:.0f}x", f"{x:.1f}x", x >= NATIVE_SPEEDUP))
    for kind, layers in scaling.items():
        for name, points in layers.items():
            first, last = list(points)[1], list(points)[-1]
            x, limit = points[last] / points[first], LINEAR_SLACK * SIZES[kind][last] / SIZES[kind][first]
            rows.append((f"linear in {kind}, {name}", f"growth <= {limit:.0f}x", f"{x:.1f}x", x <= limit))
    for name, x in ((n, p["128 KiB"]) for n, p in scaling.get("flags", {}).items()):
        rows.append((f"128 KiB of 10,000 flags, {name}", f"< {BIG_FLAGS_MS:.0f} ms", f"{x:.1f} ms", x < BIG_FLAGS_MS))
    for name, x in r.get("batch_records_per_s", {}).items():
        limit = BASH_BATCH if name.startswith("bash") else NATIVE_BATCH if "native" in name or name == "exe" else 0
        rows += [(f"batch, {name}", f">= {limit:,} records/s", f"{x:,.0f} records/s", x >= limit)] if limit else []
    return rows


def grid(corner: str, data: Dict[str, Dict[str, Any]], cell: Callable[[Any], str] = str) -> List[str]:
    """A markdown table of ``data``: a row per key, a column per key of the first row."""
    head = [corner, *next(iter(data.values()), {})]
    rows = ([n, *(cell(row[c]) for c in head[1:])] for n, row in data.items())
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head), *("| " + " | ".join(r) + " |" for r in rows)]


def times_table(stats: Dict[str, Dict[str, float]]) -> List[str]:
    """Whole-process times in ms: median, min-max, CPU."""
    cells = "median:{median_ms:.2f} min-max:{min_ms:.2f}-{max_ms:.2f} CPU:{cpu_ms:.2f}"
    return grid("command", {n: dict(c.split(":") for c in cells.format(**s).split()) for n, s in stats.items()})


IMPORT_TIME = "Import time: the sage_flags modules' self time, `parse` through cli-native (µs, -X importtime)"
# The report's sections after the targets, in order: (results key, heading, table); one without numbers is left out.
SECTIONS: List[Tuple[str, str, Callable[[Any], List[str]]]] = [
    ("cold_start", "Cold start: one parse with a small config (ms)", times_table),
    ("import_time_us", IMPORT_TIME, lambda t: grid("median", {f"{t['median']:.0f}": {
        "min-max": f"{t['min']:.0f}-{t['max']:.0f}", "noise (p90 - p10)": f"{t['noise']:.0f}",
        "modules": ", ".join(t["modules"])}})),
    ("in_process_us", "In-process parse + to_json (µs, pyperf)",
     lambda us: grid("input", {k: {b: us[b][k] for b in us} for k in us["pure"]}, "{:.1f}".format)),
    ("scaling_ms", "Scaling (ms, median; the plot is scaling.png)",
     lambda series: [line for kind, ls in series.items() for line in ["", *grid(kind, ls, "{:.1f}".format)]][1:]),
    ("batch_records_per_s", "Batch (10,000 records)",
     lambda rates: grid("layer", {n: {"records/s": v} for n, v in rates.items()}, "{:,.0f}".format)),
    ("hook_start", "Hook cold start: a prompt that is no workflow (ms; SPEC K3)", times_table),
    ("manifests_ms", "persist and resume (ms, median; x = ratio to cli-pure)",
     lambda runs: grid("run", runs, lambda v: f"{v['median_ms']:.0f} ({v['vs_cli_pure']:.1f}x)")),
    ("sage_1_3", f"Sage 1.3 project: `parse '{SAGE_1_3_ARGS}'` with a small config (ms; issue 37)", times_table),
]  # fmt: skip
HEADER = """# Performance

Produced by `make bench` (tools/bench.py) on {date}; do not edit above the notes.
Raw numbers: [performance.json](performance.json); the scaling: [scaling.png](scaling.png).

Machine: {machine}. Load average at start {load[0]}, at end {load[1]}: other work on
the machine adds noise. Medians of hyperfine runs (each comparison one run of all its commands), with
CPU time (user + system) beside the ratios; in-process figures are pyperf medians.

## Targets
"""


def report(r: Dict[str, Any], notes: str) -> str:
    rows = {t: {"wanted": w, "measured": m, "result": "PASS" if ok else "**MISS**"} for t, w, m, ok in targets(r)}
    sections = [line for key, head, make in SECTIONS if key in r for line in ["", "## " + head, "", *make(r[key])]]
    return "\n".join([HEADER.format(**r), *grid("target", rows), *sections]) + "\n\n\n" + notes


def plot(r: Dict[str, Any], path: Path) -> None:
    from matplotlib import pyplot

    pyplot.switch_backend("Agg")
    kinds = r["scaling_ms"]
    figure, axes = pyplot.subplots(1, len(kinds), figsize=(5 * len(kinds), 4.5), constrained_layout=True)
    for axis, (kind, layers) in zip(axes, kinds.items()):
        for name, points in layers.items():
            axis.plot([SIZES[kind][s] / KIB for s in points], list(points.values()), marker="o", label=name)
        title = {"words": "ARGUMENTS of words", "flags": "ARGUMENTS of flags", "config": "config size"}[kind]
        axis.set(xscale="log", yscale="log", xlabel=f"{kind}: KiB", ylabel="ms (median, whole process)", title=title)
        axis.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize="small")
    figure.savefig(path, dpi=90)


PARTS = ("cold_start", "import_time", "in_process", "scaling", "batch", "manifests", "hook_start", "sage_1_3")


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
    loads.append(" ".join("%.2f" % x for x in os.getloadavg()))
    u, out = os.uname(), options.out_dir
    results = {**bench.results, "load": loads, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    results["machine"] = f"{os.cpu_count()} CPUs, {u.sysname} {u.release} ({u.machine}), Python {sys.version[:6]}"
    if options.only:  # its results as JSON and the report of them, written nowhere
        raw = {k: v for k, v in results.items() if k != "hyperfine"}
        print(json.dumps(raw, indent=1), report(results, ""), sep="\n")
        return 0
    out.mkdir(parents=True, exist_ok=True)
    old = out / "PERFORMANCE.md"
    notes = old.read_text(encoding="utf-8") if old.exists() else ""
    notes = notes[notes.index(NOTES_HEADING) :] if NOTES_HEADING in notes else NOTES_HEADING + "\n"
    (out / "performance.json").write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    old.write_text(report(results, notes), encoding="utf-8")
    plot(results, out / "scaling.png")
    verdicts = [ok for *_, ok in targets(results)]
    print(f"bench: {sum(verdicts)} targets met, {verdicts.count(False)} missed; see {old}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
