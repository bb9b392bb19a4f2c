"""The wheels users get from `make dist`: the manylinux2014 native wheel (maturin + zig), whose `sage-flags` is
the native executable, and the pure wheel (hatchling), whose `sage-flags` is the Python console script. Each is
checked as PyPI would (twine, check-wheel-contents, auditwheel, which checks the executable too),
compared with the other, installed into a fresh venv, and every vector runs through that venv's `sage-flags`.
"""

from __future__ import annotations

import email.parser
import platform
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Dict, List

import pytest
from artifacts import VERSION, Artifacts, artifacts, clean_env, entry, fresh_venv, package_sources, vector_failures
from sage_step import lay_own_step

from parity import tiers
from parity.layers import ROOT

BIN = ROOT / ".venv" / "bin"
PROBE = "import sage_flags, sys; print(sage_flags.BACKEND); print(sage_flags.__file__); print(sys.prefix)"
COMPILED = {"sage_flags/_native.abi3.so", "sage_flags/_native.pyi"}  # the core and its stub: native wheel only


@pytest.fixture(scope="module")
def built() -> Artifacts:
    return artifacts()


def package_files(wheel: Path) -> Dict[str, bytes]:
    with zipfile.ZipFile(wheel) as archive:
        return {n: archive.read(n) for n in archive.namelist() if n.startswith("sage_flags/")}


def dist_info(wheel: Path, name: str) -> str:
    with zipfile.ZipFile(wheel) as archive:
        return archive.read(f"sage_flags-{VERSION}.dist-info/{name}").decode("utf-8")


def probe(bin_dir: Path, **env: str) -> List[str]:
    done = subprocess.run(
        [str(bin_dir / "python"), "-c", PROBE], capture_output=True, text=True, env=clean_env(**env), cwd=bin_dir
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def check(tool: str, *args: Path) -> None:
    done = subprocess.run([str(BIN / tool), *map(str, args)], capture_output=True, text=True, env=clean_env())
    assert done.returncode == 0, f"{tool}:\n{done.stdout}{done.stderr}"


def test_native_wheel_is_abi3_and_manylinux2014(built: Artifacts) -> None:
    arch = platform.machine()
    assert f"-cp38-abi3-manylinux2014_{arch}.manylinux_2_17_{arch}.whl" in built.native_wheel.name
    done = subprocess.run(
        [str(BIN / "auditwheel"), "show", str(built.native_wheel)], capture_output=True, text=True, env=clean_env()
    )
    assert done.returncode == 0, done.stderr
    found = re.search(r'consistent with the following platform tag:\s+"([^"]+)"', done.stdout)
    assert found and found.group(1) == f"manylinux_2_17_{arch}", done.stdout
    assert "Root-Is-Purelib: false" in dist_info(built.native_wheel, "WHEEL")


def test_pure_wheel_is_py3_none_any(built: Artifacts) -> None:
    wheel = dist_info(built.pure_wheel, "WHEEL")
    assert "Root-Is-Purelib: true" in wheel and "Tag: py3-none-any" in wheel
    assert "Generator: hatchling" in wheel  # a standard backend, not a hand-written zip


def test_pypi_checks_pass_on_every_distribution(built: Artifacts) -> None:
    check("twine", "check", "--strict", built.native_wheel, built.pure_wheel, built.sdist)
    check("check-wheel-contents", built.native_wheel, built.pure_wheel)


def test_both_wheels_carry_the_same_package(built: Artifacts) -> None:
    native, pure = package_files(built.native_wheel), package_files(built.pure_wheel)
    assert COMPILED <= set(native)
    assert {n: d for n, d in native.items() if n not in COMPILED} == pure
    assert pure == package_sources()


def test_both_wheels_carry_the_same_metadata(built: Artifacts) -> None:
    fields = ["Name", "Version", "Summary", "License", "Requires-Python", "Description-Content-Type"]

    def metadata(wheel: Path) -> Dict[str, object]:
        message = email.parser.Parser().parsestr(dist_info(wheel, "METADATA"))
        found: Dict[str, object] = {f: message[f] for f in fields}
        found["Classifier"] = message.get_all("Classifier")
        found["body"] = message.get_payload().strip()
        return found

    native = metadata(built.native_wheel)
    assert native == metadata(built.pure_wheel)
    assert native["Name"] == "sage-flags" and native["Version"] == VERSION
    assert native["body"] == (ROOT / "README.md").read_text(encoding="utf-8").strip()


def test_sage_flags_is_the_native_executable_in_one_wheel_and_a_console_script_in_the_other(built: Artifacts) -> None:
    assert "sage-flags = sage_flags.cli:main" in dist_info(built.pure_wheel, "entry_points.txt")
    with zipfile.ZipFile(built.native_wheel) as archive:
        names = archive.namelist()
        assert f"sage_flags-{VERSION}.dist-info/entry_points.txt" not in names  # no console script at all
        program = archive.getinfo(f"sage_flags-{VERSION}.data/scripts/sage-flags")
        assert archive.read(program)[:4] == b"\x7fELF" and (program.external_attr >> 16) & 0o777 == 0o755
    assert [n for n in names if ".data/" in n] == [program.filename]


def find_links(tmp_path: Path, *wheels: Path) -> Path:
    """A directory offering exactly ``wheels`` (dist/ may hold other versions)."""
    links = tmp_path / "links"
    links.mkdir()
    for wheel in wheels:
        shutil.copy(wheel, links)
    return links


@pytest.mark.parametrize("part", tiers.PARTS)  # the cover in make test, the rest in make test-full
def test_pip_prefers_the_native_wheel_and_it_runs_every_vector(built: Artifacts, part: str, tmp_path: Path) -> None:
    links = find_links(tmp_path, built.native_wheel, built.pure_wheel)
    bin_dir = fresh_venv(tmp_path / "venv", "--find-links", str(links), "sage-flags")
    backend, module_file, prefix = probe(bin_dir)
    assert backend == "native"
    assert Path(module_file).is_relative_to(prefix) and Path(prefix).resolve() == (tmp_path / "venv").resolve()
    assert (bin_dir / "sage-flags").read_bytes()[:4] == b"\x7fELF"  # the native executable (SPEC D27)
    (tmp_path / "cases").mkdir()
    assert not vector_failures(entry("native-wheel", [str(bin_dir / "sage-flags")]), tmp_path / "cases", part)
    assert probe(bin_dir, SAGE_FLAGS_BACKEND="python")[0] == "python"


@pytest.mark.parametrize("part", tiers.PARTS)  # the cover in make test, the rest in make test-full
def test_pure_wheel_installs_and_runs_every_vector(built: Artifacts, part: str, tmp_path: Path) -> None:
    bin_dir = fresh_venv(tmp_path / "venv", str(built.pure_wheel))
    backend, module_file, prefix = probe(bin_dir)
    assert backend == "python"
    assert Path(module_file).is_relative_to(prefix)
    (tmp_path / "cases").mkdir()
    assert not vector_failures(entry("pure-wheel", [str(bin_dir / "sage-flags")]), tmp_path / "cases", part)
    # Asking for the native core where there is none fails loudly, in one line.
    done = subprocess.run(
        [str(bin_dir / "sage-flags"), "parse", "go"], capture_output=True, env=clean_env(SAGE_FLAGS_BACKEND="native")
    )
    assert done.returncode != 0 and done.stdout == b"" and done.stderr.count(b"\n") == 1


HELP_DATA = ROOT / "python" / "sage_flags" / "help"


@pytest.mark.parametrize("kind", ["native", "pure"])
def test_each_wheel_carries_the_help_text_and_prints_it(built: Artifacts, kind: str, tmp_path: Path) -> None:
    """SPEC D4.4: the help text is package data of both wheels, byte for byte, and the installed `sage-flags`
    (the native wheel's executable hands help to its Python, D27) prints the checkout's text from it."""
    wheel = built.native_wheel if kind == "native" else built.pure_wheel
    carried = {n[len("sage_flags/help/") :]: d for n, d in package_files(wheel).items() if "/help/" in n}
    expected = {p.name: p.read_bytes() for p in HELP_DATA.iterdir()}
    assert {"adopt.txt", "parse.txt", "overview.txt", "more.txt"} <= set(expected)
    assert carried == expected
    bin_dir = fresh_venv(tmp_path / "venv", str(wheel))
    checkout = subprocess.run([sys.executable, "-m", "sage_flags", "help", "adopt"], capture_output=True, cwd=ROOT)
    assert checkout.returncode == 0 and checkout.stdout.startswith(b"usage: sage-flags adopt")
    for argv in (["help", "adopt"], ["adopt", "--help"]):
        done = subprocess.run([str(bin_dir / "sage-flags"), *argv], capture_output=True, env=clean_env(), cwd=tmp_path)
        assert (done.returncode, done.stdout, done.stderr) == (0, checkout.stdout, b""), argv


SKILL_DATA = ROOT / "python" / "sage_flags" / "skill"


@pytest.mark.parametrize("kind", ["native", "pure"])
def test_each_wheel_carries_the_skills_data_and_adopts_with_it(built: Artifacts, kind: str, tmp_path: Path) -> None:
    """SPEC G8: the skill's templates and data are package data of both wheels, byte for byte; installed, the
    wheel's `sage-flags adopt` (the native executable hands it to its Python, D27) writes a Sage 1.3.21 project
    sage-1.3.18's skill from them."""
    wheel = built.native_wheel if kind == "native" else built.pure_wheel
    carried = {n[len("sage_flags/skill/") :]: d for n, d in package_files(wheel).items() if "/skill/" in n}
    expected = {p.relative_to(SKILL_DATA).as_posix(): p.read_bytes() for p in SKILL_DATA.rglob("*") if p.is_file()}
    assert {"SKILL.md", "vocabularies.json", "references/examples.md"} <= set(expected)
    assert carried == expected
    bin_dir = fresh_venv(tmp_path / "venv", str(wheel))
    project = tmp_path / "project"
    (project / "sage").mkdir(parents=True)
    (project / "sage" / "VERSION").write_text("1.3.21\n")
    lay_own_step(project)  # nothing to verify against (N2): this test is about the skill data the wheel carries
    done = subprocess.run([str(bin_dir / "sage-flags"), "adopt"], cwd=project, capture_output=True, env=clean_env())
    assert (done.returncode, done.stderr) == (0, b""), done
    examples = (project / ".claude/skills/flag-parser/references/examples.md").read_text(encoding="utf-8")
    assert "Supported flags: --quality-locked, --autonomous, --subagents, --parallel[=N]." in examples
    assert "> --subagents --parallel=5 Ship dark mode\n" in examples
    # SPEC N6.1: the runtime copy is the wheel's package, less the compiled core and what only type checkers read.
    copy = project / ".claude/skills/flag-parser/scripts/sage_flags"
    written = {"sage_flags/" + p.relative_to(copy).as_posix(): p.read_bytes() for p in copy.rglob("*") if p.is_file()}
    shipped = {n: d for n, d in package_files(wheel).items() if n not in COMPILED and n != "sage_flags/py.typed"}
    assert written == shipped and "sage_flags/adopted/wrapper.sh" in written and "sage_flags/bash/parse.sh" in written


BASH_PORT = ROOT / "python" / "sage_flags" / "bash"


@pytest.mark.parametrize("kind", ["native", "pure"])
def test_each_wheel_carries_the_bash_port_and_it_runs_from_there(built: Artifacts, kind: str, tmp_path: Path) -> None:
    """B7 (issue 43): the bash port is package data of both wheels, byte for byte (sage_flags/bash/*.sh, the six
    scripts); installed, parse.sh runs from the installed package's folder (it finds preamble.sh beside it)."""
    wheel = built.native_wheel if kind == "native" else built.pure_wheel
    carried = {n[len("sage_flags/bash/") :]: d for n, d in package_files(wheel).items() if "/bash/" in n}
    expected = {p.name: p.read_bytes() for p in BASH_PORT.iterdir() if p.is_file()}
    names = ("announce.sh", "batch.sh", "parse.sh", "persist.sh", "preamble.sh", "resume.sh")
    assert sorted(expected) == list(names)
    assert carried == expected
    bin_dir = fresh_venv(tmp_path / "venv", str(wheel))
    (site,) = bin_dir.parent.glob("lib/python*/site-packages")
    done = subprocess.run(
        ["bash", str(site / "sage_flags" / "bash" / "parse.sh"), "--autonomous go"],
        capture_output=True,
        env=clean_env(SAGE_FLAGS_VOCABULARY="sage-1.3"),
    )
    assert (done.returncode, done.stderr) == (0, b"") and b'"subagents": false' in done.stdout, done
