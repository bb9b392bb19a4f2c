"""Every vector through every layer's real command line, compared byte for byte."""

from __future__ import annotations

import dataclasses
import json
import subprocess
from pathlib import Path
from typing import List

import pytest

from parity import tiers, vectors
from parity.layers import PROJECT, PYTHON, ROOT, Layer, available_layers

ALL = vectors.load_all()


check = vectors.assert_matches


def skip_what_this_system_lacks(vector: vectors.Vector) -> None:
    """On Windows: a vector needing a FIFO, non-UTF-8 argv or permission bits cannot be set up (by name)."""
    reason = vectors.cannot_run_here(vector)
    if reason:
        pytest.skip(reason)


@pytest.mark.parametrize("layer", available_layers("parse"), ids=lambda layer: layer.name)
@pytest.mark.parametrize("vector", vectors.load_all("parse"), ids=lambda v: v.name)
def test_parse_vector(layer: Layer, vector: vectors.Vector, tmp_path: Path) -> None:
    skip_what_this_system_lacks(vector)
    result = layer.run("parse", vector.materialise(tmp_path), stdin=vector.stdin, env=vector.env)
    check(vector, result, f"{layer.name} {vector.name}")


@pytest.mark.parametrize("layer", available_layers("batch"), ids=lambda layer: layer.name)
@pytest.mark.parametrize("vector", vectors.load_all("batch"), ids=lambda v: v.name)
def test_batch_vector(layer: Layer, vector: vectors.Vector, tmp_path: Path) -> None:
    skip_what_this_system_lacks(vector)
    result = layer.run("batch", vector.materialise(tmp_path), stdin=vector.stdin, env=vector.env)
    check(vector, result, f"{layer.name} {vector.name}")


@pytest.mark.parametrize("layer", available_layers("hook"), ids=lambda layer: layer.name)
@pytest.mark.parametrize("vector", vectors.load_all("hook"), ids=lambda v: v.name)
def test_hook_vector(layer: Layer, vector: vectors.Vector, tmp_path: Path) -> None:
    """docs/SPEC.md K12: the hook's event on stdin, the same answer and status in every layer that has it."""
    result = layer.run("hook", vector.materialise(tmp_path), stdin=vector.stdin, env=vector.env)
    check(vector, result, f"{layer.name} {vector.name}")


# docs/SPEC.md B2, B3: the vectors with items before the subcommand (`--vocabulary NAME` and its refusals), each
# through every layer that has its command and takes an option there (the Python CLI and module on both backends,
# the native executable, the launcher); the bash scripts and the drop-in take none (B2) and are not paired with them.
BEFORE_VECTORS = [v for v in vectors.load_all(before=True) if v.before]


@pytest.mark.parametrize(
    "layer, vector",
    [
        pytest.param(layer, vector, id=f"{vector.name}-{layer.name}")
        for vector in BEFORE_VECTORS
        for layer in available_layers(vector.command)
        if layer.program is not None
    ],
)
def test_vector_before_the_subcommand(layer: Layer, vector: vectors.Vector, tmp_path: Path) -> None:
    skip_what_this_system_lacks(vector)
    vectors.check(layer, vector, tmp_path)


# docs/SPEC.md B1: every shipped vocabulary's own vectors (parity/vectors/<name>.jsonl, the default's among them),
# through this one build's layers, the vocabulary named as a caller names it (SAGE_FLAGS_VOCABULARY: every layer
# reads it; the option is tests/test_vocabularies.py's). Not in a copy built for one vocabulary (it carries no other).
NAMED_VOCABULARIES = ("sage-1.3", "sage-1.3.18") if PROJECT == ROOT else ()
NAMED_VECTORS = [(name, vector) for name in NAMED_VOCABULARIES for vector in vectors.load_all(vocabulary=name)]
NAMED_LAYERS = {layer.name: layer for command in ("parse", "hook", "config") for layer in available_layers(command)}


@pytest.mark.parametrize(
    "layer, named",
    [
        pytest.param(layer, (name, vector), id=f"{name}/{vector.name}-{layer.name}")
        for name, vector in NAMED_VECTORS
        for layer in NAMED_LAYERS.values()
        if vector.command in layer.commands  # a layer without the command is not paired with its vectors
    ],
)
def test_named_vocabulary_vector(layer: Layer, named, tmp_path: Path) -> None:
    name, vector = named
    skip_what_this_system_lacks(vector)
    vectors.check(layer, dataclasses.replace(vector, env={**vector.env, "SAGE_FLAGS_VOCABULARY": name}), tmp_path)


@pytest.mark.parametrize("layer", available_layers("batch"), ids=lambda layer: layer.name)
@pytest.mark.parametrize("name", NAMED_VOCABULARIES)
def test_named_parse_vectors_as_one_batch_stream(layer: Layer, name: str) -> None:
    """C22 and B1: each named vocabulary's config-less parse vectors, fed as one stream of records (in make test
    they reach the primary layers so; one process each is make test-full's, parity/tiers.py)."""
    cases = [v for n, v in NAMED_VECTORS if n == name and streamable(v)]
    assert len(cases) > 10
    check_as_one_batch_stream(dataclasses.replace(layer, env={**layer.env, "SAGE_FLAGS_VOCABULARY": name}), cases)


def expressible_as_record(vector: vectors.Vector) -> bool:
    """Whether ``_as_record`` gives a record (decided without creating the vector's config)."""
    if vector.status == 2 or vector.env or vector.stdin or vector.before or b"--stdin" in vector.argv:
        return False
    return b"\0" not in b" ".join(vectors.split_argv(vector.argv)[0])


def _as_record(vector: vectors.Vector, tmp_path: Path):
    """A parse vector as a batch record: (batch argv, record) or None."""
    if vector.status == 2 or vector.env or vector.stdin or vector.before or b"--stdin" in vector.argv:
        return None  # (ARGUMENTS on stdin, I1, are not operands)
    operands, config, _ = vectors.split_argv(vector.materialise(tmp_path))
    record = b" ".join(operands)
    if b"\0" in record:
        return None
    return (["--config-path", config] if config is not None else []), record


streamable = tiers.streamable  # a parse vector that is one record of a shared batch stream


def check_as_one_batch_stream(layer: Layer, cases: List[vectors.Vector]) -> None:
    """C22: parse vectors (``streamable``) fed to ``layer``'s batch as one stream of records, one line each."""
    stdin = b"".join(b" ".join(vectors.split_argv(v.argv)[0]) + b"\0" for v in cases)
    result = layer.run("batch", [], stdin=stdin)
    lines = result.stdout.splitlines(keepends=True)
    assert len(lines) == len(cases), f"{layer.name}: {len(lines)} lines for {len(cases)} records"
    for vector, line in zip(cases, lines):
        assert line == vector.stdout, f"{layer.name} {vector.name} (in a batch stream)"
    assert result.returncode == (1 if any(v.status for v in cases) else 0)
    assert result.stderr == b""


@pytest.mark.parametrize("layer", available_layers("batch"), ids=lambda layer: layer.name)
def test_parse_vectors_as_one_batch_stream(layer: Layer) -> None:
    """C22: the config-less parse vectors, fed as one stream of records."""
    cases = [v for v in vectors.load_all("parse") if streamable(v)]
    assert len(cases) > 100
    check_as_one_batch_stream(layer, cases)


@pytest.mark.parametrize("layer", available_layers("batch"), ids=lambda layer: layer.name)
@pytest.mark.parametrize(
    "vector",
    # Those a batch record can express (no usage error, environment or stdin): the others are not paired with it.
    [v for v in vectors.load_all("parse") if v.config and expressible_as_record(v)],
    ids=lambda v: v.name,
)
def test_config_vector_through_batch(layer: Layer, vector: vectors.Vector, tmp_path: Path) -> None:
    skip_what_this_system_lacks(vector)
    converted = _as_record(vector, tmp_path)
    assert converted is not None
    args, record = converted
    result = layer.run("batch", [a if isinstance(a, bytes) else a.encode() for a in args], stdin=record + b"\0")
    check(vector, result, f"{layer.name} {vector.name} as a record")


def test_vector_files_are_canonical() -> None:
    """Each vocabulary's file is in the canonical form (one line per vector, sorted by name), so diffs stay
    readable; the fuzzer's lines are in that form too."""
    for path in sorted(vectors.VECTOR_DIR.glob("*.jsonl")):
        lines = vectors.read_lines(path)
        assert [d["name"] for d in lines] == sorted({d["name"] for d in lines}), f"{path.name}: names sorted, once"
        for data, line in zip(lines, path.read_text(encoding="utf-8").splitlines(keepends=True)):
            assert line == vectors.canonical_line(data), f"{path.name}: {data['name']}"
            assert vectors.from_data(data).to_json() == vectors.canonical_line(vectors.from_data(data).to_data())


def test_every_rule_is_covered() -> None:
    covered = {rule for v in ALL for rule in v.rules}
    wanted = {f"C{i}" for i in range(1, 23)} | {f"E{i}" for i in range(1, 5)}
    missing = sorted(wanted - covered - {"C21"})  # C21 (size) is tested in tests/, not as a vector file
    assert not missing, f"no vector cites {missing}"
    assert len(ALL) >= 100


def test_expected_stdout_is_one_strict_json_line() -> None:
    for vector in vectors.load_all("parse") + vectors.load_all("batch"):
        for line in vector.stdout.splitlines(keepends=True):
            assert line.endswith(b"\n")
            text = line[:-1].decode("utf-8")
            data = json.loads(text)
            assert json.dumps(data, ensure_ascii=False) == text, vector.name


def test_a_hand_written_expectation_stops_a_wrong_reference(tmp_path: Path) -> None:
    """A vector's "expect" is independent of the reference: one the reference does not meet writes nothing and
    names the vector."""
    (line,) = [d for d in vectors.read_lines(vectors.vector_file()) if d["name"] == "example-15-outer-whitespace"]
    line["expect"]["goal"] = "ship feature"  # what a reference that collapsed inner whitespace would print
    table = tmp_path / "sage-1.1.jsonl"
    table.write_text(vectors.canonical_line(line), encoding="utf-8")
    before = table.read_bytes()
    run = subprocess.run(
        [PYTHON, str(ROOT / "tools" / "write_vectors.py"), "--file", str(table)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 1 and table.read_bytes() == before
    assert "example-15-outer-whitespace: goal: 'ship    feature', expected 'ship feature'" in run.stderr


def test_a_wrong_result_fails_the_check(tmp_path: Path) -> None:
    """`write_vectors.py --check` (make check-generated) names a result that is not the reference's: one stdout
    byte changed, and a status; `make vectors` puts the reference's back."""
    names = ("example-02-quality-locked", "stdin-crlf")  # one through the batch stream, one on its own
    lines = [d for d in vectors.read_lines(vectors.vector_file()) if d["name"] in names]
    assert len(lines) == 2
    lines[0]["stdout"] = lines[0]["stdout"].replace('"goal": "', '"goal": "X', 1)
    lines[1]["status"] = 1 - lines[1]["status"]
    table = tmp_path / "sage-1.1.jsonl"
    table.write_text("".join(vectors.canonical_line(d) for d in lines), encoding="utf-8")
    tool = [PYTHON, str(ROOT / "tools" / "write_vectors.py"), "--file", str(table)]
    check = subprocess.run([*tool, "--check"], capture_output=True, text=True, timeout=120)
    assert check.returncode == 1, check.stdout + check.stderr
    assert f"{lines[0]['name']}: the results are not the reference's" in check.stdout
    assert f"{lines[1]['name']}: the results are not the reference's" in check.stdout
    subprocess.run(tool, check=True, capture_output=True, timeout=120)
    assert subprocess.run([*tool, "--check"], capture_output=True, timeout=120).returncode == 0
