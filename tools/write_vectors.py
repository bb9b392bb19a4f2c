"""Rewrite the results of the default vocabulary's vectors, parity/vectors/<vocabulary>.jsonl, from the reference.

The results (stdout, status, a manifest's "after", a stdin that "stdin_from_parse" gives) are what the pure
reference's command line (`python -m sage_flags`, SAGE_FLAGS_BACKEND=python) prints; a vector's "expect" (written
by hand from docs/SPEC.md) that the reference does not meet stops the tool, nothing written. Every vector file is
held to its canonical form too. The format, "expect" among it: parity/README.md.

    python tools/write_vectors.py            # rewrite the results in place (make vectors)
    python tools/write_vectors.py --check    # exit 1 naming every vector that would change (make check-generated)
    python tools/write_vectors.py --project DIR   # a copy's (tools/build_vocabulary.py): its reference, its file

Every vector runs as its own process, forked from one where the reference's command line is imported once
(`ForkedReference`): its own stdin, stdout, stderr, directory and exit status, without an interpreter's start
each time. A vector that sets an environment (which the interpreter reads as it starts), and every vector where
there is no fork, gets a fresh `python -m sage_flags`.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import multiprocessing
import os
import subprocess
import sys
import tempfile
from multiprocessing.pool import ThreadPool
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tools")]

from generate import load_vocabulary, supported_flags  # noqa: E402

from parity import vectors  # noqa: E402
from parity.layers import Layer, project_layers  # noqa: E402

Results = Dict[str, object]  # a line's result keys: stdout, status, and stdin or manifest when computed


def reference_layer(project: Path) -> Layer:
    return next(layer for layer in project_layers(project) if layer.name == "module-pure")


class ForkedReference:
    """The reference's command line (`sage_flags.cli.main`, pure backend) imported once into this process; each
    run a child forked from it, with the run's stdin, stdout and stderr as its fds 0-2, its directory and its exit
    status, as `python -m sage_flags` would run it. ``run`` is Layer.run's; a run with an environment, or where
    there is no fork, is the real layer's process."""

    def __init__(self, project: Path, layer: Layer) -> None:
        self.layer = layer
        self.main = None
        if not hasattr(os, "fork"):
            return
        os.environ["SAGE_FLAGS_BACKEND"] = "python"
        sys.path.insert(0, str(project / "python"))
        cli = importlib.import_module("sage_flags.cli")
        for target in cli.COMMANDS.values():  # the subcommands' modules, imported before any fork
            if isinstance(target, str):
                importlib.import_module(target.partition(":")[0])
        self.main = cli.main

    def run(
        self,
        command: str,
        args: Sequence[bytes],
        *,
        stdin: bytes = b"",
        env: Optional[Dict[str, str]] = None,
        cwd: Optional[Path] = None,
        timeout: float = 30,
        before: Sequence[bytes] = (),
    ) -> "subprocess.CompletedProcess[bytes]":
        if env or self.main is None:
            return self.layer.run(command, args, stdin=stdin, env=env, cwd=cwd, timeout=timeout, before=before)
        argv = [*before, command.encode(), *args]
        with tempfile.TemporaryDirectory(prefix="sage-flags-stdio-") as stdio:
            paths = [Path(stdio, name) for name in ("stdin", "stdout", "stderr")]
            for path, content in zip(paths, (stdin, b"", b"")):
                path.write_bytes(content)
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:  # the child: never returns
                self._child(argv, paths, cwd, int(timeout))
            status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
            return subprocess.CompletedProcess(argv, status, paths[1].read_bytes(), paths[2].read_bytes())

    def _child(self, argv: List[bytes], paths: List[Path], cwd: Optional[Path], timeout: int) -> None:
        status = 70  # EX_SOFTWARE: this harness failed, never a status of the reference's
        try:
            import signal

            signal.alarm(timeout)  # a hang ends the child (SIGALRM), not the tool
            for fd, (path, flags) in enumerate(zip(paths, (os.O_RDONLY, os.O_WRONLY, os.O_WRONLY))):
                opened = os.open(path, flags)
                os.dup2(opened, fd)
                os.close(opened)
            if cwd is not None:
                os.chdir(cwd)
            try:
                status = self.main(argv)
            except SystemExit as done:
                status = done.code if isinstance(done.code, int) else 1
            for stream in (sys.stdout, sys.stderr):
                if stream is not None:
                    stream.flush()
        except BaseException:  # a traceback on the child's stderr: named as a disagreement (status 70)
            import traceback

            traceback.print_exc()
            sys.stderr.flush()
        finally:
            os._exit(status)


def as_vector(data: dict) -> vectors.Vector:
    """The line as a Vector whatever its results (a new line may have none yet)."""
    return vectors.from_data({"stdout": "", "status": 0, **data, "stdin": data.get("stdin", "")})


def run_alone(layer: "Layer | ForkedReference", data: dict, stdin: bytes, workdir: Path) -> Tuple[Results, bytes]:
    """The results of a vector that runs as its own process, and its stderr."""
    vector = dataclasses.replace(as_vector(data), stdin=stdin)
    results: Results = {}
    if "manifest" in data:
        spec = {k: v for k, v in data["manifest"].items() if k != "after"}
        result, path = vectors.run_manifest_vector(
            layer, dataclasses.replace(vector, extra={"manifest": spec}), workdir
        )
        target = vectors.manifest_file(spec, path)
        if spec.get("type", "file") in ("file", "symlink") and target.is_file():
            after = target.read_bytes()
            if after != vectors.manifest_bytes(spec, "before"):
                if "fill" in spec:  # written back in the short form
                    after = after.replace(b"A" * spec["fill"], vectors.FILL_PLACEHOLDER, 1)
                spec = _with_after(spec, vectors.from_bytes(after))
        results["manifest"] = spec
    else:
        cwd = workdir if vector.command == "config" else None
        argv = vector.materialise(workdir)
        result = layer.run(vector.command, argv, stdin=stdin, env=vector.env, cwd=cwd, before=vector.before)
    if "stderr" in data:  # given exactly where the line asks for it (B3's lines)
        results["stderr"] = result.stderr.decode("utf-8")
    results.update(stdout=result.stdout.decode("utf-8"), status=result.returncode)
    return results, result.stderr


def _with_after(spec: dict, after: object) -> dict:
    """``spec`` with "after" placed after before/type/mode and before the rest, the files' canonical order."""
    head = {k: spec[k] for k in ("before", "type", "mode") if k in spec}
    return {**head, "after": after, **{k: v for k, v in spec.items() if k not in head}}


def disagreements(data: dict, made: dict, stderr: bytes, supported: str) -> List[str]:
    """Where the reference's results break the stream rules (C19) or the line's hand-written expectation."""
    found = []
    status, stdout = made["status"], made["stdout"].encode("utf-8")
    if status in (0, 1) and stderr:
        found.append(f"stderr with status {status}: {stderr!r}")
    if status not in (0, 1) and stderr.count(b"\n") != 1:
        found.append(f"status {status} needs one stderr line, got {stderr!r}")
    expect = data.get("expect")
    if not expect:
        return found
    if status != expect["status"]:
        found.append(f"status {status}, expected {expect['status']}")
    if "stderr" in expect and stderr != expect["stderr"].encode("utf-8"):
        found.append(f"stderr {stderr!r}, expected {expect['stderr']!r}")
    if "answer" in expect and _hook_answer(stdout) != expect["answer"]:
        found.append(f"hook answer {_hook_answer(stdout)!r}, expected {expect['answer']!r}")
    if "goal" in expect or "error" in expect or "modes" in expect:
        got = _hook_fields(stdout) if data.get("command") == "hook" else {}
        if not got:
            got = json.loads(stdout.splitlines()[0]) if stdout else {}
        error = expect.get("error")
        want = {"goal": expect.get("goal", ""), "error": error.replace("{supported}", supported) if error else None}
        for key in [k for k in got if k + "_source" in got]:
            value, source = expect.get("modes", {}).get(key, [False, None])
            want[key], want[key + "_source"] = value, source
        for key, value in want.items():
            if got.get(key, "<missing>") != value:
                found.append(f"{key}: {got.get(key, '<missing>')!r}, expected {value!r}")
    if "after" in expect:
        spec = made["manifest"]
        after = spec.get("after", spec.get("before"))
        wanted = expect["after"] if expect["after"] is not None else spec.get("before")
        if after != wanted:
            found.append(f"manifest afterwards {after!r}, expected {wanted!r}")
    return found


def _hook_answer(stdout: bytes) -> str:
    """Which answer a hook's stdout is (K5, K6, K3): context, block or nothing."""
    if not stdout:
        return "nothing"
    return "block" if json.loads(stdout).get("decision") == "block" else "context"


def _hook_fields(stdout: bytes) -> dict:
    """A hook's answer as parse's fields: the line its context ends with (K5), or its block's error (K6)."""
    answer = _hook_answer(stdout)
    if answer == "nothing":
        return {}
    data = json.loads(stdout)
    if answer == "block":
        return {"goal": "", "error": data["reason"][len("Sage: ") :]}
    return json.loads(data["hookSpecificOutput"]["additionalContext"].splitlines()[-1])


def compute(project: Path, lines: List[dict]) -> Tuple[Dict[str, Results], List[str]]:
    """Every line's results by name, and the problems (a vector the reference got wrong). Two workers per core:
    forked processes that inherit the imported reference, or threads that start its processes where there is no
    fork."""
    global _REFERENCE, _SUPPORTED
    _REFERENCE = ForkedReference(project, reference_layer(project))
    _SUPPORTED = supported_flags(load_vocabulary(project / "spec" / "flags.toml"))
    workers = ThreadPool if _REFERENCE.main is None else multiprocessing.get_context("fork").Pool
    with workers(os.cpu_count() or 2) as pool:
        outcomes = pool.map(_one, lines, chunksize=4)
    made = {name: results for name, results, _ in outcomes if results is not None}
    return made, sorted(problem for _, _, found in outcomes for problem in found)


_REFERENCE: "ForkedReference"
_SUPPORTED = ""  # the vocabulary's E1 list, for "{supported}" in an expectation


def _one(data: dict) -> Tuple[str, Optional[Results], List[str]]:
    """A line's name, results (None when they cannot be made) and problems."""
    name = data["name"]
    stdin = vectors.to_bytes(data.get("stdin", ""))
    if "stdin_from_parse" in data:
        line = _REFERENCE.run("parse", [vectors.to_bytes(data["stdin_from_parse"])])
        if line.returncode != 0:
            return name, None, [f"{name}: stdin_from_parse is not a clean parse (status {line.returncode})"]
        stdin = line.stdout
    with tempfile.TemporaryDirectory(prefix="sage-flags-vector-") as tmp:
        results, stderr = run_alone(_REFERENCE, data, stdin, Path(tmp))
    if "stdin_from_parse" in data:
        results["stdin"] = stdin.decode("utf-8")
    return name, results, [f"{name}: {problem}" for problem in disagreements(data, results, stderr, _SUPPORTED)]


def layout_problems(path: Path) -> Tuple[List[str], List[str]]:
    """A vector file's problems: those that stop the tool (a name used twice, a line that does not load), and
    those a rewrite mends (lines out of name order, not in the canonical form)."""
    text = path.read_text(encoding="utf-8")
    try:
        lines = vectors.read_lines(path)
    except ValueError as error:
        return [str(error)], []
    names = [d.get("name") for d in lines]
    fatal = [f"{path.name}: name {n!r} is used twice" for n in sorted({n for n in names if names.count(n) > 1})]
    for data in lines:
        try:
            as_vector(data)
        except (KeyError, TypeError, ValueError) as error:
            fatal.append(f"{path.name}: {data.get('name')!r} does not load: {error!r}")
    if fatal:
        return fatal, []
    mended = [f"{path.name}: the lines are not sorted by name"] if names != sorted(names) else []
    if text != "".join(vectors.canonical_line(d) for d in lines):
        mended.append(f"{path.name}: not in the canonical form (parity/vectors.py canonical_line)")
    return fatal, mended


def rewrite(path: Path, lines: List[dict]) -> None:
    path.write_text("".join(vectors.canonical_line(d) for d in sorted(lines, key=lambda d: d["name"])), "utf-8")


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--project", type=Path, default=ROOT, help="the project (or built copy) whose reference runs")
    parser.add_argument("--file", type=Path, help="the vector file to rewrite (default: the default vocabulary's)")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a vector would change")
    args = parser.parse_args(argv)
    project = args.project.resolve()
    directory = project / "parity" / "vectors"
    path = (args.file or vectors.vector_file(vectors.default_vocabulary(project), directory)).resolve()
    others = sorted(p.resolve() for p in directory.glob("*.jsonl")) if args.file is None else []
    fatal, mended = [], []
    for each in [path, *(p for p in others if p != path)]:
        problems = layout_problems(each)
        fatal, mended = fatal + problems[0], mended + problems[1]
    if fatal:
        print("\n".join(f"write_vectors: {p}" for p in fatal), file=sys.stderr)
        return 1
    lines = vectors.read_lines(path)
    # A vector this system cannot set up (persist as root, a FIFO on Windows) keeps its results as they are.
    unable = {d["name"]: why for d in lines for why in [vectors.cannot_run_here(as_vector(d))] if why}
    for why in unable.values():
        print(f"write_vectors: left as it is: {why}")
    made, problems = compute(project, [d for d in lines if d["name"] not in unable])
    for problem in problems:
        print(f"write_vectors: {problem}", file=sys.stderr)
    if problems:
        print(f"write_vectors: {len(problems)} disagreement(s) with the rules; nothing written", file=sys.stderr)
        return 1
    new = [{**d, **made.get(d["name"], {})} for d in lines]
    changed = [d["name"] for d, old in zip(new, lines) if vectors.canonical_line(d) != vectors.canonical_line(old)]
    if args.check:
        for name in changed:
            print(f"write_vectors: {path.name}: {name}: the results are not the reference's (make vectors)")
        for problem in mended:
            print(f"write_vectors: {problem} (make vectors)")
        print(f"write_vectors: {len(new)} vectors, {len(changed)} differ")
        return 1 if changed or mended else 0
    rewrite(path, new)
    for other in (p for p in others if p != path):  # hand-written results: only the canonical form
        rewrite(other, vectors.read_lines(other))
    print(f"write_vectors: {len(new)} vectors, {len(changed)} rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main())
