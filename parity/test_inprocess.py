"""The in-process differential target (parity/inprocess.py) without atheris: its oracle, its decoder, its vectors.

`make fuzz` runs it under atheris for hundreds of thousands of cases; here a few thousand seeded inputs show
that the two implementations agree on them, that the decoder reaches every piece it names, and that a lying
core is caught and written as a vector the real command line answers as the vector says.
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import List

import pytest
from sage_flags import reference

from parity import inprocess, vectors
from parity.layers import available_layers

native = pytest.importorskip("sage_flags._native", reason="the native core is not built (make setup)")


def seeded_inputs(count: int, seed: int = 26) -> List[bytes]:
    rng = random.Random(seed)
    return [bytes(rng.randrange(256) for _ in range(rng.randrange(120))) for _ in range(count)]


def test_the_core_agrees_with_the_reference_on_seeded_inputs() -> None:
    target = inprocess.Target(reference, native)
    for data in [b"", *seeded_inputs(3000)]:
        target(data)  # raises on a divergence
    assert target.cases == 3001


def outcome(case: inprocess.Case) -> str:
    defaults = reference.load_defaults(inprocess.ConfigFile().write(case.config)) if case.config else case.defaults
    error = reference.parse(case.text, defaults).error or ""
    if not error:
        return "ok, a mode on by config" if defaults and any(defaults.values()) else "ok"
    if "Did you mean" in error:
        return "E1 with a suggestion"
    return {"Unknown": "E1", "Flag": "E2", "Conflicting": "E3", "Arguments": "E4"}.get(error.split()[0], error)


def test_the_decoder_reaches_every_piece() -> None:
    vocab = inprocess.Vocabulary(reference)
    cases = [inprocess.decode(data, vocab) for data in seeded_inputs(3000, seed=7)]
    seen = Counter(outcome(case) for case in cases)
    for wanted in ("ok", "ok, a mode on by config", "E1", "E1 with a suggestion", "E2", "E3", "E4"):
        assert seen[wanted] >= 10, (wanted, seen)
    configs = [case.config for case in cases if case.config is not None]
    assert sum(b"\0" in c for c in configs) >= 5 and sum(c.startswith(b"\xef\xbb\xbf") for c in configs) >= 5
    assert all("\0" not in case.text for case in cases)  # every case is one exec can pass


def test_a_lying_core_is_caught_and_saved_as_a_vector(tmp_path: Path) -> None:
    class Lying:
        load_defaults = staticmethod(native.load_defaults)

        @staticmethod
        def parse(text, defaults=None):
            return native.parse(text.upper(), defaults)  # differs wherever a lowercase letter counts

    target = inprocess.Target(reference, Lying, failures_dir=tmp_path / "failures")
    with pytest.raises(AssertionError, match="divergence after"):
        for data in seeded_inputs(3000, seed=3):
            target(data)
    (saved,) = (tmp_path / "failures").iterdir()
    vector = vectors.load(saved)
    assert vector.note.startswith("in-process fuzzer") and vector.argv[-2] == b"--"
    cli = next(layer for layer in available_layers("parse") if layer.name == "cli-pure")
    workdir = tmp_path / "run"
    workdir.mkdir()
    result = cli.run("parse", vector.materialise(workdir))
    vectors.assert_matches(vector, result, f"cli-pure {vector.name}")  # what the real command line answers
    text = vector.argv[-1].decode("utf-8", "surrogateescape")
    defaults = reference.load_defaults(str(workdir / "config.yaml")) if vector.config else None
    assert Lying.parse(text, defaults).to_json().encode() + b"\n" != vector.stdout  # the vector shows the lie
