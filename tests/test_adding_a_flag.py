"""docs/ADDING_A_FLAG.md, proved: one entry in spec/flags.toml + the generator is all a new mode needs."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import List

import pytest

from parity import vectors
from parity.layers import PYTHON, ROOT

NEW_MODE = '\n[[mode]]\nkey = "dry_run"\nname = "dry-run"\n'
OLD_LIST = "--quality-locked, --autonomous"


def expected_with_new_mode(line: bytes, old_keys: List[str]) -> bytes:
    """The vector's expected line as it must read once `dry_run` is the last mode."""
    data = json.loads(line)
    out = {key: data[key] for key in old_keys}
    out["dry_run"] = False
    out["goal"], out["error"] = data["goal"], data["error"]
    if out["error"]:
        out["error"] = out["error"].replace(OLD_LIST + ".", OLD_LIST + ", --dry-run.")
    out.update({key + "_source": data[key + "_source"] for key in old_keys})
    out["dry_run_source"] = None
    return json.dumps(out, ensure_ascii=False).encode() + b"\n"


@pytest.fixture(scope="module")
def copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project built for the seed's vocabulary plus dry_run, by the documented command (tools/build_vocabulary.py).

    The copy's native core uses target/three-modes, so that only the two project crates compile again.
    """
    work = tmp_path_factory.mktemp("three-modes")
    vocab = work / "three-modes.toml"
    vocab.write_text((ROOT / "spec" / "flags.toml").read_text(encoding="utf-8") + NEW_MODE, encoding="utf-8")
    build = [PYTHON, "tools/build_vocabulary.py", str(vocab), str(work / "project"), "--native", "debug"]
    subprocess.run([*build, "--target-dir", str(ROOT / "target" / "three-modes")], cwd=ROOT, check=True, timeout=1800)
    return work / "project"


def layers(root: Path) -> dict:
    found = {"python": [PYTHON, "-m", "sage_flags", "parse"], "native": [PYTHON, "-m", "sage_flags", "parse"]}
    if (root / "python/sage_flags/bash/parse.sh").exists():
        found["bash"] = ["bash", str(root / "python/sage_flags/bash/parse.sh")]
    return found


def run(root: Path, layer: str, args: List[bytes], env=None, stdin: bytes = b"") -> subprocess.CompletedProcess:
    backend = "native" if layer == "native" else "python"
    full_env = {**os.environ, "PYTHONPATH": str(root / "python"), "SAGE_FLAGS_BACKEND": backend, **(env or {})}
    return subprocess.run([*layers(root)[layer], *args], input=stdin, capture_output=True, env=full_env, timeout=30)


def test_generated_files_changed(copy: Path) -> None:
    vocab = (copy / "python/sage_flags/_vocab.py").read_text()
    assert '("dry_run", "dry-run")' in vocab
    assert "`--dry-run`" in (copy / "docs/SPEC.md").read_text()
    check = subprocess.run([PYTHON, "tools/generate.py", "--check", "--root", str(copy)], cwd=copy)
    assert check.returncode == 0


def test_every_vector_with_three_modes(copy: Path, tmp_path: Path) -> None:
    old_keys = ["quality_locked", "autonomous"]
    cases = [v for v in vectors.load_all("parse")]
    assert len(cases) > 100
    for name in layers(copy):
        for vector in cases:
            workdir = tmp_path / f"{name}-{vector.name}"
            workdir.mkdir()
            result = run(copy, name, vector.materialise(workdir), vector.env, vector.stdin)
            want = expected_with_new_mode(vector.stdout, old_keys) if vector.stdout else b""
            assert (result.stdout, result.returncode) == (want, vector.status), f"{name} {vector.name}"


def test_the_new_flag_works(copy: Path, tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_bytes(b"dry_run: true\n")
    for name in layers(copy):
        on = json.loads(run(copy, name, [b"--dry-run --autonomous go"]).stdout)
        assert (on["dry_run"], on["dry_run_source"], on["goal"]) == (True, "flag", "go"), name
        conflict = run(copy, name, [b"--dry-run --no-dry-run"])
        assert json.loads(conflict.stdout)["error"] == (
            "Conflicting flags for dry_run: both --dry-run and --no-dry-run passed."
        ), name
        assert conflict.returncode == 1
        value = json.loads(run(copy, name, [b"--dry-run=1"]).stdout)["error"]
        assert value == "Flag '--dry-run' takes no value (got '--dry-run=1').", name
        default = json.loads(run(copy, name, [b"--config-path", os.fsencode(config), b"x"]).stdout)
        assert (default["dry_run"], default["dry_run_source"]) == (True, "config"), name
