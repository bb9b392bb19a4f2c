"""Build the vendorable bundles: the sage/ directory a Sage project copies into itself (`make bundle`).

    python tools/build_bundle.py --pure-wheel dist/sage_flags-VERSION-py3-none-any.whl --out dist [--vocabulary NAME]

writes one bundle per vocabulary (docs/SPEC.md B7), dist/sage-flags-<vocabulary>-VERSION.tar.gz (only NAME's with
--vocabulary, repeatable): sage/ as the repository's tools/generate.py renders it with that vocabulary as the
default (the hook files, parse.sh's default branch, core/flag_parser/VOCABULARY, which the launcher and the
drop-in read), the skill in sage/core/capabilities/orchestration/flag-parser/ as the package's renderer
(python/sage_flags/_render.py) writes it for that vocabulary in Sage's skill contract (docs/SPEC.md G8, N8),
otherwise as it is in the repository (the launcher, the bash port, the compat entry `python3 -m
core.flag_parser`) plus sage/core/flag_parser/_vendor/sage_flags, the pure package. That copy is taken from the
pure wheel, so the bundle carries exactly the files pip installs from it (one definition of "the pure
package", built from python/sage_flags); it is never kept in git.
With it, every entry of the directory runs on a machine that has nothing but python3 or bash.

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
sys.path.insert(0, str(ROOT / "tools"))
import generate  # noqa: E402

SAGE_DIR = ROOT / "sage"
VENDOR = "sage/core/flag_parser/_vendor"  # where sage/core/flag_parser/__init__.py and the launcher look
DEFAULT_EPOCH = 315532800  # 1980-01-01, the earliest time a zip (the wheel) can hold


def sage_files(rendered: Dict[Path, str], skill: Dict[str, str]) -> Iterator[Tuple[str, bytes, bool]]:
    """(archive name, content, executable) of every file under sage/, caches left out; a generated file as
    ``rendered`` holds it (the bundle's vocabulary), the skill's as ``skill`` does (Sage's form, N8)."""
    for path in sorted(SAGE_DIR.rglob("*")):
        if "__pycache__" in path.parts or path.suffix == ".pyc" or not path.is_file():
            continue
        name = path.relative_to(ROOT).as_posix()
        if name.startswith(VENDOR + "/"):
            raise SystemExit("build_bundle: %s exists in the repository; the bundle writes it" % name)
        data = rendered[path].encode("utf-8") if path in rendered else path.read_bytes()
        if name.startswith(generate.SKILL_DIR + "/"):
            data = skill[name[len(generate.SKILL_DIR) + 1 :]].encode("utf-8")
        yield name, data, os.access(path, os.X_OK)


def vendored_files(pure_wheel: Path) -> Iterator[Tuple[str, bytes, bool]]:
    """The sage_flags/ files of the pure wheel, placed under the vendor directory."""
    with zipfile.ZipFile(pure_wheel) as wheel:
        names = sorted(n for n in wheel.namelist() if n.startswith("sage_flags/") and not n.endswith("/"))
        if "sage_flags/cli.py" not in names:
            raise SystemExit("build_bundle: %s holds no sage_flags package" % pure_wheel)
        for name in names:
            yield VENDOR + "/" + name, wheel.read(name), False


def bundle_name(vocabulary: str, version: str) -> str:
    return "sage-flags-%s-%s.tar.gz" % (vocabulary, version)


def bundle_files(vocabulary: str, vendored: Iterable[Tuple[str, bytes, bool]]) -> Dict[str, Tuple[bytes, bool]]:
    """Archive name -> (content, executable) of every file of ``vocabulary``'s bundle, ``vendored`` the package's
    files under VENDOR (vendored_files of the pure wheel; tests lay python/sage_flags's, which the test of the
    bundle holds equal to the wheel's, without building it)."""
    build_of = generate.load_build(ROOT).with_default(vocabulary)
    rendered = generate.outputs(ROOT, build_of)
    skill = generate.skill_files(ROOT, build_of, "sage")  # the package's renderer, as adopt uses it (G8)
    return {name: (data, executable) for name, data, executable in [*sage_files(rendered, skill), *vendored]}


def build(pure_wheel: Path, out_dir: Path, vocabulary: str) -> Path:
    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", DEFAULT_EPOCH))
    files = bundle_files(vocabulary, vendored_files(pure_wheel))

    def info(name: str, mode: int, kind: bytes = tarfile.REGTYPE, size: int = 0) -> tarfile.TarInfo:
        entry = tarfile.TarInfo(name)
        entry.type, entry.mode, entry.size, entry.mtime = kind, mode, size, epoch
        entry.uid = entry.gid = 0
        entry.uname = entry.gname = ""
        return entry

    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / bundle_name(vocabulary, version)
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
    parser.add_argument("--vocabulary", action="append", help="the bundle of this vocabulary only (repeatable)")
    args = parser.parse_args()
    names = [vocab.name for vocab in generate.load_vocabularies(ROOT)]
    for name in args.vocabulary or names:
        if name not in names:
            parser.error("unknown vocabulary %r (known: %s)" % (name, ", ".join(names)))
        print(build(args.pure_wheel.resolve(), args.out.resolve(), name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
