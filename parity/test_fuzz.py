"""The differential fuzzer: one hypothesis test per command family, every example through every layer's real entry.
Profiles (SAGE_FLAGS_FUZZ_PROFILE): "parity" (`make parity`: derandomized), "fuzz" (`make fuzz`); parity/README.md."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import List

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from parity import fuzz
from parity import strategies as gen
from parity.layers import PROJECT, PYTHON, Layer, available_layers

# "parity": derandomized (make parity, in make test: PARITY_EXAMPLES=4); "parity-full": the CI budget (make
# parity-full, in make test-full: 12), seeded by --hypothesis-seed instead, so that it draws other examples.
PARITY_EXAMPLES = int(os.environ.get("PARITY_EXAMPLES") or 12)
for _name, _derandomize in (("parity", True), ("parity-full", False)):
    settings.register_profile(
        _name, derandomize=_derandomize, database=None, max_examples=PARITY_EXAMPLES, deadline=None, print_blob=False,
        suppress_health_check=list(HealthCheck), phases=[Phase.explicit, Phase.generate, Phase.shrink],
    )  # fmt: skip
settings.register_profile(
    "fuzz", max_examples=int(os.environ.get("FUZZ_EXAMPLES") or 2000), deadline=None,
    suppress_health_check=list(HealthCheck), report_multiple_bugs=False,
)  # fmt: skip
PROFILE = settings.get_profile(os.environ.get("SAGE_FLAGS_FUZZ_PROFILE", "parity"))


def with_vocabulary(*strategies) -> st.SearchStrategy:
    """(vocabulary, what each ``strategy(vocabulary)`` draws): the vocabulary is every family's first parameter."""
    each = {v: st.tuples(st.just(v), *(strategy(v) for strategy in strategies)) for v in gen.vocabularies()}
    return gen.VOCABULARIES.flatmap(each.__getitem__)  # each built once: validated once


WEIGHTS = {}  # family (test name) -> its weight: its examples are the profile's max_examples times it


def family(weight: float, *strategies):
    """A family's test: its share of the profile's examples for each vocabulary (drawn per example, in one run),
    given an example of ``with_vocabulary(*strategies)``."""
    examples = max(1, int(PROFILE.max_examples * weight)) * len(gen.vocabularies())

    def decorate(test):
        WEIGHTS[test.__name__] = weight
        return settings(PROFILE, max_examples=examples)(given(with_vocabulary(*strategies))(test))

    return decorate


def budget(max_examples: int) -> str:
    """The examples each family runs per vocabulary at ``max_examples`` (printed by make parity and parity-full):
    the vocabulary is drawn per example, so a family's run is that times the number of vocabularies."""
    each = ", ".join(f"{name[5:]} {max(1, int(max_examples * w))}" for name, w in WEIGHTS.items())
    n = len(gen.vocabularies())
    return (
        f"examples per family and vocabulary: {each} (max_examples {max_examples} x each family's weight;"
        f" x {n} vocabularies drawn per example in one run)"
    )


@family(5, gen.record_lists, lambda v: st.sampled_from(sorted(fuzz.stream_configs(v))))
def test_batch_streams(example) -> None:
    v, records, key = example
    fuzz.check_records(v, records, key)


PARSE_CASES = (gen.argvs, lambda v: st.none() | gen.environments(), lambda v: gen.record_lists(v, 4))


@family(3, *PARSE_CASES, lambda v: st.sampled_from(gen.STDIN_ENDINGS))
def test_parse(example) -> None:
    """parse's argv (C1-C3) with or without a config, in a hostile environment or not (C20, H2-H4); records through
    batch with the same config (read once, C22); the operands on stdin (I2: the same stdout and status)."""
    v, (argv, config), env, records, ending = example
    operand_form = fuzz.check_agreement(v, "parse", argv, config=config, env=env)
    options = [b"--config-path={config}"] * (config is not None)
    fuzz.check_agreement(v, "batch", options, config=config, env=env, stdin=b"".join(r + b"\0" for r in records))
    try:
        operands, path, from_stdin = fuzz.split_argv(argv, stdin_switch=True)
    except ValueError:
        return
    if from_stdin or operand_form.status == 2 or any(b"{config}" in operand for operand in operands):
        return  # nothing to hand over (or a path made per run, which text on stdin cannot carry)
    options = [b"--config-path", path] if path is not None else []
    stdin = b" ".join(operands) + ending
    stdin_form = fuzz.check_agreement(v, "parse", [*options, b"--stdin"], config=config, env=env, stdin=stdin)
    assert (stdin_form.stdout, stdin_form.status) == (operand_form.stdout, operand_form.status), operands


@family(1, lambda v: st.sampled_from(gen.WORKFLOWS) | gen.utf8(gen.text), gen.argvs)
def test_announce(example) -> None:
    v, workflow, (argv, config) = example
    fuzz.check_agreement(v, "announce", [workflow, *argv], config=config)


@family(1.5, gen.hook_examples)
def test_hook(example) -> None:
    """K12: every layer with the hook agrees; status 0 or 3 only, 3 with no stdout and one stderr line (K5-K8)."""
    v, (argv, config, event) = example
    expected = fuzz.check_agreement(v, "hook", argv, stdin=event, config=config)
    assert expected.status in (0, 3), expected
    assert expected.status == 0 or (not expected.stdout and expected.stderr.count(b"\n") == 1), expected


def contract_line(v: gen.Vocabulary, args: List[str]) -> bytes:
    return fuzz.answer(v.backends[0], " ".join(args), None)[0]


@family(2.5, gen.manifests, lambda v: gen.FLAG_ARGS, lambda v: gen.MANIFEST_GOALS, lambda v: gen.FLAG_ARGS)
def test_persist_and_resume(example) -> None:
    """resume a manifest; persist a parse line into it, resume (without and with flags) what persist wrote, and
    persist that resume line again."""
    v, before, args, goal, resume_args = example
    fuzz.check_manifest(v, "resume", before, [a.encode() for a in resume_args])
    outcome, after = fuzz.check_manifest(v, "persist", before, [], contract_line(v, [*args, goal]))
    if outcome.status == 0:
        fuzz.check_manifest(v, "resume", after, [])
        resumed, _ = fuzz.check_manifest(v, "resume", after, [a.encode() for a in resume_args])
        if resumed.status == 0:
            fuzz.check_manifest(v, "persist", after, [], resumed.stdout)


@family(25, gen.arguments, lambda v: st.none() | gen.config_contents(v))
def test_in_process(example) -> None:
    """The compiled core against the reference in this process (atheris drives this one, below)."""
    v, argument, config = example
    fuzz.check_in_process(v, fuzz.decode(argument), config)


# The oracle itself: a lying layer, stream and core, bad JSON lines are caught; the generators reach every outcome.

V = gen.vocabularies()[0]
LIAR = "from sage_flags import reference as r; p = r.parse"
LIAR += "; r.parse = lambda t, d=None, **k: p(t.replace('\u00e9', ''), d, **k)"
LIAR += "; import runpy; runpy.run_module('sage_flags', run_name='__main__', alter_sys=True)"  # the lie: no e-acute


def test_lying_layers_and_cores_are_caught(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from parity import vectors

    monkeypatch.setattr(fuzz, "FAILURES_DIR", tmp_path)
    env = {"SAGE_FLAGS_BACKEND": "python", "PYTHONPATH": str(PROJECT / "python")}
    liar = Layer("liar", {c: [PYTHON, "-c", LIAR, c] for c in ("parse", "batch")}, env)
    honest = [layer for layer in available_layers("parse") if layer.name == "cli-pure"]
    fuzz.check_agreement(V, "parse", [b"ship"], layers=[*honest, liar])  # agrees: no exception
    with pytest.raises(fuzz.Divergence) as caught:
        fuzz.check_agreement(V, "parse", ["--autonomous caf\u00e9".encode()], layers=[*honest, liar])
    assert any(p.startswith("liar: stdout") for p in caught.value.problems)
    vector = vectors.load(tmp_path / "fuzz-parse.jsonl")
    assert vector.argv == ("--autonomous caf\u00e9".encode(),) and vector.status == 0
    assert vector.stdout == contract_line(V, ["--autonomous caf\u00e9"])  # expected: the reference's
    assert (tmp_path / "fuzz-parse.jsonl").read_text() == vector.to_json() in str(caught.value)  # ready to save

    records = [b"a", "--autonomous caf\u00e9".encode(), b"z"]
    fuzz.check_records(V, records[::2], "none", layers=[liar])  # honest on these
    with pytest.raises(fuzz.Divergence) as caught:
        fuzz.check_records(V, records, "none", layers=[liar])
    assert caught.value.problems[0].startswith("record 1: liar:")
    assert (caught.value.vector.command, caught.value.vector.stdin) == ("batch", b"\0".join(records) + b"\0")

    _, parse, load = V.backends[0]
    lying = dataclasses.replace(V, backends=(V.backends[0], ("lying", lambda t, d: parse(t.upper(), d), load)))
    fuzz.check_in_process(lying, "SHIP", None)
    with pytest.raises(fuzz.Divergence) as caught:
        fuzz.check_in_process(lying, "ship", None)
    assert caught.value.vector.argv == (b"--", b"ship") and "lying (in-process): stdout" in caught.value.problems[0]


BAD_LINES = ((b"\n", b"", "one line"), (b"false", b"0", "type"), (b'"x"', b'"\\u0078"', "re-encoding"))
BAD_LINES += ((b"null", b"NaN", "strict JSON"), (b"goal", b"Goal", "keys"))  # (a part of a good line, its swap)


@pytest.mark.parametrize("old, new, problem", BAD_LINES)
def test_json_line_check_rejects(old: bytes, new: bytes, problem: str) -> None:
    assert problem in (fuzz.json_line_problem(V, contract_line(V, ["x"]).replace(old, new, 1)) or "")


def seen_by(strategy, count: int) -> List:
    """``count`` examples of ``strategy``, the same ones every run."""
    found: List = []
    collect = given(strategy)(lambda example: found.append(example))
    settings(PROFILE, derandomize=True, database=None, max_examples=count)(collect)()
    return found


def test_the_generators_reach_every_outcome() -> None:
    """Arguments reach each parse outcome (E1 with and without a suggestion, E2-E4), configs every kind of file,
    hook events every answer of K3-K8."""
    from sage_flags import hook, reference

    outcomes = set()
    for v, argument in seen_by(with_vocabulary(gen.arguments), 400):
        error = reference.parse(fuzz.decode(argument), vocabulary=v.name).error or "ok"
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

    names = [v.name for v in gen.vocabularies()]  # every family draws its vocabulary from vocabularies()
    assert len(names) == len(set(names))
    assert {v.name for (v,) in seen_by(with_vocabulary(), 30)} == set(names)


def test_one_run_draws_every_vocabulary() -> None:
    """B2: one run covers every vocabulary of the build, each example's vocabulary named to every layer's process
    and passed to both in-process backends; each family runs its share of examples for each vocabulary."""
    from sage_flags import _vocab

    assert [v.name for v in gen.vocabularies()] == list(_vocab.NAMES)
    for v in gen.vocabularies():
        assert dict(v.env) == {"SAGE_FLAGS_VOCABULARY": v.name}
        assert [name for name, _, _ in v.backends][:1] == ["reference"] and len(v.backends) == 2  # D23: both built
        for _, parse, _ in v.backends:
            result = parse("--" + v.modes[-1][1] + " x", None)
            assert (result.vocabulary, result.error, result.goal) == (v.name, None, "x")
    share = max(1, int(PROFILE.max_examples * 3))  # test_parse's weight
    assert test_parse.hypothesis.inner_test and settings_of(test_parse).max_examples == share * len(_vocab.NAMES)


def settings_of(test) -> settings:
    return test._hypothesis_internal_use_settings


# atheris drives test_in_process: python -m parity.test_fuzz [libFuzzer options] [CORPUS] (make fuzz-inproc), or
# --replay DIR... runs every corpus file once (make fuzz-coverage)
if __name__ == "__main__":
    import sys
    import time

    import atheris  # requirements-fuzz.txt (make fuzz-inproc), not make test's
    from sage_flags import reference

    def one(data: bytes, count=[0]) -> None:  # noqa: B006 (the count of examples run)
        test_in_process.hypothesis.fuzz_one_input(data)  # the same strategies and oracle; a divergence raises
        count[0] += 1
        if count[0] % 100_000 == 0:
            print("atheris: %d examples, %.0f per CPU second" % (count[0], count[0] / time.process_time()), flush=True)

    if sys.argv[1:2] == ["--replay"]:
        files = sorted(p for d in sys.argv[2:] for p in Path(d).iterdir() if p.is_file())
        list(map(one, (path.read_bytes() for path in files)))
        sys.exit(print("atheris: replayed %d corpus files, 0 divergences" % len(files)))

    for function in vars(reference).values():  # coverage guidance: the reference's code, instrumented in place
        if getattr(function, "__module__", None) == reference.__name__ and hasattr(function, "__code__"):
            atheris.instrument_func(function)
    atheris.Setup([*sys.argv, "-max_len=4096", "-timeout=10"], one)
    atheris.Fuzz()
