"""The wheels users get: `make wheels` builds the native and the pure wheel; each is
installed into a fresh venv and every vector runs through that venv's `sage-flags`.

The native build reuses target/ from `make setup` (maturin develop --release), so
this costs a few seconds, not a compile.
"""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Dict, List

from parity import vectors

ROOT = Path(__file__).resolve().parent.parent
PACKAGE_DIR = ROOT / "python" / "sage_flags"
PROBE = "import sage_flags, sys; print(sage_flags.BACKEND); print(sage_flags.__file__); print(sys.prefix)"


def clean_env(**extra: str) -> Dict[str, str]:
    """The environment of a user's shell: no backend choice, no path into this checkout, no make state."""
    drop = {"SAGE_FLAGS_BACKEND", "PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "MAKEFLAGS", "MFLAGS", "MAKELEVEL"}
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(extra)
    return env


def one_wheel(wheel_dir: Path, pure: bool) -> Path:
    found = [p for p in wheel_dir.glob("sage_flags-*.whl") if p.name.endswith("-py3-none-any.whl") == pure]
    assert len(found) == 1, sorted(p.name for p in wheel_dir.iterdir())
    return found[0]


def fresh_venv(where: Path, *pip_args: str) -> Path:
    """python -m venv, then pip (offline) installs into it; returns the venv's bin directory."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True, timeout=120)
    venv_python = where / "bin" / "python"
    install = [sys.executable, "-m", "pip", "--python", str(venv_python), "install", "--quiet", "--no-index"]
    subprocess.run([*install, *pip_args], check=True, env=clean_env(), timeout=300, cwd=where)
    return where / "bin"


def probe(bin_dir: Path, **env: str) -> List[str]:
    done = subprocess.run(
        [str(bin_dir / "python"), "-c", PROBE], capture_output=True, text=True, env=clean_env(**env), cwd=bin_dir
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def run_every_vector(bin_dir: Path, workdir: Path) -> None:
    """Every parse and batch vector through the venv's installed console script."""
    cases = [v for v in vectors.load_all() if v.command in ("parse", "batch")]
    assert len(cases) > 200

    def run(vector: vectors.Vector) -> str:
        case_dir = workdir / vector.name
        case_dir.mkdir()
        argv = [str(bin_dir / "sage-flags"), vector.command, *vector.materialise(case_dir)]
        done = subprocess.run(
            argv, input=vector.stdin, capture_output=True, env=clean_env(**vector.env), cwd=case_dir, timeout=60
        )
        if (done.stdout, done.returncode) != (vector.stdout, vector.status):
            return f"{vector.name}: status {done.returncode}, stdout {done.stdout!r}, stderr {done.stderr!r}"
        if vector.status in (0, 1) and done.stderr:
            return f"{vector.name}: stderr {done.stderr!r}"
        return ""

    with ThreadPoolExecutor(max_workers=4) as pool:
        failures = [f for f in pool.map(run, cases) if f]
    assert not failures, "\n".join(failures)


def test_pure_wheel_contents(wheel_dir: Path) -> None:
    wheel = one_wheel(wheel_dir, pure=True)
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        dist_info = wheel.name.split("-py3")[0] + ".dist-info"
        assert "Root-Is-Purelib: true" in archive.read(f"{dist_info}/WHEEL").decode()
        assert "sage-flags = sage_flags.cli:main" in archive.read(f"{dist_info}/entry_points.txt").decode()
    sources = {"sage_flags/" + p.relative_to(PACKAGE_DIR).as_posix() for p in PACKAGE_DIR.rglob("*.py")}
    sources = {s for s in sources if "__pycache__" not in s}
    assert sources | {"sage_flags/py.typed"} <= names
    assert not [n for n in names if n.endswith((".so", ".pyd", ".pyi"))]


def test_native_wheel_contents(wheel_dir: Path) -> None:
    wheel = one_wheel(wheel_dir, pure=False)
    assert "-cp38-abi3-" in wheel.name  # one wheel for every CPython >= 3.8 on this platform
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    assert "sage_flags/_native.abi3.so" in names
    assert "sage_flags/cli.py" in names and "sage_flags/reference.py" in names


def test_pip_prefers_the_native_wheel_and_it_runs_every_vector(wheel_dir: Path, tmp_path: Path) -> None:
    bin_dir = fresh_venv(tmp_path / "venv", "--find-links", str(wheel_dir), "sage-flags")
    backend, module_file, prefix = probe(bin_dir)
    assert backend == "native"
    assert Path(module_file).is_relative_to(prefix) and Path(prefix).resolve() == (tmp_path / "venv").resolve()
    (tmp_path / "cases").mkdir()
    run_every_vector(bin_dir, tmp_path / "cases")
    assert probe(bin_dir, SAGE_FLAGS_BACKEND="python")[0] == "python"


def test_pure_wheel_installs_and_runs_every_vector(wheel_dir: Path, tmp_path: Path) -> None:
    bin_dir = fresh_venv(tmp_path / "venv", str(one_wheel(wheel_dir, pure=True)))
    backend, module_file, prefix = probe(bin_dir)
    assert backend == "python"
    assert Path(module_file).is_relative_to(prefix)
    (tmp_path / "cases").mkdir()
    run_every_vector(bin_dir, tmp_path / "cases")
    # Asking for the native core where there is none fails loudly, in one line.
    done = subprocess.run(
        [str(bin_dir / "sage-flags"), "parse", "go"], capture_output=True, env=clean_env(SAGE_FLAGS_BACKEND="native")
    )
    assert done.returncode != 0 and done.stdout == b"" and done.stderr.count(b"\n") == 1
