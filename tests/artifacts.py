"""The release artifacts of `make dist` (mk/dist.mk) and what the tests that install or unpack them share.

`make test` builds them before pytest starts; a test run on its own builds them through `artifacts()`,
once: a lock keeps pytest-xdist workers from building side by side (the second finds them up to date).
Every entry under test runs in a user's clean environment (``clean_env``), never this process's.
"""

from __future__ import annotations

import functools
import os
import platform
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import pytest
import tomllib

from parity import tiers, vectors
from parity.layers import COMMANDS, Layer
from parity.optional import PREFIX

ROOT = Path(__file__).resolve().parent.parent
DIST = ROOT / "dist"
WHEELHOUSE = ROOT / "build" / "wheelhouse"
PACKAGE_DIR = ROOT / "python" / "sage_flags"
VOCABULARY_NAMES = ("sage-1.1", "sage-1.3", "sage-1.3.18")  # the shipped ones (spec/*.toml)
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]


@dataclass(frozen=True)
class Artifacts:
    native_wheel: Path
    pure_wheel: Path
    sdist: Path
    bundle: Path  # docs/SPEC.md B7: one for every Sage release

    def all(self) -> List[Path]:
        return [self.native_wheel, self.pure_wheel, self.sdist, self.bundle]


def artifacts() -> Artifacts:
    """The four artifacts of this checkout's version in dist/, built (or brought up to date) first."""
    import fcntl  # POSIX only: tools/check_installed.py imports this module on Windows too

    (ROOT / "build").mkdir(exist_ok=True)
    with open(ROOT / "build" / "dist.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = subprocess.run(
            ["make", "--no-print-directory", "-s", "dist", "wheelhouse"],
            cwd=ROOT,
            env=clean_env(),
            capture_output=True,
            text=True,
            timeout=1800,
        )
    assert done.returncode == 0, "make dist failed:\n" + done.stdout + done.stderr
    arch = platform.machine()
    found = Artifacts(
        native_wheel=DIST / f"sage_flags-{VERSION}-cp38-abi3-manylinux2014_{arch}.manylinux_2_17_{arch}.whl",
        pure_wheel=DIST / f"sage_flags-{VERSION}-py3-none-any.whl",
        sdist=DIST / f"sage_flags-{VERSION}.tar.gz",
        bundle=DIST / f"sage-flags-{VERSION}.tar.gz",
    )
    missing = [p.name for p in found.all() if not p.is_file()]
    assert not missing, f"make dist did not write {missing}; dist/ holds {sorted(p.name for p in DIST.iterdir())}"
    return found


def package_sources() -> Dict[str, bytes]:
    """python/sage_flags as both wheels must carry it (less the compiled core): every .py file, py.typed, and every
    file of its data folders (skill/: the skill's templates and data, SPEC G8; bash/: the bash port, B7)."""
    found = {}
    for path in sorted(PACKAGE_DIR.rglob("*")):
        data = path.is_file() and len(path.relative_to(PACKAGE_DIR).parts) > 1
        if (path.suffix == ".py" or path.name == "py.typed" or data) and "__pycache__" not in path.parts:
            found["sage_flags/" + path.relative_to(PACKAGE_DIR).as_posix()] = path.read_bytes()
    return found


def lay_bundle(where: Path) -> Path:
    """The bundle's files written under ``where`` as unpacking it would (tools/build_bundle.py's bundle_files, the
    vendored package being python/sage_flags's files, which tests/test_bundle.py holds equal to the pure wheel's),
    without `make dist`; returns ``where``."""
    sys.path.insert(0, str(ROOT / "tools"))
    import build_bundle

    vendored = [(build_bundle.VENDOR + "/" + name, data, False) for name, data in package_sources().items()]
    for member, (data, executable) in build_bundle.bundle_files(vendored).items():
        path = where / member
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        path.chmod(0o755 if executable else 0o644)
    return where


def clean_env(**extra: str) -> Dict[str, str]:
    """The environment of a user's shell: no backend choice, no path into this checkout, no make state."""
    drop = {"SAGE_FLAGS_BACKEND", "PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "MAKEFLAGS", "MFLAGS", "MAKELEVEL"}
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(extra)
    return env


def fresh_venv(where: Path, *pip_args: str, env: Optional[Dict[str, str]] = None) -> Path:
    """python -m venv (no pip in it), then this pip installs ``pip_args`` into it offline; returns its bin/."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True, timeout=120)
    if pip_args:
        install = [sys.executable, "-m", "pip", "--python", str(where / "bin" / "python"), "install", "--quiet"]
        done = subprocess.run(
            [*install, "--no-index", *pip_args], capture_output=True, text=True, env=env or clean_env(), cwd=where
        )
        assert done.returncode == 0, f"pip install {' '.join(pip_args)}:\n{done.stdout}{done.stderr}"
    return where / "bin"


@dataclass(frozen=True)
class CleanLayer(Layer):
    """An entry run in ``clean_env`` (plus its own env); its own cwd, when it has one, wins over the caller's."""

    def run(
        self,
        command: str,
        args: Sequence[bytes],
        *,
        stdin: bytes = b"",
        env: Optional[Dict[str, str]] = None,
        cwd: Optional[Path] = None,
        timeout: float = 60,
    ) -> subprocess.CompletedProcess:
        return subprocess.run(
            self.argv(command, args),
            input=stdin,
            capture_output=True,
            env=clean_env(**{**self.env, **(env or {})}),
            cwd=self.cwd or cwd,
            timeout=timeout,
        )


def entry(name: str, argv: Sequence[str], commands: Sequence[str] = COMMANDS, **kwargs: object) -> CleanLayer:
    """A layer whose every subcommand is ``argv`` followed by the subcommand's name."""
    return CleanLayer(name, {c: [*argv, c] for c in commands}, **kwargs)  # type: ignore[arg-type]


def runnable_here(vector: vectors.Vector) -> bool:
    """Whether this platform can pose the vector: Windows has no byte argv, FIFOs or (unprivileged) symlinks,
    and its manifest writes are not part of the contract there (persist/resume run on POSIX)."""
    if os.name != "nt":
        return True
    if vector.command in ("persist", "resume") or (vector.config or {}).get("type", "file") not in ("file", "missing"):
        return False
    return all(isinstance(vectors.from_bytes(item), str) for item in vector.argv)  # argv is text there


@functools.lru_cache(maxsize=None)
def packaging_sample(part: str = "cover") -> Tuple[vectors.Vector, ...]:
    """The vectors the packaging tests run (each wheel, the bundle; tools/check_installed.py: "every"): the cover of
    the whole set (parity/tiers.py: every kind of case and every rule) in make test, the rest in make test-full."""
    return tuple(tiers.part_of(vectors.load_all(), part))


def vector_failures(layer: Layer, workdir: Path, part: str = "cover") -> List[str]:
    """The packaging sample's vectors (``part``) of every subcommand ``layer`` offers, through it; one line per
    vector that differs."""
    from test_manifest import check_vector  # persist/resume: the manifest's bytes are checked too

    offered = [v for v in packaging_sample(part) if v.command in layer.commands and runnable_here(v)]
    left_out = {v.name: why for v in offered for why in [vectors.cannot_run_here(v)] if why and why.startswith(PREFIX)}
    cases = [v for v in offered if v.name not in left_out]
    assert len(cases) > 40, f"{layer.name}: only {len(cases)} vectors"

    def run(vector: vectors.Vector) -> str:
        case_dir = workdir / vector.name
        case_dir.mkdir()
        try:
            if vector.command in ("persist", "resume"):
                check_vector(layer, vector, case_dir)
            else:
                result = layer.run(vector.command, vector.materialise(case_dir), stdin=vector.stdin, env=vector.env)
                vectors.assert_matches(vector, result, f"{layer.name} {vector.name}")
        except AssertionError as failure:
            return str(failure).splitlines()[0]
        return ""

    with ThreadPoolExecutor(max_workers=4) as pool:
        failures = [failure for failure in pool.map(run, cases) if failure]
    if left_out and not failures:  # the rest passed; what this machine cannot pose is named (parity/optional.py)
        pytest.skip(f"{sorted(set(left_out.values()))[0]} (and {len(left_out) - 1} more left out; {len(cases)} passed)")
    return failures
