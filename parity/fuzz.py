"""The differential fuzzer's oracle: every layer's stdout and status equal to the in-process reference's, stderr
of the right shape, every line strict JSON (C16, C17); else Divergence, with the example as a vector."""

from __future__ import annotations

import atexit
import dataclasses
import functools
import itertools
import json
import os
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

from hypothesis import currently_in_test_context, note, reject

from parity.layers import PROJECT, ROOT, Layer, available_layers
from parity.strategies import Vocabulary, field
from parity.vectors import Vector, cannot_run_here, split_argv

FAILURES_DIR = ROOT / "parity" / "failures"
TIMEOUT = 30.0
STDIN_LIMIT = 262144  # I4
SOURCES = (None, "flag", "config")
POOL = ThreadPoolExecutor(max_workers=8)
STREAMS: Dict[tuple, subprocess.Popen] = {}  # one `batch` process per (layer, vocabulary, config), kept alive
STREAMS_DIR = tempfile.mkdtemp(prefix="sage-fuzz-streams-")
atexit.register(lambda: [proc.kill() for proc in STREAMS.values()])


class Outcome(NamedTuple):
    stdout: bytes
    status: Optional[int]  # None: timed out, or a stream that did not answer every record
    stderr: bytes = b""


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
    except ValueError:  # C3
        operands = [b""]
    if operands:  # records come on stdin (C22; a final unterminated one counts if non-empty)
        return Outcome(b"", 2)
    defaults = load(backend, config)  # C22: read once
    answers = [
        answer(backend, decode(record), defaults)
        for record in (stdin + b"\0" * (stdin[-1:] not in (b"", b"\0"))).split(b"\0")[:-1]
    ]
    return Outcome(b"".join(line for line, _ in answers), 0 if all(ok for _, ok in answers) else 1)


# command -> in-process oracle. Without one (announce, hook) the pure CLI is the reference: agreement only.
ORACLES: Dict[str, Callable[[tuple, Sequence[bytes], bytes], Outcome]] = {"parse": parse_oracle, "batch": batch_oracle}


def json_line_problem(v: Vocabulary, line: bytes) -> Optional[str]:
    """C16/C17: one line, strict JSON, the keys in order with the right types, re-encoding to the same bytes."""
    if not line.endswith(b"\n") or b"\n" in line[:-1]:
        return "not exactly one line"
    try:
        text = line[:-1].decode("utf-8")
        pairs = json.loads(text, object_pairs_hook=list, parse_constant=_reject_constant)
    except (UnicodeDecodeError, ValueError) as error:
        return "not strict JSON (%s)" % error
    text_or_null = (str, type(None))  # exact types below: a boolean is no integer
    kinds = [*((k, (bool,)) for k, _ in v.modes), ("goal", (str,)), ("error", text_or_null)]  # C16's order
    kinds += [(k + "_source", SOURCES) for k, _ in v.modes]
    kinds += [kind for row in v.value_modes for kind in ((row.field, (int,)), (row.note_field, text_or_null))]
    if not isinstance(pairs, list) or [k for k, _ in pairs] != [k for k, _ in kinds]:
        return "not the C16 keys in order"
    values = dict(pairs)
    if any((values[k] if allowed is SOURCES else type(values[k])) not in allowed for k, allowed in kinds):
        return "a value of the wrong type (a mode not a boolean, a number not an integer, V7) or source"
    if json.dumps(values, ensure_ascii=False) != text:
        return "re-encoding with json.dumps(ensure_ascii=False) gives other bytes (C17)"
    return None


def _reject_constant(name: str) -> None:
    raise ValueError("non-standard constant " + name)


def show(data: bytes, limit: int = 300) -> str:
    text = repr(data)
    return text if len(text) <= limit else text[:limit] + "...(%d bytes)" % len(data)


def stderr_problem(name: str, got: Outcome) -> List[str]:
    """C19, C3: no stderr with status 0 or 1; exactly one line with 2 (a hook's 3 likewise)."""
    one_line = got.stderr.count(b"\n") == 1 and got.stderr.endswith(b"\n")
    if got.status is None or (one_line if got.status not in (0, 1) else not got.stderr):
        return []
    return ["%s: status %s with stderr %s (C19, C3)" % (name, got.status, show(got.stderr))]


def compare(
    v: Vocabulary, expected: Outcome, results: Dict[str, Outcome], in_process: Dict[str, Outcome], json_lines: bool
) -> List[str]:
    """Every problem with ``results`` (layer -> outcome) and ``in_process`` against ``expected``, the reference's."""
    lines = expected.stdout.splitlines(keepends=True) or [b""] if json_lines and expected.status in (0, 1) else []
    problems = ["reference output %s: %s" % (show(x), json_line_problem(v, x)) for x in lines]
    problems = [p for p in problems if not p.endswith(": None")][:1]
    for name, got in {**in_process, **results}.items():
        if got.stdout != expected.stdout:
            problems.append("%s: stdout %s, reference %s" % (name, show(got.stdout), show(expected.stdout)))
        if name in results and got.status != expected.status:
            problems.append("%s: status %s, reference %s" % (name, got.status, expected.status))
        problems += stderr_problem(name, got) if name in results else []
    return problems


class Divergence(AssertionError):
    def __init__(self, vector: Vector, problems: List[str]) -> None:
        self.vector, self.problems = vector, problems
        message = "layers disagree:\n  %s\nthe example as a vector (a line of parity/vectors/<vocabulary>.jsonl):\n%s"
        super().__init__(message % ("\n  ".join(problems[:12]), vector.to_json()))


def diverged(problems: List[str], rules: tuple, argv: Sequence[bytes], expected: Outcome, **fields) -> Divergence:
    """The exception for a divergence, its example a vector (expected: the reference's), noted for hypothesis and
    written to parity/failures/fuzz-COMMAND.jsonl: hypothesis replays the minimal example last, so that one stays."""
    status = -1 if expected.status is None else expected.status
    vector = Vector("", rules, tuple(argv), expected.stdout, status, **fields)
    note_text = "found by the fuzzer (parity/fuzz.py): " + problems[0][:200]
    vector = dataclasses.replace(vector, name="fuzz-" + vector.command, note=note_text)
    FAILURES_DIR.mkdir(parents=True, exist_ok=True)
    (FAILURES_DIR / (vector.name + ".jsonl")).write_text(vector.to_json(), encoding="utf-8")
    if currently_in_test_context():
        note(vector.to_json())
    return Divergence(vector, problems)


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
        fields = dict(command=command, config=config, env=env, stdin=stdin)
        rules = ("C22" if command == "batch" else "C1",) + ("C12",) * bool(config) + ("C20",) * bool(env)
        raise diverged(problems, rules, argv, expected, **fields)
    return expected


def stream_configs(v: Vocabulary) -> Dict[str, Optional[bytes]]:
    """The configs the streams run with (key -> content; None: no --config-path): C14's lines, CRLF, a BOM."""
    first, *_, last = v.default_lines
    all_lines = b"\xef\xbb\xbf" + b"\n".join(v.default_lines[::-1])
    return {"none": None, "first": first + b"\n", "last": last + b"\r\n", "all": all_lines}


def stream_config(v: Vocabulary, key: str) -> Optional[str]:
    content = stream_configs(v)[key]
    path = os.path.join(STREAMS_DIR, "%s-%s.yaml" % (v.name, key))
    if content is not None and not os.path.exists(path):
        Path(path).write_bytes(content)
    return None if content is None else path


def exchange(layer: Layer, v: Vocabulary, key: str, records: List[bytes]) -> Outcome:
    """The records to the layer's stream, one line per record back (C22's flush after every line is what lets this
    work: a layer that buffers or stops answering is killed by the watchdog). Status None: not every answer."""
    proc = STREAMS.get((layer.name, v.name, key))
    if proc is None or proc.poll() is not None:
        path = stream_config(v, key)
        proc = STREAMS[(layer.name, v.name, key)] = subprocess.Popen(
            layer.argv("batch", [b"--config-path", os.fsencode(path)] if path else []), stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, **layer.env, **dict(v.env)},
            cwd=layer.cwd,
        )  # fmt: skip
        os.set_blocking(proc.stderr.fileno(), False)
    watchdog = threading.Timer(20.0 + sum(map(len, records)) / 20_000, proc.kill)
    watchdog.start()
    threading.Thread(target=write_all, args=(proc.stdin, b"".join(r + b"\0" for r in records)), daemon=True).start()
    out = b"".join(proc.stdout.readline() for _ in records)
    watchdog.cancel()
    os.set_blocking(proc.stdout.fileno(), False)  # anything already written after the last line is extra output
    out += proc.stdout.read(1 << 16) or b""
    os.set_blocking(proc.stdout.fileno(), True)
    err, complete = proc.stderr.read() or b"", out.count(b"\n") >= len(records)
    if not complete or err:  # a confused stream is not reused
        STREAMS.pop((layer.name, v.name, key)).kill()
    return Outcome(out, 0 if complete else None, err + b"<no answer to every record>" * (not complete))


def write_all(pipe, data: bytes) -> None:
    try:
        pipe.write(data)
        pipe.flush()
    except (OSError, ValueError):  # the process went away: what it said so far is its answer
        pass


def check_records(v: Vocabulary, records: List[bytes], key: str = "none", layers: Optional[List[Layer]] = None) -> None:
    """``records`` through every batch layer's stream under config ``key``; Divergence unless all agree."""
    layers = available_layers("batch") if layers is None else layers
    path, stdin = stream_config(v, key), b"".join(r + b"\0" for r in records)  # the config written before any use
    futures = {layer.name: POOL.submit(exchange, layer, v, key, records) for layer in layers}
    argv = [b"--config-path", os.fsencode(path)] if path else []
    answers = {b[0] + " (in-process)": batch_oracle(b, argv, stdin) for b in v.backends}
    expected = answers.pop("reference (in-process)")
    problems, want = compare(v, expected, {}, {}, json_lines=True), expected.stdout.splitlines(keepends=True)
    for name, got in {**answers, **{n: f.result() for n, f in futures.items()}}.items():
        pairs = list(itertools.zip_longest(got.stdout.splitlines(keepends=True), want, fillvalue=b""))
        i = next((i for i, (line, wanted) in enumerate(pairs) if line != wanted), None)
        problems += ["record %d: %s: %s, reference %s" % (i, name, *map(show, pairs[i]))] if i is not None else []
        problems += ["%s: stderr (C19, C22): %s" % (name, show(got.stderr))] if got.stderr else []
    if problems:
        config = {"type": "file", "content": field(stream_configs(v)[key])} if path else None
        argv = [b"--config-path", b"{config}"] if path else []
        raise diverged(problems, ("C22",), argv, expected, command="batch", config=config, env=dict(v.env), stdin=stdin)


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


def check_manifest(v: Vocabulary, command: str, before: Optional[bytes], args: List[bytes], stdin: bytes = b""):
    """One persist or resume through every layer: the same stdout, status, stderr shape, file bytes and no temp
    file left; PyYAML agrees (parity/yaml_oracle.py). Returns the agreed (outcome, file afterwards)."""
    from parity import yaml_oracle  # PyYAML: a test dependency

    # persist and resume are Python's (issue 33): the console scripts on both backends and the native executable's
    # hand-over (`python -m sage_flags` runs the same code as cli-*, so it is left out)
    layers = [layer for layer in available_layers(command) if layer.name.startswith("cli-")]
    layers += [handover_layer()] * ((PROJECT / "target" / "native" / "sage-flags").is_file() and os.name != "nt")

    def one(layer: Layer, directory: Path) -> tuple:
        directory.mkdir()
        path = directory / "manifest.md"
        if before is not None:
            path.write_bytes(before)
        outcome = run(layer, command, [os.fsencode(path), *args], stdin, dict(v.env))
        left = sorted(p.name for p in directory.iterdir() if p.name != "manifest.md")
        return outcome, path.read_bytes() if path.exists() else None, left

    with tempfile.TemporaryDirectory(prefix="sage-fuzz-") as workdir:
        futures = {layer.name: POOL.submit(one, layer, Path(workdir) / layer.name) for layer in layers}
        runs = {name: future.result() for name, future in futures.items()}
    expected, after, _ = runs["cli-pure"]
    problems = []
    for name, (outcome, file_after, left) in runs.items():
        if (outcome.stdout, outcome.status) != (expected.stdout, expected.status):
            problems.append("%s: status %s stdout %s" % (name, outcome.status, show(outcome.stdout)))
        problems += ["%s: manifest %s" % (name, show(file_after or b"(none)"))] * (file_after != after)
        problems += ["%s: left %s" % (name, ", ".join(left))] * bool(left) + stderr_problem(name, outcome)
    try:
        if command == "persist" and expected.status in (0, 3):
            yaml_oracle.check_persist(before, stdin, expected.status, after)
        elif command == "resume":
            yaml_oracle.check_resume(before, expected.stdout)
    except AssertionError as error:
        problems.append("PyYAML: %s" % str(error)[:300])
    if problems:
        spec = {"before": before, **({"after": after} if command == "persist" and after != before else {})}
        spec = {key: None if data is None else field(data) for key, data in spec.items()}
        rules = ("P9",) if command == "persist" else ("R1",)
        fields = dict(command=command, env=dict(v.env), stdin=stdin, extra={"manifest": spec})
        raise diverged(problems, rules, (b"{manifest}", *args), expected, **fields)
    return expected, after


def check_in_process(v: Vocabulary, text: str, config: Optional[bytes]) -> None:
    """parse, without and with ``config``'s defaults, by every backend in this process: the compiled core against
    the reference (the in-process oracles of check_agreement, no process started)."""
    argv = [b"--", text.encode("utf-8", "surrogateescape")]
    check_agreement(v, "parse", argv, layers=[])
    if config is not None:
        spec = {"type": "file", "content": field(config)}
        check_agreement(v, "parse", [b"--config-path", b"{config}", *argv], config=spec, layers=[])
