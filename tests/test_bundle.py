"""The vendorable bundle (`make bundle`): ONE archive, dist/sage-flags-X.Y.Z.tar.gz, for every Sage release
(docs/SPEC.md B7): the launcher, the drop-in's modules with parse.sh, and the pure package in _vendor/.

It is unpacked into an empty folder, with every installed sage_flags out of reach (python3 is a fresh venv
that holds nothing, no PYTHONPATH), and every vector runs through each entry it offers: the compat entry
`python3 -m core.flag_parser` (from sage/), the launcher (its Python, then with no python3 its bash) and the bash
scripts themselves.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path
from typing import Dict, List, Set

import interpreters
import pytest
from artifacts import (
    VERSION,
    Artifacts,
    CleanLayer,
    artifacts,
    clean_env,
    entry,
    fresh_venv,
    package_sources,
    vector_failures,
)

from parity import tiers
from parity.layers import BASH_COMMANDS, COMMANDS, ROOT

sys.path.insert(0, str(ROOT / "tools"))
import build_bundle

VENDOR = "sage/core/flag_parser/_vendor/sage_flags/"


@pytest.fixture(scope="module")
def built() -> Artifacts:
    return artifacts()


@pytest.fixture(scope="module")
def project(built: Artifacts, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An empty folder with the bundle unpacked into it, as a Sage project vendors it."""
    where = tmp_path_factory.mktemp("project")
    with tarfile.open(built.bundle) as archive:
        archive.extractall(where, filter="data")
    return where


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bin/ of a venv with nothing installed: python3 and no sage_flags anywhere it looks."""
    bin_dir = fresh_venv(tmp_path_factory.mktemp("bare") / "venv")
    done = subprocess.run(
        [str(bin_dir / "python3"), "-c", "import sage_flags"], capture_output=True, env=clean_env(), cwd=bin_dir
    )
    assert done.returncode == 1 and b"No module named 'sage_flags'" in done.stderr, "sage_flags is not hidden"
    return bin_dir


def sandbox_path(where: Path, names: Dict[str, str]) -> str:
    """A directory holding exactly these programs (name -> real path), as a PATH entry."""
    where.mkdir()
    for name, target in names.items():
        (where / name).symlink_to(target)
    return str(where)


def tool(name: str) -> str:
    found = shutil.which(name)
    assert found, f"{name} is needed by this test"
    return os.path.realpath(found)


def which(launcher: CleanLayer) -> str:
    """What ``launcher --which`` prints (status 0, nothing on stderr)."""
    program = launcher.commands["parse"][0]
    done = subprocess.run([program, "--which"], capture_output=True, text=True, env=clean_env(**launcher.env))
    assert (done.returncode, done.stderr) == (0, "")
    return done.stdout


def test_bundle_holds_sage_and_the_pure_package(built: Artifacts) -> None:
    with tarfile.open(built.bundle) as archive:
        members = {m.name: m for m in archive.getmembers()}
        files = {name: archive.extractfile(m).read() for name, m in members.items() if m.isfile()}
    sage_dir = [p for p in (ROOT / "sage").rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    repository = {p.relative_to(ROOT).as_posix(): p for p in sage_dir}
    vendored = {name: data for name, data in files.items() if name.startswith(VENDOR)}
    others = {name: data for name, data in files.items() if name not in vendored}
    # The launcher and the drop-in's modules as in the repository; parse.sh and preamble.sh, copies of the
    # package's bash port (B7); nothing else.
    scripts = {f"sage/core/flag_parser/{name}": name for name in ("parse.sh", "preamble.sh")}
    assert sorted(repository) == [
        "sage/bin/sage-flags",
        *(f"sage/core/flag_parser/{name}.py" for name in ("__init__", "__main__", "config_loader", "parser")),
    ]
    port = ROOT / "python" / "sage_flags" / "bash"
    assert others == {
        **{name: path.read_bytes() for name, path in repository.items()},
        **{member: (port / name).read_bytes() for member, name in scripts.items()},
    }
    assert built.bundle.name == f"sage-flags-{VERSION}.tar.gz"
    # The pure package: python/sage_flags, exactly the files pip installs from the pure wheel.
    assert {"sage_flags/" + name[len(VENDOR) :]: data for name, data in vendored.items()} == package_sources()
    with zipfile.ZipFile(built.pure_wheel) as wheel:
        assert {"sage_flags/" + n[len(VENDOR) :] for n in vendored} == {
            n for n in wheel.namelist() if n.startswith("sage_flags/")
        }
    for name, member in members.items():
        executable = member.isdir() or (name in repository and os.access(repository[name], os.X_OK))
        assert stat.S_IMODE(member.mode) == (0o755 if executable else 0o644), name
        assert (member.uid, member.gid, member.mtime) == (0, 0, members[VENDOR + "cli.py"].mtime), name
    assert members["sage/bin/sage-flags"].mode & 0o111


def test_bundle_files_lists_exactly_what_the_bundle_holds(built: Artifacts) -> None:
    """tools/build_bundle.py's bundle_files with python/sage_flags's files as the vendored package (what
    tests/artifacts.py's lay_bundle writes, without `make dist`) is the archive, byte for byte."""
    with tarfile.open(built.bundle) as archive:
        held = {m.name: (archive.extractfile(m).read(), bool(m.mode & 0o111)) for m in archive.getmembers()}
    vendored = [(build_bundle.VENDOR + "/" + name, data, False) for name, data in package_sources().items()]
    assert build_bundle.bundle_files(vendored) == held


@pytest.mark.parametrize("part", tiers.PARTS)  # the cover in make test, the rest in make test-full
def test_compat_entry_runs_every_vector_on_python_alone(
    project: Path, bare_python: Path, part: str, tmp_path: Path
) -> None:
    compat = entry("bundle-compat", [str(bare_python / "python3"), "-m", "core.flag_parser"], cwd=project / "sage")
    assert not vector_failures(compat, tmp_path, part)


def test_compat_entry_keeps_the_predecessor_api(project: Path, bare_python: Path) -> None:
    code = (
        "from core.flag_parser.parser import parse\n"
        "import sage_flags\n"
        "print(sage_flags.BACKEND, sage_flags.__file__.startswith(%r), parse('--autonomous go').goal)\n"
    ) % str(project / "sage" / "core" / "flag_parser" / "_vendor")
    python = str(bare_python / "python3")
    done = subprocess.run([python, "-c", code], capture_output=True, text=True, cwd=project / "sage", env=clean_env())
    assert done.stdout == "python True go\n", done.stderr


@pytest.mark.parametrize("part", tiers.PARTS)  # the cover in make test, the rest in make test-full
def test_launcher_finds_the_vendored_python_and_runs_every_vector(
    project: Path, bare_python: Path, part: str, tmp_path: Path
) -> None:
    path = str(bare_python) + os.pathsep + sandbox_path(tmp_path / "bin", {"sh": tool("sh"), "bash": tool("bash")})
    launcher = entry("bundle-launcher-python", [str(project / "sage" / "bin" / "sage-flags")], env={"PATH": path})
    vendor = project / "sage" / "core" / "flag_parser" / "_vendor"
    assert which(launcher) == f"python3: python3 -m sage_flags (from {vendor})\n"
    (tmp_path / "cases").mkdir()
    assert not vector_failures(launcher, tmp_path / "cases", part)


@pytest.mark.parametrize("part", tiers.PARTS)  # the cover in make test, the rest in make test-full
def test_launcher_without_python_runs_every_vector_through_bash(project: Path, part: str, tmp_path: Path) -> None:
    # The shells and what the launcher runs, and nothing else (persist.sh and resume.sh only refuse, SPEC P12).
    programs = {name: tool(name) for name in ("sh", "bash", "readlink")}
    launcher = entry(
        "bundle-launcher-bash",
        [str(project / "sage" / "bin" / "sage-flags")],
        BASH_COMMANDS,
        env={"PATH": sandbox_path(tmp_path / "bin", programs)},
    )
    assert which(launcher) == f"bash: {project}/sage/core/flag_parser/_vendor/sage_flags/bash\n"
    (tmp_path / "cases").mkdir()
    assert not vector_failures(launcher, tmp_path / "cases", part)


@pytest.mark.parametrize("part", tiers.PARTS)  # the cover in make test, the rest in make test-full
def test_bash_scripts_run_every_vector(project: Path, part: str, tmp_path: Path) -> None:
    scripts = project / "sage" / "core" / "flag_parser" / "_vendor" / "sage_flags" / "bash"
    bash = CleanLayer("bundle-bash", {command: ["bash", str(scripts / f"{command}.sh")] for command in BASH_COMMANDS})
    assert not vector_failures(bash, tmp_path, part)


def test_the_drop_ins_parse_sh_answers_the_parse_vectors(project: Path, tmp_path: Path) -> None:
    """B7: sage/core/flag_parser/parse.sh (what Sage 1.1's `bash sage/core/flag_parser/parse.sh` step runs) finds
    its preamble beside it and answers a fifth of the parse vectors (it is the package's parse.sh, byte for byte:
    test_bundle_holds_sage_and_the_pure_package)."""
    from parity import vectors

    parse = ["bash", str(project / "sage" / "core" / "flag_parser" / "parse.sh")]
    layer = CleanLayer("bundle-drop-in-bash", {"parse": parse})
    cases = [v for v in vectors.load_all("parse")[::5] if not vectors.cannot_run_here(v)]
    assert len(cases) > 40
    for vector in cases:
        (tmp_path / vector.name).mkdir()
        result = layer.run("parse", vector.materialise(tmp_path / vector.name), stdin=vector.stdin, env=vector.env)
        vectors.assert_matches(vector, result, f"{layer.name} {vector.name}")


def test_the_bundle_carries_no_record_no_hook_files_and_no_skill(project: Path) -> None:
    """B7 (issue 43): what is vocabulary-specific is adopt's to write; Sage's own flag-parser skill
    (sage/core/capabilities/orchestration/flag-parser/, shipped by 1.1.5 and 1.3.21) is never overwritten."""
    files = sorted(p.relative_to(project).as_posix() for p in project.rglob("*") if p.is_file())
    outside = [name for name in files if not name.startswith(VENDOR)]
    assert outside == [
        "sage/bin/sage-flags",
        "sage/core/flag_parser/__init__.py",
        "sage/core/flag_parser/__main__.py",
        "sage/core/flag_parser/config_loader.py",
        "sage/core/flag_parser/parse.sh",
        "sage/core/flag_parser/parser.py",
        "sage/core/flag_parser/preamble.sh",
    ]


def test_the_vendored_package_carries_the_skills_data_and_adopts_with_it(
    built: Artifacts, bare_python: Path, tmp_path: Path
) -> None:
    """SPEC G8: the bundle's _vendor/ holds the skill's templates and data (package data, beside the modules), and
    adopt run from that copy alone (a bare python3) writes a Sage 1.3.21 project the skill of sage-1.3.18."""
    source = ROOT / "python" / "sage_flags" / "skill"
    data = {p.relative_to(source).as_posix(): p.read_bytes() for p in source.rglob("*") if p.is_file()}
    assert {"SKILL.md", "vocabularies.json", "references/examples.md", "references/prose-rules.md"} <= set(data)
    project = tmp_path / "project"
    with tarfile.open(built.bundle) as archive:
        vendored = {
            m.name[len(VENDOR + "skill/") :]: archive.extractfile(m).read()
            for m in archive.getmembers()
            if m.isfile() and m.name.startswith(VENDOR + "skill/")
        }
        archive.extractall(project, filter="data")
    assert vendored == data
    (project / "sage" / "VERSION").write_text("1.3.21\n")
    env = clean_env(PYTHONPATH=str(project / "sage" / "core" / "flag_parser" / "_vendor"))
    done = subprocess.run(
        [str(bare_python / "python3"), "-m", "sage_flags", "adopt"], cwd=project, capture_output=True, env=env
    )
    assert (done.returncode, done.stderr) == (0, b""), done
    prose = (project / ".claude/skills/flag-parser/references/prose-rules.md").read_text(encoding="utf-8")
    assert "Supported flags: --quality-locked, --autonomous, --subagents, --parallel[=N]." in prose


# Issue 24 items 4, 6, 7, 8: what unpacking touches, old interpreters, a ':' in the path, no __pycache__.
OWN = ("sage/bin/", "sage/core/flag_parser/")
SAGE_CORE_INIT = b"from .registry import WORKFLOWS\n"  # a Sage project's own sage/core/__init__.py


def owned_roots(bundle: Path) -> Set[str]:
    """What unpacking adds or replaces: each file of sage/bin/, each of our directories as a whole."""
    with tarfile.open(bundle) as archive:
        files = [m.name for m in archive.getmembers() if m.isfile()]
    outside = [name for name in files if not name.startswith(OWN)]
    assert not outside, f"the bundle carries files a Sage project owns: {outside}"
    return {name if name.startswith("sage/bin/") else next(p for p in OWN if name.startswith(p)) for name in files}


def test_unpacking_replaces_no_file_of_the_project_and_readme_lists_what_it_adds(
    built: Artifacts, tmp_path: Path
) -> None:
    """SPEC D26: the bundle's files live under our own directories; Sage's sage/core/__init__.py survives."""
    roots = owned_roots(built.bundle)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    listed = re.search(r"adds or replaces exactly[^:]*:(.*?)\.\s", readme, re.DOTALL)
    assert listed, "README says what unpacking the bundle adds or replaces"
    assert set(re.findall(r"`(sage/[^`]*)`", listed.group(1))) == roots
    (tmp_path / "sage" / "core").mkdir(parents=True)
    (tmp_path / "sage" / "core" / "__init__.py").write_bytes(SAGE_CORE_INIT)
    with tarfile.open(built.bundle) as archive:
        archive.extractall(tmp_path, filter="data")
    assert (tmp_path / "sage" / "core" / "__init__.py").read_bytes() == SAGE_CORE_INIT


def old_python(version: str) -> str:
    found = interpreters.find(version)
    if found is None:
        pytest.skip(f"Python {version} not found ({interpreters.where_looked(version)})")
    return found[0]


@pytest.mark.parametrize("sage_core_init", [False, True], ids=["bundle-alone", "in-a-sage-tree"])
@pytest.mark.parametrize("version", interpreters.TOO_OLD)
def test_drop_in_entry_on_an_old_python_is_status_3(
    version: str, sage_core_init: bool, built: Artifacts, tmp_path: Path
) -> None:
    """SPEC D19, D28: wherever our code runs on 2.7, 3.6 or 3.7, status 3 and one stderr line; 2.7 without a
    core/__init__.py (a namespace package needs none on Python 3) stops at its own `No module named core`."""
    python = old_python(version)
    with tarfile.open(built.bundle) as archive:
        archive.extractall(tmp_path, filter="data")
    if sage_core_init:
        (tmp_path / "sage" / "core" / "__init__.py").write_bytes(b"")
    trees = [tmp_path / "sage"] + ([] if sage_core_init else [ROOT / "sage"])  # the checkout: no __init__.py either
    for sage in trees:
        done = subprocess.run(
            [python, "-B", "-m", "core.flag_parser", "parse", "x"], capture_output=True, cwd=sage, env=clean_env()
        )
        if version == "2.7" and not sage_core_init:
            assert (done.returncode, done.stdout, done.stderr.count(b"\n")) == (1, b"", 1), done.stderr
            assert done.stderr.endswith(b": No module named core\n")
            continue
        assert (done.returncode, done.stdout, done.stderr.count(b"\n")) == (3, b"", 1), (sage, done.stderr)
        assert done.stderr.startswith(b"core.flag_parser: cannot run: sage_flags needs Python 3.8 or newer")


def tree_files(where: Path) -> List[str]:
    return sorted(p.relative_to(where).as_posix() for p in where.rglob("*"))


def test_a_colon_in_the_project_path_keeps_the_python_layer(
    built: Artifacts, bare_python: Path, tmp_path: Path
) -> None:
    """Issue 24 item 7: the launcher hands python3 the package's directory as an argument, not in PYTHONPATH."""
    project = tmp_path / "co:lon"
    with tarfile.open(built.bundle) as archive:
        archive.extractall(project, filter="data")
    path = str(bare_python) + os.pathsep + sandbox_path(tmp_path / "bin", {"sh": tool("sh"), "bash": tool("bash")})
    program = [str(project / "sage" / "bin" / "sage-flags")]
    launcher = entry("colon-launcher", program, [*COMMANDS, "config"], env={"PATH": path})
    vendor = f"{project}/sage/core/flag_parser/_vendor"
    assert which(launcher) == f"python3: python3 -m sage_flags (from {vendor})\n"
    config = tmp_path / "c.yaml"
    config.write_bytes(b"quality_locked: True\n")
    done = launcher.run("config", [b"explain", os.fsencode(config)])
    assert (done.returncode, done.stderr) == (0, b"") and b"titlecase" in done.stdout


def test_no_bytecode_is_written_into_the_project(built: Artifacts, bare_python: Path, tmp_path: Path) -> None:
    """SPEC H10 (issue 24 item 8): through the launcher's Python layer and `python3 -B -m core.flag_parser`, the
    tree's files are the same before and after, with PYTHONDONTWRITEBYTECODE unset (this machine may export it)."""
    with tarfile.open(built.bundle) as archive:
        archive.extractall(tmp_path, filter="data")
    before = tree_files(tmp_path / "sage")
    env = {k: v for k, v in clean_env().items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PATH"] = str(bare_python) + os.pathsep + sandbox_path(tmp_path / "bin", {"sh": tool("sh")})
    manifest = tmp_path / "m.md"
    manifest.write_bytes(b"---\nflags:\n  autonomous: false\n---\n")
    launcher = str(tmp_path / "sage" / "bin" / "sage-flags")
    line = subprocess.run([launcher, "parse", "--autonomous", "go"], capture_output=True, env=env).stdout
    runs = [
        ([launcher, "--which"], b""),
        ([launcher, "announce", "build", "--autonomous", "go"], b""),
        ([launcher, "persist", str(manifest)], line),
        ([launcher, "resume", str(manifest), "go"], b""),
        ([launcher, "config", "explain", str(manifest)], b""),
        ([str(bare_python / "python3"), "-B", "-m", "core.flag_parser", "parse", "go"], b""),
    ]
    for argv, stdin in runs:
        done = subprocess.run(argv, input=stdin, capture_output=True, env=env, cwd=tmp_path / "sage")
        assert done.returncode == 0, (argv, done.stderr)
    assert b"python3: " in subprocess.run([launcher, "--which"], capture_output=True, env=env).stdout
    assert b"autonomous: true" in manifest.read_bytes()
    assert tree_files(tmp_path / "sage") == before


def test_adopt_through_the_bundles_launcher(project: Path, bare_python: Path, tmp_path: Path) -> None:
    """SPEC N1: with only the bundle and a bare python3, `sh sage/bin/sage-flags adopt` (as README says) runs the
    bundle's package's adopt: a Sage 1.3.21 project is adopted with sage-1.3.18, sage/ is left byte for byte, and
    the adopted wrapper answers in that vocabulary (no sage-flags on PATH)."""
    root = tmp_path / "proj"
    shutil.copytree(project, root)
    (root / "sage/VERSION").write_text("1.3.21\n")
    before = {p: p.read_bytes() for p in (root / "sage").rglob("*") if p.is_file()}
    env = clean_env(PATH=f"{bare_python}{os.pathsep}/usr/bin:/bin")
    done = subprocess.run(["sh", "sage/bin/sage-flags", "adopt"], cwd=root, capture_output=True, env=env)
    assert done.returncode == 0 and b"vocabulary sage-1.3.18" in done.stdout, done
    assert {p: p.read_bytes() for p in (root / "sage").rglob("*") if p.is_file()} == before
    wrapper = root / ".claude/skills/flag-parser/scripts/sage-flags"
    parsed = subprocess.run(["sh", str(wrapper), "parse", "--subagents go"], capture_output=True, env=env, cwd=root)
    assert (parsed.returncode, parsed.stderr) == (0, b"") and b'"subagents": true' in parsed.stdout, parsed


def test_the_bundle_holds_files_only_and_unpacking_leaves_existing_folders_alone(
    built: Artifacts, tmp_path: Path
) -> None:
    """SPEC B7 (issue 33 defect 7): no directory entry; a project's sage/, sage/core/, sage/bin/ (0700, an old
    time) keep their mode, owner and time through GNU tar and Python's tarfile alike."""
    folders = ("sage", "sage/core", "sage/bin")
    old = 1_000_000_000  # 2001
    for name, bundle in [("bundle", built.bundle)]:
        with tarfile.open(bundle) as archive:
            members = archive.getmembers()
        assert members and all(member.isfile() for member in members), (
            name,
            [m.name for m in members if not m.isfile()],
        )
        for unpack in ("tar", "tarfile"):
            project = tmp_path / f"{name}-{unpack}"
            for folder in folders:
                (project / folder).mkdir(parents=True)
            for folder in reversed(folders):
                (project / folder).chmod(0o700)
                os.utime(project / folder, (old, old))
            before = {folder: os.stat(project / folder) for folder in folders}
            if unpack == "tar":
                subprocess.run(["tar", "-xzf", str(bundle), "-C", str(project)], check=True)
            else:
                with tarfile.open(bundle) as archive:
                    archive.extractall(project, filter="data")
            for folder in folders:
                after = os.stat(project / folder)
                was = before[folder]
                assert (stat.S_IMODE(after.st_mode), after.st_uid, after.st_gid) == (0o700, was.st_uid, was.st_gid)
                # sage/ gains no entry of its own: its time stays; sage/core/ and sage/bin/ gain entries, so their
                # time is the unpacking's (as for any new file in a folder), never the archive's (1980).
                if folder == "sage":
                    assert after.st_mtime == old, (name, unpack, folder)
                else:
                    assert after.st_mtime > old, (name, unpack, folder)
            assert not (project / "sage" / "core" / "flag_parser" / "VOCABULARY").exists()


def hook_event(prompt_args: str) -> bytes:
    event = {
        "session_id": "s",
        "transcript_path": "/t",
        "cwd": "/p",
        "permission_mode": "default",
        "hook_event_name": "UserPromptExpansion",
        "expansion_type": "slash_command",
        "command_name": "build",
        "command_args": prompt_args,
        "command_source": "project",
        "prompt": "/build " + prompt_args,
    }
    import json

    return json.dumps(event).encode()


def test_the_one_bundle_serves_every_vocabulary_and_never_an_installed_program(
    built: Artifacts, tmp_path: Path
) -> None:
    """B6-B7, L1 (issues 42, 43): one bundle; its launcher answers Sage 1.3's four modes when the call names
    sage-1.3.18 (option or environment, as an adopted wrapper does), the seed's two by default, through its own
    package, with the native wheel of `make dist` installed first on PATH (never run: L1)."""
    import json

    wheel_bin = fresh_venv(tmp_path / "venv", str(built.native_wheel))
    project = tmp_path / "project"
    with tarfile.open(built.bundle) as archive:
        archive.extractall(project, filter="data")
    launcher = str(project / "sage" / "bin" / "sage-flags")
    env = clean_env(PATH=f"{wheel_bin}:/usr/bin:/bin")
    env.pop("SAGE_FLAGS_VOCABULARY", None)
    vendor = project / "sage" / "core" / "flag_parser" / "_vendor"
    which = subprocess.run([launcher, "--which"], capture_output=True, env=env)
    assert which.stdout == f"python3: python3 -m sage_flags (from {vendor})\n".encode(), which
    for named, extra in ((["--vocabulary", "sage-1.3.18"], {}), ([], {"SAGE_FLAGS_VOCABULARY": "sage-1.3.18"})):
        done = subprocess.run(
            [launcher, *named, "parse", "--subagents --parallel=3 go"], capture_output=True, env={**env, **extra}
        )
        assert (done.returncode, done.stderr) == (0, b""), done.stderr
        line = json.loads(done.stdout)
        assert [line[key] for key in ("subagents", "parallel", "parallel_lanes", "goal")] == [True, True, 3, "go"]
        hook = subprocess.run(
            [launcher, *named, "hook", "claude-code"],
            input=hook_event("--subagents go"),
            capture_output=True,
            env={**env, **extra},
        )
        assert (hook.returncode, hook.stderr) == (0, b"") and b'"decision"' not in hook.stdout
    rejected = subprocess.run([launcher, "parse", "--subagents go"], capture_output=True, env=env)
    assert rejected.returncode == 1 and json.loads(rejected.stdout)["error"].startswith("Unknown flag '--subagents'.")
    blocked = subprocess.run(
        [launcher, "hook", "claude-code"], input=hook_event("--subagents go"), capture_output=True, env=env
    )
    assert json.loads(blocked.stdout)["decision"] == "block"
    # The installed program was never run: a sage-flags first on PATH that records each run stays unrun.
    planted = tmp_path / "planted"
    planted.mkdir()
    (planted / "sage-flags").write_text('#!/bin/sh\ntouch "$0.ran"\nexit 42\n')
    (planted / "sage-flags").chmod(0o755)
    done = subprocess.run(
        [launcher, "parse", "go"], capture_output=True, env={**env, "PATH": f"{planted}:{env['PATH']}"}
    )
    assert done.returncode == 0 and not (planted / "sage-flags.ran").exists()
