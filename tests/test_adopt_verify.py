"""adopt proves agreement with the project's own flag parser (issue 44; docs/SPEC.md N2, N2.1, N2.2, N6, N12.1,
H12), on Sage 1.3.21 and 1.1.5 installed by their own installers (../shared/sage/README.md), through
the installed `sage-flags`: each adopts with its vocabulary and says on how many inputs it agreed; a release no
table names adopts what its parser agrees with; a parser changed in one rule is refused, naming an input that shows
it, nothing written; `adopt --check` catches a parser changed after adoption. Where ../shared/sage/ is missing the
Sage tests skip, naming it (CI=true: they fail).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Dict, Tuple

import pytest
from sage_flags import _adopt_corpus, _adopt_step, _adopt_verify, _vocabulary

from parity.layers import ROOT
from tests.sage_step import require_sage
from tools import sage_release

SAGE_FLAGS = Path(sys.executable).parent / "sage-flags"
RECORD = ".claude/skills/flag-parser/.adopted.json"
PYTHON_STEP = "sage/runtime/tools/sage_flags.py"
BASH_STEP = "sage/core/flag_parser/parse.sh"


def install(base: Path, release: str) -> Path:
    """A project `sage init` made, with Sage RELEASE installed into BASE/home by its own install.sh."""
    require_sage(release)
    return sage_release.SageInstall(base, release).project


@pytest.fixture(scope="session")
def sage_1_3_21(tmp_path_factory) -> Path:
    return install(tmp_path_factory.mktemp("sage-1.3.21"), "1.3.21")


@pytest.fixture(scope="session")
def sage_1_1_5(tmp_path_factory) -> Path:
    return install(tmp_path_factory.mktemp("sage-1.1.5"), "1.1.5")


def copy(project: Path, tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    shutil.copytree(project, root, symlinks=True)
    return root


def adopt(root: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "SAGE_FLAGS_VOCABULARY"}
    return subprocess.run(
        [str(SAGE_FLAGS), "adopt", *args], cwd=root, capture_output=True, text=True, env=env, timeout=120
    )


def snapshot(root: Path) -> Dict[str, Tuple[int, bytes]]:
    """Every path under ROOT: its mode, and its bytes for a file."""
    found = {}
    for path in sorted(root.rglob("*")):
        info = path.lstat()
        found[path.relative_to(root).as_posix()] = (
            info.st_mode,
            path.read_bytes() if stat.S_ISREG(info.st_mode) else b"",
        )
    return found


def posix_cksum(path: Path) -> str:
    with path.open("rb") as handle:
        return subprocess.run(["cksum"], stdin=handle, capture_output=True, text=True, check=True).stdout.strip()


def verified_count(done: subprocess.CompletedProcess, vocabulary: str, step: str) -> int:
    found = re.search(
        r"verified: %s agrees with the project's flag-parsing step `%s[^`]*` on all (\d+) inputs"
        % (re.escape(vocabulary), re.escape(step)),
        done.stdout,
    )
    assert found, done
    return int(found.group(1))


def smallest_input(done: subprocess.CompletedProcess) -> Tuple[str, str, str]:
    """(ARGUMENTS, the step's answer, ours) of the smallest differing input a refusal names."""
    text = re.search(r'the smallest: ARGUMENTS ("(?:[^"\\]|\\.)*")', done.stderr)
    theirs = re.search(r"the project's step `[^`]*`: (.*)", done.stderr)
    mine = re.search(r"sage-flags \(sage-[0-9.]+\): (.*)", done.stderr)
    assert text and theirs and mine, done
    return json.loads(text.group(1)), theirs.group(1), mine.group(1)


# ---------------------------------------------------------------------------------------------------------
# Sage installed by its own installer


def test_sage_1_3_21_adopts_sage_1_3_18_and_records_the_parser(sage_1_3_21: Path, tmp_path: Path) -> None:
    root = copy(sage_1_3_21, tmp_path)
    before, sage_before = snapshot(root), snapshot(root / "sage")
    dry = adopt(root, "--dry-run")
    assert dry.returncode == 0 and not dry.stderr, dry
    assert snapshot(root) == before  # no __pycache__, no config, nothing: the step ran with -B, configs elsewhere
    done = adopt(root)
    assert done.returncode == 0 and not done.stderr, done
    count = verified_count(done, "sage-1.3.18", "python3 " + PYTHON_STEP + " parse")
    assert count == verified_count(dry, "sage-1.3.18", "python3 " + PYTHON_STEP + " parse") and count >= 200
    record = json.loads((root / RECORD).read_text())
    assert record["vocabulary"] == "sage-1.3.18" and record["parser"] == [PYTHON_STEP]
    assert record["fingerprint"] == posix_cksum(root / PYTHON_STEP) == _adopt_verify.fingerprint(str(root))
    assert snapshot(root / "sage") == sage_before  # the step wrote nothing, no bytecode either
    check = adopt(root, "--check")
    assert (check.returncode, check.stderr) == (0, ""), check
    assert "sage-1.3.18 agrees with the project's flag-parsing step" in check.stdout and "changed" not in check.stdout


@pytest.mark.full  # about 250 bash processes
def test_sage_1_1_5_adopts_sage_1_1_through_its_bash_step(sage_1_1_5: Path, tmp_path: Path) -> None:
    root = copy(sage_1_1_5, tmp_path)
    done = adopt(root)
    assert done.returncode == 0 and not done.stderr, done
    assert verified_count(done, "sage-1.1", "bash " + BASH_STEP) >= 150
    record = json.loads((root / RECORD).read_text())
    assert (record["vocabulary"], record["parser"]) == ("sage-1.1", [BASH_STEP])
    assert record["fingerprint"] == posix_cksum(root / BASH_STEP)


def test_a_release_no_table_names_adopts_what_its_parser_agrees_with(sage_1_3_21: Path, tmp_path: Path) -> None:
    root = copy(sage_1_3_21, tmp_path)
    (root / "sage/VERSION").write_text("1.9.0\n")
    done = adopt(root)
    assert done.returncode == 0 and not done.stderr, done
    assert "Sage 1.9.0, vocabulary sage-1.3.18" in done.stdout
    assert "(a release B5's table does not name)" in done.stdout
    verified_count(done, "sage-1.3.18", "python3 " + PYTHON_STEP + " parse")


def change(rule: str, rel: str, old: str, new: str, shows: str, release: "str | None", full: bool = False):
    """One rule changed: the file, its text, the changed text, what the smallest differing input must show, the
    sage/VERSION the copy gets (None: as installed); FULL: in test-full only."""
    marks = [pytest.mark.full] if full else []
    return pytest.param(rule, rel, old, new, shows, release, id=rule, marks=marks)


CONFLICT = r"--no-(?P<f>[a-z-]+)\b.*--(?P=f)\b|--(?P<g>[a-z-]+)\b.*--no-(?P=g)\b"
CHANGES = [
    change("lane cap", PYTHON_STEP, "HARD_LANE_CAP = 4", "HARD_LANE_CAP = 5", r"--parallel=5\b", "1.3.21"),
    change(
        "new flag", PYTHON_STEP, '"subagents", "parallel")', '"subagents", "parallel", "fast")', "--(no-)?fast", "1.9.0"
    ),
    change(
        "bash conflict",
        BASH_STEP,
        "if [ \"$auto_flag_state\" = 'negative' ]",
        "if false",
        "--no-autonomous --autonomous",
        None,
        True,  # about 250 bash processes
    ),
    change(
        "default lanes", PYTHON_STEP, "DEFAULT_LANE_CAP = 2", "DEFAULT_LANE_CAP = 3", "^--parallel( |$)", "1.9.0", True
    ),
    change("minimum", PYTHON_STEP, "int(flag_value) < 1", "int(flag_value) < 0", r"--parallel=0+\b", "1.3.21", True),
    change(
        "first wins", PYTHON_STEP, "if lane_cap is None:", "if True:", r"--parallel=\d+ --parallel=\d", "1.3.18", True
    ),
    change(
        "conflict",
        PYTHON_STEP,
        "if flag_state[key] is not None and flag_state[key] != new_state:",
        "if False:",
        CONFLICT,
        "1.3.21",
        True,
    ),
    change(
        "trim", PYTHON_STEP, "remaining = arguments.strip()", 'remaining = arguments.strip(" ")', r"\t", "1.9.0", True
    ),
    change("config line", PYTHON_STEP, 'r"^(%s): true$"', 'r"^(%s): [Tt]rue$"', "", "1.3.21", True),
]


@pytest.mark.parametrize("rule, rel, old, new, shows, release", CHANGES)
def test_a_parser_changed_in_one_rule_is_refused_and_nothing_written(
    rule, rel, old, new, shows, release, request, tmp_path
) -> None:
    root = copy(request.getfixturevalue("sage_1_1_5" if rel == BASH_STEP else "sage_1_3_21"), tmp_path)
    source = (root / rel).read_text()
    assert source.count(old) == 1, rule
    (root / rel).write_text(source.replace(old, new))
    if release:
        (root / "sage/VERSION").write_text(release + "\n")
    before = snapshot(root)
    done = adopt(root)
    assert done.returncode == 3 and not done.stdout, done
    assert (
        done.stderr.startswith("sage-flags: adopt: the project's flag-parsing step ")
        and "nothing written" in done.stderr
    )
    assert "sage-flags adopt --vocabulary NAME --no-verify" in done.stderr
    text, theirs, mine = smallest_input(done)
    assert re.search(shows, text), (rule, text)
    assert theirs != mine
    if rule == "config line":
        assert "with the config" in done.stderr and ": True" in done.stderr
    assert snapshot(root) == before


def test_adopt_check_catches_a_parser_changed_after_adoption(sage_1_3_21: Path, tmp_path: Path) -> None:
    root = copy(sage_1_3_21, tmp_path)
    assert adopt(root).returncode == 0
    parser = root / PYTHON_STEP
    parser.write_text(parser.read_text() + "\n# a comment: the rules unchanged\n")
    still = adopt(root, "--check")
    assert still.returncode == 0 and "the parser changed since adoption (it still agrees)" in still.stdout, still
    parser.write_text(parser.read_text().replace("HARD_LANE_CAP = 4", "HARD_LANE_CAP = 6"))
    before = snapshot(root)
    changed = adopt(root, "--check")
    assert changed.returncode == 3 and not changed.stdout, changed
    assert re.search(r"--parallel=[56]\b", smallest_input(changed)[0]), changed
    assert snapshot(root) == before


@pytest.mark.full
def test_sage_update_keeps_the_fingerprint(sage_1_3_21: Path, tmp_path: Path) -> None:
    """An update that leaves the parser alone keeps the recorded fingerprint (so the wrapper keeps the hook on)."""
    root = copy(sage_1_3_21, tmp_path)
    assert adopt(root).returncode == 0
    home = sage_1_3_21.parent / "home"
    env = {"HOME": str(home), "PATH": "%s:/usr/bin:/bin" % (home / "bin"), "LC_ALL": "C.UTF-8"}
    done = subprocess.run(
        ["bash", str(home / "bin/sage"), "update"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done
    assert json.loads((root / RECORD).read_text())["fingerprint"] == _adopt_verify.fingerprint(str(root))
    check = adopt(root, "--check")
    assert check.returncode == 0 and "changed" not in check.stdout, check


def test_a_named_vocabulary_is_verified_and_no_verify_says_so(sage_1_3_21: Path, tmp_path: Path) -> None:
    root = copy(sage_1_3_21, tmp_path)
    before = snapshot(root)
    refused = adopt(root, "--vocabulary", "sage-1.3")
    assert refused.returncode == 3 and "agrees with no vocabulary tried (sage-1.3)" in refused.stderr, refused
    assert smallest_input(refused)[0] == "--parallel" and snapshot(root) == before
    forced = adopt(root, "--vocabulary", "sage-1.3", "--no-verify")
    assert forced.returncode == 0 and "not verified (--no-verify)" in forced.stdout, forced
    assert json.loads((root / RECORD).read_text())["vocabulary"] == "sage-1.3"
    assert adopt(root, "--check").returncode == 3


def test_our_own_drop_in_has_nothing_to_verify(sage_1_1_5: Path, tmp_path: Path) -> None:
    """A vendored Sage 1.1 project: the bundle's parse.sh replaced Sage's, so the step /build runs is ours."""
    root = copy(sage_1_1_5, tmp_path)
    shutil.copyfile(ROOT / "python/sage_flags/bash/parse.sh", root / BASH_STEP)  # as the bundle lays it, B7
    done = adopt(root)
    assert done.returncode == 0 and "is sage-flags' own drop-in" in done.stdout, done
    record = json.loads((root / RECORD).read_text())
    assert record["parser"] == [] and "fingerprint" not in record


# ---------------------------------------------------------------------------------------------------------
# Without Sage


def test_no_step_is_refused_in_one_line(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / "sage").mkdir(parents=True)
    (root / "sage/VERSION").write_text("1.3.21\n")
    done = adopt(root)
    assert (done.returncode, done.stdout) == (3, "") and done.stderr.count("\n") == 1, done
    assert "looked for sage/runtime/tools/sage_flags.py" in done.stderr and BASH_STEP in done.stderr
    assert sorted(p.name for p in root.iterdir()) == ["sage"]


def test_no_python3_on_path_is_refused_in_one_line(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / "sage/runtime/tools").mkdir(parents=True)
    (root / "sage/VERSION").write_text("1.3.21\n")
    (root / PYTHON_STEP).write_text("print('{}')\n")
    env = dict(os.environ, PATH=str(tmp_path / "nothing"))
    done = subprocess.run([str(SAGE_FLAGS), "adopt"], cwd=root, capture_output=True, text=True, env=env)
    assert (done.returncode, done.stdout) == (3, ""), done
    assert (
        done.stderr
        == "sage-flags: adopt: no python3 on PATH to run %s, the project's flag-parsing step\n" % PYTHON_STEP
    )


@pytest.mark.parametrize(
    "args, says",
    [
        (["--no-verify"], "--no-verify needs a vocabulary"),
        (["--check", "--dry-run"], "--check takes no other option"),
        (["--undo", "--no-verify"], "--undo takes only --dry-run"),
        (["--check", "--vocabulary", "sage-1.3"], "--check takes no other option"),
    ],
)
def test_options_usage(args, says, tmp_path: Path) -> None:
    done = adopt(tmp_path, *args)
    assert done.returncode == 2 and says in done.stderr and not done.stdout, done


def test_check_in_a_project_never_adopted(tmp_path: Path) -> None:
    done = adopt(tmp_path, "--check")
    assert (done.returncode, done.stdout) == (3, "") and done.stderr.count("\n") == 1, done
    assert "was never adopted" in done.stderr


@pytest.mark.parametrize("size", [0, 1, 255, 256, 65537, 1 << 20])
def test_cksum_is_posix_cksum(size: int, tmp_path: Path) -> None:
    data = bytes((i * 7 + i // 251) % 256 for i in range(size))
    (tmp_path / "f").write_bytes(data)
    assert _adopt_verify.cksum(data) == posix_cksum(tmp_path / "f")


def test_the_corpus_reaches_every_rule_and_no_deliberate_difference() -> None:
    every = [_vocabulary.vocabulary(name) for name in _vocabulary.NAMES]
    listed = sorted({form for v in every for _, flag in v.modes for form in ("--" + flag, "--no-" + flag)})
    for step in ("python", "bash"):
        cases = _adopt_corpus.corpus(every, [*listed, "--brand-new"], step)
        texts = {text for text, _ in cases}
        assert 150 <= len(cases) <= 300  # H12: the budget
        assert all(_adopt_corpus.deliberate(text, step) is None for text in texts)
        for vocabulary in every:
            for _, flag in vocabulary.modes:
                for form in ("--%s Ship it", "--no-%s Ship it", "--%s --no-%s Ship it", "--no-%s --%s Ship it"):
                    assert form.replace("%s", flag) in texts
            for spec in vocabulary.value_modes:
                flag = vocabulary.modes[spec.mode][1]
                for n in {spec.minimum - 1, spec.minimum, spec.default, spec.cap, spec.cap + 1}:
                    assert "--%s=%d Ship it" % (flag, n) in texts
        assert {"--brand-new", "--brand-new Ship it"} <= texts
        configs = {name for _, name in cases}
        assert {"autonomous", "autonomous (look-alikes)", "parallel", _adopt_corpus.ABSENT} <= configs
    # A mode Sage does not list is tried in a few cases (Sage 1.1.5 lists no --subagents, no --parallel).
    fewer = {text for text, _ in _adopt_corpus.corpus(every, ["--autonomous", "--no-autonomous"], "bash")}
    assert {"--subagents Ship it", "--no-parallel Ship it", "--parallel=3 Ship it"} <= fewer
    assert "--parallel=5 Ship it" not in fewer and "--autonomous --no-autonomous Ship it" in fewer


@pytest.mark.parametrize(
    "text, step, which",
    [
        ("-- x", "python", 0),
        ("--autonomous -- x", "bash", 0),
        ("--config-path=x y", "python", 1),
        ("--help", "bash", 1),
        ("\u3000--autonomous x", "python", 2),
        ("--autonomous\u00a0x", "python", 2),
        ("--autonomous x\u3000", "bash", 2),
        ("--autonomous\tx", "bash", 3),
        ("--parallel=\u0663 x", "python", 4),
        ("--autonomous\tx", "python", None),
        ("--autonomous na\u00efve\u00a0space", "python", None),
        ("--parallel=3 x", "python", None),
    ],
)
def test_deliberate_differences(text: str, step: str, which) -> None:
    expected = None if which is None else _adopt_corpus.DELIBERATE[which][0]
    assert _adopt_corpus.deliberate(text, step) == expected


def test_the_step_is_bounded_in_time_and_output(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(_adopt_step, "TIMEOUT", 0.5)
    with pytest.raises(_adopt_step.NoStep, match="ran over"):
        _adopt_step._run([sys.executable, "-c", "import time; time.sleep(30)"], str(tmp_path))
    monkeypatch.setattr(_adopt_step, "OUTPUT_LIMIT", 1 << 16)
    with pytest.raises(_adopt_step.NoStep, match="wrote over"):
        _adopt_step._run([sys.executable, "-c", "import sys\nwhile True: sys.stdout.write('x' * 4096)"], str(tmp_path))


def test_the_environment_is_clean(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("PYTHONPATH", "/elsewhere")
    monkeypatch.setenv("BASH_ENV", "/elsewhere/env")
    status, out, _ = _adopt_step._run([sys.executable, "-c", "import os; print(sorted(os.environ))"], str(tmp_path))
    assert status == 0 and "PYTHONPATH" not in out.decode() and "BASH_ENV" not in out.decode()


@pytest.mark.full
def test_one_process_answers_as_one_process_per_input(sage_1_3_21: Path, tmp_path: Path) -> None:
    """H12: the Python step's batch (its main(argv) per input in one process) answers every input of
    the corpus exactly as `python3 sage_flags.py parse TEXT --config-path CONFIG`, one process each, does."""
    root = str(sage_1_3_21)
    step = _adopt_step.find_step(root)
    every = [_vocabulary.vocabulary(name) for name in _vocabulary.NAMES]
    runner = _adopt_step.Runner(root, step, str(tmp_path))
    runner.deadline = float("inf")  # a process per input is what adopt's 60 s avoids; here it is the point
    runner.write_configs(_adopt_corpus.configs(every))
    cases = _adopt_corpus.corpus(every, [], step.kind)
    batch = runner._batch(cases)
    assert len(batch) == len(cases)
    assert [runner.one(*case) for case in cases] == batch


def test_a_parser_over_the_bound_is_refused_in_one_line(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / "sage/runtime/tools").mkdir(parents=True)
    (root / "sage/VERSION").write_text("1.3.21\n")
    with (root / PYTHON_STEP).open("wb") as handle:
        handle.truncate(_adopt_step.PARSER_LIMIT + 1)  # sparse: no 4 MiB written
    done = adopt(root)
    assert (done.returncode, done.stdout) == (3, ""), done
    assert done.stderr == "sage-flags: adopt: %s is over %d bytes: no flag parser sage-flags runs\n" % (
        PYTHON_STEP,
        _adopt_step.PARSER_LIMIT,
    )
    assert _adopt_verify.parser_files(str(root)) == [] and _adopt_verify.fingerprint(str(root)) is None


def test_a_step_that_gives_no_json_is_refused_in_one_line(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / "sage/runtime/tools").mkdir(parents=True)
    (root / "sage/VERSION").write_text("1.3.21\n")
    (root / PYTHON_STEP).write_text("import sys\nsys.exit('this is no flag parser')\n")
    done = adopt(root)
    assert (done.returncode, done.stdout) == (3, ""), done
    assert done.stderr == (
        "sage-flags: adopt: the project's flag-parsing step `python3 %s parse` gives no JSON answer (status 1:"
        " (nothing on stdout; stderr ends: this is no flag parser))\n" % PYTHON_STEP
    )
    assert sorted(p.name for p in root.iterdir()) == ["sage"]


def test_a_temporary_folder_inside_the_project_is_refused(sage_1_3_21: Path, tmp_path: Path) -> None:
    """H12: the configs go outside the project; a TMPDIR inside it is refused before anything is created."""
    root = copy(sage_1_3_21, tmp_path)
    (root / ".tmp").mkdir()
    before = snapshot(root)
    env = dict(os.environ, TMPDIR=str(root / ".tmp"))
    done = subprocess.run([str(SAGE_FLAGS), "adopt"], cwd=root, capture_output=True, text=True, env=env)
    assert (done.returncode, done.stdout) == (3, ""), done
    assert (
        done.stderr == "sage-flags: adopt: the temporary folder %s is inside the project; set TMPDIR to a"
        " folder outside it\n" % (root / ".tmp")
    )
    assert snapshot(root) == before
