"""Build every layer of this project for another vocabulary file, in a copy of the project.

    python tools/build_vocabulary.py VOCAB OUT [--native debug|release|none] [--target-dir DIR]
    make vocabulary VOCAB=spec/sage-1.3.18.toml OUT=build/sage-1.3.18      # the same, native core in release

OUT becomes a copy of the project's sources with VOCAB as its spec/flags.toml (and no other vocabulary: every
layer of the copy carries VOCAB alone, under VOCAB's `name`, or own-<file stem> without one) and every listing
regenerated
from it (tools/generate.py: the Python reference's and the Rust core's tables, the bash scripts, the docs and
SKILL.md); the copy's native core is built (cargo, PyO3) into OUT/python/sage_flags/. The copy's parity/vectors/
holds the vectors the repository has for VOCAB's name, parity/vectors/<name>.jsonl, alone (none for the default's
file with other modes, as tests/test_adding_a_flag.py builds: they would not hold).
The copy's layers then run like this checkout's:

    PYTHONPATH=OUT/python python -m sage_flags parse "--parallel=3 ship"   # SAGE_FLAGS_BACKEND=python|native
    bash OUT/python/sage_flags/bash/parse.sh "--parallel=3 ship"
    cd OUT/sage && PYTHONPATH=../python python -B -m core.flag_parser parse "--parallel=3 ship"

A build whose inputs (the sources, VOCAB, the options) have not changed since the last one into OUT is kept as
it is; builds into one OUT wait for each other (a lock beside it), so tests may share one.
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Iterator, List

from generate import load_vocabulary

ROOT = Path(__file__).resolve().parent.parent
PARTS = ("spec", "tools", "python", "sage", "docs", "crates", "parity", "tests", "mk", "pure-wheel")
# The copy's own `make` targets (e.g. `make -C OUT bundle`) need what the repository's need.
FILES = ("Cargo.toml", "Cargo.lock", "rustfmt.toml", "pyproject.toml", "Makefile", "README.md", "conftest.py")
FILES += tuple(sorted(path.name for path in ROOT.glob("requirements*.txt")))
IGNORED = ("__pycache__", "target", "*.so", "*.egg-info", "failures", ".hypothesis")
STAMP = ".vocabulary-build"


def _sources() -> Iterator[Path]:
    for part in PARTS:
        for path in sorted((ROOT / part).rglob("*")):
            relative = path.relative_to(ROOT)
            if path.is_file() and not any(relative.match(p) or p in relative.parts for p in IGNORED):
                yield path
    for name in FILES:
        yield ROOT / name


def _fingerprint(vocab: Path, options: List[str]) -> str:
    digest = hashlib.sha256("\0".join(options).encode())
    for path in [vocab, *_sources()]:
        digest.update(str(path).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _copy(out: Path, vocab: Path) -> None:
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    ignore = shutil.ignore_patterns(*IGNORED)
    for part in PARTS:
        shutil.copytree(ROOT / part, out / part, ignore=ignore)
    for name in FILES:
        shutil.copy2(ROOT / name, out / name)
    # The copy carries VOCAB alone (docs/SPEC.md B6): a launcher that names another vocabulary skips its layers.
    for other in (out / "spec").glob("*.toml"):
        other.unlink()
    shutil.copy2(vocab, out / "spec" / "flags.toml")
    for other in (out / "parity" / "vectors").glob("*.jsonl"):
        other.unlink()
    vectors = ROOT / "parity" / "vectors" / f"{load_vocabulary(vocab).name}.jsonl"
    if vectors.is_file() and vocab.resolve() != (ROOT / "spec" / "flags.toml").resolve():
        shutil.copy2(vectors, out / "parity" / "vectors" / vectors.name)


def build_native(out: Path, profile: str, target_dir: Path) -> None:
    """The copy's PyO3 binding, next to the copy's Python sources as sage_flags._native, and its executable."""
    env = {**os.environ, "CARGO_TARGET_DIR": str(target_dir), "PYO3_PYTHON": sys.executable}
    cargo = [
        "cargo",
        "build",
        "--quiet",
        "--locked",
        "--package",
        "sage-flags-py",
        "--features",
        "pyo3/extension-module",
    ]
    if profile == "release":
        cargo.append("--release")
    subprocess.run(cargo, cwd=out, env=env, check=True, timeout=1800)
    shutil.copy(target_dir / profile / "lib_native.so", out / "python" / "sage_flags" / "_native.abi3.so")
    # The copy's native executable (the parity layer "exe"), where parity.layers looks for it.
    exe = ["cargo", "build", "--quiet", "--locked", "--package", "sage-flags-cli"]
    subprocess.run(exe + (["--release"] if profile == "release" else []), cwd=out, env=env, check=True, timeout=1800)
    (out / "target" / "native").mkdir(parents=True, exist_ok=True)
    shutil.copy(target_dir / profile / "sage-flags", out / "target" / "native" / "sage-flags")


def build(vocab: Path, out: Path, native: str, target_dir: Path) -> bool:
    """Build (or keep) the copy; True when it was built anew."""
    out = out.resolve()
    options = [native, str(target_dir)]
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out.parent / f".{out.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        fingerprint = _fingerprint(vocab, options)
        stamp = out / STAMP
        if stamp.exists() and stamp.read_text() == fingerprint:
            return False
        _copy(out, vocab)
        generate = [sys.executable, str(out / "tools" / "generate.py"), "--root", str(out)]
        subprocess.run(generate, check=True, capture_output=True)
        if native != "none":
            build_native(out, native, target_dir)
        stamp.write_text(fingerprint)
        return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("vocab", type=Path, help="the vocabulary file, e.g. spec/sage-1.3.18.toml")
    parser.add_argument("out", type=Path, help="the copy to build, e.g. build/sage-1.3.18 (replaced)")
    parser.add_argument("--native", choices=("debug", "release", "none"), default="release")
    parser.add_argument("--target-dir", type=Path, help="cargo's target directory (default: target/vocabularies)")
    args = parser.parse_args()
    target_dir = (args.target_dir or ROOT / "target" / "vocabularies").resolve()
    built = build(args.vocab.resolve(), args.out, args.native, target_dir)
    print("build_vocabulary: %s %s" % ("built" if built else "up to date:", args.out), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
