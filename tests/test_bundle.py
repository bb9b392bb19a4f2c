"""The vendorable bundle (`make bundle`): the sage/ directory a Sage project copies into itself.

It is unpacked into an empty folder, with every installed sage_flags out of reach (python3 is a fresh venv
that holds nothing, no PYTHONPATH), and every vector runs through each entry it offers: the compat entry
`python3 -m core.flag_parser` (from sage/), the launcher (finding its Python layer, then with no python3
its bash layer) and the bash scripts themselves.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tarfile
import zipfile
from pathlib import Path
from typing import Dict

import pytest
from artifacts import (
    Artifacts,
    CleanLayer,
    artifacts,
    clean_env,
    entry,
    fresh_venv,
    package_sources,
    vector_failures,
)
from skill_files import SKILL_DIR, skill_files
from skills_ref.validator import validate

from parity.layers import COMMANDS, ROOT

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
    assert others == {name: path.read_bytes() for name, path in repository.items()}
    # The pure package: python/sage_flags, exactly the files pip installs from the pure wheel.
    assert {"sage_flags/" + name[len(VENDOR) :]: data for name, data in vendored.items()} == package_sources()
    with zipfile.ZipFile(built.pure_wheel) as wheel:
        assert {"sage_flags/" + n[len(VENDOR) :] for n in vendored} == {
            n for n in wheel.namelist() if n.startswith("sage_flags/")
        }
    for name, member in members.items():
        executable = member.isdir() or (name in repository and os.access(repository[name], os.X_OK))
        assert stat.S_IMODE(member.mode) == (0o755 if executable else 0o644), name
        assert (member.uid, member.gid, member.mtime) == (0, 0, members["sage"].mtime), name
    assert members["sage/bin/sage-flags"].mode & 0o111


def test_compat_entry_runs_every_vector_on_python_alone(project: Path, bare_python: Path, tmp_path: Path) -> None:
    compat = entry("bundle-compat", [str(bare_python / "python3"), "-m", "core.flag_parser"], cwd=project / "sage")
    assert not vector_failures(compat, tmp_path)


def test_compat_entry_keeps_the_predecessor_api(project: Path, bare_python: Path) -> None:
    code = (
        "from core.flag_parser.parser import parse\n"
        "import sage_flags\n"
        "print(sage_flags.BACKEND, sage_flags.__file__.startswith(%r), parse('--autonomous go').goal)\n"
    ) % str(project / "sage" / "core" / "flag_parser" / "_vendor")
    python = str(bare_python / "python3")
    done = subprocess.run([python, "-c", code], capture_output=True, text=True, cwd=project / "sage", env=clean_env())
    assert done.stdout == "python True go\n", done.stderr


def test_launcher_finds_the_vendored_python_and_runs_every_vector(
    project: Path, bare_python: Path, tmp_path: Path
) -> None:
    path = str(bare_python) + os.pathsep + sandbox_path(tmp_path / "bin", {"sh": tool("sh"), "bash": tool("bash")})
    launcher = entry("bundle-launcher-python", [str(project / "sage" / "bin" / "sage-flags")], env={"PATH": path})
    vendor = project / "sage" / "core" / "flag_parser" / "_vendor"
    assert which(launcher) == f"vendored: python3 -m sage_flags (PYTHONPATH={vendor})\n"
    (tmp_path / "cases").mkdir()
    assert not vector_failures(launcher, tmp_path / "cases")


def test_launcher_without_python_runs_every_vector_through_bash(project: Path, tmp_path: Path) -> None:
    # What persist.sh forks (see its header), and nothing else.
    programs = {name: tool(name) for name in ("sh", "bash", "ls", "sync", "mv", "readlink", "rm", "chmod")}
    launcher = entry(
        "bundle-launcher-bash",
        [str(project / "sage" / "bin" / "sage-flags")],
        env={"PATH": sandbox_path(tmp_path / "bin", programs)},
    )
    assert which(launcher) == f"bash: {project}/sage/core/flag_parser\n"
    (tmp_path / "cases").mkdir()
    assert not vector_failures(launcher, tmp_path / "cases")


def test_bash_scripts_run_every_vector(project: Path, tmp_path: Path) -> None:
    scripts = project / "sage" / "core" / "flag_parser"
    bash = CleanLayer("bundle-bash", {command: ["bash", str(scripts / f"{command}.sh")] for command in COMMANDS})
    assert not vector_failures(bash, tmp_path)


def test_bundle_ships_the_skill(project: Path) -> None:
    """The skill's directory, where Sage 1.3 keeps its flag-parser skill (SPEC G1): every file, a valid skill."""
    skill = project / SKILL_DIR.relative_to(ROOT)
    shipped = {p.relative_to(skill): p.read_bytes() for p in skill.rglob("*") if p.is_file()}
    assert shipped == {p.relative_to(SKILL_DIR): p.read_bytes() for p in skill_files()}
    assert validate(skill) == []
