"""The differential fuzzer's oracle: every example through every layer's real entry, compared byte for byte.

- ``check_agreement(v, command, argv, ...)``: one process per layer offering ``command`` (in parallel threads);
- ``check_records(v, records, key)``: records written to long-lived batch streams (C22), one per layer and config;
- ``check_manifest(v, command, before, args, stdin)``: persist/resume on a copy of a manifest per layer, PyYAML
  as the second oracle (parity/yaml_oracle.py);
- ``check_in_process(v, text, defaults, config)``: the compiled core against the reference, in this process.

Every layer's stdout bytes and status must equal the in-process reference's; stderr empty with status 0/1 and one
line with status 2; every stdout line strict JSON that re-encodes to the same bytes (C16, C17). A divergence
raises ``Divergence``, whose message is the problems and the example as a ready-to-save vector (parity/vectors
format; expected stdout and status are the pure reference's). parity/test_fuzz.py holds the hypothesis tests.
"""

from __future__ import annotations

import atexit
import dataclasses
import functools
import hashlib
import json
import os
import selectors
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from hypothesis import currently_in_test_context, note, reject

from parity.layers import PROJECT, ROOT, Layer, available_layers
from parity.strategies import Vocabulary, field
from parity.vectors import Vector, cannot_run_here, split_argv

FAILURES_DIR = ROOT / "parity" / "failures"
TIMEOUT = 30.0
STDIN_LIMIT = 262144  # I4
SOURCES = (None, "flag", "config")


@dataclass
class Outcome:
    stdout: bytes
    status: Optional[int]  # None: timed out, or a stream that did not answer every record
    stderr: bytes = b""


# --- in-process oracles: the expected (stdout, status) of a command line -----------------------------------------


def answer(backend: tuple, text: str, defaults: Optional[dict]) -> Tuple[bytes, bool]:
    """The stdout line for ``text`` by (name, parse, load_defaults), and whether it parsed cleanly."""
    name, parse, _ = backend
    try:
        result = parse(text, defaults)
        return result.to_json().encode("utf-8") + b"\n", result.error is None
    except Exception as error:  # a crash is a divergence, reported as such
        return ("<%s raised %s: %s>" % (name, type(error).__name__, error)).encode("utf-8", "replace"), False


def load(backend: tuple, path: Optional[bytes]):
    try:
        return None if not path else backend[2](path)  # C11: no path, no defaults
    except Exception as error:
        return "<%s load_defaults raised %s: %s>" % (backend[0], type(error).__name__, error)


def decode(argument: bytes) -> str:
    return argument.decode("utf-8", "surrogateescape")  # C10: invalid bytes become lone surrogates: E4


def split_records(stdin: bytes) -> List[bytes]:
    """C22: NUL-terminated records; a final unterminated record counts if non-empty."""
    records = stdin.split(b"\0")
    last = records.pop()
    return [*records, last] if last else records


def parse_oracle(backend: tuple, argv: Sequence[bytes], stdin: bytes) -> Outcome:
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
    line, ok = answer(backend, decode(arguments), load(backend, config))
    return Outcome(line, 0 if ok else 1)


def batch_oracle(backend: tuple, argv: Sequence[bytes], stdin: bytes) -> Outcome:
    try:
        operands, config, _ = split_argv(argv)
    except ValueError:
        return Outcome(b"", 2)
    if operands:  # records come on stdin; operands are a usage error
        return Outcome(b"", 2)
    defaults = load(backend, config)  # C22: read once
    answers = [answer(backend, decode(record), defaults) for record in split_records(stdin)]
    return Outcome(b"".join(line for line, _ in answers), 0 if all(ok for _, ok in answers) else 1)


# command -> in-process oracle. Without one (announce, hook) the pure CLI is the reference: agreement only.
ORACLES: Dict[str, Callable[[tuple, Sequence[bytes], bytes], Outcome]] = {"parse": parse_oracle, "batch": batch_oracle}


# --- checks ------------------------------------------------------------------------------------------------------


def json_line_problem(v: Vocabulary, line: bytes) -> Optional[str]:
    """C16/C17: one line, strict JSON, the keys in order with the right types, re-encoding to the same bytes."""
    if not line.endswith(b"\n") or b"\n" in line[:-1]:
        return "not exactly one line"
    try:
        text = line[:-1].decode("utf-8")
        pairs = json.loads(text, object_pairs_hook=list, parse_constant=_reject_constant)
    except (UnicodeDecodeError, ValueError) as error:
        return "not strict JSON (%s)" % error
    keys = (*(k for k, _ in v.modes), "goal", "error", *(k + "_source" for k, _ in v.modes))
    keys += tuple(f for row in v.value_modes for f in (row.field, row.note_field))
    if not isinstance(pairs, list) or tuple(k for k, _ in pairs) != keys:
        return "not the C16 keys in order"
    values = dict(pairs)
    if not all(isinstance(values[k], bool) for k, _ in v.modes) or not isinstance(values["goal"], str):
        return "a mode is not a boolean, or the goal not a string"
    if not isinstance(values["error"], (str, type(None))) or any(
        values[k + "_source"] not in SOURCES for k, _ in v.modes
    ):
        return "error or a source has the wrong type"
    if any(
        type(values[row.field]) is not int or not isinstance(values[row.note_field], (str, type(None)))
        for row in v.value_modes
    ):
        return "a number is not an integer, or a note not a string or null (V7)"
    if json.dumps(values, ensure_ascii=False) != text:
        return "re-encoding with json.dumps(ensure_ascii=False) gives other bytes (C17)"
    return None


def _reject_constant(name: str) -> None:
    raise ValueError("non-standard constant " + name)


def show(data: bytes, limit: int = 300) -> str:
    text = repr(data)
    return text if len(text) <= limit else text[:limit] + "...(%d bytes)" % len(data)


def compare(
    v: Vocabulary, expected: Outcome, results: Dict[str, Outcome], in_process: Dict[str, Outcome], json_lines: bool
) -> List[str]:
    """Every problem with ``results`` (layer -> outcome) and ``in_process`` against ``expected``, the reference's."""
    problems = []
    if json_lines and expected.status in (0, 1):
        for line in expected.stdout.splitlines(keepends=True) or [b""]:
            problem = json_line_problem(v, line)
            if problem:
                problems.append("reference output %s: %s" % (show(line), problem))
                break
    for name, got in {**in_process, **results}.items():
        if got.stdout != expected.stdout:
            problems.append("%s: stdout %s, reference %s" % (name, show(got.stdout), show(expected.stdout)))
        if name in results:
            if got.status != expected.status:
                problems.append("%s: status %s, reference %s" % (name, got.status, expected.status))
            if got.status in (0, 1) and got.stderr:
                problems.append("%s: stderr with status %s (C19): %s" % (name, got.status, show(got.stderr)))
            if got.status == 2 and (got.stderr.count(b"\n") != 1 or not got.stderr.endswith(b"\n")):
                problems.append("%s: status 2 needs exactly one stderr line (C3): %s" % (name, show(got.stderr)))
    return problems


# --- a divergence, as a vector -----------------------------------------------------------------------------------


class Divergence(AssertionError):
    def __init__(self, vector: Vector, problems: List[str]) -> None:
        self.vector, self.problems = vector, problems
        message = "layers disagree:\n  %s\nthe example as a vector (parity/vectors format):\n%s"
        super().__init__(message % ("\n  ".join(problems[:12]), vector.to_json()))


LAST_DIVERGENCE: List[Divergence] = []  # the last raised: after hypothesis shrank, the minimal example


def diverged(vector: Vector, problems: List[str]) -> Divergence:
    """The exception for a divergence (named by its content), kept as the last one and noted for hypothesis."""
    digest = hashlib.sha1(vector.to_json().encode()).hexdigest()[:10]
    note_text = "found by the fuzzer (parity/fuzz.py): " + problems[0][:200]
    vector = dataclasses.replace(vector, name="fuzz-%s-%s" % (vector.command, digest), note=vector.note or note_text)
    error = Divergence(vector, problems)
    LAST_DIVERGENCE[:] = [error]
    if currently_in_test_context():
        note(vector.to_json())
    return error


def save_minimal(directory: Optional[Path] = None) -> Optional[Path]:
    """Write the last divergence raised (the minimal one, once hypothesis is done) to parity/failures/."""
    if not LAST_DIVERGENCE:
        return None
    vector = LAST_DIVERGENCE[0].vector
    directory = directory or FAILURES_DIR
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / (vector.name + ".json")
    path.write_text(vector.to_json(), encoding="utf-8")
    return path


def rules_of(command: str, argv: Sequence[bytes], config: Optional[dict], env: Dict[str, str]) -> Tuple[str, ...]:
    rules = ["C22" if command == "batch" else "C1"] + ["C12"] * bool(config) + ["C20"] * bool(env)
    return tuple(rules)


# --- one process per layer ---------------------------------------------------------------------------------------

POOL = ThreadPoolExecutor(max_workers=8)


def run(layer: Layer, command: str, args: List[bytes], stdin: bytes, env: Dict[str, str]) -> Outcome:
    try:
        done = layer.run(command, args, stdin=stdin, env=env, timeout=TIMEOUT)
    except subprocess.TimeoutExpired as timeout:
        return Outcome(timeout.stdout or b"", None, b"timed out after %ds" % TIMEOUT)
    return Outcome(done.stdout, done.returncode, done.stderr)


@functools.lru_cache(maxsize=None)
def bash_starts_cleanly(interpreter: str, env: Tuple[Tuple[str, str], ...]) -> bool:
    """SPEC H4: bash acts on its environment before a script's first line (bash 3.2 in POSIX mode warns
    "SHELLOPTS: readonly variable"; 3.2.48 exits 2 on an exported function it cannot import). A bash layer is
    compared in an environment only where the bare interpreter starts there silently with status 0."""
    full_env = {**os.environ, **dict(env)}
    full_env.pop("BASH_ENV", None)
    bare = subprocess.run([interpreter, "-c", ":"], capture_output=True, env=full_env, timeout=TIMEOUT)
    return bare.returncode == 0 and not bare.stdout and not bare.stderr


def check_agreement(
    v: Vocabulary,
    command: str,
    argv: Sequence[bytes],
    *,
    stdin: bytes = b"",
    env: Optional[Dict[str, str]] = None,
    config: Optional[dict] = None,
    layers: Optional[List[Layer]] = None,
) -> Outcome:
    """One example through every layer offering ``command``; Divergence unless they all agree. ``{config}`` in an
    argv item is the path of the config ``config`` (vector format) describes. Returns the agreed outcome."""
    env = {**dict(v.env), **(env or {})}
    layers = available_layers(command) if layers is None else layers
    if env:
        items = tuple(sorted(env.items()))
        layers = [layer for layer in layers if layer.bash is None or bash_starts_cleanly(layer.bash, items)]
    vector = Vector("", (), tuple(argv), b"", 0, command=command, config=config, env=env, stdin=stdin)
    if cannot_run_here(vector):  # e.g. a FIFO on Windows: no input this system can give
        reject()
    with tempfile.TemporaryDirectory(prefix="sage-fuzz-") as workdir:
        args = vector.materialise(Path(workdir))
        futures = {layer.name: POOL.submit(run, layer, command, args, stdin, env) for layer in layers}
        oracle = ORACLES.get(command)
        in_process = {b[0] + " (in-process)": oracle(b, args, stdin) for b in v.backends} if oracle else {}
        results = {name: future.result() for name, future in futures.items()}
    expected = in_process.pop("reference (in-process)", None)
    if expected is None:
        expected = results.get("cli-pure") or next(iter(results.values()))
    problems = compare(v, expected, results, in_process, json_lines=oracle is not None)
    if problems:
        status = expected.status if expected.status is not None else -1
        vector = dataclasses.replace(vector, rules=rules_of(command, argv, config, env), stdout=expected.stdout)
        raise diverged(dataclasses.replace(vector, status=status), problems)
    return expected


# --- long-lived batch streams (C22) ------------------------------------------------------------------------------


def stream_configs(v: Vocabulary) -> Dict[str, Optional[bytes]]:
    """The configs the streams run with (key -> content; None: no --config-path)."""
    keys = [key for key, _ in v.modes]
    every = "\n".join(key + ": true" for key in reversed(keys))
    return {
        "none": None,
        "first": f"{keys[0]}: true\n".encode(),
        "last": f"{keys[-1]}: true\r\n".encode(),
        "all": b"\xef\xbb\xbf" + every.encode(),
    }


class Streams:
    """One `batch` process per (layer, vocabulary, config), kept alive across examples: records in, one line each."""

    def __init__(self) -> None:
        self.procs: Dict[tuple, subprocess.Popen] = {}
        self.dir = tempfile.mkdtemp(prefix="sage-fuzz-streams-")
        atexit.register(self.close)

    def config_path(self, v: Vocabulary, key: str) -> Optional[str]:
        content = stream_configs(v)[key]
        if content is None:
            return None
        path = os.path.join(self.dir, "%s-%s.yaml" % (hashlib.sha1(v.name.encode()).hexdigest()[:8], key))
        if not os.path.exists(path):
            Path(path).write_bytes(content)
        return path

    def get(self, layer: Layer, v: Vocabulary, key: str) -> subprocess.Popen:
        proc = self.procs.get((layer.name, v.name, key))
        if proc is None or proc.poll() is not None:
            path = self.config_path(v, key)
            args = [b"--config-path", os.fsencode(path)] if path else []
            proc = subprocess.Popen(
                layer.argv("batch", args), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                env={**os.environ, **layer.env, **dict(v.env)}, cwd=layer.cwd, bufsize=0,
            )  # fmt: skip
            for pipe in (proc.stdin, proc.stdout, proc.stderr):
                os.set_blocking(pipe.fileno(), False)
            self.procs[(layer.name, v.name, key)] = proc
        return proc

    def drop(self, layer: Layer, v: Vocabulary, key: str) -> None:
        proc = self.procs.pop((layer.name, v.name, key), None)
        if proc is not None:
            proc.kill()
            proc.wait()

    def close(self) -> None:
        for proc in self.procs.values():
            proc.stdin.close()
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
        self.procs.clear()

    def exchange(self, layers: List[Layer], v: Vocabulary, key: str, records: List[bytes]) -> Dict[str, Outcome]:
        """Write the records to every layer's stream at once; read until each answered one line per record (C22's
        flush after every line is what lets this work: a layer that buffers is caught by the timeout)."""
        sel = selectors.DefaultSelector()
        slots = {}
        for layer in layers:
            proc = self.get(layer, v, key)
            slot = slots[layer.name] = {"todo": memoryview(b"".join(r + b"\0" for r in records)), "proc": proc}
            slot.update(out=bytearray(), err=bytearray(), done=False)
            sel.register(proc.stdin, selectors.EVENT_WRITE, (slot, "in"))
            sel.register(proc.stdout, selectors.EVENT_READ, (slot, "out"))
            sel.register(proc.stderr, selectors.EVENT_READ, (slot, "err"))
        deadline = time.monotonic() + 20.0 + sum(map(len, records)) / 20_000
        waiting = len(slots)
        while waiting and time.monotonic() < deadline:
            for selected, _ in sel.select(min(deadline - time.monotonic(), 1.0)):
                slot, which = selected.data
                try:
                    if which == "in":
                        slot["todo"] = slot["todo"][os.write(selected.fd, slot["todo"][:65536]) :]
                        if not slot["todo"]:
                            sel.unregister(selected.fileobj)
                        continue
                    data = os.read(selected.fd, 1 << 16)
                except BlockingIOError:
                    continue
                except OSError:  # the process went away: what it said so far is its answer
                    data = b""
                if not data:
                    sel.unregister(selected.fileobj)
                    waiting -= which == "out" and not slot["done"]
                    slot["done"] = slot["done"] or which == "out"
                    continue
                slot[which] += data
                if which == "out" and not slot["done"] and slot["out"].count(b"\n") >= len(records):
                    slot["done"], waiting = True, waiting - 1
        sel.close()
        outcomes = {}
        for name, slot in slots.items():
            try:  # anything already written after the last expected line is extra output
                slot["out"] += os.read(slot["proc"].stdout.fileno(), 1 << 16) or b""
            except (BlockingIOError, OSError, ValueError):
                pass
            status = None if slot["out"].count(b"\n") >= len(records) else slot["proc"].poll()
            lost = b"" if status is None else b"<no answer to every record: status %s>" % str(status).encode()
            outcomes[name] = Outcome(bytes(slot["out"]), 0, bytes(slot["err"]) + lost)
        return outcomes


STREAMS = Streams()


def check_records(v: Vocabulary, records: List[bytes], key: str = "none", layers: Optional[List[Layer]] = None) -> None:
    """``records`` through every batch layer's stream under config ``key``; Divergence unless all agree."""
    layers = available_layers("batch") if layers is None else layers
    path = STREAMS.config_path(v, key)
    exchange = POOL.submit(STREAMS.exchange, layers, v, key, records)  # the in-process answers meanwhile
    lines = {
        b[0]: [answer(b, decode(r), load(b, os.fsencode(path) if path else None))[0] for r in records]
        for b in v.backends
    }
    reference = lines.pop("reference")
    problems = [
        "record %d: reference output %s: %s" % (i, show(line), p)
        for i, line in enumerate(reference)
        for p in [json_line_problem(v, line)]
        if p
    ][:1]
    for name, got in [
        *((n + " (in-process)", b"".join(ls)) for n, ls in lines.items()),
        *((n, o.stdout) for n, o in exchange.result().items()),
    ]:
        if got != b"".join(reference):
            got_lines = got.splitlines(keepends=True)
            i = next(
                (i for i, want in enumerate(reference) if i >= len(got_lines) or got_lines[i] != want), len(reference)
            )
            problems.append(
                "record %d: %s: %s, reference %s"
                % (
                    i,
                    name,
                    show(got_lines[i] if i < len(got_lines) else got[-200:]),
                    show(reference[i] if i < len(reference) else b""),
                )
            )
    for name, outcome in exchange.result().items():
        if outcome.stderr:
            problems.append("%s: stderr (C19, C22): %s" % (name, show(outcome.stderr)))
    for layer in layers:  # a confused stream is not reused
        if any(p.startswith(layer.name + ":") or (": %s:" % layer.name) in p for p in problems):
            STREAMS.drop(layer, v, key)
    if problems:
        content = stream_configs(v)[key]
        stdin = b"".join(r + b"\0" for r in records)
        vector = Vector(
            "", ("C22",), (b"--config-path", b"{config}") if content else (), b"".join(reference),
            1 if any(b'"error": "' in line for line in reference) else 0, command="batch",
            config={"type": "file", "content": field(content)} if content else None, env=dict(v.env), stdin=stdin,
        )  # fmt: skip
        raise diverged(vector, problems)


# --- persist and resume (SPEC section 13): a manifest per layer, PyYAML as the second oracle -----------------------


@functools.lru_cache(maxsize=None)
def handover_layer(project: Path = PROJECT) -> Layer:
    """The native executable handing persist and resume over to its installation's Python (SPEC D27, D27.1):
    a copy of it in a venv whose site directory holds the project's package (a .pth, as an editable install)."""
    venv = Path(tempfile.mkdtemp(prefix="sage-fuzz-handover-"))
    atexit.register(subprocess.run, ["rm", "-rf", str(venv)])
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    (site,) = venv.glob("lib/python*/site-packages")
    (site / "sage_flags.pth").write_text(str(project / "python") + "\n")
    exe = venv / "bin" / "sage-flags"
    exe.write_bytes((project / "target" / "native" / "sage-flags").read_bytes())
    exe.chmod(0o755)
    return Layer("exe-handover", {c: [str(exe), c] for c in ("persist", "resume")})


def manifest_layers(command: str) -> List[Layer]:
    """persist and resume are Python's (issue 33): the console scripts on both backends and the hand-over
    (`python -m sage_flags` runs the same code as cli-*, so it is left out)."""
    python = [layer for layer in available_layers(command) if layer.name.startswith("cli-")]
    exe = PROJECT / "target" / "native" / "sage-flags"
    return python + [handover_layer()] * (exe.is_file() and os.name != "nt")


def check_manifest(
    v: Vocabulary, command: str, before: Optional[bytes], args: List[bytes], stdin: bytes = b""
) -> tuple:
    """One persist or resume through every layer: the same stdout, status, stderr shape, file bytes and no temp
    file left; PyYAML agrees (parity/yaml_oracle.py). Returns the agreed (outcome, file afterwards)."""
    from parity import yaml_oracle  # PyYAML: a test dependency

    def one(layer: Layer, directory: Path) -> tuple:
        directory.mkdir()
        path = directory / "manifest.md"
        if before is not None:
            path.write_bytes(before)
        outcome = run(layer, command, [os.fsencode(path), *args], stdin, dict(v.env))
        left = sorted(p.name for p in directory.iterdir() if p.name != "manifest.md")
        return outcome, path.read_bytes() if path.exists() else None, left

    with tempfile.TemporaryDirectory(prefix="sage-fuzz-") as workdir:
        futures = {
            layer.name: POOL.submit(one, layer, Path(workdir) / layer.name) for layer in manifest_layers(command)
        }
        runs = {name: future.result() for name, future in futures.items()}
    expected, after, _ = runs["cli-pure"]
    problems = []
    for name, (outcome, file_after, left) in runs.items():
        if (outcome.stdout, outcome.status) != (expected.stdout, expected.status):
            problems.append("%s: status %s stdout %s" % (name, outcome.status, show(outcome.stdout)))
        if file_after != after:
            problems.append("%s: manifest %s" % (name, show(file_after or b"(none)")))
        if left:
            problems.append("%s: left %s" % (name, ", ".join(left)))
        if outcome.stderr.count(b"\n") != (0 if outcome.status in (0, 1) else 1):
            problems.append("%s: status %s with stderr %s" % (name, outcome.status, show(outcome.stderr)))
    try:
        if command == "persist" and expected.status in (0, 3):
            yaml_oracle.check_persist(before, stdin, expected.status, after)
        elif command == "resume":
            yaml_oracle.check_resume(before, expected.stdout)
    except AssertionError as error:
        problems.append("PyYAML: %s" % str(error)[:300])
    if problems:
        spec = {"before": None if before is None else field(before)}
        if command == "persist" and after != before:
            spec["after"] = None if after is None else field(after)
        vector = Vector(
            "", ("P9",) if command == "persist" else ("R1",), (b"{manifest}", *args), expected.stdout,
            expected.status if expected.status is not None else -1, command=command, env=dict(v.env), stdin=stdin,
            extra={"manifest": spec},
        )  # fmt: skip
        raise diverged(vector, problems)
    return expected, after


# --- in process: the compiled core against the reference ---------------------------------------------------------


def check_in_process(v: Vocabulary, text: str, defaults: Optional[dict], config: Optional[bytes]) -> None:
    """load_defaults (of ``config``'s file, each side reading it) and parse, without and with the defaults: the
    same mapping, the same to_json bytes and ok, strict JSON written back byte for byte (C17)."""
    if len(v.backends) < 2:
        return
    with tempfile.NamedTemporaryFile(
        prefix="sage-fuzz-config-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None
    ) as file:
        if config is not None:
            file.write(config)
            file.flush()
            loaded = [load(b, os.fsencode(file.name)) for b in v.backends]
        else:
            loaded = [defaults] * len(v.backends)
    problems = ["load_defaults: %s" % loaded] if any(x != loaded[0] for x in loaded) else []
    for with_defaults in (False, True):
        lines = [
            answer(b, text, d if with_defaults and isinstance(d, dict) else None) for b, d in zip(v.backends, loaded)
        ]
        if any(x != lines[0] for x in lines):
            problems.append("parse (defaults %s): %s" % (with_defaults, [show(line) for line, _ in lines]))
        problem = json_line_problem(v, lines[0][0])
        problems += ["reference: " + problem] if problem else []
    if problems:
        argv: List[bytes] = [b"--", text.encode("utf-8", "surrogateescape")]
        if config is None and defaults:  # a mapping is what a config of its true keys' lines gives (C14)
            config = b"".join(line + b"\n" for line, (key, _) in zip(v.default_lines, v.modes) if defaults.get(key))
        spec = None if config is None else {"type": "file", "content": field(config)}
        argv = argv if spec is None else [b"--config-path", b"{config}", *argv]
        vector = Vector("", rules_of("parse", argv, spec, {}), tuple(argv), b"", 0, config=spec, env=dict(v.env))
        with tempfile.TemporaryDirectory() as workdir:
            expected = parse_oracle(v.backends[0], vector.materialise(Path(workdir)), b"")
        raise diverged(dataclasses.replace(vector, stdout=expected.stdout, status=expected.status), problems)
