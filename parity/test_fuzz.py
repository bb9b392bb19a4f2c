"""The differential fuzzer: one hypothesis test per command family, every example through every layer's real entry.

Profiles (SAGE_FLAGS_FUZZ_PROFILE): "parity" (default; `make parity`, in `make test`): derandomized, a few dozen
examples per family, the same ones every run; "fuzz" (`make fuzz`): random, FUZZ_EXAMPLES per family (default
2,000), failures kept in hypothesis's database (.hypothesis/, which CI caches) and replayed first next time.
A failure prints the minimal example as a vector (parity/vectors format) and saves it in parity/failures/.
atheris drives ``test_in_process`` too (parity/atheris_fuzz.py).
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path
from typing import List

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from parity import fuzz
from parity import strategies as gen
from parity.layers import PROJECT, PYTHON, Layer, available_layers

settings.register_profile(
    "parity", derandomize=True, database=None, max_examples=12, deadline=None, print_blob=False,
    suppress_health_check=list(HealthCheck), phases=[Phase.explicit, Phase.generate, Phase.shrink],
)  # fmt: skip
settings.register_profile(
    "fuzz", max_examples=int(os.environ.get("FUZZ_EXAMPLES") or 2000), deadline=None,
    suppress_health_check=list(HealthCheck), report_multiple_bugs=False,
)  # fmt: skip
PROFILE = settings.get_profile(os.environ.get("SAGE_FLAGS_FUZZ_PROFILE", "parity"))


def family(weight: float):
    """This family's share of the profile's examples (a record list or an in-process case is cheap)."""
    return settings(PROFILE, max_examples=max(1, int(PROFILE.max_examples * weight)))


@pytest.fixture(autouse=True)
def _save_the_minimal_divergence():
    fuzz.LAST_DIVERGENCE.clear()
    yield
    fuzz.save_minimal()  # the last one raised: what hypothesis replayed once it had shrunk the failure


def with_vocabulary(strategy):
    """(vocabulary, what ``strategy(vocabulary)`` draws): the vocabulary is every family's first drawn parameter."""
    each = {v: st.tuples(st.just(v), strategy(v)) for v in gen.vocabularies()}  # built once: validated once
    return gen.VOCABULARIES.flatmap(each.__getitem__)


STREAM_KEYS = st.sampled_from(("none", "first", "last", "all"))


@family(5)
@given(with_vocabulary(lambda v: st.tuples(gen.record_lists(v), STREAM_KEYS)))
def test_batch_streams(example) -> None:
    v, (records, key) = example
    fuzz.check_records(v, records, key)


@family(2)
@given(with_vocabulary(lambda v: st.tuples(gen.argvs(v), gen.record_lists(v, 4), st.sampled_from(gen.FORMS_OF_CONFIG))))
def test_parse(example) -> None:
    """parse's argv (C1-C3) with or without a config; a config also through batch (read once, C22)."""
    v, ((argv, config), records, path) = example
    fuzz.check_agreement(v, "parse", argv, config=config)
    if config is not None:
        fuzz.check_agreement(v, "batch", path, config=config, stdin=b"".join(r + b"\0" for r in records))


@family(1)
@given(with_vocabulary(lambda v: st.tuples(gen.argvs(v), st.sampled_from(gen.STDIN_ENDINGS))))
def test_stdin_is_the_operands(example) -> None:
    """I2: the operands' bytes on standard input (then --stdin) give the operands' stdout and status everywhere."""
    v, ((argv, config), ending) = example
    operand_form = fuzz.check_agreement(v, "parse", argv, config=config)
    try:
        operands, path, from_stdin = fuzz.split_argv(argv, stdin_switch=True)
    except ValueError:
        return
    if from_stdin or operand_form.status == 2 or any(b"{config}" in operand for operand in operands):
        return  # nothing to hand over (or a path made per run, which text on stdin cannot carry)
    options = [b"--config-path", path] if path is not None else []
    stdin_form = fuzz.check_agreement(
        v, "parse", [*options, b"--stdin"], config=config, stdin=b" ".join(operands) + ending
    )
    assert (stdin_form.stdout, stdin_form.status) == (operand_form.stdout, operand_form.status), operands


@family(1)
@given(with_vocabulary(lambda v: st.tuples(gen.environments(), gen.arguments(v), gen.record_lists(v, 4))))
def test_environments(example) -> None:
    """C20, H2-H4: locales, encodings, IFS, a hostile BASH_ENV, exported functions change nothing."""
    v, (env, argument, records) = example
    fuzz.check_agreement(v, "parse", [argument], env=env)
    fuzz.check_agreement(v, "batch", [], env=env, stdin=b"".join(r + b"\0" for r in records))


@family(1)
@given(with_vocabulary(lambda v: st.tuples(st.sampled_from(gen.WORKFLOWS) | gen.utf8(gen.text), gen.argvs(v))))
def test_announce(example) -> None:
    v, (workflow, (argv, config)) = example
    fuzz.check_agreement(v, "announce", [workflow, *argv], config=config)


@family(1.5)
@given(with_vocabulary(lambda v: st.tuples(gen.hook_examples(v))))
def test_hook(example) -> None:
    """K12: every layer with the hook agrees; status 0 or 3 only, 3 with no stdout and one stderr line (K5-K8)."""
    v, ((argv, config, event),) = example
    expected = fuzz.check_agreement(v, "hook", argv, stdin=event, config=config)
    assert expected.status in (0, 3), expected
    assert expected.status == 0 or (not expected.stdout and expected.stderr.count(b"\n") == 1), expected


def contract_line(v: gen.Vocabulary, args: List[str]) -> bytes:
    return fuzz.answer(v.backends[0], " ".join(args), None)[0]


@family(1.5)
@given(with_vocabulary(lambda v: st.tuples(gen.manifests(v), gen.FLAG_ARGS, gen.MANIFEST_GOALS, gen.FLAG_ARGS)))
def test_persist_then_resume(example) -> None:
    """persist a parse line, resume (without and with flags) what it wrote, persist that resume line again."""
    v, (before, args, goal, resume_args) = example
    outcome, after = fuzz.check_manifest(v, "persist", before, [], contract_line(v, [*args, goal]))
    if outcome.status == 0:
        fuzz.check_manifest(v, "resume", after, [])
        resumed, _ = fuzz.check_manifest(v, "resume", after, [a.encode() for a in resume_args])
        if resumed.status == 0:
            fuzz.check_manifest(v, "persist", after, [], resumed.stdout)


@family(1)
@given(with_vocabulary(lambda v: st.tuples(gen.manifests(v), gen.FLAG_ARGS)))
def test_resume(example) -> None:
    v, (before, args) = example
    fuzz.check_manifest(v, "resume", before, [a.encode() for a in args])


def in_process_cases(v: gen.Vocabulary):
    keys = [key for key, _ in v.modes]
    mappings = st.dictionaries(st.sampled_from(keys), st.booleans())
    return st.tuples(gen.arguments(v), st.one_of(st.none(), mappings), st.none() | gen.config_contents(v))


@family(25)
@given(with_vocabulary(in_process_cases))
def test_in_process(example) -> None:
    """The compiled core against the reference in this process (atheris drives this one: parity/atheris_fuzz.py)."""
    v, (argument, defaults, config) = example
    fuzz.check_in_process(v, fuzz.decode(argument), defaults, config)


# --- the oracle itself: a lying layer, a lying stream, a lying core, bad JSON lines are caught ---------------------

LIAR = textwrap.dedent(
    r"""
    import os, sys
    sys.path.insert(0, {python!r})
    from sage_flags import reference

    def answer(record):
        text = record.decode("utf-8", "surrogateescape")
        line = reference.parse(text.replace("\u00e9", "")).to_json()  # the lie: a goal loses its e-acute
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


@pytest.fixture
def liar(tmp_path: Path) -> Layer:
    script = tmp_path / "liar.py"
    script.write_text(LIAR, encoding="utf-8")
    return Layer("liar", {c: [PYTHON, str(script), c] for c in ("parse", "batch")})


V = gen.vocabularies()[0]


def test_a_lying_layer_is_caught_and_saved_as_a_vector(liar: Layer, tmp_path: Path) -> None:
    from parity import vectors

    honest = [layer for layer in available_layers("parse") if layer.name == "cli-pure"]
    fuzz.check_agreement(V, "parse", [b"ship"], layers=[*honest, liar])  # agrees: no exception
    with pytest.raises(fuzz.Divergence) as caught:
        fuzz.check_agreement(V, "parse", ["--autonomous caf\u00e9".encode()], layers=[*honest, liar])
    assert any(p.startswith("liar: stdout") for p in caught.value.problems)
    path = fuzz.save_minimal(tmp_path / "failures")
    fuzz.LAST_DIVERGENCE.clear()
    vector = vectors.load(path)
    assert vector.argv == ("--autonomous caf\u00e9".encode(),) and vector.status == 0
    assert vector.stdout == contract_line(V, ["--autonomous caf\u00e9"])  # expected: the reference's
    assert path.read_text(encoding="utf-8") == vector.to_json() in str(caught.value)  # canonical, ready to save


def test_a_lying_stream_is_caught(liar: Layer) -> None:
    records = [b"a", "--autonomous caf\u00e9".encode(), b"z"]
    fuzz.check_records(V, records[::2], "none", layers=[liar])  # honest on these
    with pytest.raises(fuzz.Divergence) as caught:
        fuzz.check_records(V, records, "none", layers=[liar])
    fuzz.LAST_DIVERGENCE.clear()
    assert caught.value.problems[0].startswith("record 1: liar:")
    vector = caught.value.vector
    assert (vector.command, vector.argv, vector.stdin, vector.status) == ("batch", (), b"\0".join(records) + b"\0", 0)


def test_a_lying_core_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    _, parse, load = V.backends[0]
    lying = V.__class__(
        **{**V.__dict__, "backends": (V.backends[0], ("lying", lambda t, d: parse(t.upper(), d), load))}
    )
    fuzz.check_in_process(lying, "SHIP", None, None)
    with pytest.raises(fuzz.Divergence) as caught:
        fuzz.check_in_process(lying, "ship", None, b"%s: true\n" % V.modes[0][0].encode())
    fuzz.LAST_DIVERGENCE.clear()
    assert caught.value.vector.argv[-2:] == (b"--", b"ship") and caught.value.vector.config["type"] == "file"


@pytest.mark.parametrize(
    "line, problem",
    [
        (b'{"quality_locked": false}\n', "keys"),
        (contract_line(V, ["x"])[:-1], "one line"),
        (contract_line(V, ["x"]).replace(b'"x"', b'"\\u0078"'), "re-encoding"),
        (contract_line(V, ["x"]).replace(b"false", b"0", 1), "boolean"),
        (contract_line(V, ["x"]).replace(b'"x"', b'"\x01"'), "strict JSON"),
        (contract_line(V, ["x"]).replace(b"null", b"NaN", 1), "strict JSON"),
    ],
)
def test_json_line_check_rejects(line: bytes, problem: str) -> None:
    assert problem in (fuzz.json_line_problem(V, line) or "")


def seen_by(strategy, count: int = 300, seed: int = 0) -> List:
    """``count`` examples of ``strategy``, the same ones every run."""
    found: List = []

    @settings(
        database=None, derandomize=True, max_examples=count, deadline=None, suppress_health_check=list(HealthCheck)
    )
    @given(strategy)
    def collect(example) -> None:
        found.append(example)

    collect()
    return found


def test_the_generators_reach_every_outcome() -> None:
    """Arguments reach each parse outcome (E1 with and without a suggestion, E2-E4, a mode by flag and by
    config), configs every kind of file, hook events every answer of K3-K8."""
    from sage_flags import hook, reference

    outcomes = set()
    for argument, defaults, _ in seen_by(in_process_cases(V), 400):
        error = reference.parse(fuzz.decode(argument), defaults).error or "ok"
        outcomes.add("E1+" if "Did you mean" in error else error.split()[0])
    assert {"ok", "E1+", "Unknown", "Flag", "Conflicting", "Arguments"} <= outcomes, outcomes
    assert {spec["type"] for spec in seen_by(gen.configs(V), 400)} == set(gen.CONFIG_TYPES)
    answers = set()
    for argv, _config, event in seen_by(gen.hook_examples(V), 300):
        try:
            harness, _path, workflows = hook._options(argv)
            out = hook.answer(hook.parse_event(event), harness, None, workflows)
            answers.add("nothing" if not out else "block" if out.startswith(b'{"decision"') else "context")
        except hook.HookFailure:
            answers.add("fails open")
    assert answers == {"fails open", "nothing", "block", "context"}


def test_the_vocabulary_is_one_drawn_parameter() -> None:
    """Every family draws its vocabulary from ``vocabularies()``, and a found example's vector carries its env."""
    names = [v.name for v in gen.vocabularies()]
    assert names and len(set(names)) == len(names)
    assert {v.name for v, _ in seen_by(with_vocabulary(gen.arguments), 30)} == set(names)


# --- atheris drives test_in_process: python -m parity.test_fuzz [libFuzzer options] [CORPUS] (make fuzz-inproc);
# python -m parity.test_fuzz --replay DIR... runs every corpus file once (make fuzz-coverage) ----------------------

if __name__ == "__main__":
    import sys
    import time

    from sage_flags import reference

    examples = 0

    def one(data: bytes) -> None:
        global examples
        test_in_process.hypothesis.fuzz_one_input(data)  # the same strategies and oracle; a divergence raises
        examples += 1
        if examples % 100_000 == 0:
            print("atheris: %d examples, %.0f per CPU second" % (examples, examples / time.process_time()), flush=True)

    if sys.argv[1:2] == ["--replay"]:
        files = sorted(p for d in sys.argv[2:] for p in Path(d).iterdir() if p.is_file())
        for path in files:
            one(path.read_bytes())
        print("atheris: replayed %d corpus files, 0 divergences" % len(files))
    else:
        import atheris  # requirements-fuzz.txt (make fuzz-inproc), not make test's

        for function in vars(reference).values():  # coverage guidance: the reference's code, instrumented in place
            if getattr(function, "__module__", None) == reference.__name__ and hasattr(function, "__code__"):
                atheris.instrument_func(function)
        atheris.Setup([*sys.argv, "-max_len=4096", "-timeout=10"], one)
        atheris.Fuzz()
