"""The Python matrix (issue 12): every CPython the package claims, 3.8 to 3.13, with both wheels.

For each version found here (tests/interpreters.py: SAGE_FLAGS_PYTHONS, ~/.pyenv/versions, PATH):

- ``pure[V]``: a fresh venv of that interpreter, the pure wheel (py3-none-any) of `make wheels` installed by
  the venv's own pip; every vector (parse, batch, announce, persist, resume) and every config explain report
  (text and --json) through its ``sage-flags`` one by one; and through ``python -m sage_flags``, where the
  config-less parse vectors go as one batch stream (C22), the rest one by one, explain with --json;
- ``native[V]``: the same with the native abi3 wheel, SAGE_FLAGS_BACKEND=native (the compiled core must load);
- ``compat[V]``: the bare interpreter running ``python -m core.flag_parser`` from sage/ (the checkout's
  python/, pure backend): every parse and announce vector (the config-less parse vectors as one batch stream).

Streams and --json-only keep the cost down: a process start per check is most of it (twelve installations).

The checks are the suite's own (parity.vectors.assert_matches, test_manifest.check_vector,
test_explain.check_explain). A version that is not here is skipped with its name; the counts of vectors run
per interpreter are listed at the end of the run (tests/conftest.py).
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable, Dict, List, Tuple

import interpreters
import pytest
from artifacts import clean_env
from test_explain import check_explain
from test_manifest import check_vector as check_manifest_vector

from parity import tiers, vectors
from parity.layers import ROOT, SAGE_DIR, Layer, compat_layer, package_layers
from parity.optional import missing
from parity.test_vectors import check_as_one_batch_stream, streamable

EVERY = vectors.load_all()
NT = os.name == "nt"
PROBE = "import sage_flags, sys; print(sage_flags.BACKEND); print(sage_flags.__file__)"
COMPAT_PROBE = "from core.flag_parser import import_sage_flags; print(import_sage_flags().__file__)"


def run_checked(argv: List[str], **kwargs) -> str:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600, **kwargs)
    assert done.returncode == 0, f"{argv}: status {done.returncode}\n{done.stdout}{done.stderr}"
    return done.stdout


@pytest.fixture(scope="session")
def wheels(wheel_dir: Path) -> Dict[str, Path]:
    """The two wheels of `make wheels` (tests/conftest.py)."""
    found = sorted(wheel_dir.glob("sage_flags-*.whl"))
    pure = [p for p in found if p.name.endswith("-py3-none-any.whl")]
    native = [p for p in found if "-abi3-" in p.name]
    assert len(pure) == 1 and len(native) == 1, f"one pure and one abi3 wheel wanted in {wheel_dir}: {found}"
    return {"pure": pure[0], "native": native[0]}


def interpreter(version: str) -> Tuple[str, str]:
    found = interpreters.find(version)
    if found is None:
        pytest.skip(missing(f"Python {version}", f"not found ({interpreters.where_looked(version)})"))
    return found


def fresh_venv(python: str, where: Path, wheel: Path) -> Tuple[str, str]:
    """A new venv of ``python`` with ``wheel`` installed offline by the venv's own pip: (python, sage-flags)."""
    run_checked([python, "-m", "venv", str(where)], env=clean_env())
    bin_dir = where / ("Scripts" if NT else "bin")
    venv_python = str(bin_dir / ("python.exe" if NT else "python"))
    pip = [venv_python, "-m", "pip", "install", "--quiet", "--no-index", "--no-deps", "--disable-pip-version-check"]
    run_checked([*pip, str(wheel)], env=clean_env(), cwd=where)
    return venv_python, str(bin_dir / ("sage-flags.exe" if NT else "sage-flags"))


def run_all(checks: List[Tuple[str, Callable[[Path], None]]], workdir: Path) -> List[str]:
    """Run each (name, check) in a directory of its own, two at a time; the failures' messages."""

    def one(index_and_check) -> str:
        index, (name, check) = index_and_check
        case_dir = workdir / str(index)
        case_dir.mkdir(parents=True)
        try:
            check(case_dir)
        except Exception as error:  # every failing vector is named, not only the first
            first_line = (str(error).splitlines() or [""])[0]
            return f"{name}: {'' if isinstance(error, AssertionError) else type(error).__name__ + ': '}{first_line}"
        return ""

    with ThreadPoolExecutor(max_workers=2) as pool:
        return [failure for failure in pool.map(one, enumerate(checks)) if failure]


def vector_check(layer: Layer, vector: vectors.Vector) -> Callable[[Path], None]:
    def check(workdir: Path) -> None:
        reason = vectors.cannot_run_here(vector)
        if reason:
            return
        if vector.command in ("persist", "resume"):
            check_manifest_vector(layer, vector, workdir)
        else:
            result = layer.run(vector.command, vector.materialise(workdir), stdin=vector.stdin, env=vector.env)
            vectors.assert_matches(vector, result, f"{layer.name} {vector.name}")

    return check


def explain_check(layer: Layer, vector: vectors.Vector, text_too: bool) -> Callable[[Path], None]:
    def check(workdir: Path) -> None:
        if not vectors.cannot_run_here(vector):
            check_explain(layer, vector, workdir, text_too)

    return check


def runnable(cases: List[vectors.Vector]) -> int:
    return sum(1 for v in cases if not vectors.cannot_run_here(v))


# part: the cover of the vectors (parity/tiers.py; make test runs it on the oldest and the newest Python), or the
# rest (make test-full, with every other Python).
@pytest.mark.parametrize("part", tiers.PARTS)
@pytest.mark.parametrize("wheel", ["pure", "native"])
@pytest.mark.parametrize("version", interpreters.SUPPORTED)
def test_wheel(
    version: str,
    wheel: str,
    part: str,
    wheels: Dict[str, Path],
    tmp_path: Path,
    record_property: Callable[[str, object], None],
) -> None:
    chosen = tiers.part_of(EVERY, part)
    configs = [v for v in chosen if v.config]
    python, full_version = interpreter(version)
    venv_python, console_script = fresh_venv(python, tmp_path / "venv", wheels[wheel])
    env = {"SAGE_FLAGS_BACKEND": "native" if wheel == "native" else "auto"}
    backend, module_file = run_checked([venv_python, "-c", PROBE], env={**os.environ, **env}, cwd=tmp_path).split()
    assert backend == ("native" if wheel == "native" else "python")
    assert Path(module_file).resolve().is_relative_to((tmp_path / "venv").resolve()), module_file
    cli, module = package_layers(f"{full_version}-{wheel}", venv_python, console_script, env)
    stream = [v for v in chosen if streamable(v)]
    one_by_one = [v for v in chosen if not streamable(v)]
    checks = [(f"{cli.name} {v.name}", vector_check(cli, v)) for v in chosen]
    checks += [(f"{cli.name} explain {v.name}", explain_check(cli, v, text_too=True)) for v in configs]
    checks.append((f"{module.name} batch stream", lambda _: check_as_one_batch_stream(module, stream)))
    checks += [(f"{module.name} {v.name}", vector_check(module, v)) for v in one_by_one]
    checks += [(f"{module.name} explain {v.name}", explain_check(module, v, text_too=False)) for v in configs]
    failures = run_all(checks, tmp_path / "cases")
    record_property(
        "python-matrix",
        f"{full_version:8} {wheel} wheel: {runnable(chosen)} vectors and {runnable(configs)} config explain reports "
        f"through sage-flags, the same through python -m sage_flags ({len(stream)} parse vectors there as one batch "
        f"stream, explain --json only){'; FAILED ' + str(len(failures)) if failures else ''}",
    )
    assert not failures, f"{len(failures)} of {len(checks)} checks failed:\n" + "\n".join(failures)


@pytest.mark.parametrize("part", tiers.PARTS)
@pytest.mark.parametrize("version", interpreters.SUPPORTED)
def test_compat(version: str, part: str, tmp_path: Path, record_property: Callable[[str, object], None]) -> None:
    chosen = [v for v in tiers.part_of(EVERY, part) if v.command in ("parse", "announce")]
    python, full_version = interpreter(version)
    env = {**clean_env(), "SAGE_FLAGS_BACKEND": "python"}
    imported = run_checked([python, "-c", COMPAT_PROBE], env=env, cwd=SAGE_DIR).strip()
    assert Path(imported).resolve().is_relative_to(ROOT / "python"), f"{imported}: not the checkout's copy"
    compat = compat_layer(full_version, python, {"SAGE_FLAGS_BACKEND": "python"})
    batch = [python, "-m", "core.flag_parser", "batch"]
    layer = dataclasses.replace(compat, commands={**compat.commands, "batch": batch})
    stream = [v for v in chosen if streamable(v)]
    checks = [(f"{layer.name} batch stream", lambda _: check_as_one_batch_stream(layer, stream))]
    checks += [(f"{layer.name} {v.name}", vector_check(layer, v)) for v in chosen if not streamable(v)]
    failures = run_all(checks, tmp_path)
    record_property(
        "python-matrix",
        f"{full_version:8} compat: {runnable(chosen)} vectors through python -m core.flag_parser (sage/) "
        f"({len(stream)} of them as one batch stream){'; FAILED ' + str(len(failures)) if failures else ''}",
    )
    assert not failures, f"{len(failures)} of {len(checks)} checks failed:\n" + "\n".join(failures)
