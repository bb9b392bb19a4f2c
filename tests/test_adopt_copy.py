"""The self-contained skill folder `sage-flags adopt` writes (issues 42 and 43; docs/SPEC.md N2, N6, N13): the
runtime copy beside the wrapper, the wrapper's one chooser (an installed sage-flags of its version, else python3
with the copy, else bash with the copy's port; `hook` with none: one notice), its version notice, the project's
root and release read as adopt reads them, and adopt recognising a Sage project by Sage's own files only.
Through the installed command and the registered hook command, under dash and bash. tests/e2e/test_adopt_sage.py
does the same in projects Sage's own installer made, with `sage update`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict

import interpreters
import pytest
from artifacts import lay_bundle
from sage_flags import __version__ as VERSION
from sage_flags.adopt import SKILL_DIR, claude_command
from sage_flags.hook_commands import codex_hook_command
from test_adopt import (
    EVENT,
    SAGE_FLAGS,
    SHELLS,
    WRAPPER,
    adopt,
    bare_bin,
    codex_event,
    codex_run,
    fake_program,
    hook_run,
    sage_project,
    system_message,
    system_path,
)

from parity.layers import ROOT

PACKAGE = ROOT / "python" / "sage_flags"
COPY = SKILL_DIR + "/scripts/sage_flags"
SHIP_IT = "--subagents --parallel=3 Ship it!"
NEWER = ".".join([*VERSION.split(".")[:-1], str(int(VERSION.split(".")[-1]) + 1)])  # the next patch release


def build_event(args: str) -> dict:
    return dict(EVENT, command_args=args, prompt="/build " + args)


def installed_answer(vocabulary: str, event: dict, config: Path, harness: str = "claude-code") -> dict:
    """What the installed sage-flags answers (the wrapper adds N10's facts to its context)."""
    argv = [str(SAGE_FLAGS), "--vocabulary", vocabulary, "hook", harness, "--config-path", str(config)]
    done = subprocess.run(argv, input=json.dumps(event), capture_output=True, text=True)
    assert done.returncode == 0, done
    return json.loads(done.stdout)


def without_facts(answer: dict) -> dict:
    """ANSWER with N10's facts taken off its context (the rest is the program's, byte for byte)."""
    answer = json.loads(json.dumps(answer))
    output = answer.get("hookSpecificOutput", {})
    if "additionalContext" in output:
        context, facts = output["additionalContext"].split("This is the result of the workflow's own", 1)
        assert "computed by sage-flags (vocabulary " in facts and facts.endswith("do not announce again.\n"), facts
        output["additionalContext"] = context
    return answer


def package_files() -> Dict[str, bytes]:
    """The runtime copy as the issue names it, from the package folder: its .py files and its data folders' files;
    never the compiled core, __pycache__ or bytecode (this checkout's folder holds all three)."""
    found = {}
    for path in PACKAGE.rglob("*"):
        rel = path.relative_to(PACKAGE)
        if not path.is_file() or "__pycache__" in rel.parts or path.suffix in (".pyc", ".so"):
            continue
        if len(rel.parts) > 1 or path.suffix == ".py":
            found[rel.as_posix()] = path.read_bytes()
    return found


def copy_of(root: Path) -> Dict[str, bytes]:
    base = root / COPY
    return {p.relative_to(base).as_posix(): p.read_bytes() for p in base.rglob("*") if p.is_file()}


# The runtime copy


def test_adopt_writes_the_runtime_copy_and_records_every_file(tmp_path):
    """From the installed package (this checkout's, editable), and from a package folder holding the compiled
    core, bytecode and a hidden file, which the copy never takes."""
    root = sage_project(tmp_path)
    done = adopt(root)
    assert done.returncode == 0 and not done.stderr, done
    copy = copy_of(root)
    assert copy == package_files()
    assert {"cli.py", "adopt.py", "skill/vocabularies.json", "adopted/wrapper.sh"} <= set(copy)
    record = json.loads((root / SKILL_DIR / ".adopted.json").read_text())
    skill = root / SKILL_DIR
    on_disk = {p.relative_to(skill).as_posix() for p in skill.rglob("*") if p.is_file()} - {".adopted.json"}
    assert set(record["skill"]) == on_disk and {"scripts/sage_flags/cli.py", "scripts/sage-flags"} <= on_disk
    built = tmp_path / "built"
    shutil.copytree(PACKAGE, built / "sage_flags", ignore=shutil.ignore_patterns("__pycache__"))
    assert list((built / "sage_flags").glob("_native*.so")), "this checkout has no compiled core (make setup)"
    for junk in ("__pycache__/cli.cpython-311.pyc", "skill/__pycache__/x.pyc", "skill/.x.swp", "cli.pyc"):
        (built / "sage_flags" / junk).parent.mkdir(exist_ok=True)
        (built / "sage_flags" / junk).write_bytes(b"junk")
    other = sage_project(tmp_path / "other")
    assert run_package(built, other, "adopt").returncode == 0
    assert copy_of(other) == copy
    wrapper = (root / WRAPPER).read_text()
    assert "\nversion=%s\n" % VERSION in wrapper and "@" not in wrapper.split("step=")[0]
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    again = adopt(root)
    assert again.stdout.endswith("nothing to do: already adopted\n"), again
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before


def newer_package(tmp_path: Path, version: str, extra: bool = True) -> Path:
    """A copy of this package as a newer release would be: VERSION, a module fewer (explain.py), and with EXTRA a
    module and a data folder more."""
    folder = tmp_path / ("sage-flags-" + version)
    shutil.copytree(PACKAGE, folder / "sage_flags", ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyc"))
    init = folder / "sage_flags/__init__.py"
    init.write_text(init.read_text().replace('__version__ = "%s"' % VERSION, '__version__ = "%s"' % version))
    (folder / "sage_flags/explain.py").unlink()
    if extra:
        (folder / "sage_flags/_added_in_newer.py").write_text('"""A module the newer release added."""\n')
        (folder / "sage_flags/extra").mkdir()
        (folder / "sage_flags/extra/data.txt").write_text("data\n")
    return folder


def run_package(folder: Path, root: Path, *args: str) -> subprocess.CompletedProcess:
    program = "import sys; sys.path.insert(0, sys.argv.pop(1)); from sage_flags.cli import main; sys.exit(main())"
    env = {k: v for k, v in os.environ.items() if k != "SAGE_FLAGS_VOCABULARY"}
    return subprocess.run(
        [sys.executable, "-B", "-c", program, str(folder), *args], cwd=root, capture_output=True, text=True, env=env
    )


@pytest.mark.parametrize("shell", SHELLS)
def test_an_upgrade_says_so_once_and_adopt_refreshes_the_copy(tmp_path, shell):
    """The installed sage-flags newer than the copy: the copy answers, with one line more for the person (never
    for Codex); adopt again refreshes the copy (a module added, a file dropped), a second run changes nothing,
    and undo still removes all of it."""
    root = sage_project(tmp_path)
    assert adopt(root).returncode == 0
    bin_dir = tmp_path / "bin"
    fake_program(bin_dir, "exit 9\n", version=NEWER)
    event = build_event(SHIP_IT)
    config = root / ".sage/config.yaml"
    expected = installed_answer("sage-1.3.18", event, config)
    announced = expected.pop("systemMessage")
    done = hook_run(root, shell, str(bin_dir) + os.pathsep + system_path(), event)
    assert done.returncode == 0 and not done.stderr and not (bin_dir / "argv").exists(), done
    got = json.loads(done.stdout)
    message = got.pop("systemMessage")
    notice = "sage-flags: sage-flags %s is installed and this project has %s: run sage-flags adopt" % (NEWER, VERSION)
    assert message.startswith(announced + notice) and message.endswith(" to bring its copy up to date"), message
    assert without_facts(got) == expected
    # A block gets the notice as its message; Codex never gets one (its hook runs on every prompt).
    typo = json.loads(hook_run(root, shell, str(bin_dir) + os.pathsep + system_path(), build_event("--x y")).stdout)
    assert typo["decision"] == "block" and typo["systemMessage"].startswith(notice), typo
    (root / ".codex").mkdir()
    assert adopt(root).returncode == 0
    command = json.loads((root / ".codex/hooks.json").read_text())["hooks"]["UserPromptSubmit"][0]["hooks"][0]
    codex = codex_run(shell, command["command"], root, codex_event("/build x"), str(bin_dir) + ":" + system_path())
    assert codex.returncode == 0 and "is installed" not in json.loads(codex.stdout)["systemMessage"]
    # An older sage-flags on PATH: not run, no notice.
    shutil.rmtree(bin_dir)
    fake_program(bin_dir, "exit 9\n", version="0.0.1")
    older = json.loads(hook_run(root, shell, str(bin_dir) + os.pathsep + system_path(), event).stdout)
    assert without_facts(older) == dict(expected, systemMessage=announced)

    newer = newer_package(tmp_path, NEWER)
    refreshed = run_package(newer, root, "adopt")
    assert refreshed.returncode == 0 and "(4 files written, 1 removed)" in refreshed.stdout, refreshed
    copy = copy_of(root)
    assert {"_added_in_newer.py", "extra/data.txt"} <= set(copy) and "explain.py" not in copy
    assert "\nversion=%s\n" % NEWER in (root / WRAPPER).read_text()
    record = json.loads((root / SKILL_DIR / ".adopted.json").read_text())
    assert "scripts/sage_flags/_added_in_newer.py" in record["skill"]
    assert "scripts/sage_flags/explain.py" not in record["skill"]
    assert run_package(newer, root, "adopt").stdout.endswith("nothing to do: already adopted\n")
    now = json.loads(hook_run(root, shell, str(bin_dir) + os.pathsep + system_path(), event).stdout)
    assert "is installed" not in now["systemMessage"] and without_facts(now) == dict(expected, systemMessage=announced)
    # The release after drops the data folder again: its folder goes with its file.
    newest = newer_package(tmp_path, NEWER + ".1", extra=False)
    assert "(2 files written, 2 removed)" in run_package(newest, root, "adopt").stdout
    assert set(copy_of(root)) == set(copy) - {"_added_in_newer.py", "extra/data.txt"}
    assert not (root / COPY / "extra").exists()
    undone = run_package(newest, root, "adopt", "--undo")
    assert undone.returncode == 0 and "skill: %s/ removed" % SKILL_DIR in undone.stdout, undone
    assert not (root / ".claude").exists() and not (root / ".codex/hooks.json").exists()


# The chooser


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("release, vocabulary", [("1.3.21", "sage-1.3.18"), ("1.1-layout", "sage-1.1")])
def test_with_python3_alone_the_copy_answers(tmp_path, shell, release, vocabulary):
    """No sage-flags installed anywhere (issue 43): the hook and the skill's commands answer through python3 and
    the copy, as the installed program does; a teammate's clone (the project copied, nothing else) too."""
    root = sage_project(tmp_path, release)
    assert adopt(root).returncode == 0
    clone = tmp_path / "teammate" / "proj"
    shutil.copytree(root, clone, symlinks=True)
    shutil.rmtree(root)
    for args in (SHIP_IT, "--subagents x", "--autonomus x"):
        event = build_event(args)
        expected = installed_answer(vocabulary, event, clone / ".sage/config.yaml")
        done = hook_run(clone, shell, system_path(), event, claude_command(vocabulary))
        assert done.returncode == 0 and not done.stderr, done
        assert without_facts(json.loads(done.stdout)) == expected
    answer = json.loads(hook_run(clone, shell, system_path(), build_event(SHIP_IT), claude_command(vocabulary)).stdout)
    if vocabulary == "sage-1.3.18":  # issue 43's prompt: subagents and parallel on, 3 lanes
        context = answer["hookSpecificOutput"]["additionalContext"]
        assert '"subagents": true, "parallel": true' in context and '"parallel_lanes": 3' in context
    parse = subprocess.run(
        [shell, str(clone / WRAPPER), "parse", "--parallel=9 x"], capture_output=True, env={"PATH": system_path()}
    )
    own = subprocess.run([str(SAGE_FLAGS), "--vocabulary", vocabulary, "parse", "--parallel=9 x"], capture_output=True)
    assert (parse.returncode, parse.stdout, parse.stderr) == (own.returncode, own.stdout, own.stderr)
    assert not list(clone.rglob("__pycache__")), "python3 wrote bytecode into the project"


@pytest.mark.parametrize("shell", SHELLS)
def test_an_installed_sage_flags_of_the_wrappers_version_runs_and_no_other(tmp_path, shell):
    root = sage_project(tmp_path)
    assert adopt(root).returncode == 0
    for version, runs in ((VERSION, True), ("0.0.9", False), (VERSION + "rc1", False), ("", False)):
        bin_dir = tmp_path / ("bin" + version)
        fake_program(bin_dir, "printf '%s\\n' '{\"systemMessage\": \"ok\"}'\n", version=version)
        done = hook_run(root, shell, str(bin_dir) + os.pathsep + system_path())
        assert done.returncode == 0 and not done.stderr, done
        assert (bin_dir / "argv").exists() == runs and (system_message(done) == "ok") == runs, (version, done)
        if runs:
            config = str(root / ".sage/config.yaml")
            argv = ["--vocabulary", "sage-1.3.18", "hook", "claude-code", "--config-path", config]
            assert (bin_dir / "argv").read_text().splitlines() == argv
    # A sage-flags on PATH that is this very wrapper (its folder on PATH) is asked once, never again: no loop.
    scripts = root / SKILL_DIR / "scripts"
    looped = subprocess.run(
        [shell, str(scripts / "sage-flags"), "parse", "x"],
        capture_output=True,
        env={"PATH": str(scripts) + os.pathsep + system_path()},
        timeout=60,
    )
    assert looped.returncode == 0 and json.loads(looped.stdout)["goal"] == "x", looped


@pytest.mark.parametrize("shell", SHELLS)
def test_with_neither_python3_nor_sage_flags(tmp_path, shell):
    """K11: the hook gives one notice and status 0 (never a block), Codex nothing; parse, batch and announce run
    through the copy's bash port with the wrapper's vocabulary; anything else is one stderr line, status 3."""
    root = sage_project(tmp_path)
    (root / ".codex").mkdir()
    assert adopt(root).returncode == 0
    bare = bare_bin(tmp_path, shell, "sh", "cksum", "bash")
    for args in ("--autonomus x", SHIP_IT):
        message = system_message(hook_run(root, shell, bare, build_event(args)))
        assert message.startswith("sage-flags: cannot answer here: no sage-flags %s on PATH" % VERSION), message
    command = codex_hook_command("sage-1.3.18", adopted=True)
    codex = codex_run(shell, command, root, codex_event("/build --autonomus x"), bare)
    assert (codex.returncode, codex.stdout, codex.stderr) == (0, "", "")
    env = {"PATH": bare}
    for argv in (["parse", "--parallel=9 x"], ["announce", "build", "--subagents x"]):
        done = subprocess.run([shell, str(root / WRAPPER), *argv], capture_output=True, env=env)
        own = subprocess.run([str(SAGE_FLAGS), "--vocabulary", "sage-1.3.18", *argv], capture_output=True)
        assert (done.returncode, done.stdout, done.stderr) == (own.returncode, own.stdout, own.stderr), argv
    records = b"--parallel x\0y"
    batch = subprocess.run([shell, str(root / WRAPPER), "batch"], input=records, capture_output=True, env=env)
    own = subprocess.run([str(SAGE_FLAGS), "--vocabulary", "sage-1.3.18", "batch"], input=records, capture_output=True)
    assert (batch.returncode, batch.stdout) == (own.returncode, own.stdout) and batch.stdout.count(b"\n") == 2
    other = subprocess.run([shell, str(root / WRAPPER), "config", "explain", "x"], capture_output=True, env=env)
    assert other.returncode == 3 and other.stderr.count(b"\n") == 1 and not other.stdout, other


# The root and the release, read as adopt reads them


@pytest.mark.parametrize("shell", SHELLS)
def test_a_project_folder_whose_name_ends_in_a_newline(tmp_path, shell):
    """Issue 42: `$(cd ...; pwd)` drops the newline, so the wrapper took the sibling folder `proj` for the root
    (another release there: a notice and no answer). Through the hook's absolute path and a relative one."""
    sibling = sage_project(tmp_path / "a", "1.4.0")
    root = sibling.parent / "proj\n"
    sibling.rename(root)
    (root / "sage/VERSION").write_text("1.3.21\n")
    sage_project(tmp_path / "a", "1.1.5")  # the sibling `proj`, another Sage
    assert adopt(root).returncode == 0
    event = build_event(SHIP_IT)
    done = hook_run(root, shell, system_path(), event)
    assert done.returncode == 0 and not done.stderr, done
    assert without_facts(json.loads(done.stdout)) == installed_answer("sage-1.3.18", event, root / ".sage/config.yaml")
    relative = subprocess.run(
        [shell, "scripts/sage-flags", "parse", SHIP_IT],
        capture_output=True,
        text=True,
        env={"PATH": system_path()},
        cwd=root / SKILL_DIR,
    )
    assert relative.returncode == 0 and '"parallel_lanes": 3' in relative.stdout, relative


@pytest.mark.parametrize("shell", SHELLS)
def test_sage_versions_first_line_is_read_once_one_way(tmp_path, shell):
    """Issue 42: adopt read 4,096 bytes and the wrapper the whole line, so a long first line was adopted and
    never ran. Now adopt reads the first line within the first 256 bytes: longer, it refuses (nothing written);
    shorter, blanks and NUL bytes around, it takes the release; the wrapper reads none (it watches the parser)."""
    root = sage_project(tmp_path)
    (root / "sage/VERSION").write_bytes(b"1.3.21" + b" " * 5000 + b"x\n")
    refused = adopt(root)
    assert refused.returncode == 3 and refused.stderr.count("\n") == 1 and not refused.stdout, refused
    assert "sage/VERSION's first line is 256 bytes or longer" in refused.stderr
    assert not (root / ".claude").exists()
    (root / "sage/VERSION").write_bytes(b" \t1.3.\x0021" + b" " * 240 + b"\n" + b"x" * 5000)
    done = adopt(root)
    assert done.returncode == 0 and "Sage 1.3.21, vocabulary sage-1.3.18" in done.stdout, done
    event = build_event(SHIP_IT)
    answered = hook_run(root, shell, system_path(), event)
    assert "hookSpecificOutput" in json.loads(answered.stdout), answered
    for long_line in (b"1.3.21" + b" " * 250 + b"\n", b"1.3.21" + b" " * 5000 + b"x\n", b"1.3.21" + b" " * 300):
        (root / "sage/VERSION").write_bytes(long_line)
        assert adopt(root).returncode == 3
        # The wrapper reads no release: it watches the parser (issue 44, N6.4), so it still answers.
        assert "hookSpecificOutput" in json.loads(hook_run(root, shell, system_path(), event).stdout)


# A Sage project is recognised by Sage's own files


@pytest.mark.parametrize("entry", ["installed", "vendored"])
def test_a_folder_with_only_the_bundles_files_is_no_sage_project(tmp_path, entry):
    """Issue 43: the bundle lays down sage/core/flag_parser/ (and sage/bin/); unpacked in a folder with no Sage,
    that was taken for a Sage 1.1 layout and adopted. Refused now: status 3, one line, nothing written."""
    folder = lay_bundle(tmp_path / "not-sage")
    assert (folder / "sage/core/flag_parser/__init__.py").is_file() and (folder / "sage/bin/sage-flags").is_file()
    before = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))
    argv = [str(SAGE_FLAGS)] if entry == "installed" else ["sh", str(folder / "sage/bin/sage-flags")]
    env = dict(os.environ, PATH=os.environ["PATH"] if entry == "installed" else system_path())
    done = subprocess.run([*argv, "adopt"], cwd=folder, capture_output=True, text=True, env=env)
    assert done.returncode == 3 and not done.stdout and done.stderr.count("\n") == 1, done
    assert done.stderr.startswith("sage-flags: adopt: no Sage project here"), done
    assert not (folder / ".claude").exists()
    assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*")) == before
    # Sage 1.1's own files make it one (the bundle's files beside them change nothing).
    (folder / "sage/core/workflows").mkdir()
    (folder / "sage/core/registry.yaml").write_text("workflows: {}\n")
    adopted = subprocess.run([*argv, "adopt"], cwd=folder, capture_output=True, text=True, env=env)
    assert adopted.returncode == 0 and "a Sage 1.1 project (no sage/VERSION), vocabulary sage-1.1" in adopted.stdout
    assert copy_of(folder) == package_files()  # from the vendored package when that is what runs


@pytest.mark.parametrize("version", interpreters.TOO_OLD)
def test_a_python3_older_than_3_8_passes_to_the_bash_port(tmp_path, version):
    """N6.2: the copy needs Python 3.8; an older python3 exits 97 having read nothing, and the wrapper goes on: parse
    through the copy's bash port (the same bytes, stdin unread until then), the hook with its one notice."""
    found = interpreters.find(version)
    if found is None:
        pytest.skip("Python %s not found (%s)" % (version, interpreters.where_looked(version)))
    root = sage_project(tmp_path)
    assert adopt(root).returncode == 0
    bare = Path(bare_bin(tmp_path, "sh", "cksum", "bash"))
    (bare / "python3").symlink_to(found[0])
    env = {"PATH": str(bare)}
    done = subprocess.run(
        ["sh", str(root / WRAPPER), "parse", "--stdin"], input=b"--parallel=3 x", capture_output=True, env=env
    )
    own = subprocess.run(
        [str(SAGE_FLAGS), "--vocabulary", "sage-1.3.18", "parse", "--stdin"],
        input=b"--parallel=3 x",
        capture_output=True,
    )
    assert (done.returncode, done.stdout, done.stderr) == (own.returncode, own.stdout, own.stderr)
    message = system_message(hook_run(root, "sh", str(bare), build_event(SHIP_IT)))
    assert message.startswith(
        "sage-flags: cannot answer here: no sage-flags %s on PATH and no python3 (3.8+)" % VERSION
    )
