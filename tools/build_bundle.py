"""Build the vendorable bundle: what a Sage project of any release unpacks at its root (`make bundle`).

    python tools/build_bundle.py --pure-wheel dist/sage_flags-VERSION-py3-none-any.whl --out dist

writes ONE bundle, dist/sage-flags-VERSION.tar.gz, for every Sage release (docs/SPEC.md B7; every copy of the
package carries every vocabulary, and adopt writes what is vocabulary-specific):
- sage/bin/sage-flags, the launcher (docs/SPEC.md section 11);
- sage/core/flag_parser/: the drop-in's modules (what Sage 1.1's own step `python -m core.flag_parser` runs, N8)
  and parse.sh (Sage 1.1 ships one; ours replaces it) with preamble.sh, which it sources: copies of the
  package's bash port;
- sage/core/flag_parser/_vendor/sage_flags/: the pure package, taken from the pure wheel, so the bundle carries
  exactly the files pip installs from it (its bash/ and skill/ data too); never kept in git.
Nothing else: no record of a vocabulary, no hook files, no skill (Sage's own flag-parser skill stays Sage's).

Reproducible: sorted members, one fixed time (SOURCE_DATE_EPOCH when set), owner 0, modes 0755 for
executables and 0644 for the rest. Files only: no entry for a directory, so unpacking leaves the mode, owner and
time of a project's existing sage/, sage/core/, sage/bin/ as they were (tar creates a missing one).
"""

from __future__ import annotations

import argparse
import gzip
import io
import os
import sys
import tarfile
import zipfile
from pathlib import Path
from typing import Dict, Iterable, Iterator, Tuple

import tomllib

ROOT = Path(__file__).resolve().parent.parent
SAGE_DIR = ROOT / "sage"
DROP_IN = "sage/core/flag_parser"
VENDOR = DROP_IN + "/_vendor"  # where the drop-in (sage/core/flag_parser/__init__.py) and the launcher look
# The bash port's files the drop-in's directory carries beside the modules (B7): Sage 1.1's `bash
# sage/core/flag_parser/parse.sh` step runs ours, and parse.sh sources preamble.sh from its own directory.
DROP_IN_SCRIPTS = ("parse.sh", "preamble.sh")
DEFAULT_EPOCH = 315532800  # 1980-01-01, the earliest time a zip (the wheel) can hold


def sage_files() -> Iterator[Tuple[str, bytes, bool]]:
    """(archive name, content, executable) of every file under sage/ (the launcher, the drop-in's modules),
    caches left out."""
    for path in sorted(SAGE_DIR.rglob("*")):
        if "__pycache__" in path.parts or path.suffix == ".pyc" or not path.is_file():
            continue
        name = path.relative_to(ROOT).as_posix()
        if name.startswith(VENDOR + "/"):
            raise SystemExit("build_bundle: %s exists in the repository; the bundle writes it" % name)
        yield name, path.read_bytes(), os.access(path, os.X_OK)


def vendored_files(pure_wheel: Path) -> Iterator[Tuple[str, bytes, bool]]:
    """The sage_flags/ files of the pure wheel, placed under the vendor directory."""
    with zipfile.ZipFile(pure_wheel) as wheel:
        names = sorted(n for n in wheel.namelist() if n.startswith("sage_flags/") and not n.endswith("/"))
        if "sage_flags/cli.py" not in names:
            raise SystemExit("build_bundle: %s holds no sage_flags package" % pure_wheel)
        for name in names:
            yield VENDOR + "/" + name, wheel.read(name), False


def bundle_name(version: str) -> str:
    return "sage-flags-%s.tar.gz" % version


def bundle_files(vendored: Iterable[Tuple[str, bytes, bool]]) -> Dict[str, Tuple[bytes, bool]]:
    """Archive name -> (content, executable) of every file of the bundle, ``vendored`` the package's files under
    VENDOR (vendored_files of the pure wheel; tests lay python/sage_flags's, which the test of the bundle holds
    equal to the wheel's, without building it). parse.sh and preamble.sh in the drop-in's directory are copies
    of the vendored package's (B7)."""
    files = {name: (data, executable) for name, data, executable in [*sage_files(), *vendored]}
    for script in DROP_IN_SCRIPTS:
        files[DROP_IN + "/" + script] = (files[VENDOR + "/sage_flags/bash/" + script][0], False)
    return files


def build(pure_wheel: Path, out_dir: Path) -> Path:
    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", DEFAULT_EPOCH))
    files = bundle_files(vendored_files(pure_wheel))

    def info(name: str, mode: int, kind: bytes = tarfile.REGTYPE, size: int = 0) -> tarfile.TarInfo:
        entry = tarfile.TarInfo(name)
        entry.type, entry.mode, entry.size, entry.mtime = kind, mode, size, epoch
        entry.uid = entry.gid = 0
        entry.uname = entry.gname = ""
        return entry

    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / bundle_name(version)
    partial = target.with_name(target.name + ".part")
    with open(partial, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=epoch) as zipped:
        with tarfile.open(fileobj=zipped, mode="w", format=tarfile.PAX_FORMAT) as archive:
            for name in sorted(files):
                data, executable = files[name]
                archive.addfile(info(name, 0o755 if executable else 0o644, size=len(data)), io.BytesIO(data))
    partial.replace(target)
    return target


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pure-wheel", type=Path, required=True, help="the pure wheel (make wheel-pure)")
    parser.add_argument("--out", type=Path, default=ROOT / "dist", help="directory for the archive (default: dist)")
    args = parser.parse_args()
    print(build(args.pure_wheel.resolve(), args.out.resolve()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
