"""make parity: the differential fuzzer, derandomized (fixed seeds), a few thousand examples through every layer.

The long random run is `make fuzz` (parity/fuzz.py). Here every hypothesis test has a fixed seed, so a failure
reproduces on the next run; the minimal example is printed as a vector file and saved under parity/failures/.
The tests at the end prove the oracle itself: a layer that lies, a stream that lies, a bad JSON line are caught.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import seed
from sage_flags import reference

from parity import fuzz, vectors
from parity import strategies as gen
from parity.layers import PROJECT, PYTHON, Layer, available_layers

# kind -> (hypothesis examples, fixed seed). bulk examples are BULK_SIZE records each.
BUDGET = {
    "bulk": (6, 20240501),
    "records": (120, 20240502),
    "argv": (30, 20240503),
    "config": (25, 20240504),
    "env": (15, 20240505),
    "announce": (15, 20240506),
    "stdin": (15, 20240507),
    "persist": (40, 20240509),
    "resume": (20, 20240510),
    "hook": (25, 20240511),
}


@pytest.fixture(scope="module", autouse=True)
def _summary():
    yield
    fuzz.STREAMS.close()
    sys.stdout.write("\n" + fuzz.STATS.summary() + "\n")  # visible with -s (make parity)


@pytest.mark.parametrize("kind", list(BUDGET))
def test_layers_agree(kind: str) -> None:
    if not available_layers(fuzz.COMMAND[kind]):
        pytest.skip("no layer offers %s" % fuzz.COMMAND[kind])
    examples, fixed_seed = BUDGET[kind]
    test = fuzz.hypothesis_test(kind, examples)
    seed(fixed_seed)(test)
    fuzz.LAST_DIVERGENCE.clear()
    try:
        test()
    except Exception:
        fuzz.save_minimal()  # only the minimal example, not every candidate hypothesis tried while shrinking
        raise


def test_a_seed_replays_the_same_chunks() -> None:
    """`python -m parity.fuzz --seed N` runs the same kinds with the same hypothesis seeds, whatever the timing."""
    kinds = list(fuzz.SHARES)
    first = [chunk for _, chunk in zip(range(200), fuzz.plan(7, kinds))]
    assert first == [chunk for _, chunk in zip(range(200), fuzz.plan(7, kinds))]
    assert first != [chunk for _, chunk in zip(range(200), fuzz.plan(8, kinds))]
    turns = [kind for kind, _ in first]
    total = sum(fuzz.SHARES.values())
    for kind, share in fuzz.SHARES.items():  # each kind gets its share of the turns, to within one
        assert abs(turns.count(kind) - 200 * share / total) <= 1, (kind, turns.count(kind))


# --- the oracle itself ------------------------------------------------------------------------------------------

LIAR = textwrap.dedent(
    r"""
    import os, sys
    sys.path.insert(0, {python!r})
    from sage_flags import reference

    def answer(record):
        text = record.decode("utf-8", "surrogateescape")
        line = reference.parse(text).to_json()
        if "\u00e9" in text:  # the lie: a goal with e-acute loses it
            line = reference.parse(text.replace("\u00e9", "")).to_json()
        sys.stdout.buffer.write(line.encode() + b"\n")
        sys.stdout.flush()

    if sys.argv[1] == "parse":
        answer(b" ".join(os.fsencode(a) for a in sys.argv[2:]))
    else:  # a stream, as C22 asks: each record answered before the next is read
        pending = b""
        for chunk in iter(lambda: os.read(0, 65536), b""):
            *records, pending = (pending + chunk).split(b"\0")
            for record in records:
                answer(record)
    """
).format(python=str(PROJECT / "python"))


def _liar(tmp_path: Path) -> Layer:
    script = tmp_path / "liar.py"
    script.write_text(LIAR, encoding="utf-8")
    return Layer("liar", {c: [PYTHON, str(script), c] for c in ("parse", "batch")})


@pytest.fixture
def failures(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(fuzz, "FAILURES_DIR", tmp_path / "failures")
    return tmp_path / "failures"


def test_a_lying_layer_is_caught_and_saved_as_a_vector(tmp_path: Path, failures: Path) -> None:
    honest = [layer for layer in available_layers("parse") if layer.name == "cli-pure"]
    fuzz.check_agreement("parse", [b"ship"], layers=[*honest, _liar(tmp_path)])  # agrees: no exception
    with pytest.raises(fuzz.Divergence) as caught:
        fuzz.check_agreement("parse", ["--autonomous caf\u00e9".encode()], layers=[*honest, _liar(tmp_path)])
    assert any(p.startswith("liar: stdout") for p in caught.value.problems)
    assert not failures.exists()  # nothing is saved while a divergence may still shrink
    fuzz.save_minimal()  # what the fuzz loop and make parity do once hypothesis is done
    saved = list(failures.glob("*.json"))
    assert len(saved) == 1
    vector = vectors.load(saved[0])
    assert vector.argv == ("--autonomous caf\u00e9".encode(),)
    assert vector.stdout == reference.parse("--autonomous caf\u00e9").to_json().encode() + b"\n"
    assert vector.status == 0
    assert saved[0].read_text(encoding="utf-8") == vector.to_json()  # canonical, ready for parity/vectors/


def test_a_lying_stream_is_caught_and_shrunk_to_one_small_record(
    tmp_path: Path, failures: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    liar = _liar(tmp_path)
    monkeypatch.setattr(fuzz, "available_layers", lambda command: [liar])
    records = [b"a", b"--quality-locked ship", "--autonomous go caf\u00e9 now".encode(), b"z"]
    fuzz.check_records(records[:2] + records[3:], "none")  # honest on these
    with pytest.raises(fuzz.Divergence) as caught:
        fuzz.check_records(records, "none", minimize=True)
    vector = caught.value.vector
    assert vector.command == "batch"
    assert vector.stdin == "\u00e9\0".encode()  # delta debugging kept only what the lie needs
    assert vector.argv == ()
    assert not failures.exists()  # the candidates delta debugging tried on the way were not saved
    fuzz.save_minimal()
    (path,) = failures.glob("*.json")
    result = liar.run("batch", vectors.load(path).materialise(tmp_path), stdin=vector.stdin)
    assert result.stdout != vector.stdout  # the saved vector reproduces the divergence


@pytest.mark.parametrize(
    "line, problem",
    [
        (b'{"quality_locked": false}\n', "keys"),
        (reference.parse("x").to_json().encode(), "one line"),
        (reference.parse("x").to_json().encode().replace(b'"x"', b'"\\u0078"') + b"\n", "re-encoding"),
        (reference.parse("x").to_json().encode().replace(b"false", b"0", 1) + b"\n", "boolean"),
        (reference.parse("x").to_json().encode().replace(b'"x"', b'"\x01"') + b"\n", "strict JSON"),
        (reference.parse("x").to_json().encode().replace(b"null", b"NaN", 1) + b"\n", "strict JSON"),
    ],
)
def test_json_line_check_rejects(line: bytes, problem: str) -> None:
    assert problem in (fuzz.json_line_problem(line) or "")


def test_json_line_check_accepts_the_reference() -> None:
    for text in ("x", '--autonomous \U0001f680 \u2028 \x7f \x01 "q" \\', "--bad"):
        assert fuzz.json_line_problem(reference.parse(text).to_json().encode("utf-8") + b"\n") is None


def test_bulk_records_cover_every_piece() -> None:
    """The fast generator reaches each C5 character, each lookalike, each invalid UTF-8 kind and each flag."""
    records = gen.bulk_records(7, 20000)
    blob = b"\0".join(records)
    assert all(b"\0" not in r for r in records)
    for piece in (*gen.WHITESPACE, *gen.LOOKALIKES, *gen.FLAGS, "--"):
        assert piece.encode("utf-8") in blob, repr(piece)
    for kind, raw in gen.INVALID_UTF8:
        assert raw in blob, kind
    starts = {r.split(b" ")[0] for r in records}
    assert set(f.encode() for f in gen.FLAGS) <= starts
    assert max(map(len, records)) > 10_000  # long runs
    assert b"" in records


def test_typos_reach_every_outcome_of_the_suggestion_rule() -> None:
    """The typo generator makes near misses that get a suggestion (of every form), and ones that get none."""
    import random

    c = gen.RandomChooser(random.Random(11))
    suggested, plain = set(), 0
    for _ in range(4000):
        token = gen.typo(c)
        assert token.startswith("--")
        part = token.partition("=")[0][2:]
        form = reference.nearest(part, reference._FORMS) if len(part) <= reference.SUGGEST_LIMIT else None
        error = reference.parse(token).error or ""
        if form is not None and error.startswith("Unknown flag"):
            suggested.add(form)
            assert error.endswith("Did you mean '--%s'?" % form)
        elif error.startswith("Unknown flag"):
            plain += 1
    assert suggested == set(f[2:] for f in gen.FLAGS)
    assert plain > 100


def test_number_flags_reach_every_outcome() -> None:
    """Each mode that takes a value (V2-V5; none in the seed's vocabulary) gets numbers kept, clamped, and E5."""
    import random

    c = gen.RandomChooser(random.Random(13))
    outcomes = set()
    for _ in range(3000 if gen.VALUE_MODES else 0):
        token = gen.number_flag(c)
        result = reference.parse(token + " goal").to_dict()
        if result["error"] is not None:
            outcomes.add("error")
        elif any(result[row.note_field] is not None for row in gen.VALUE_MODES):
            outcomes.add("clamped")
        else:
            outcomes.add("kept")
    assert outcomes == ({"error", "clamped", "kept"} if gen.VALUE_MODES else set())


def test_argv_and_config_generators_reach_every_form() -> None:
    import random

    c = gen.RandomChooser(random.Random(3))
    types, trailing, relative, equals = set(), 0, 0, 0
    for _ in range(3000):
        spec = gen.config_spec(c)
        types.add(spec["type"])
        items = gen.argv_items(c, True)
        trailing += items[-1:] == [b"--config-path"]
        relative += any(gen.UP_TO_ROOT.encode() in item for item in items)
        equals += any(item.startswith(b"--config-path=") for item in items)
    assert types == set(gen.CONFIG_TYPES)
    assert trailing and relative and equals


def test_hook_examples_reach_every_answer() -> None:
    """The hook kind's events reach each answer of K3-K8 (decided in-process by the Python hook)."""
    from hypothesis import given
    from hypothesis import settings as hsettings
    from sage_flags import hook

    seen = set()

    @hsettings(max_examples=400, database=None, deadline=None)
    @given(gen.hook_examples())
    def collect(example) -> None:
        argv, _config, event = example
        try:
            harness, _path, workflows = hook._options(argv)
            out = hook.answer(hook.parse_event(event), harness, None, workflows)
        except hook.HookFailure:
            seen.add("fails open")
            return
        seen.add("nothing" if not out else "block" if out.startswith(b'{"decision"') else "context")

    collect()
    assert seen == {"fails open", "nothing", "block", "context"}
