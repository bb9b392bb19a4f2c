"""persist and resume (issue 8): vectors through every layer, the fuzzer, concurrency.

The vectors persist-* and resume-* (parity/vectors/sage-1.1.jsonl) use the
format of parity/vectors.py plus one field, "manifest":

    "manifest": {"before": B, "after": A, "type": T, "mode": M}

- B: the manifest's bytes before the run: a JSON string (its UTF-8 bytes) or
  {"hex": "..."}; null means no file at the manifest path.
- A: its bytes after the run (persist). Omitted: the file must be exactly as
  before (or still absent).
- T (optional): "file" (the default); "symlink": the manifest path is a
  relative symlink to target.md, which holds B and must end up holding A while
  the link stays a link; "directory" or "fifo": the manifest path is one.
- M (optional): permission bits as an octal string ("0640"), set before the
  run and expected after it.
- "as": "root" (optional): the vector holds only for root (skipped otherwise).
- "fill": N (optional): `{fill}` in B and A stands for N bytes `A` (a front
  matter at its size bound, SPEC P10, in a vector a person can read).

argv items may contain {manifest} (the manifest path, manifest.md in the run's
own directory) and {config} (the config of the "config" field). "stdin" is the
line piped to persist. Status 2 (usage, or persist's "not a contract line")
and 3 (manifest cannot be updated) mean exactly one line on stderr; 0 and 1
an empty stderr.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import pytest
import sage_manifests
from artifacts import clean_env, fresh_venv
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from process_trace import process_calls
from sage_flags import manifest, reference
from sage_flags._vocabulary import vocabulary

from parity import vectors, yaml_oracle
from parity.layers import (
    BASH_DIR,
    FLAG_PARSER_DIR,
    NATIVE_EXE,
    ROOT,
    BashInterpreter,
    Layer,
    available_layers,
    vendored_bundle,
)
from parity.optional import missing
from parity.strategies import FLAG_ARGS, MANIFEST_GOALS, manifests
from parity.test_vectors import skip_what_this_system_lacks

MODES = vocabulary().modes  # the default's (B1)

MODE_KEYS = [key for key, _ in MODES]


def manifest_vectors(command: str) -> List[vectors.Vector]:
    return vectors.load_all(command)


check_vector = vectors.check_manifest_vector  # the vector runner, shared with other vocabularies' vectors


@pytest.mark.parametrize("layer", available_layers("persist"), ids=lambda layer: layer.name)
@pytest.mark.parametrize("vector", manifest_vectors("persist"), ids=lambda v: v.name)
def test_persist_vector(layer: Layer, vector: vectors.Vector, tmp_path: Path) -> None:
    skip_what_this_system_lacks(vector)
    check_vector(layer, vector, tmp_path)


@pytest.mark.parametrize("layer", available_layers("resume"), ids=lambda layer: layer.name)
@pytest.mark.parametrize("vector", manifest_vectors("resume"), ids=lambda v: v.name)
def test_resume_vector(layer: Layer, vector: vectors.Vector, tmp_path: Path) -> None:
    skip_what_this_system_lacks(vector)
    check_vector(layer, vector, tmp_path)


def test_vectors_exist_for_both_commands() -> None:
    assert len(manifest_vectors("persist")) >= 30
    assert len(manifest_vectors("resume")) >= 15
    for vector in manifest_vectors("persist") + manifest_vectors("resume"):
        assert "manifest" in vector.extra, vector.name
        assert vector.name.startswith(vector.command + "-"), vector.name


def test_every_layer_offers_both_commands() -> None:
    """The Python layers (bash's persist.sh and resume.sh only refuse: their own tests below)."""
    names = {layer.name for layer in available_layers("persist")}
    assert {"cli-pure", "module-pure"} <= names
    assert names == {layer.name for layer in available_layers("resume")}


def test_resume_lines_are_strict_json_with_notes_last() -> None:
    for vector in manifest_vectors("resume"):
        if vector.status == 2:
            continue
        text = vector.stdout.decode("utf-8")
        data = json.loads(text)
        assert list(data)[-1] == "notes" and isinstance(data["notes"], list), vector.name
        assert json.dumps(data, ensure_ascii=False) + "\n" == text, vector.name


# --------------------------------------------------------------- the fuzzer
#
# Manifests assembled from pieces that exercise every branch: with and without
# frontmatter, flags blocks in every shape (indentation, comments, other
# entries, nested maps, repeated keys, odd values), CRLF, BOM, unicode, invalid
# UTF-8 in the body, no final newline. Every layer must produce the same file,
# stdout and status; and resume (no flags) must restore what persist recorded.


def fuzz_layers(command: str) -> List[Layer]:
    """One Python layer per backend (cli and module run the same code)."""
    return [layer for layer in available_layers(command) if not layer.name.startswith("module-")]


def persist_everywhere(before: Optional[bytes], line: bytes, workdir: Path) -> Dict[str, Tuple]:
    outcomes = {}
    workdir.mkdir(exist_ok=True)
    for layer in fuzz_layers("persist"):
        directory = workdir / layer.name
        directory.mkdir()
        path = directory / "manifest.md"
        if before is not None:
            path.write_bytes(before)
        result = layer.run("persist", [os.fsencode(path)], stdin=line)
        after = path.read_bytes() if path.exists() else None
        leftovers = tuple(sorted(p.name for p in directory.iterdir() if p.name != "manifest.md"))
        outcomes[layer.name] = (result.returncode, result.stdout, result.stderr.count(b"\n"), after, leftovers)
    return outcomes


def parse_line(args: List[str]) -> bytes:
    """The contract line parse prints for ``args`` (the input of persist, not under test here)."""
    return reference.parse(" ".join(args)).to_json().encode("utf-8") + b"\n"


# Goals whose JSON form uses every escape of C17 and raw non-ASCII (persist checks the line's canonical form).
GOALS = MANIFEST_GOALS


@settings(max_examples=40, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
@given(before=manifests(), args=FLAG_ARGS, goal=GOALS, resume_args=FLAG_ARGS)
def test_fuzz_persist_then_resume_agree_everywhere(
    before: Optional[bytes],
    args: List[str],
    goal: str,
    resume_args: List[str],
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    workdir = tmp_path_factory.mktemp("fuzz")
    line = parse_line([*args, goal])
    outcomes = persist_everywhere(before, line, workdir)
    first = next(iter(outcomes.values()))
    for name, outcome in outcomes.items():
        assert outcome == first, f"{name} differs from {next(iter(outcomes))}: {outcome!r} vs {first!r}"
    status, stdout, _, after, leftovers = first
    assert leftovers == ()
    assert stdout == (line if status != 2 else b"")
    if status in (0, 3):
        yaml_oracle.check_persist(before, line, status, after)
    if status != 0:
        assert after == before, "the manifest changed although nothing was written"
        return
    persisted = json.loads(line)
    resumes = {}
    for layer in fuzz_layers("resume"):
        path = workdir / layer.name / "manifest.md"
        plain = layer.run("resume", [os.fsencode(path)])
        flagged = layer.run("resume", [os.fsencode(path), *(a.encode() for a in resume_args)])
        resumes[layer.name] = (plain.returncode, plain.stdout, flagged.returncode, flagged.stdout)
        yaml_oracle.check_resume(after, plain.stdout)
        yaml_oracle.check_resume(after, flagged.stdout)
        restored = json.loads(plain.stdout)
        for key in MODE_KEYS:  # resume after persist restores exactly what was persisted
            assert (restored[key], restored[key + "_source"]) == (persisted[key], "manifest"), (layer.name, key)
        assert restored["notes"] == []
    assert len(set(resumes.values())) == 1, resumes
    # Persisting what resume restored changes nothing (in-process, in addition to the layers above).
    assert manifest.updated_manifest(after, manifest.contract_values(resumes[layer.name][1])[0]) == after
    # Persist after persist: the resume line with flags goes back in, identically everywhere, YAML-checked.
    second = resumes[layer.name][3]
    if resumes[layer.name][2] == 0:
        again = persist_everywhere(after, second, workdir / "again")
        assert len(set(again.values())) == 1, again
        status, _, _, final, _ = next(iter(again.values()))
        assert status == 0
        yaml_oracle.check_persist(after, second, status, final)


@st.composite
def mutated_lines(draw) -> bytes:
    """A contract line (parse's or resume's) with a few bytes replaced, inserted or removed."""
    line = parse_line([*draw(FLAG_ARGS), draw(GOALS)])
    if draw(st.booleans()):
        line = line[:-2] + b', "notes": ' + draw(st.sampled_from([b"[]", b'["x"]', b'["a", "b"]', b"[1]"])) + b"}\n"
    data = bytearray(line)
    interesting = st.sampled_from([*b' "\\,:{}[]nu0\r\n\x00\x7f', 0xC3, 0xA9, 0xFF, 0xED, 0xA0])
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(data)))
        action = draw(st.sampled_from(["replace", "insert", "delete"]))
        if action == "insert":
            data.insert(at, draw(interesting))
        elif at < len(data):
            if action == "replace":
                data[at] = draw(interesting)
            else:
                del data[at]
    return bytes(data)


@settings(max_examples=200, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
@given(line=mutated_lines())
def test_fuzz_every_layer_accepts_the_same_lines(line: bytes, tmp_path_factory: pytest.TempPathFactory) -> None:
    """P1: which stdin counts as one contract line is decided identically (json in Python, patterns in bash)."""
    workdir = tmp_path_factory.mktemp("lines")
    outcomes = persist_everywhere(b"---\nflags:\n  autonomous: true\n---\n", line, workdir)
    assert len(set(outcomes.values())) == 1, outcomes
    status = next(iter(outcomes.values()))[0]
    assert status == (2 if manifest.contract_values(line) is None else 1 if b'"error": null' not in line else 0)


# --------------------------------------------------------------- concurrency

CONCURRENT_WRITERS = 20
CONCURRENCY_ROUNDS = int(os.environ.get("SAGE_FLAGS_CONCURRENCY_ROUNDS", "2"))


@pytest.mark.parametrize("layer", fuzz_layers("persist"), ids=lambda layer: layer.name)
def test_concurrent_persists_leave_one_complete_version(
    layer: Layer, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """20 processes persist different lines into one manifest at once (P7), CONCURRENCY_ROUNDS times.

    Each writer reads, edits and renames a complete file; the last rename wins.
    Since every persist rewrites every mode's value, the result is exactly what
    one of the writers would have produced alone, and no temp file remains.
    """
    before = b"---\r\ntitle: race\r\nflags:\r\n  subagents: false  # kept\r\n---\r\nbody \xe2\x9c\x93\r\n"
    combos = [[], ["--quality-locked"], ["--autonomous"], ["--quality-locked", "--autonomous"]]
    lines = [parse_line([*combos[i % len(combos)], "go %d" % i]) for i in range(CONCURRENT_WRITERS)]
    solo = tmp_path / "solo.md"
    possible = set()
    for line in lines:  # what each writer alone makes of the manifest
        solo.write_bytes(before)
        assert layer.run("persist", [os.fsencode(solo)], stdin=line).returncode == 0
        possible.add(solo.read_bytes())
    assert len(possible) == len(combos)
    work = tmp_path / "race"
    work.mkdir()
    path = work / "manifest.md"
    env = {**os.environ, **layer.env}
    argv = layer.argv("persist", [os.fsencode(path)])
    failures = 0
    for _ in range(CONCURRENCY_ROUNDS):
        path.write_bytes(before)
        os.chmod(path, 0o640)
        procs = [subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, env=env) for _ in lines]
        for proc, line in zip(procs, lines):  # all started before any gets its line
            proc.stdin.write(line)
        for proc in procs:
            proc.stdin.close()
        statuses = [proc.wait(60) for proc in procs]
        complete = path.read_bytes() in possible and stat.S_IMODE(path.stat().st_mode) == 0o640
        if statuses != [0] * CONCURRENT_WRITERS or not complete or os.listdir(work) != ["manifest.md"]:
            failures += 1
    with capsys.disabled():
        rounds = f"{CONCURRENCY_ROUNDS} rounds of {CONCURRENT_WRITERS} concurrent persists"
        print(f"\n{layer.name}: {rounds}, failures: {failures}")
    assert failures == 0


# --------------------------------------------------------------- bash: an honest refusal (SPEC P12)

BASH_PERSIST = BASH_DIR / "persist.sh"
BASH_RESUME = BASH_DIR / "resume.sh"
BASH_PARSE = BASH_DIR / "parse.sh"


def executed_programs(argv: List[str], workdir: Path, stdin: bytes = b"") -> List[str]:
    """The programs a command runs (execve), and how many processes it forks, through strace."""
    calls = process_calls(argv, workdir, stdin)
    programs = [
        re.search(r'execve\("([^"]*)"', line).group(1).rsplit("/", 1)[-1] for line in calls if "execve(" in line
    ]
    forks = [line for line in calls if "execve(" not in line]
    assert len(forks) == len(programs) - 1, calls  # every fork runs one program (no subshell forks)
    return programs


def _files(folder: Path) -> Dict[str, bytes]:
    return {p.name: (os.readlink(p).encode() if p.is_symlink() else p.read_bytes()) for p in folder.iterdir()}


# A few manifests of each kind (the persist and resume vectors themselves run in the Python layers only).
BASH_SAMPLE = ("update-in-place", "new-file", "symlink-refused", "cr-hides", "sage-writers", "restores-recorded")
BASH_SAMPLE += ("flag-overrides-with-note", "usage", "stdin", "config-when", "parse-error", "two-flags-keys")


def bash_sample(command: str) -> List[vectors.Vector]:
    return [v for v in manifest_vectors(command) if any(part in v.name for part in BASH_SAMPLE)]


@pytest.mark.parametrize("vector", [v for v in bash_sample("persist") if v.status in (0, 3)], ids=lambda v: v.name)
def test_bash_persist_records_nothing(bash: BashInterpreter, vector: vectors.Vector, tmp_path: Path) -> None:
    """P12: persist.sh echoes the line, exits 3 with one stderr line naming python3, and writes no file: the
    manifest stays byte for byte, and a link planted where a temp file would go (issue 33, defect 1: the
    old persist.sh wrote through it) leads to a file that stays as it was."""
    skip_what_this_system_lacks(vector)
    victim = tmp_path / "victim"
    victim.write_bytes(b"the victim's own bytes\n")
    workdir = tmp_path / "work"
    workdir.mkdir()
    path = vectors.materialise_manifest(vector.extra["manifest"], workdir)
    for pid in range(os.getpid(), os.getpid() + 64):  # the pids the next processes are likely to get
        (workdir / f".manifest.md.sage-flags-tmp.{pid}").symlink_to(victim)
    before = _files(workdir)
    result = subprocess.run([bash.path, str(BASH_PERSIST), str(path)], input=vector.stdin, capture_output=True)
    assert (result.returncode, result.stdout) == (3, vector.stdin), result.stderr
    assert result.stderr.count(b"\n") == 1 and b"needs python3" in result.stderr
    assert _files(workdir) == before and victim.read_bytes() == b"the victim's own bytes\n"


def test_bash_persist_status_1_and_2(bash: BashInterpreter, tmp_path: Path) -> None:
    """P1, P2 in the refusal: an error line is echoed with status 1 (nothing to record), and what is not one
    line (two lines, a NUL, no LF, more than 1 MiB) is status 2 with nothing on stdout."""
    path = tmp_path / "manifest.md"
    error_line = parse_line(["--nope"])
    done = subprocess.run([bash.path, str(BASH_PERSIST), str(path)], input=error_line, capture_output=True)
    assert (done.returncode, done.stdout, done.stderr) == (1, error_line, b"")
    line = parse_line(["--autonomous", "go"])
    for stdin in (line + line, line[:-1], line + b"\0", b"{" + b"x" * (1 << 20) + b"}\n", b""):
        done = subprocess.run([bash.path, str(BASH_PERSIST), str(path)], input=stdin, capture_output=True)
        assert (done.returncode, done.stdout, done.stderr.count(b"\n")) == (2, b"", 1), stdin[:40]
    assert not path.exists()


def test_bash_persist_and_resume_run_nothing_but_bash(bash: BashInterpreter, tmp_path: Path) -> None:
    path = tmp_path / "manifest.md"
    path.write_bytes(b"---\nflags:\n  quality_locked: true\n---\n")
    line = parse_line(["--autonomous", "go"])
    assert executed_programs([bash.path, str(BASH_PERSIST), str(path)], tmp_path, line) == ["bash"]
    assert executed_programs([bash.path, str(BASH_RESUME), str(path), "go"], tmp_path) == ["bash"]


@pytest.mark.parametrize("vector", bash_sample("resume"), ids=lambda v: v.name)
def test_bash_resume_restores_nothing(bash: BashInterpreter, vector: vectors.Vector, tmp_path: Path) -> None:
    """R2, P12: resume.sh prints the parse of ARGUMENTS (parse.sh's line) with "notes": [], whatever the
    manifest holds, and the status and stderr parse.sh gives."""
    skip_what_this_system_lacks(vector)
    result, path = vectors.run_manifest_vector(
        Layer(bash.name, {"resume": [bash.path, str(BASH_RESUME)]}, bash=bash.path), vector, tmp_path
    )
    args = [item.replace(vectors.MANIFEST_PLACEHOLDER, os.fsencode(path)) for item in vector.materialise(tmp_path)]
    if not args:
        assert (result.returncode, result.stdout, result.stderr.count(b"\n")) == (2, b"", 1)
        return
    env = {**os.environ, **vector.env}
    parsed = subprocess.run([bash.path, str(BASH_PARSE), *args[1:]], input=vector.stdin, capture_output=True, env=env)
    expected = parsed.stdout[:-2] + b', "notes": []}\n' if parsed.stdout else b""
    assert (result.returncode, result.stdout) == (parsed.returncode, expected)
    assert result.stderr.count(b"\n") == parsed.stderr.count(b"\n")


# --------------------------------------------------------------- who may write, and what persist reads (issue 16, 18)

LINE = b'{"quality_locked": true, "autonomous": false, "goal": "go", "error": null, '
LINE += b'"quality_locked_source": "flag", "autonomous_source": null}\n'
NOBODY = 65534


def _folder_others_can_enter() -> Path:
    """A fresh 0777 folder another user can reach (tmp_path may sit in 0700 folders)."""
    for base in (tempfile.gettempdir(), "/tmp", "/var/tmp"):
        folder = Path(base)
        if folder.is_dir() and all(os.stat(p).st_mode & stat.S_IXOTH for p in (folder, *folder.parents)):
            shared = Path(tempfile.mkdtemp(prefix="sage-flags-persist-", dir=folder))
            shared.chmod(0o777)  # the directory is writable: only the file's own bits may refuse
            return shared
    pytest.skip("no temp folder other users can enter")


def _as_nobody_commands(shared: Path) -> Dict[str, List[str]]:
    """persist as uid 65534 through the pure-Python layer, from a copy it can read."""
    setpriv = shutil.which("setpriv")
    if os.name != "posix" or os.geteuid() != 0 or setpriv is None:
        pytest.skip("needs root and setpriv to run as another user")
    drop = [setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    shutil.copytree(FLAG_PARSER_DIR, shared / "flag_parser")
    shutil.copytree(Path(manifest.__file__).parent, shared / "python" / "sage_flags")
    commands = {}
    python = shutil.which("python3", path="/usr/bin:/bin")
    if python:  # the venv's interpreter may live in root's 0700 home
        commands["python"] = [*drop, "env", f"PYTHONPATH={shared / 'python'}", python, "-m", "sage_flags", "persist"]
    for tree in (shared / "flag_parser", shared / "python"):
        for path in [tree, *tree.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
    return commands


def test_read_only_manifest_refused_for_other_users() -> None:
    """Issue 18: a user who cannot write the file itself (0444, in a directory it may write) gets status 3,
    the line on stdout, one stderr line, and the file byte-identical with its bits; 0644 is written (the
    control). Root is what the kernel lets write anything: vector persist-read-only-file-as-root-rewritten."""
    shared = _folder_others_can_enter()
    try:
        commands = _as_nobody_commands(shared)
        assert commands, "no layer to run as another user"
        before = b"---\nflags:\n  autonomous: true\n---\nbody\n"
        for name, argv in commands.items():
            path = shared / f"{name}.md"
            path.write_bytes(before)
            os.chown(path, NOBODY, NOBODY)
            for bits, status in ((0o444, 3), (0o644, 0)):
                path.write_bytes(before)
                path.chmod(bits)
                result = subprocess.run([*argv, str(path)], input=LINE, capture_output=True, timeout=60)
                where = f"{name} {bits:o}"
                assert (result.returncode, result.stdout) == (status, LINE), (where, result.stderr)
                assert result.stderr.count(b"\n") == (1 if status else 0), (where, result.stderr)
                after = b"---\nflags:\n  autonomous: false\n  quality_locked: true\n---\nbody\n"
                assert path.read_bytes() == (before if status else after), where
                assert stat.S_IMODE(path.stat().st_mode) == bits, where
            assert sorted(p.name for p in shared.glob("*.sage-flags-tmp.*")) == [], name
    finally:
        shutil.rmtree(shared)


@pytest.mark.parametrize("layer", fuzz_layers("persist"), ids=lambda layer: layer.name)
def test_root_keeps_the_owner_of_a_rewritten_manifest(layer: Layer, tmp_path: Path) -> None:
    """P6: root rewriting another user's manifest gives it back to that owner and group (and the bits,
    set after the chown, which would clear set-id bits)."""
    if os.name != "posix" or os.geteuid() != 0:
        pytest.skip("needs root")
    path = tmp_path / "manifest.md"
    path.write_bytes(b"body\n")
    os.chown(path, NOBODY, NOBODY + 1)
    path.chmod(0o2640)
    result = layer.run("persist", [os.fsencode(path)], stdin=LINE)
    assert (result.returncode, result.stderr) == (0, b"")
    info = path.stat()
    assert (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (NOBODY, NOBODY + 1, 0o2640)
    assert path.read_bytes().endswith(b"---\nbody\n")


@pytest.mark.parametrize("layer", fuzz_layers("persist"), ids=lambda layer: layer.name)
def test_symlinked_directory_on_the_path_is_followed(layer: Layer, tmp_path: Path) -> None:
    """P6: only the last component must not be a link; a linked directory (.sage -> elsewhere) is where the
    caller chose to keep manifests, and the rename replaces an entry there, never writing through a link."""
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "linked").symlink_to("real")
    (real / "manifest.md").write_bytes(b"body\n")
    result = layer.run("persist", [os.fsencode(tmp_path / "linked" / "manifest.md")], stdin=LINE)
    assert (result.returncode, result.stderr) == (0, b"")
    assert (real / "manifest.md").read_bytes().endswith(b"---\nbody\n")
    assert sorted(p.name for p in real.iterdir()) == ["manifest.md"]


@pytest.mark.parametrize("layer", fuzz_layers("persist"), ids=lambda layer: layer.name)
def test_endless_stdin_is_bounded(layer: Layer, tmp_path: Path) -> None:
    """P1: `yes | tr -d '\\n' | persist m.md` ends with status 2, nothing written, having read at most
    MAX_LINE_BYTES + 1 bytes (the writer then gets SIGPIPE); a line of exactly the bound is accepted."""
    path = tmp_path / "manifest.md"
    path.write_bytes(b"body\n")
    env = {**os.environ, **layer.env}
    proc = subprocess.Popen(
        layer.argv("persist", [os.fsencode(path)]),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    written = 0
    try:
        while written < 64 * manifest.MAX_LINE_BYTES:
            proc.stdin.write(b"y" * 65536)
            written += 65536
    except BrokenPipeError:
        pass
    stdout, stderr = proc.communicate(timeout=60)
    assert written < 64 * manifest.MAX_LINE_BYTES, "persist kept reading"
    assert (proc.returncode, stdout, stderr.count(b"\n")) == (2, b"", 1)
    assert path.read_bytes() == b"body\n"
    prefix = parse_line(["--autonomous", ""])
    longest = parse_line(["--autonomous", "g" * (manifest.MAX_LINE_BYTES - len(prefix))])
    assert len(longest) == manifest.MAX_LINE_BYTES
    too_long = parse_line(["--autonomous", "g" * (manifest.MAX_LINE_BYTES - len(prefix) + 1)])
    for line, status in ((longest, 0), (too_long, 2)):
        result = layer.run("persist", [os.fsencode(path)], stdin=line, timeout=120)
        assert (result.returncode, result.stdout) == (status, line if status == 0 else b""), result.stderr


# --------------------------------------------------------------- the YAML oracle (issue 18)


def test_yaml_oracle_holds_on_every_vector() -> None:
    """SPEC P9, R1: PyYAML reads every persist vector's result as the old mapping with exactly the persisted
    entries under flags (body byte-identical), and agrees with every mode a resume vector restores. Every
    layer gives exactly the vector's bytes (test_persist_vector, test_resume_vector), so this holds for all."""
    checked = {"persist": 0, "resume": 0}
    for vector in manifest_vectors("persist") + manifest_vectors("resume"):
        spec = vector.extra["manifest"]
        if spec.get("type", "file") != "file":
            continue
        before = vectors.manifest_bytes(spec, "before")
        if vector.command == "persist" and vector.status in (0, 3):
            after = vectors.manifest_bytes(spec, "after") if "after" in spec else before
            checked["persist"] += yaml_oracle.check_persist(before, vector.stdin, vector.status, after)
        elif vector.command == "resume":
            checked["resume"] += yaml_oracle.check_resume(before, vector.stdout)
    assert checked["persist"] >= 30 and checked["resume"] >= 8, checked


@pytest.mark.parametrize(
    "frontmatter",
    [
        b"flags:\n- autonomous\n",
        b"flags:\n# c\n  autonomous: true\n",
        b"flags:\n  autonomous: yes\n    no\n",
        b"\xef\xbb\xbfflags:\n  autonomous: true\n",
    ],
)
def test_yaml_oracle_catches_the_old_bugs(frontmatter: bytes) -> None:
    """The oracle fails on what persist wrote before issue 18 (so it can fail), and before issue 40 (a second
    `flags` key after a first one behind a BOM, which a loader reads as one: the last)."""
    before = b"---\n" + frontmatter + b"---\n"
    old_answer = {
        b"flags:\n- autonomous\n": b"---\nflags:\n  quality_locked: true\n  autonomous: false\n- autonomous\n---\n",
        b"flags:\n# c\n  autonomous: true\n": b"---\nflags:\n  quality_locked: true\n  autonomous: false\n# c\n"
        b"  autonomous: true\n---\n",
        b"flags:\n  autonomous: yes\n    no\n": b"---\nflags:\n  autonomous: false\n    no\n"
        b"  quality_locked: true\n---\n",
        b"\xef\xbb\xbfflags:\n  autonomous: true\n": b"---\n\xef\xbb\xbfflags:\n  autonomous: true\nflags:\n"
        b"  quality_locked: true\n  autonomous: false\n---\n",
    }[frontmatter]
    with pytest.raises(AssertionError):
        yaml_oracle.check_persist(before, LINE, 0, old_answer)


@settings(max_examples=500, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
@given(before=manifests(), args=FLAG_ARGS, resume_args=FLAG_ARGS)
def test_fuzz_yaml_oracle_in_process(before: Optional[bytes], args: List[str], resume_args: List[str]) -> None:
    """The oracle on many more manifests than the layers can run (the layers give the reference's bytes:
    test_fuzz_persist_then_resume_agree_everywhere): persist, resume, persist again."""
    line = parse_line([*args, "goal"])
    values, has_error = manifest.contract_values(line)
    if has_error:
        return
    try:
        after = manifest.updated_manifest(before, values)
        status = 0
    except manifest.UnsafeManifest:
        after, status = before, 3
    counts = [yaml_oracle.check_persist(before, line, status, after)]
    if status == 0:
        result = reference.parse(" ".join(resume_args))
        resumed = manifest._render(manifest.resume_fields(result, manifest.recorded_values(after))) + "\n"
        counts.append(yaml_oracle.check_resume(after, resumed.encode("utf-8")))
    if before is not None:  # resume on the generated manifest itself, whatever persist made of it
        result = reference.parse(" ".join(resume_args))
        resumed = manifest._render(manifest.resume_fields(result, manifest.recorded_values(before))) + "\n"
        counts.append(yaml_oracle.check_resume(before, resumed.encode("utf-8")))


# --------------------------------------------------------------- Sage's own manifests (issue 33)


@pytest.fixture(scope="module")
def sage_release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not sage_manifests.TARBALL.is_file():
        pytest.skip(missing("Sage 1.3.21's release tarball", f"{sage_manifests.TARBALL} runs Sage's own writers"))
    return sage_manifests.extract(sage_manifests.TARBALL, tmp_path_factory.mktemp("sage"))


@pytest.mark.parametrize("layer", fuzz_layers("persist"), ids=lambda layer: layer.name)
@pytest.mark.parametrize("name", sage_manifests.NAMES)
def test_sage_writers_manifests(sage_release: Path, name: str, layer: Layer, tmp_path: Path) -> None:
    """P11: on the cycle manifest of Sage's template and on those Sage's ledger, scope and graph writers leave
    (a plan title with a colon, globs YAML reads as aliases: front matters YAML rejects), persist records the
    modes in the flags block alone (Sage 1.3's `subagents` entry kept), resume restores them, and Sage's own
    `manifest.py check` passes before and after."""
    path = sage_manifests.write_manifests(sage_release, tmp_path)[name]
    assert sage_manifests.check(sage_release, path).returncode == 0
    before = path.read_bytes()
    line = parse_line(["--quality-locked", "--autonomous", "go"])
    done = layer.run("persist", [os.fsencode(path)], stdin=line)
    assert (done.returncode, done.stdout, done.stderr) == (0, line, b"")
    after = path.read_bytes()
    flags_before = b"flags:\n  quality_locked: false        # resolved value (flag or config-default)\n"
    flags_before += b"  autonomous: false            # resolved value (flag or config-default)\n"
    assert flags_before in before
    assert after == before.replace(flags_before, flags_before.replace(b": false", b": true"))
    assert yaml_oracle.check_persist(before, line, 0, after)
    check = sage_manifests.check(sage_release, path)
    assert check.returncode == 0, check.stdout + check.stderr
    resumed = layer.run("resume", [os.fsencode(path), "go"])
    fields = json.loads(resumed.stdout)
    assert resumed.returncode == 0 and resumed.stderr == b""
    assert [fields[k] for k in MODE_KEYS] == [True, True]
    assert [fields[k + "_source"] for k in MODE_KEYS] == ["manifest", "manifest"]
    yaml_oracle.check_resume(after, resumed.stdout)


YAML_SCALARS = ["true", "True", "TRUE", "yes", "Yes", "on", "ON", "off", "no", "NO", "false", "tRue", "y", "n"]
YAML_SCALARS += ["1", "0", "~", "null", "'true'", '"yes"', "0x1f", "017", "09", "1_000", "1:30", "-0b1_0", "+3"]
YAML_SCALARS += ["_1", "1e3", "0x", "0_"]


@pytest.mark.parametrize("token", YAML_SCALARS)
def test_values_are_read_as_yaml_reads_them(token: str) -> None:
    """R1, P11.3: a mode is restored exactly when PyYAML reads a boolean there, with its value; a number is
    the int PyYAML reads (the value modes' numbers, in the vocabularies that have them)."""
    before = b"---\nflags:\n  quality_locked: " + token.encode() + b"\n---\n"
    held = yaml_oracle.load(yaml_oracle.split(before)[0])["flags"]["quality_locked"]
    fields = manifest.resume_fields(reference.parse("go"), manifest.recorded_values(before))
    resumed = (manifest._render(fields) + "\n").encode()
    restored = json.loads(resumed)["quality_locked_source"] == "manifest"
    assert restored == (type(held) is bool)
    assert yaml_oracle.check_resume(before, resumed) == restored
    assert manifest._yaml_int(token.encode()) == (held if type(held) is int else None)


@pytest.mark.parametrize("layer", fuzz_layers("persist"), ids=lambda layer: layer.name)
def test_a_link_planted_as_the_temp_file_is_never_written_through(layer: Layer, tmp_path: Path) -> None:
    """P6, issue 33 defect 1: in a shared folder, a link another user puts where persist's temp file goes
    (`.manifest.md.sage-flags-tmp.<pid>`, for the pids persist may get) leads to a file persist never writes;
    the manifest itself is written."""
    victim = tmp_path / "victim"
    victim.write_bytes(b"the victim's own bytes\n")
    path = tmp_path / "work" / "manifest.md"
    path.parent.mkdir()
    path.write_bytes(b"---\nflags:\n  autonomous: false\n---\n")
    for pid in [os.getpid(), *range(os.getpid() + 1, os.getpid() + 64)]:
        (path.parent / f".manifest.md.sage-flags-tmp.{pid}").symlink_to(victim)
    line = parse_line(["--autonomous", "go"])
    done = layer.run("persist", [os.fsencode(path)], stdin=line)
    assert (done.returncode, done.stdout, done.stderr) == (0, line, b"")
    assert path.read_bytes() == b"---\nflags:\n  autonomous: true\n  quality_locked: false\n---\n"
    assert victim.read_bytes() == b"the victim's own bytes\n"
    manifest.persist(os.fsencode(path), {"quality_locked": True, "autonomous": False})  # this process's pid
    assert victim.read_bytes() == b"the victim's own bytes\n"
    assert path.read_bytes() == b"---\nflags:\n  autonomous: false\n  quality_locked: true\n---\n"


# --------------------------------------------------------------- a BOM inside the front matter (issue 40)
#
# SPEC P11.5. Through the entries persist and resume run in: the console script with each backend, the native
# executable (it hands both to the Python of its installation, D27: here a venv whose site directory names this
# checkout's python/), and the bundle's launcher (the system's python3 importing the bundle's package).

BOM = b"\xef\xbb\xbf"
BOM_ENTRIES = ["cli-pure", "cli-native", "exe", "launcher"]
LAUNCHER = vendored_bundle() / "sage" / "bin" / "sage-flags"  # the bundle's launcher runs its own package (L1)


@pytest.fixture(scope="module", params=BOM_ENTRIES)
def persist_entry(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Layer:
    """One real entry of persist and resume."""
    name = request.param
    if name.startswith("cli-"):
        found = [layer for layer in available_layers("persist") if layer.name == name]
        if not found:
            pytest.skip(missing("the native core", "not built: no cli-native layer"))
        return found[0]
    if name == "exe":
        bin_dir = fresh_venv(tmp_path_factory.mktemp("exe") / "venv")
        (site,) = bin_dir.parent.glob("lib/python*/site-packages")
        (site / "sage_flags_checkout.pth").write_text(str(ROOT / "python") + "\n")
        shutil.copy(NATIVE_EXE, bin_dir / "sage-flags")
        program = str(bin_dir / "sage-flags")
        return Layer(name, {c: [program, c] for c in ("persist", "resume")}, clean_env())
    env = clean_env(PATH="/usr/bin:/bin")
    which = subprocess.run(["/bin/sh", str(LAUNCHER), "--which"], capture_output=True, env=env, timeout=60)
    if not which.stdout.startswith(b"python3:"):  # its bash port records nothing (P12): no test of P11 there
        pytest.skip(missing("python3", "no python3 in /usr/bin or /bin for the launcher's Python"))
    return Layer(name, {c: ["/bin/sh", str(LAUNCHER), c] for c in ("persist", "resume")}, env)


# A BOM in a key, where YAML readers disagree on the key it makes (P11.5): each was written to (status 0) before.
BOM_IN_A_KEY = {
    "first-key-line": b"---\n" + BOM + b"flags:\n  quality_locked: true\n---\nbody\n",
    "first-key-line-after-a-leading-bom": BOM + b"---\n" + BOM + b"flags:\n  quality_locked: true\n---\n",
    "first-key-line-crlf": b"---\r\n" + BOM + b"flags:\r\n  quality_locked: true\r\n---\r\n",
    "later-key-line": b"---\ntitle: t\n" + BOM + b"flags:\n  quality_locked: true\n---\n",
    "entry-line": b"---\nflags:\n  quality_locked: true\n  " + BOM + b"autonomous: true\n---\n",
    "other-key-line": b"---\nflags:\n  quality_locked: true\n" + BOM + b"title: t\n---\n",
    "end-of-key": b"---\nflags" + BOM + b":\n  quality_locked: true\n---\n",
}


@pytest.mark.parametrize("name", sorted(BOM_IN_A_KEY))
def test_a_bom_in_a_key_is_refused(persist_entry: Layer, name: str, tmp_path: Path) -> None:
    """P11.5, issue 40: persist refuses (status 3, the line on stdout, one stderr line naming the BOM, the file
    byte for byte) where it wrote a second `flags:` block or an entry beside a BOM'd one; resume then restores
    nothing (R2), not even an entry before the BOM."""
    path = tmp_path / "manifest.md"
    before = BOM_IN_A_KEY[name]
    path.write_bytes(before)
    line = parse_line(["--autonomous", "go"])
    done = persist_entry.run("persist", [os.fsencode(path)], stdin=line)
    assert (done.returncode, done.stdout, path.read_bytes()) == (3, line, before), done.stderr
    assert done.stderr.count(b"\n") == 1 and b"BOM (U+FEFF)" in done.stderr, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["manifest.md"]
    resumed = persist_entry.run("resume", [os.fsencode(path), b"go"])
    assert (resumed.returncode, resumed.stderr) == (0, b""), resumed.stderr
    assert json.loads(resumed.stdout)["quality_locked_source"] is None, resumed.stdout


def test_a_bom_outside_keys_is_kept(persist_entry: Layer, tmp_path: Path) -> None:
    """P3, P5, P11.5: the file's leading BOM, and one in a value (a plan title copied from a file that began with
    one), a comment or a block scalar's text, is in no key: the front matter is edited (only the flags entries
    change) and resume reads it."""
    path = tmp_path / "manifest.md"
    before = BOM + b"---\ntitle: " + BOM + b"Plan\n# " + BOM + b"\nnote: |\n  " + BOM + b"text\n"
    before += b"flags:\n  quality_locked: true\n---\n"
    path.write_bytes(before)
    line = parse_line(["--autonomous", "go"])
    done = persist_entry.run("persist", [os.fsencode(path)], stdin=line)
    assert (done.returncode, done.stdout, done.stderr) == (0, line, b"")
    assert path.read_bytes() == before.replace(b"true\n---", b"false\n  autonomous: true\n---")
    assert yaml_oracle.check_persist(before, line, 0, path.read_bytes())
    resumed = persist_entry.run("resume", [os.fsencode(path), b"go"])
    assert json.loads(resumed.stdout)["autonomous_source"] == "manifest", resumed.stdout
