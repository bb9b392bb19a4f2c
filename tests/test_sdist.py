"""The sdist (`maturin sdist`, from `make dist`): what it holds, what pip makes of it with cargo on PATH (the
native backend, every vector), and without (docs/IMPLEMENTATION.md D26: a clear failure, or the pure wheel when
offered).

pip runs offline: build isolation installs the pinned maturin from build/wheelhouse (`make wheelhouse`).
"""

from __future__ import annotations

import email.parser
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Dict

import pytest
from artifacts import ROOT, VERSION, WHEELHOUSE, Artifacts, artifacts, clean_env, entry, fresh_venv, vector_failures

PROBE = "import sage_flags, sage_flags._native as n; print(sage_flags.BACKEND); print(n.__file__)"
# Where cargo builds the sdist's wheel: kept between runs, apart from the target/ of `make setup`.
SDIST_TARGET = ROOT / "target" / "sdist-test"


@pytest.fixture(scope="module")
def built() -> Artifacts:
    return artifacts()


def without_cargo() -> Dict[str, str]:
    """A user's environment on a machine with no Rust toolchain: PATH without cargo, no toolchain download."""
    dirs = os.environ.get("PATH", "").split(os.pathsep)
    path = os.pathsep.join(d for d in dirs if not os.path.isfile(os.path.join(d or ".", "cargo")))
    return clean_env(PATH=path, MATURIN_NO_INSTALL_RUST="1")


def test_sdist_holds_the_sources_and_nothing_built(built: Artifacts) -> None:
    top = f"sage_flags-{VERSION}/"
    with tarfile.open(built.sdist) as archive:
        names = {m.name[len(top) :] for m in archive.getmembers() if m.isfile()}
        metadata = email.parser.Parser().parsestr(archive.extractfile(top + "PKG-INFO").read().decode("utf-8"))
    # docs/SPEC.md: `sage-flags help` names it as the sdist's (SPEC D4.3); the help text is package data (D4.4)
    sources = ("pyproject.toml", "Cargo.toml", "Cargo.lock", "README.md", "python/sage_flags/cli.py")
    for needed in (*sources, "docs/SPEC.md", "docs/MANUAL-SETUP.md", "python/sage_flags/help/adopt.txt"):
        assert needed in names, needed
    assert any(n.startswith("crates/sage-flags-core/src/") for n in names)
    assert any(n.startswith("crates/sage-flags-py/src/") for n in names)
    assert not [n for n in names if n.endswith((".so", ".pyc", ".whl")) or n.startswith(("target/", "dist/"))]
    assert (metadata["Name"], metadata["Version"]) == ("sage-flags", VERSION)


def test_with_cargo_the_sdist_builds_the_native_backend(built: Artifacts, tmp_path: Path) -> None:
    assert shutil.which("cargo"), "this test needs cargo on PATH"
    env = clean_env(CARGO_TARGET_DIR=str(SDIST_TARGET))
    bin_dir = fresh_venv(tmp_path / "venv", "--find-links", str(WHEELHOUSE), str(built.sdist), env=env)
    done = subprocess.run([str(bin_dir / "python"), "-c", PROBE], capture_output=True, text=True, env=clean_env())
    assert done.returncode == 0, done.stderr
    backend, native_file = done.stdout.splitlines()
    assert backend == "native" and Path(native_file).is_relative_to(tmp_path / "venv")
    (tmp_path / "cases").mkdir()
    assert not vector_failures(entry("sdist", [str(bin_dir / "sage-flags")]), tmp_path / "cases", "every")


def test_without_cargo_the_sdist_fails_in_plain_words(built: Artifacts, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    fresh_venv(venv)
    pip = [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python")]
    done = subprocess.run(
        [*pip, "install", "--no-index", "--find-links", str(WHEELHOUSE), str(built.sdist)],
        capture_output=True,
        text=True,
        env=without_cargo(),
        timeout=300,
    )
    assert done.returncode != 0
    assert "Cargo, the Rust package manager, is not installed" in done.stdout + done.stderr


def test_without_cargo_pip_takes_the_pure_wheel_when_offered(built: Artifacts, tmp_path: Path) -> None:
    links = tmp_path / "links"
    links.mkdir()
    for artifact in (built.sdist, built.pure_wheel):
        shutil.copy(artifact, links)
    bin_dir = fresh_venv(tmp_path / "venv", "--find-links", str(links), "sage-flags", env=without_cargo())
    done = subprocess.run(
        [str(bin_dir / "python"), "-c", "import sage_flags; print(sage_flags.BACKEND)"],
        capture_output=True,
        text=True,
        env=clean_env(),
    )
    assert done.stdout == "python\n", done.stderr
