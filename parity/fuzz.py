"""The differential fuzzer: every example through every layer's real command line; the oracle is agreement.

    python -m parity.fuzz --minutes 15        # make fuzz FUZZ_MINUTES=15
    python -m parity.fuzz --examples 100000   # make fuzz FUZZ_EXAMPLES=100000

Two ways to run an example (parity/README.md has the details):

- ``check_agreement(command, argv, ...)``: one process per layer offering ``command`` (argv shapes, configs,
  environments). Layers run in parallel threads.
- ``check_records(records, config_key)``: records written to long-lived batch streams (C22), one per
  batch-capable layer and config; no process start per example.

Either way every layer's stdout bytes and status must equal the in-process reference's (and each other's), stderr
must be empty with status 0/1 (one line with status 2), every stdout line must be strict JSON that re-encodes to
the same bytes (C16/C17), and the compiled core, when importable, must agree in-process. A divergence raises
``Divergence`` carrying a ready-to-save vector (parity/vectors format), also written to parity/failures/.
"""

from __future__ import annotations

import argparse
import atexit
import dataclasses
import functools
import hashlib
import json
import os
import random
import selectors
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from hypothesis import HealthCheck, Phase, given, reject, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from sage_flags import reference
from sage_flags._vocab import MODES, VALUE_MODES

from parity import strategies as gen
from parity.layers import ROOT, Layer, available_layers
from parity.vectors import CONFIG_PLACEHOLDER, Vector, cannot_run_here, split_argv

FAILURES_DIR = ROOT / "parity" / "failures"
PROCESS_TIMEOUT = 30.0
# C16 and V7: the keys, in order.
NUMBER_FIELDS = tuple(row.field for row in VALUE_MODES)
NOTE_FIELDS = tuple(row.note_field for row in VALUE_MODES)
KEYS = (
    *(k for k, _ in MODES),
    "goal",
    "error",
    *(k + "_source" for k, _ in MODES),
    *(field for row in VALUE_MODES for field in (row.field, row.note_field)),
)
SOURCES = (None, "flag", "config")


# --- in-process APIs --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Backend:
    """An in-process API: ``parse(str, defaults)`` and ``load_defaults(path)`` (sage_flags.reference's shape)."""

    name: str
    parse: Callable
    load_defaults: Callable

    def answer(self, text: str, defaults: Optional[dict]) -> Tuple[bytes, bool]:
        """The stdout line for ``text``, and whether it parsed cleanly."""
        try:
            result = self.parse(text, defaults)
            return result.to_json().encode("utf-8") + b"\n", result.error is None
        except Exception as error:  # a crash is a divergence, reported as such
            return ("<%s raised %s: %s>" % (self.name, type(error).__name__, error)).encode("utf-8", "replace"), False

    def line(self, text: str, defaults: Optional[dict]) -> bytes:
        return self.answer(text, defaults)[0]

    def defaults(self, path: Optional[bytes]) -> Optional[dict]:
        if not path:  # C11
            return None
        return self.load_defaults(path)


REFERENCE = Backend("reference", reference.parse, reference.load_defaults)


def in_process_backends() -> List[Backend]:
    """The pure reference first, then the compiled core when it imports (sage_flags._native)."""
    backends = [REFERENCE]
    try:
        from sage_flags import _native  # type: ignore[attr-defined]
    except ImportError:
        return backends
    return [*backends, Backend("native", _native.parse, _native.load_defaults)]


BACKENDS = in_process_backends()


# --- oracles: the expected (stdout, status) of a command, computed in-process ----------------------------------


@dataclass
class Outcome:
    stdout: bytes
    status: Optional[int]  # None: no exit status (timed out, or a stream that is still running)
    stderr: bytes = b""
    seconds: float = 0.0


def _decode(argument: bytes) -> str:
    return argument.decode("utf-8", "surrogateescape")  # C10: invalid bytes become lone surrogates: E4


def _records(stdin: bytes) -> List[bytes]:
    """C22: NUL-terminated records; a final unterminated record counts if non-empty."""
    records = stdin.split(b"\0")
    last = records.pop()
    return [*records, last] if last else records


STDIN_LIMIT = 262144  # I4


def parse_oracle(backend: Backend, argv: Sequence[bytes], stdin: bytes) -> Outcome:
    try:
        operands, config, from_stdin = split_argv(argv, stdin_switch=True)
    except ValueError:  # C3
        return Outcome(b"", 2)
    arguments = b" ".join(operands)  # C2
    if from_stdin:
        head = stdin[: STDIN_LIMIT + 1]
        if operands or (b"\0" not in head and len(head) > STDIN_LIMIT):  # I1, I4
            return Outcome(b"", 2)
        arguments = b"\xff" if b"\0" in head else stdin  # I3: a NUL is E4
    line, ok = backend.answer(_decode(arguments), backend.defaults(config))
    return Outcome(line, 0 if ok else 1)


def batch_oracle(backend: Backend, argv: Sequence[bytes], stdin: bytes) -> Outcome:
    try:
        operands, config, _ = split_argv(argv)
    except ValueError:
        return Outcome(b"", 2)
    if operands:  # records come on stdin; the reference refuses operands (usage error)
        return Outcome(b"", 2)
    defaults = backend.defaults(config)  # C22: read once
    answers = [backend.answer(_decode(record), defaults) for record in _records(stdin)]
    return Outcome(b"".join(line for line, _ in answers), 0 if all(ok for _, ok in answers) else 1)


# command -> in-process oracle. A command without one (e.g. a new subcommand) is checked for agreement only.
ORACLES: Dict[str, Callable[[Backend, Sequence[bytes], bytes], Outcome]] = {
    "parse": parse_oracle,
    "batch": batch_oracle,
}


# --- checks -----------------------------------------------------------------------------------------------------

_GOOD_LINES: Dict[bytes, None] = {}


def json_line_problem(line: bytes) -> Optional[str]:
    """C16/C17: one line, strict JSON, the six keys in order with the right types, re-encoding to the same bytes."""
    if line in _GOOD_LINES:
        return None
    if not line.endswith(b"\n") or b"\n" in line[:-1]:
        return "not exactly one line"
    try:
        text = line[:-1].decode("utf-8")
        pairs = json.loads(text, object_pairs_hook=list, parse_constant=_reject_constant)
    except (UnicodeDecodeError, ValueError) as error:
        return "not strict JSON (%s)" % error
    if not isinstance(pairs, list) or tuple(k for k, _ in pairs) != KEYS:
        return "not the C16 keys in order"
    values = dict(pairs)
    if not all(isinstance(values[k], bool) for k, _ in MODES) or not isinstance(values["goal"], str):
        return "a mode is not a boolean, or the goal not a string"
    if not isinstance(values["error"], (str, type(None))) or any(
        values[k + "_source"] not in SOURCES for k, _ in MODES
    ):
        return "error or a source has the wrong type"
    if any(type(values[f]) is not int for f in NUMBER_FIELDS) or any(
        not isinstance(values[f], (str, type(None))) for f in NOTE_FIELDS
    ):
        return "a number is not an integer, or a note not a string or null (V7)"
    if json.dumps(values, ensure_ascii=False) != text:
        return "re-encoding with json.dumps(ensure_ascii=False) gives other bytes (C17)"
    if len(_GOOD_LINES) > 200_000:
        _GOOD_LINES.clear()
    _GOOD_LINES[line] = None
    return None


def _reject_constant(name: str) -> None:
    raise ValueError("non-standard constant " + name)


def _show(data: bytes, limit: int = 300) -> str:
    text = repr(data)
    return text if len(text) <= limit else text[:limit] + "...(%d bytes)" % len(data)


def compare(
    expected: Outcome, results: Dict[str, Outcome], in_process: Dict[str, Outcome], json_lines: bool = True
) -> List[str]:
    """Every problem with ``results`` (layer name -> outcome) against ``expected``, the reference's outcome.

    ``json_lines``: stdout must be C16 JSON lines (parse, batch).
    """
    problems = []
    if json_lines and expected.status in (0, 1):
        for line in expected.stdout.splitlines(keepends=True) or [b""]:
            problem = json_line_problem(line)
            if problem:
                problems.append("reference output %s: %s" % (_show(line), problem))
                break
    for name, got in {**in_process, **results}.items():
        if got.stdout != expected.stdout:
            problems.append("%s: stdout %s, reference %s" % (name, _show(got.stdout), _show(expected.stdout)))
        if name in results:
            if got.status != expected.status:
                problems.append("%s: status %s, reference %s" % (name, got.status, expected.status))
            if got.status in (0, 1) and got.stderr:
                problems.append("%s: stderr not empty with status %s (C19): %s" % (name, got.status, _show(got.stderr)))
            if got.status == 2 and (got.stderr.count(b"\n") != 1 or not got.stderr.endswith(b"\n")):
                problems.append("%s: status 2 needs exactly one stderr line (C3): %s" % (name, _show(got.stderr)))
    return problems


# --- statistics and progress ------------------------------------------------------------------------------------


@dataclass
class Stats:
    started: float = field(default_factory=time.monotonic)
    examples: Dict[str, int] = field(default_factory=dict)  # kind -> examples
    kind_seconds: Dict[str, float] = field(default_factory=dict)
    # (layer, "stream" or "process") -> examples it answered, and the seconds it took
    layer_runs: Dict[Tuple[str, str], int] = field(default_factory=dict)
    layer_seconds: Dict[Tuple[str, str], float] = field(default_factory=dict)
    divergences: List[str] = field(default_factory=list)  # saved vector paths (or summaries)
    progress_every: float = 0.0  # seconds; 0: no progress lines
    _last_progress: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def total(self) -> int:
        return sum(self.examples.values())

    def count(self, kind: str, examples: int, seconds: float, layers: Dict[str, Outcome]) -> None:
        with self.lock:
            self.examples[kind] = self.examples.get(kind, 0) + examples
            self.kind_seconds[kind] = self.kind_seconds.get(kind, 0.0) + seconds
            mode = "stream" if kind.startswith("records") else "process"
            for name, outcome in layers.items():
                self.layer_runs[name, mode] = self.layer_runs.get((name, mode), 0) + examples
                self.layer_seconds[name, mode] = self.layer_seconds.get((name, mode), 0.0) + outcome.seconds
        self.maybe_progress()

    def maybe_progress(self) -> None:
        now = time.monotonic()
        if self.progress_every and now - self._last_progress >= self.progress_every:
            self._last_progress = now
            elapsed = now - self.started
            print(
                "fuzz: %d examples, %.0f examples/s, %d divergences, %.0f s elapsed"
                % (self.total, self.total / max(elapsed, 1e-9), len(self.divergences), elapsed),
                flush=True,
            )

    def summary(self) -> str:
        elapsed = time.monotonic() - self.started
        rows = [
            "parity fuzz: %d examples in %.1f s: %.0f examples/s through all layers; %d divergences"
            % (self.total, elapsed, self.total / max(elapsed, 1e-9), len(self.divergences)),
            "  %-22s %10s %9s" % ("kind", "examples", "seconds"),
        ]
        for kind in sorted(self.examples):
            rows.append("  %-22s %10d %9.1f" % (kind, self.examples[kind], self.kind_seconds[kind]))
        # busy s: from writing the example to the layer's last byte (streams), or the process's lifetime.
        rows.append("  %-22s %10s %9s %12s" % ("layer (how)", "examples", "busy s", "examples/s"))
        for name, mode in sorted(self.layer_runs):
            runs, seconds = self.layer_runs[name, mode], self.layer_seconds[name, mode]
            rate = runs / seconds if seconds else float("inf")
            rows.append("  %-22s %10d %9.1f %12.1f" % ("%s (%s)" % (name, mode), runs, seconds, rate))
        answers = sum(self.layer_runs.values())
        rows.append(
            "  %-22s %10d  (%.0f/s: examples x layers that answered them)"
            % ("layer answers", answers, answers / max(elapsed, 1e-9))
        )
        rows += ["  divergence: " + d for d in self.divergences]
        return "\n".join(rows)


STATS = Stats()


# --- divergences as vectors -------------------------------------------------------------------------------------


class Divergence(AssertionError):
    def __init__(self, vector: Vector, problems: List[str]) -> None:
        self.vector = vector
        self.problems = problems
        super().__init__(
            "layers disagree:\n  %s\nminimal example as a vector (saved under parity/failures/):\n%s"
            % ("\n  ".join(problems[:12]), vector.to_json())
        )


LAST_DIVERGENCE: List[Divergence] = []


def save_failure(vector: Vector, directory: Optional[Path] = None) -> Path:
    directory = directory or FAILURES_DIR
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / (vector.name + ".json")
    path.write_text(vector.to_json(), encoding="utf-8")
    return path


def save_minimal() -> Optional[Path]:
    """After a failed hypothesis run: save the minimal divergence (the last one raised), if there was one."""
    return save_failure(LAST_DIVERGENCE[0].vector) if LAST_DIVERGENCE else None


def diverged(vector: Vector, problems: List[str]) -> Divergence:
    """Build the vector (expected output = the pure reference's) and return the exception.

    Nothing is saved here: while hypothesis shrinks, every failing candidate passes through; the caller saves
    the last one raised, which is the minimal example hypothesis replays at the end (``save_minimal``).
    """
    digest = hashlib.sha1(vector.to_json().encode()).hexdigest()[:10]
    vector = dataclasses.replace(vector, name="fuzz-%s-%s" % (vector.command, digest))
    error = Divergence(vector, problems)
    LAST_DIVERGENCE[:] = [error]
    return error


def _rules(command: str, argv: Sequence[bytes], config: Optional[dict], env: Dict[str, str]) -> Tuple[str, ...]:
    rules = ["C22"] if command == "batch" else ["C1"]
    if config or any(b"--config-path" in a for a in argv):
        rules.append("C12")
    if env:
        rules.append("C20")
    return tuple(rules)


# --- one process per layer --------------------------------------------------------------------------------------

_POOL = ThreadPoolExecutor(max_workers=8)


def _run(layer: Layer, command: str, args: List[bytes], stdin: bytes, env: Dict[str, str]) -> Outcome:
    start = time.monotonic()
    try:
        done = layer.run(command, args, stdin=stdin, env=env, timeout=PROCESS_TIMEOUT)
    except subprocess.TimeoutExpired as timeout:
        return Outcome(timeout.stdout or b"", None, b"timed out after %ds" % PROCESS_TIMEOUT, PROCESS_TIMEOUT)
    return Outcome(done.stdout, done.returncode, done.stderr, time.monotonic() - start)


@functools.lru_cache(maxsize=None)
def bash_starts_cleanly(interpreter: str, env: Tuple[Tuple[str, str], ...]) -> bool:
    """SPEC H4: bash acts on its environment before a script's first line. In POSIX mode (POSIXLY_CORRECT set)
    bash 3.2 warns "SHELLOPTS: readonly variable", and bash 3.2.48 exits 2 on an exported function it cannot
    import (BASH_FUNC_printf%%): no script can answer then. A direct bash call is compared in an environment
    only where the bare interpreter starts there silently with status 0 (BASH_ENV aside: what its file does
    is H2-H3's to undo, and the file is the fuzzer's)."""
    full_env = {**os.environ, **dict(env)}
    full_env.pop("BASH_ENV", None)
    bare = subprocess.run([interpreter, "-c", ":"], capture_output=True, env=full_env, timeout=PROCESS_TIMEOUT)
    return bare.returncode == 0 and not bare.stdout and not bare.stderr


def check_agreement(
    command: str,
    argv: Sequence[bytes],
    *,
    stdin: bytes = b"",
    env: Optional[Dict[str, str]] = None,
    config: Optional[dict] = None,
    kind: str = "",
    layers: Optional[List[Layer]] = None,
) -> Outcome:
    """Run one example through every layer offering ``command``; raise Divergence unless they all agree.

    ``argv`` items may contain ``{config}``: the path of the config that ``config`` (vector format) describes,
    created in a fresh directory. Returns the agreed outcome.
    """
    env = dict(env or {})
    layers = available_layers(command) if layers is None else layers
    if env:
        env_items = tuple(sorted(env.items()))
        layers = [layer for layer in layers if layer.bash is None or bash_starts_cleanly(layer.bash, env_items)]
    vector = Vector(
        name="", rules=(), argv=tuple(argv), stdout=b"", status=0, command=command, config=config, env=env, stdin=stdin
    )
    if cannot_run_here(vector):  # e.g. a FIFO or a non-UTF-8 argv item on Windows: no input this system can give
        reject()
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="sage-fuzz-") as workdir:
        args = vector.materialise(Path(workdir))
        futures = {layer.name: _POOL.submit(_run, layer, command, args, stdin, env) for layer in layers}
        oracle = ORACLES.get(command)
        in_process = {}
        if oracle is not None:
            for backend in BACKENDS:
                in_process[backend.name + " (in-process)"] = oracle(backend, args, stdin)
        results = {name: future.result() for name, future in futures.items()}
    expected = in_process.pop("reference (in-process)", None)
    if expected is None:  # no oracle: the pure CLI is the reference, the rest must agree with it
        expected = results.get("cli-pure") or next(iter(results.values()))
    problems = compare(expected, results, in_process, json_lines=command in ORACLES)
    records = len(_records(stdin)) if command == "batch" else 1
    STATS.count(kind or command, max(records, 1), time.monotonic() - start, results)
    if problems:
        vector = Vector(
            name="",
            rules=_rules(command, argv, config, env),
            argv=tuple(argv),
            stdout=expected.stdout,
            status=expected.status if expected.status is not None else -1,
            command=command,
            config=config,
            env=env,
            stdin=stdin,
            note="found by parity/fuzz.py: " + problems[0][:200],
        )
        raise diverged(vector, problems)
    return expected


# --- long-lived batch streams (C22) -----------------------------------------------------------------------------

# Config contents the streams run with (config key -> file content; None: no --config-path), from the vocabulary.
STREAM_CONFIGS: Dict[str, Optional[bytes]] = {
    "none": None,
    "first": (MODES[0][0] + ": true\n").encode("ascii"),
    "last": (MODES[-1][0] + ": true\r\n").encode("ascii"),
    "all": b"\xef\xbb\xbf" + "\n".join(key + ": true" for key, _ in reversed(MODES)).encode("ascii"),
}
STREAM_CONFIG_KEYS = tuple(STREAM_CONFIGS)


class BatchStream:
    """One ``batch`` process of one layer, kept alive across examples: write records, read one line each."""

    def __init__(self, layer: Layer, config_path: Optional[Path]) -> None:
        self.layer = layer
        args = [b"--config-path", os.fsencode(config_path)] if config_path else []
        env = {**os.environ, **layer.env}
        self.proc = subprocess.Popen(
            layer.argv("batch", args),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=layer.cwd,
            bufsize=0,
        )
        for pipe in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            os.set_blocking(pipe.fileno(), False)

    def close(self) -> None:
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()
        self.proc.stderr.close()


# Streams per layer and config: records are split across this many processes of the same layer, so that a slow
# layer (bash) can use every core. Each record still goes through that layer's real command line.
SHARDS = max(1, min(os.cpu_count() or 1, 4))


class StreamPool:
    def __init__(self) -> None:
        self.streams: Dict[Tuple[str, str, int], BatchStream] = {}
        self._dir: Optional[tempfile.TemporaryDirectory] = None
        atexit.register(self.close)

    def config_path(self, key: str) -> Optional[Path]:
        content = STREAM_CONFIGS[key]
        if content is None:
            return None
        if self._dir is None:
            self._dir = tempfile.TemporaryDirectory(prefix="sage-fuzz-streams-")
        path = Path(self._dir.name) / (key + ".yaml")
        if not path.exists():
            path.write_bytes(content)
        return path

    def get(self, layer: Layer, key: str, shard: int) -> BatchStream:
        stream = self.streams.get((layer.name, key, shard))
        if stream is None or stream.proc.poll() is not None:
            stream = self.streams[(layer.name, key, shard)] = BatchStream(layer, self.config_path(key))
        return stream

    def drop(self, layer: Layer, key: str) -> None:
        for shard in range(SHARDS):
            stream = self.streams.pop((layer.name, key, shard), None)
            if stream is not None:
                stream.close()

    def close(self) -> None:
        for key in list(self.streams):
            self.streams.pop(key).close()
        if self._dir is not None:
            self._dir.cleanup()
            self._dir = None

    def exchange(self, layers: List[Layer], key: str, records: List[bytes]) -> Dict[str, Outcome]:
        """Write the records to every layer's streams at once; read until each answered one line per record.

        Returns each layer's outcome: its stdout (shards concatenated in record order), stderr, and the seconds
        until its last line arrived. Nothing is closed, so the streams serve the next example.
        """
        if not records:
            return {layer.name: Outcome(b"", None) for layer in layers}
        shards = min(SHARDS, len(records))
        size = -(-len(records) // shards)
        chunks = [records[i : i + size] for i in range(0, len(records), size)]
        sel = selectors.DefaultSelector()
        slots: Dict[Tuple[str, int], dict] = {}
        for layer in layers:
            for shard, chunk in enumerate(chunks):
                stream = self.get(layer, key, shard)
                payload = memoryview(b"".join(r + b"\0" for r in chunk))
                slot = slots[(layer.name, shard)] = {"stream": stream, "todo": payload, "want": len(chunk)}
                slot.update(out=bytearray(), err=bytearray(), lines=0, done=None)
                sel.register(stream.proc.stdin, selectors.EVENT_WRITE, (slot, "in"))
                sel.register(stream.proc.stdout, selectors.EVENT_READ, (slot, "out"))
                sel.register(stream.proc.stderr, selectors.EVENT_READ, (slot, "err"))
        start = time.monotonic()
        deadline = start + 20.0 + sum(map(len, records)) / 20_000
        waiting = len(slots)
        while waiting and time.monotonic() < deadline:
            for sel_key, _ in sel.select(min(deadline - time.monotonic(), 1.0)):
                slot, which = sel_key.data
                try:
                    if which == "in":
                        written = os.write(sel_key.fd, slot["todo"][:65536])
                        slot["todo"] = slot["todo"][written:]
                        if not slot["todo"]:
                            sel.unregister(sel_key.fileobj)
                        continue
                    data = os.read(sel_key.fd, 1 << 16)
                except BlockingIOError:
                    continue
                except OSError:  # the process went away: what it said so far is its answer
                    data = b""
                if not data:
                    sel.unregister(sel_key.fileobj)
                    if which == "out" and slot["done"] is None:
                        slot["done"] = False  # ended without answering every record
                        waiting -= 1
                    continue
                if which == "err":
                    slot["err"] += data
                    continue
                slot["out"] += data
                slot["lines"] += data.count(b"\n")
                if slot["lines"] >= slot["want"] and slot["done"] is None:
                    slot["done"] = time.monotonic()
                    waiting -= 1
        sel.close()
        outcomes = {}
        for layer in layers:
            outcome = Outcome(b"", None, b"", 0.0)
            for shard in range(len(chunks)):
                slot = slots[(layer.name, shard)]
                proc = slot["stream"].proc
                for pipe, buf in ((proc.stdout, slot["out"]), (proc.stderr, slot["err"])):
                    try:  # anything already written after the last expected line is extra output
                        buf += os.read(pipe.fileno(), 1 << 16) or b""
                    except (BlockingIOError, OSError, ValueError):
                        pass
                outcome.stdout += bytes(slot["out"])
                outcome.stderr += bytes(slot["err"])
                if not slot["done"]:
                    status = proc.poll()
                    outcome.stderr += b"<no answer to every record: %s>" % (
                        b"timed out" if status is None else b"exited with status %d" % status
                    )
                outcome.seconds = max(outcome.seconds, (slot["done"] or time.monotonic()) - start)
            outcomes[layer.name] = outcome
        return outcomes


STREAMS = StreamPool()


def stream_problems(
    records: List[bytes], key: str, layers: Optional[List[Layer]] = None
) -> Tuple[List[str], Dict[str, Outcome], float]:
    """Problems with ``records`` through every batch layer's streams under config ``key``.

    Returns (problems, each layer's outcome, seconds in all). The in-process answers are computed while the
    layers work.
    """
    layers = available_layers("batch") if layers is None else layers
    path = STREAMS.config_path(key)
    start = time.monotonic()
    exchange = _POOL.submit(STREAMS.exchange, layers, key, records)
    expected_lines: Dict[str, List[bytes]] = {}
    for backend in BACKENDS:
        defaults = backend.defaults(os.fsencode(path) if path else None)
        expected_lines[backend.name] = [backend.line(_decode(r), defaults) for r in records]
    reference_lines = expected_lines.pop("reference")
    problems: List[str] = []
    for i, line in enumerate(reference_lines):
        problem = json_line_problem(line)
        if problem:
            problems.append("record %d: reference output %s: %s" % (i, _show(line), problem))
    for name, lines in expected_lines.items():
        for i, (got, want) in enumerate(zip(lines, reference_lines)):
            if got != want:
                problems.append("record %d: %s (in-process): %s, reference %s" % (i, name, _show(got), _show(want)))
    outcomes = exchange.result()
    expected = b"".join(reference_lines)
    for layer in layers:
        outcome = outcomes[layer.name]
        bad = outcome.stdout != expected or outcome.stderr
        if outcome.stdout != expected:
            got_lines = outcome.stdout.splitlines(keepends=True)
            for i, want in enumerate(reference_lines):
                got = got_lines[i] if i < len(got_lines) else b"<nothing>"
                if got != want:
                    problems.append("record %d: %s: %s, reference %s" % (i, layer.name, _show(got), _show(want)))
                    break
            if len(got_lines) > len(reference_lines):
                problems.append("%s: %d lines for %d records" % (layer.name, len(got_lines), len(records)))
        if outcome.stderr:
            problems.append("%s: stderr (C19/C22): %s" % (layer.name, _show(outcome.stderr)))
        if bad:  # a confused stream is not reused
            STREAMS.drop(layer, key)
    return problems, outcomes, time.monotonic() - start


def _stream_vector(records: List[bytes], key: str, problems: List[str]) -> Vector:
    content = STREAM_CONFIGS[key]
    stdin = b"".join(r + b"\0" for r in records)
    expected = batch_oracle(
        REFERENCE, [b"--config-path", os.fsencode(STREAMS.config_path(key))] if content else [], stdin
    )
    return Vector(
        name="",
        rules=("C22",),
        argv=(b"--config-path", b"{config}") if content else (),
        stdout=expected.stdout,
        status=expected.status or 0,
        command="batch",
        config={"type": "file", "content": gen.vector_field(content)} if content else None,
        stdin=stdin,
        note="found by parity/fuzz.py: " + problems[0][:200],
    )


def check_records(records: List[bytes], key: str = "none", kind: str = "records", minimize: bool = False) -> None:
    """Stream ``records`` through every batch layer; raise Divergence (after shrinking it if ``minimize``)."""
    layers = available_layers("batch")
    problems, outcomes, seconds = stream_problems(records, key, layers)
    STATS.count(kind, len(records), seconds, outcomes)
    if problems and minimize:
        records, problems = minimize_records(records, key, problems)
    if problems:
        raise diverged(_stream_vector(records, key, problems), problems)


def _first_failing_record(problems: List[str]) -> Optional[int]:
    for problem in problems:
        if problem.startswith("record "):
            return int(problem.split()[1].rstrip(":"))
    return None


def shrink_sequence(items: list, fails: Callable[[list], bool], budget: int = 400) -> list:
    """Greedy delta debugging: drop chunks (halves, quarters, ... single items) while ``fails`` stays true."""
    chunk = max(len(items) // 2, 1)
    while chunk >= 1 and budget > 0:
        i = 0
        while i < len(items) and budget > 0:
            candidate = items[:i] + items[i + chunk :]
            budget -= 1
            if candidate != items and fails(candidate):
                items = candidate
            else:
                i += chunk
        chunk //= 2
    return items


def minimize_records(records: List[bytes], key: str, problems: List[str]) -> Tuple[List[bytes], List[str]]:
    """Shrink a bulk failure: first the failing record alone, then its characters (invalid bytes kept whole)."""

    def problems_of(candidate: List[bytes]) -> List[str]:
        return stream_problems(candidate, key)[0] if candidate else []

    index = _first_failing_record(problems)
    if index is not None and problems_of([records[index]]):
        chars = list(_decode(records[index]))

        def fails(candidate: list) -> bool:
            return bool(problems_of(["".join(candidate).encode("utf-8", "surrogateescape")]))

        record = "".join(shrink_sequence(chars, fails)).encode("utf-8", "surrogateescape")
        return [record], problems_of([record])
    prefix = records[: index + 1] if index is not None else records
    small = shrink_sequence(prefix, lambda candidate: bool(problems_of(candidate)), budget=200)
    return small, problems_of(small) or problems


# --- the examples, as hypothesis tests --------------------------------------------------------------------------

BULK_SIZE = 500
SETTINGS = settings(
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
    report_multiple_bugs=False,
    print_blob=False,
)


def run_bulk(seed: int, key: str, count: int = BULK_SIZE) -> None:
    """``count`` fast-generated records through the streams; shrunk by our own delta debugging on failure."""
    check_records(gen.bulk_records(seed, count), key, kind="records (bulk)", minimize=True)


def run_records(records: List[bytes], key: str) -> None:
    check_records(records, key, kind="records (hypothesis)")


def run_argv(argv: List[bytes], config: Optional[dict]) -> None:
    check_agreement("parse", argv, config=config, kind="parse argv")


def run_config(config: dict, argv: List[bytes], records: List[bytes], equals: bool) -> None:
    """A config through parse (its path among argv items) and through batch (several records, one read)."""
    path = [b"--config-path={config}"] if equals else [b"--config-path", b"{config}"]
    check_agreement("parse", [*path, *argv], config=config, kind="parse config")
    check_agreement("batch", path, config=config, stdin=b"".join(r + b"\0" for r in records), kind="batch config")


def run_stdin(argv: List[bytes], config: Optional[dict], ending: bytes) -> None:
    """I2: the operands' bytes on standard input (options first, then --stdin) give the operands' exact stdout and
    status, in every layer."""
    operand_form = check_agreement("parse", argv, config=config, kind="parse argv")
    try:
        operands, config_path, from_stdin = split_argv(argv, stdin_switch=True)
    except ValueError:  # C3: no ARGUMENTS to hand over
        return
    if from_stdin or operand_form.status == 2:
        return  # the argv already chose stdin (or is a usage error): nothing to compare
    if any(CONFIG_PLACEHOLDER in operand for operand in operands):
        return  # an operand naming the config's path, made per run: text on stdin cannot carry it
    options = [b"--config-path", config_path] if config_path is not None else []
    stdin = b" ".join(operands) + ending
    stdin_form = check_agreement("parse", [*options, b"--stdin"], config=config, stdin=stdin, kind="parse stdin")
    if (stdin_form.stdout, stdin_form.status) != (operand_form.stdout, operand_form.status):
        vector = Vector(
            name="",
            rules=("I2",),
            argv=(*options, b"--stdin"),
            stdout=operand_form.stdout,
            status=operand_form.status if operand_form.status is not None else -1,
            config=config,
            stdin=stdin,
            note="found by parity/fuzz.py: stdin differs from the operands %r" % operands[:3],
        )
        raise diverged(vector, ["stdin gave %s, operands %s" % (_show(stdin_form.stdout), _show(operand_form.stdout))])


def run_announce(argv: List[bytes], config: Optional[dict]) -> None:
    """Agreement only: no in-process oracle for announce; cli-pure is the reference."""
    check_agreement("announce", argv, config=config, kind="announce")


def run_env(env: Dict[str, str], argv: List[bytes], config: Optional[dict], records: List[bytes]) -> None:
    check_agreement("parse", argv, env=env, config=config, kind="parse env")
    check_agreement("batch", [], env=env, stdin=b"".join(r + b"\0" for r in records), kind="batch env")


# --- persist and resume (SPEC section 13): a manifest file per layer, and PyYAML as a second oracle ----------------


def _vector_text(data: Optional[bytes]):
    return None if data is None else gen.vector_field(data)


def _manifest_runs(command: str, before: Optional[bytes], args: List[bytes], stdin: bytes) -> Dict[str, tuple]:
    """``command`` on a fresh copy of ``before`` in every layer (cli and module run the same code: cli only):
    (outcome, the manifest's bytes afterwards, temp files left) per layer."""

    def one(layer: Layer, directory: Path) -> tuple:
        path = directory / "manifest.md"
        if before is not None:
            path.write_bytes(before)
        outcome = _run(layer, command, [os.fsencode(path), *args], stdin, {})
        after = path.read_bytes() if path.exists() else None
        leftovers = tuple(sorted(p.name for p in directory.iterdir() if p.name != "manifest.md"))
        return outcome, after, leftovers

    layers = [layer for layer in available_layers(command) if not layer.name.startswith("module-")]
    with tempfile.TemporaryDirectory(prefix="sage-fuzz-") as workdir:
        futures = {}
        for layer in layers:
            directory = Path(workdir) / layer.name
            directory.mkdir()
            futures[layer.name] = _POOL.submit(one, layer, directory)
        return {name: future.result() for name, future in futures.items()}


def check_manifest(command: str, before: Optional[bytes], args: List[bytes], stdin: bytes = b"") -> tuple:
    """One persist or resume example through every layer: same stdout, status, stderr shape, file bytes and no
    temp file left; PyYAML agrees (parity/yaml_oracle.py). Returns the agreed (outcome, after)."""
    from parity import yaml_oracle  # PyYAML: a test dependency, only needed by these kinds

    start = time.monotonic()
    runs = _manifest_runs(command, before, args, stdin)
    expected_name = "cli-pure" if "cli-pure" in runs else next(iter(runs))
    expected, expected_after, _ = runs[expected_name]
    problems = []
    for name, (outcome, after, leftovers) in runs.items():
        if (outcome.stdout, outcome.status) != (expected.stdout, expected.status):
            problems.append("%s: status %s stdout %s" % (name, outcome.status, _show(outcome.stdout)))
        if after != expected_after:
            problems.append("%s: manifest %s" % (name, _show(after or b"(none)")))
        if leftovers:
            problems.append("%s: left %s" % (name, ", ".join(leftovers)))
        lines = outcome.stderr.count(b"\n")
        if lines != (0 if outcome.status in (0, 1) else 1):
            problems.append("%s: status %s with stderr %s" % (name, outcome.status, _show(outcome.stderr)))
    try:
        if command == "persist" and expected.status in (0, 3):
            yaml_oracle.check_persist(before, stdin, expected.status, expected_after)
        elif command == "resume":
            yaml_oracle.check_resume(before, expected.stdout)
    except AssertionError as error:
        problems.append("PyYAML: %s" % str(error)[:300])
    STATS.count(command, 1, time.monotonic() - start, {name: run[0] for name, run in runs.items()})
    if problems:
        spec = {"before": _vector_text(before)}
        if command == "persist" and expected_after != before:
            spec["after"] = _vector_text(expected_after)
        vector = Vector(
            name="",
            rules=("P9",) if command == "persist" else ("R1",),
            argv=(b"{manifest}", *args),
            stdout=expected.stdout,
            status=expected.status if expected.status is not None else -1,
            command=command,
            stdin=stdin,
            note="found by parity/fuzz.py: " + problems[0][:200],
            extra={"manifest": spec},
        )
        raise diverged(vector, problems)
    return expected, expected_after


def _contract_line(args: List[str]) -> bytes:
    return reference.parse(" ".join(args)).to_json().encode("utf-8") + b"\n"


def run_persist(before: Optional[bytes], args: List[str], goal: str, resume_args: List[str]) -> None:
    """persist, then resume (no flags, and flags) on its result, then persist of that resume line."""
    outcome, after = check_manifest("persist", before, [], _contract_line([*args, goal]))
    if outcome.status != 0:
        return
    check_manifest("resume", after, [])
    resumed, _ = check_manifest("resume", after, [a.encode() for a in resume_args])
    if resumed.status == 0:
        check_manifest("persist", after, [], resumed.stdout)


def run_resume(before: Optional[bytes], resume_args: List[str]) -> None:
    check_manifest("resume", before, [a.encode() for a in resume_args])


def run_hook(argv: List[bytes], config: Optional[dict], event: bytes) -> None:
    """docs/SPEC.md K12: one event through every layer with the hook; a failure is status 3 and one stderr line
    (K8), and Codex's answers hold to its published output schema (when ../shared/harness/ is there)."""
    expected = check_agreement("hook", argv, stdin=event, config=config, kind="hook")
    problem = None
    if expected.status == 3 and (expected.stdout or expected.stderr.count(b"\n") != 1):
        problem = "fail-open needs no stdout and one stderr line: %s" % _show(expected.stderr)
    elif expected.status not in (0, 3):
        problem = "status %s (only 0 and 3: K5-K8)" % expected.status
    elif expected.stdout and argv[:1] == [b"codex"] and CODEX_OUTPUT_SCHEMA.is_file():
        import jsonschema

        schema = json.loads(CODEX_OUTPUT_SCHEMA.read_text(encoding="utf-8"))
        try:
            jsonschema.validate(json.loads(expected.stdout), schema)
        except jsonschema.ValidationError as error:
            problem = "Codex's output schema: %s" % error.message[:200]
    if problem:
        vector = Vector(
            name="",
            rules=("K12",),
            argv=tuple(argv),
            stdout=expected.stdout,
            status=expected.status if expected.status is not None else -1,
            command="hook",
            config=config,
            stdin=event,
            note="found by parity/fuzz.py: " + problem,
        )
        raise diverged(vector, [problem])


CODEX_OUTPUT_SCHEMA = ROOT.parent / "shared" / "harness" / "codex-user-prompt-submit.command.output.schema.json"

# kind -> the command whose layers it needs (a kind whose command has no layer is not run)
COMMAND = {
    "bulk": "batch",
    "records": "batch",
    "argv": "parse",
    "config": "parse",
    "env": "parse",
    "announce": "announce",
    "stdin": "parse",
    "persist": "persist",
    "resume": "resume",
    "hook": "hook",
}
# kind -> (strategy of the arguments, runner). Each hypothesis example calls the runner once.
KINDS: Dict[str, Tuple[st.SearchStrategy, Callable]] = {
    "bulk": (st.tuples(st.integers(0, 2**64 - 1), st.sampled_from(STREAM_CONFIG_KEYS)), run_bulk),
    "records": (st.tuples(gen.record_lists(), st.sampled_from(STREAM_CONFIG_KEYS)), run_records),
    "argv": (gen.argvs(), run_argv),
    "config": (
        st.tuples(gen.configs(), st.lists(gen.arguments(), max_size=3), gen.record_lists(5), st.booleans()),
        run_config,
    ),
    "env": (
        st.tuples(gen.environments(), st.lists(gen.arguments(), max_size=3), st.none(), gen.record_lists(5)),
        run_env,
    ),
    "announce": (gen.announce_argvs(), run_announce),
    "stdin": (gen.stdin_forms(), run_stdin),
    "persist": (st.tuples(gen.manifests(), gen.FLAG_ARGS, gen.MANIFEST_GOALS, gen.FLAG_ARGS), run_persist),
    "resume": (st.tuples(gen.manifests(), gen.FLAG_ARGS), run_resume),
    "hook": (gen.hook_examples(), run_hook),
}


def hypothesis_test(kind: str, max_examples: int, **overrides) -> Callable[[], None]:
    """A fresh hypothesis test running ``max_examples`` examples of ``kind`` (bulk failures are not re-shrunk)."""
    strategy, runner = KINDS[kind]
    phases = [Phase.generate] if kind == "bulk" else [Phase.generate, Phase.shrink]
    options = {"max_examples": max_examples, "phases": phases, **overrides}

    @settings(SETTINGS, **options)
    @given(strategy)
    def test(example: tuple) -> None:
        runner(*example)

    return test


# --- the long run -----------------------------------------------------------------------------------------------

# The schedule: chunks of CHUNK[kind] examples, each kind in turn as often as SHARES says (a weighted round robin
# over chunk counts, never over elapsed time, so `--seed N` replays the same kinds with the same seeds). Streamed
# records are cheap per example; argv, config, env and announce vary what only a process start can, so they get
# most of the turns.
SHARES = {
    "bulk": 1,
    "records": 2,
    "argv": 3,
    "config": 3,
    "env": 3,
    "announce": 2,
    "stdin": 2,
    "persist": 2,
    "resume": 1,
    "hook": 2,
}
CHUNK = {
    "bulk": 2,
    "records": 10,
    "argv": 6,
    "config": 4,
    "env": 4,
    "announce": 4,
    "stdin": 4,
    "persist": 4,
    "resume": 4,
    "hook": 4,
}


def plan(master_seed: int, kinds: Sequence[str]) -> Iterator[Tuple[str, int]]:
    """(kind, hypothesis seed) for each chunk, from the master seed alone: the kind furthest behind its share
    goes next (ties: SHARES order)."""
    rng = random.Random(master_seed)
    done = dict.fromkeys(kinds, 0)
    while True:
        kind = min(kinds, key=lambda k: (done[k] / SHARES[k], list(SHARES).index(k)))
        done[kind] += 1
        yield kind, rng.getrandbits(64)


def fuzz(
    minutes: Optional[float],
    examples: Optional[int],
    master_seed: int,
    progress: float = 5.0,
    only: Optional[Sequence[str]] = None,
) -> int:
    STATS.progress_every = progress
    stop_at = time.monotonic() + minutes * 60 if minutes else None
    kinds = [kind for kind in SHARES if kind in KINDS and available_layers(COMMAND[kind])]
    kinds = [kind for kind in kinds if only is None or kind in only]
    chunks = plan(master_seed, kinds)
    layers = sorted({layer.name for c in ("parse", "batch") for layer in available_layers(c)})
    print(
        "fuzz: seed %d; layers: %s; in-process: %s"
        % (master_seed, ", ".join(layers), ", ".join(b.name for b in BACKENDS))
    )
    print("fuzz: budget %s" % (("%g minutes" % minutes) if minutes else ("%d examples" % examples)), flush=True)
    while True:
        if stop_at is not None and time.monotonic() >= stop_at:
            break
        if examples is not None and STATS.total >= examples:
            break
        kind, chunk_seed = next(chunks)
        test = hypothesis_test(kind, CHUNK[kind])
        hypothesis_seed(chunk_seed)(test)
        LAST_DIVERGENCE.clear()
        try:
            test()
        except Exception as error:  # a divergence (hypothesis re-raises it after shrinking) or a flaky one
            path = save_minimal()
            if path is None:
                STATS.divergences.append("%s: %s: %s" % (kind, type(error).__name__, str(error)[:300]))
                print("fuzz: ERROR in %s: %r" % (kind, error), flush=True)
            else:
                STATS.divergences.append(str(path.relative_to(ROOT)))
                print("fuzz: DIVERGENCE (%s), saved %s\n%s" % (kind, path, LAST_DIVERGENCE[0]), flush=True)
    if STATS.divergences:
        print("fuzz: replay with: python -m parity.fuzz --seed %d --examples %d" % (master_seed, STATS.total))
    STREAMS.close()
    print(STATS.summary(), flush=True)
    return 1 if STATS.divergences else 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m parity.fuzz", description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, help="run for this long (default: 1 minute, unless --examples)")
    parser.add_argument("--examples", type=int, help="run until this many examples were checked")
    parser.add_argument("--seed", type=int, help="master seed (default: random; printed)")
    parser.add_argument("--progress", type=float, default=5.0, help="seconds between progress lines")
    parser.add_argument("--kinds", help="only these kinds, comma-separated (e.g. persist,resume)")
    options = parser.parse_args(argv)
    only = options.kinds.split(",") if options.kinds else None
    if only is not None and not set(only) <= set(SHARES):
        parser.error("unknown kinds: %s (known: %s)" % (", ".join(sorted(set(only) - set(SHARES))), ", ".join(SHARES)))
    minutes = options.minutes if options.minutes or options.examples else 1.0  # both: whichever comes first
    master_seed = options.seed if options.seed is not None else random.SystemRandom().getrandbits(32)
    return fuzz(minutes, options.examples, master_seed, options.progress, only)


if __name__ == "__main__":
    sys.exit(main())
