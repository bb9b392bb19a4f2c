"""The project's own flag-parsing step, run as `/build` runs it (docs/SPEC.md H12), for adopt's
verification (``_adopt_verify``): found by Sage's files, run with python3 or bash from PATH, with a timeout, bounded
output and a clean environment, in the project's root, writing nothing there (``-B``; the configs are in a
temporary folder outside it).
"""

import json
import os
import selectors
import shutil
import subprocess
import time

from sage_flags._adopt_corpus import ABSENT

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Dict, List, Optional, Sequence, Tuple

    Answer = Tuple[int, Optional[dict], str]  # (exit status, its JSON object or None, what it printed, bounded)

PYTHON_STEP = "sage/runtime/tools/sage_flags.py"  # Sage 1.3's: `python3 <it> parse "$ARGUMENTS" --config-path ...`
BASH_STEP = "sage/core/flag_parser/parse.sh"  # Sage 1.1's: `bash <it> "$ARGUMENTS" --config-path ...`
OWN_MARK = b"sage-flags"  # the bundle's parse.sh names sage-flags in its first lines; Sage's never does
LOOKED_FOR = "%s (Sage 1.3, run with python3) or %s (Sage 1.1, run with bash)" % (PYTHON_STEP, BASH_STEP)
TIMEOUT = 20.0  # seconds for one run of the step (the batch of every input, or one input)
TOTAL_TIMEOUT = 60.0  # seconds for every run of one verification
PARSER_LIMIT = 4 << 20  # bytes: a larger parser file is no flag parser adopt runs or fingerprints (Sage's: 30 KB)
OUTPUT_LIMIT = 4 << 20  # bytes of output read from one run; more is a step that does not answer
SHOWN = 1000  # characters of an answer a message shows (a whole JSON line of 4 modes fits)


class NoStep(Exception):
    """The project's step cannot be found or run: one line saying what was looked for."""


class Step:
    """The project's flag-parsing step: its kind ("python", "bash"), its files, whether it is our drop-in."""

    def __init__(self, kind: str, path: str, own: bool) -> None:
        self.kind, self.path, self.own = kind, path, own
        self.program = "python3" if kind == "python" else "bash"
        self.shown = "`%s %s parse`" % (self.program, path) if kind == "python" else "`bash %s`" % path

    def argv(self, program: str, text: str, config: str) -> "List[str]":
        """As `/build` runs it: ARGUMENTS as one item, then the config path."""
        head = [program, "-B", self.path, "parse"] if self.kind == "python" else [program, self.path]
        return [*head, text, "--config-path", config]


def find_step(root: str) -> Step:
    """N2: the step by Sage's files (a regular file, links followed, at most PARSER_LIMIT bytes); NoStep."""
    for rel in (PYTHON_STEP, BASH_STEP):
        path = os.path.join(root, rel)
        if not os.path.isfile(path):
            continue
        if os.path.getsize(path) > PARSER_LIMIT:
            raise NoStep("%s is over %d bytes: no flag parser sage-flags runs" % (rel, PARSER_LIMIT))
        if rel == PYTHON_STEP:
            return Step("python", PYTHON_STEP, False)
        with open(path, "rb") as handle:
            return Step("bash", BASH_STEP, OWN_MARK in handle.read(4096))
    raise NoStep("no flag-parsing step found: looked for %s" % LOOKED_FOR)


# ---------------------------------------------------------------------------------------------------------
# Running the step


def _environment() -> "Dict[str, str]":
    """A clean environment: the person's PATH, HOME and locale only (no PYTHONPATH, no BASH_ENV)."""
    kept = ("PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "SYSTEMROOT")
    return {name: os.environ[name] for name in kept if name in os.environ}


def _run(argv: "List[str]", cwd: str, timeout: "Optional[float]" = None) -> "Tuple[int, bytes, bytes]":
    """(status, stdout, stderr) of ARGV in CWD: stdin empty, at most OUTPUT_LIMIT bytes, TIMEOUT seconds (or
    TIMEOUT, when shorter); NoStep when it does not start, takes longer or says more (killed with its process
    group)."""
    limit = TIMEOUT if timeout is None else min(timeout, TIMEOUT)
    try:
        process = subprocess.Popen(
            argv, cwd=cwd, env=_environment(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, start_new_session=True,
        )  # fmt: skip
    except OSError as error:
        raise NoStep("cannot run %s (%s)" % (argv[0], error.strerror)) from None
    with process.stdout, process.stderr:  # type: ignore[union-attr]
        collect = _collect if os.name != "nt" else _collect_windows
        status, out, err, why = collect(process, limit)
    if status is None:
        _kill(process)
        raise NoStep("the project's flag-parsing step %s; not adopted" % why)
    return status, out, err


def _collect_windows(process: "subprocess.Popen", limit: float) -> "Tuple[Optional[int], bytes, bytes, str]":
    """_collect where select() takes sockets only (Windows, SPEC section 14): the time bound while reading, the
    output bound after it (the step's output is held in memory until it ends or the time runs out)."""
    try:
        out, err = process.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        return None, b"", b"", "ran over %g s" % limit
    if len(out) + len(err) > OUTPUT_LIMIT:
        return None, b"", b"", "wrote over %d bytes" % OUTPUT_LIMIT
    return process.returncode, out, err, ""


def _collect(process: "subprocess.Popen", limit: float) -> "Tuple[Optional[int], bytes, bytes, str]":
    """PROCESS's status (None: it ran over LIMIT seconds or OUTPUT_LIMIT bytes, and why), stdout and stderr."""
    chunks: "Dict[int, List[bytes]]" = {process.stdout.fileno(): [], process.stderr.fileno(): []}  # type: ignore
    deadline, size, why = time.monotonic() + limit, 0, ""
    with selectors.DefaultSelector() as selector:
        for stream in (process.stdout, process.stderr):
            selector.register(stream, selectors.EVENT_READ)  # type: ignore[arg-type]
        while selector.get_map() and not why:
            left = deadline - time.monotonic()
            for key, _ in selector.select(max(left, 0)) if left > 0 else []:
                data = os.read(key.fd, 65536)
                if not data:
                    selector.unregister(key.fileobj)
                chunks[key.fd].append(data)
                size += len(data)
            if left <= 0:
                why = "ran over %g s" % limit
            elif size > OUTPUT_LIMIT:
                why = "wrote over %d bytes" % OUTPUT_LIMIT
    try:
        status = process.wait(max(deadline - time.monotonic(), 0.1)) if not why else None
    except subprocess.TimeoutExpired:
        status, why = None, "ran over %g s" % limit
    out, err = (b"".join(chunks[stream.fileno()]) for stream in (process.stdout, process.stderr))  # type: ignore
    return status, out, err, why


def _kill(process: "subprocess.Popen") -> None:
    killpg = getattr(os, "killpg", None)  # the step's whole process group, where there are groups (not Windows)
    try:
        if killpg is None:
            raise OSError
        killpg(process.pid, 9)
    except OSError:
        process.kill()
    process.wait()


def _answer(status: int, out: bytes, err: bytes) -> "Answer":
    text = out.decode("utf-8", "replace").strip()
    try:
        value = json.loads(text, strict=False)
    except ValueError:
        value = None
    if not isinstance(value, dict):
        value = None
        lines = err.decode("utf-8", "replace").strip().splitlines()
        text = text or ("(nothing on stdout; stderr ends: %s)" % lines[-1] if lines else "(no output)")
    return status, value, text[:SHOWN]


# The Python step's inputs in one process (docs/SPEC.md H12): the project's own file is loaded by path, as a
# module not named __main__, and its main(argv) called with each input's argv, exactly the argv `python3 FILE`
# would hand it: the same code parses, with its stdout and exit status captured per input.
DRIVER = r"""
import importlib.util, io, json, os, sys, traceback
script, cases_path, mark = sys.argv[1:4]
sys.path[0] = os.path.dirname(os.path.abspath(script))
real = sys.stdout
def say(value):
    real.write(mark + json.dumps(value) + "\n")
    real.flush()
try:
    spec = importlib.util.spec_from_file_location("sage_flags_step", script)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    main = module.main
except BaseException as error:
    say({"nobatch": "%s: %s" % (type(error).__name__, error)})
    sys.exit(0)
with open(cases_path, encoding="utf-8") as handle:
    cases = json.load(handle)
for argv in cases:
    sys.argv = [script] + argv
    sys.stdout, sys.stderr = io.StringIO(), io.StringIO()
    try:
        code = main(argv)
    except SystemExit as exit:
        code = exit.code
    except BaseException:
        traceback.print_exc()
        code = 1
    status = code if isinstance(code, int) else (0 if code is None else 1)
    out, err = sys.stdout.getvalue(), sys.stderr.getvalue()
    sys.stdout, sys.stderr = real, sys.__stderr__
    say([status & 255, out[:65536], err[-2000:]])
"""


class Runner:
    """Runs the step in ROOT with configs in FOLDER (outside the project)."""

    def __init__(self, root: str, step: Step, folder: str) -> None:
        self.root, self.step, self.folder = root, step, folder
        program = shutil.which(step.program, path=os.environ.get("PATH", os.defpath))
        if program is None:
            raise NoStep("no %s on PATH to run %s, the project's flag-parsing step" % (step.program, step.path))
        self.program = program
        self.processes = 0
        self.deadline = time.monotonic() + TOTAL_TIMEOUT  # every run of this verification together
        self.paths = {ABSENT: os.path.join(folder, "absent.yaml")}  # config name -> its file (ABSENT: none there)

    def write_configs(self, configs: "Dict[str, bytes]") -> None:
        for index, (name, data) in enumerate(sorted(configs.items())):
            self.paths[name] = os.path.join(self.folder, "config-%d.yaml" % index)
            with open(self.paths[name], "wb") as handle:
                handle.write(data)

    def config_path(self, name: str) -> str:
        return self.paths[name]

    def one(self, text: str, config: str) -> "Answer":
        self.processes += 1
        return _answer(*self._run(self.step.argv(self.program, text, self.config_path(config))))

    def _run(self, argv: "List[str]") -> "Tuple[int, bytes, bytes]":
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise NoStep("the project's flag-parsing step ran over %g s in all; not adopted" % TOTAL_TIMEOUT)
        return _run(argv, self.root, left)

    def all(self, cases: "Sequence[Tuple[str, str]]") -> "List[Answer]":
        """Every case's answer: the Python step's in one process (checked against separate runs of two cases),
        the bash step's one process each."""
        if self.step.kind == "python":
            answers = self._batch(cases)
            picks = [i for i in (len(cases) // 3, 2 * len(cases) // 3) if answers and i < len(cases)]
            if answers and all(self.one(*cases[i]) == answers[i] for i in picks):
                return answers
        return [self.one(text, config) for text, config in cases]

    def _batch(self, cases: "Sequence[Tuple[str, str]]") -> "List[Answer]":
        path = os.path.join(self.folder, "cases.json")
        argvs = [self.step.argv("", text, self.config_path(config))[3:] for text, config in cases]
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(argvs, handle)
        mark = "\x1esage-flags-verify\x1e"
        argv = [self.program, "-B", "-c", DRIVER, self.step.path, path, mark]
        self.processes += 1
        status, out, _ = self._run(argv)
        found = [
            json.loads(line[len(mark) :])
            for line in out.decode("utf-8", "replace").split("\n")
            if line.startswith(mark)
        ]
        if status != 0 or len(found) != len(cases) or not all(isinstance(f, list) for f in found):
            return []  # a file without main(argv), or one that exits: one process per input
        return [_answer(s, o.encode("utf-8", "surrogatepass"), e.encode("utf-8", "surrogatepass")) for s, o, e in found]
