"""Sage 1.3.18's vocabulary (spec/sage-1.3.18.toml, issue 14) built alone into a copy of the project, every layer.

The copy comes from the documented command (tools/build_vocabulary.py, `make vocabulary`), built once into
build/sage-1.3.18 (kept while nothing it is built from changes): the copy is generated, carries every layer, and
parses value flags in linear time. Its vectors (parity/vectors/sage-1.3.18.jsonl, expected values written by hand from
docs/SPEC.md V1-V8, A2, P1-P4, R1-R3 and Sage 1.3's rules) run through every layer of the one build with the
vocabulary named (parity/test_vectors.py::test_named_vocabulary_vector, SPEC B1), not again through the copy.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Dict, List

import pytest

from parity import vectors
from parity.layers import PYTHON, ROOT, Layer, bash_interpreters, project_layers

VOCAB = ROOT / "spec" / "sage-1.3.18.toml"
BUILD = ROOT / "build" / "sage-1.3.18"
VECTORS = vectors.load_all(vocabulary="sage-1.3.18")


@pytest.fixture(scope="module")
def layers() -> Dict[str, Layer]:
    build = [PYTHON, "tools/build_vocabulary.py", str(VOCAB), str(BUILD), "--native", "debug"]
    subprocess.run(build, cwd=ROOT, check=True, timeout=1800)
    return {layer.name: layer for layer in project_layers(BUILD)}


def test_the_vectors_cover_every_subcommand_and_rule() -> None:
    commands = {v.command for v in VECTORS}
    assert commands == {"parse", "batch", "announce", "persist", "resume", "config", "hook"}
    rules = {rule for v in VECTORS for rule in v.rules}
    assert {f"V{i}" for i in range(2, 9)} - {"V8"} <= rules and {"E5", "R1", "R3", "A2", "P4"} <= rules
    assert len(VECTORS) >= 80  # (their file's canonical form: parity/test_vectors.py)


def test_the_copy_is_generated_and_every_layer_is_there(layers: Dict[str, Layer]) -> None:
    check = subprocess.run([PYTHON, "tools/generate.py", "--check", "--root", str(BUILD)], cwd=BUILD)
    assert check.returncode == 0
    every = {"cli-pure", "module-pure", "compat-pure", "cli-native", "module-native", "compat-native", "exe"}
    assert set(layers) == every | {bash.name for bash in bash_interpreters()}  # none missing, none skipped
    vocab = (BUILD / "python" / "sage_flags" / "_vocab.py").read_text()
    assert '("parallel", "parallel")' in vocab and '"parallel_lanes"' in vocab


# Names of Sage 1.3's modes and their value, as a layer's code would spell them.
SAGE_1_3_NAMES = re.compile(r"subagents|parallel_lanes|parallel_note|--(no-)?parallel\b|\"parallel\"|\blanes?\b")
GENERATED_BLOCK = re.compile(r"BEGIN GENERATED: (\S+).*?END GENERATED: \1", re.S)


def _layer_sources() -> List[Path]:
    python = [p for p in (ROOT / "python" / "sage_flags").glob("*.py") if p.name != "_vocab.py"]
    rust = [p for p in ROOT.glob("crates/*/src/*.rs") if p.name != "vocab.rs"]
    sage = [p for p in (ROOT / "sage").rglob("*") if p.suffix in (".sh", ".py") or p.name == "sage-flags"]
    return sorted(python + rust + sage)


def test_no_layer_names_a_sage_1_3_mode() -> None:
    """The mechanism is general: outside generated blocks, no layer's source spells `parallel` or its value."""
    sources = _layer_sources()
    assert len(sources) > 15
    for path in sources:
        text = GENERATED_BLOCK.sub("", path.read_text(encoding="utf-8"))
        text = text.split("#[cfg(test)]")[0]  # a Rust unit test may name the shipped vocabularies' modes
        found = SAGE_1_3_NAMES.search(text)
        assert found is None, f"{path.relative_to(ROOT)} names {found.group(0)!r}"


MAX_ITEM = 131071  # the largest argv item Linux passes (C21)
# 10,000 flags of Sage 1.3's kinds in 128 KiB: the first --parallel=N is adopted (V4), the rest only checked.
LARGE = ("--parallel=7 --subagents " + "--parallel=3 --parallel " * 4999)[: MAX_ITEM - 10].rsplit(" ", 1)[0] + " go"


@pytest.mark.parametrize("layer_name", ["cli-pure", "cli-native", "exe", *(b.name for b in bash_interpreters())])
def test_128_kib_of_value_flags_in_linear_time(layers: Dict[str, Layer], layer_name: str) -> None:
    """C21 for a vocabulary with a value; a generous bound that only a quadratic path misses (make bench times)."""
    import json
    import time

    start = time.perf_counter()
    result = layers[layer_name].run("parse", [LARGE.encode()], timeout=60)
    elapsed = time.perf_counter() - start
    data = json.loads(result.stdout)
    assert (data["parallel"], data["subagents"], data["goal"]) == (True, True, "go"), layer_name
    assert (data["parallel_lanes"], data["parallel_note"]) == (4, "--parallel=7 exceeds the hard cap; clamped to 4.")
    assert elapsed < 10, f"{layer_name}: {elapsed:.1f} s for 10,000 flags"


BACKENDS_AGREE = r"""
import sys
from sage_flags import _native, reference
inputs = ["--parallel=3 go", "--parallel=0009 --subagents x", "--parallel", "--parallel=0", "ship", "--bad"]
for text in inputs:
    a, b = reference.parse(text, {"parallel": True}), _native.parse(text, {"parallel": True})
    assert a == b and b == a and hash(a) == hash(b) and repr(a) == repr(b), text
    assert a.to_dict() == b.to_dict() and list(a.to_dict()) == list(b.to_dict()), text
    assert (a.parallel_lanes, a.parallel_note) == (b.parallel_lanes, b.parallel_note), text
    assert type(b.parallel_lanes) is int, text
values = {"parallel_lanes": 4, "parallel_note": "--parallel=9 exceeds the hard cap; clamped to 4."}
made = [m.ParseResult({"parallel": True}, {"parallel": "flag"}, "g", None, values) for m in (reference, _native)]
assert made[0] == made[1] and made[0].to_json() == made[1].to_json() == reference.parse("--parallel=9 g").to_json()
print("ok")
"""


def test_both_backends_give_equal_results_in_process(layers: Dict[str, Layer]) -> None:
    """D23 for a vocabulary with a value: ParseResult equality, hash, repr, to_dict and the constructor's values."""
    env = {**os.environ, "PYTHONPATH": str(BUILD / "python")}
    result = subprocess.run([PYTHON, "-c", BACKENDS_AGREE], capture_output=True, env=env, timeout=60)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"ok\n", b"")
