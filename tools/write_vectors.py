"""Write parity/vectors/ from the case table parity/cases.jsonl (make vectors).

A case is a vector without its results: name, rules, note, command, argv, config, env, stdin, manifest (without
"after"). The results (stdout, status, the manifest afterwards) are what the pure reference's command line
(`python -m sage_flags`, SAGE_FLAGS_BACKEND=python) of the project prints, so a vocabulary with other modes
regenerates them. They are not trusted where it matters: a case with "expect" carries results written by hand
from docs/SPEC.md, and when the reference disagrees nothing is written. Two shorthands keep cases independent of
the vocabulary: a stdin of {"parse": ARGUMENTS} is the line the reference's parse prints for those ARGUMENTS
(persist's input, a contract line), and "{supported}" in an expected error is the vocabulary's E1 list.

    python tools/write_vectors.py                  # write parity/vectors/; a file no case names joins the table
    python tools/write_vectors.py --check          # exit 1 naming every file that differs (make test)
    python tools/write_vectors.py --project DIR --out DIR/parity/vectors    # a copy built for a vocabulary

An "expect" holds "status", and for parse-like output "goal", "error" (null or the text) and "modes": the modes
that are not off with source null, as {key: [value, source]}; for a manifest, "after" (a byte field, or null
for "unchanged"). A hook's expectation (docs/SPEC.md K3-K8) also says which "answer" it gives: "context" (then
goal, error and modes are those of the parse line in it), "block" (error is the reason after `Sage: `) or
"nothing"; the vectors' other hook checks are in tests/test_hook.py.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tools")]

from generate import load_vocabulary, supported_flags  # noqa: E402

from parity import vectors  # noqa: E402
from parity.layers import Layer, project_layers  # noqa: E402

CASES = ROOT / "parity" / "cases.jsonl"


def load_cases(path: Path) -> List[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]


def reference_layer(project: Path) -> Layer:
    return next(layer for layer in project_layers(project) if layer.name == "module-pure")


def as_vector(case: dict, stdin: bytes) -> vectors.Vector:
    """The case as a Vector with empty results (the runners of parity/vectors.py then set it up)."""
    fields = {"name", "rules", "note", "command", "argv", "config", "env", "stdin", "expect"}
    return vectors.Vector(
        name=case["name"],
        rules=tuple(case["rules"]),
        argv=tuple(vectors.to_bytes(a) for a in case["argv"]),
        stdout=b"",
        status=0,
        command=case.get("command", "parse"),
        config=case.get("config"),
        env=case.get("env", {}),
        stdin=stdin,
        note=case.get("note", ""),
        extra={k: v for k, v in case.items() if k not in fields},
    )


def run_case(layer: Layer, case: dict, workdir: Path) -> Tuple[vectors.Vector, bytes]:
    """The vector the reference makes of ``case``, and its stderr."""
    stdin = case.get("stdin", "")
    if isinstance(stdin, dict) and "parse" in stdin:
        line = layer.run("parse", [vectors.to_bytes(stdin["parse"])])
        if line.returncode != 0:
            raise ValueError(f"stdin's parse {stdin['parse']!r} is not a clean parse (status {line.returncode})")
        stdin = line.stdout
    else:
        stdin = vectors.to_bytes(stdin)
    vector = as_vector(case, stdin)
    extra = dict(vector.extra)
    if "manifest" in vector.extra:
        spec = dict(vector.extra["manifest"])
        result, path = vectors.run_manifest_vector(layer, vector, workdir)
        target = vectors.manifest_file(spec, path)
        before = vectors.manifest_bytes(spec, "before")
        if spec.get("type", "file") in ("file", "symlink") and target.is_file():
            after = target.read_bytes()
            if after != before:
                if "fill" in spec:  # written back in the short form
                    after = after.replace(b"A" * spec["fill"], vectors.FILL_PLACEHOLDER, 1)
                spec = _with_after(spec, vectors.from_bytes(after))
        extra["manifest"] = spec
    else:
        cwd = workdir if vector.command == "config" else None
        argv = vector.materialise(workdir)
        result = layer.run(vector.command, argv, stdin=vector.stdin, env=vector.env, cwd=cwd)
    made = vectors.Vector(**{**vector.__dict__, "stdout": result.stdout, "status": result.returncode, "extra": extra})
    return made, result.stderr


def _with_after(spec: dict, after: object) -> dict:
    """``spec`` with "after" placed after before/type/mode and before the rest, the files' canonical order."""
    head = {k: spec[k] for k in ("before", "type", "mode") if k in spec}
    return {**head, "after": after, **{k: v for k, v in spec.items() if k not in head}}


def disagreements(case: dict, made: vectors.Vector, stderr: bytes, supported: str) -> List[str]:
    """Where the reference's results break the stream rules (C19) or the case's hand-written expectation."""
    found = []
    if made.status in (0, 1) and stderr:
        found.append(f"stderr with status {made.status}: {stderr!r}")
    if made.status not in (0, 1) and stderr.count(b"\n") != 1:
        found.append(f"status {made.status} needs one stderr line, got {stderr!r}")
    expect = case.get("expect")
    if not expect:
        return found
    if made.status != expect["status"]:
        found.append(f"status {made.status}, expected {expect['status']}")
    if "answer" in expect and _hook_answer(made.stdout) != expect["answer"]:
        found.append(f"hook answer {_hook_answer(made.stdout)!r}, expected {expect['answer']!r}")
    if "goal" in expect or "error" in expect or "modes" in expect:
        got = _hook_fields(made.stdout) if case.get("command") == "hook" else {}
        if not got:
            got = json.loads(made.stdout.splitlines()[0]) if made.stdout else {}
        error = expect.get("error")
        want = {"goal": expect.get("goal", ""), "error": error.replace("{supported}", supported) if error else None}
        for key in [k for k in got if k + "_source" in got]:
            value, source = expect.get("modes", {}).get(key, [False, None])
            want[key], want[key + "_source"] = value, source
        for key, value in want.items():
            if got.get(key, "<missing>") != value:
                found.append(f"{key}: {got.get(key, '<missing>')!r}, expected {value!r}")
    if "after" in expect:
        spec = made.extra["manifest"]
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


def build(project: Path, cases: List[dict]) -> Tuple[Dict[str, str], List[str]]:
    """Every case's vector file text, by file name, and the problems (a case the reference got wrong)."""
    layer = reference_layer(project)
    supported = supported_flags(load_vocabulary(project / "spec" / "flags.toml"))
    problems: List[str] = []

    def one(case: dict) -> Tuple[str, str]:
        with tempfile.TemporaryDirectory(prefix="sage-flags-case-") as tmp:
            try:
                made, stderr = run_case(layer, case, Path(tmp))
            except ValueError as error:
                problems.append(f"{case['name']}: {error}")
                return f"{case['name']}.json", ""
        for problem in disagreements(case, made, stderr, supported):
            problems.append(f"{case['name']}: {problem}")
        return f"{case['name']}.json", made.to_json()

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        files = dict(pool.map(one, cases))
    return files, sorted(problems)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--project", type=Path, default=ROOT, help="the project (or built copy) whose reference runs")
    parser.add_argument("--cases", type=Path, default=CASES)
    parser.add_argument("--out", type=Path, default=vectors.VECTOR_DIR)
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file would change")
    args = parser.parse_args(argv)
    cases = load_cases(args.cases)
    present = {p.name: p.read_text(encoding="utf-8") for p in args.out.glob("*.json")} if args.out.is_dir() else {}
    named = {f"{c['name']}.json" for c in cases}
    if len(named) != len(cases):
        print("write_vectors: a case name is used twice", file=sys.stderr)
        return 1
    unnamed = sorted(set(present) - named)
    if unnamed and not args.check:  # a vector file put there (a fuzzer's find): its inputs join the table
        cases = sorted(cases + [case_of(name[: -len(".json")], present[name]) for name in unnamed], key=_name)
        args.cases.write_text("".join(case_line(c) for c in cases), encoding="utf-8")
        print(f"write_vectors: {len(unnamed)} file(s) added to {args.cases.name}: {', '.join(unnamed)}")
    # A case this system cannot set up (persist as root, a FIFO on Windows) keeps its file as it is.
    unable = {c["name"]: why for c in cases for why in [vectors.cannot_run_here(as_vector(c, b""))] if why}
    for why in unable.values():
        print(f"write_vectors: left as it is: {why}")
    files, problems = build(args.project.resolve(), [c for c in cases if c["name"] not in unable])
    for problem in problems:
        print(f"write_vectors: {problem}", file=sys.stderr)
    if problems:
        print(f"write_vectors: {len(problems)} disagreement(s) with the rules; nothing written", file=sys.stderr)
        return 1
    changed = sorted(name for name, text in files.items() if present.get(name) != text)
    if args.check:
        for name in changed:
            print(f"write_vectors: {args.out / name} is not what {args.cases.name} gives (make vectors)")
        for name in unnamed:
            print(f"write_vectors: {args.out / name} has no case in {args.cases.name} (make vectors adds it)")
        print(f"write_vectors: {len(files)} vectors, {len(changed) + len(unnamed)} differ")
        return 1 if changed or unnamed else 0
    args.out.mkdir(parents=True, exist_ok=True)
    for name in changed:
        (args.out / name).write_text(files[name], encoding="utf-8")
    print(f"write_vectors: {len(files)} vectors, {len(changed)} written")
    return 0


def _name(case: dict) -> str:
    return case["name"] + ".json"  # the order of the files


def case_of(name: str, text: str) -> dict:
    """A vector file's inputs, as a case."""
    data = json.loads(text)
    case = {"name": name, **{k: v for k, v in data.items() if k not in ("stdout", "status")}}
    if "manifest" in case:
        case["manifest"] = {k: v for k, v in case["manifest"].items() if k != "after"}
    return case


def case_line(case: dict) -> str:
    return json.dumps(case, ensure_ascii=True, separators=(", ", ": ")) + "\n"


if __name__ == "__main__":
    sys.exit(main())
