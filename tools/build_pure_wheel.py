"""Build the pure-Python wheel (py3-none-any) of sage-flags: `make wheel-pure`.

    python tools/build_pure_wheel.py [--out dist]

maturin builds the native wheel of this mixed Rust/Python project but cannot
leave the extension out, so this small PEP 427 writer packs the same Python
package (python/sage_flags: every .py file and py.typed, never a compiled
module) with metadata taken from pyproject.toml. pip installs it where no
native wheel fits the platform, and prefers the native one where both do.
The output is reproducible: sorted entries, fixed timestamps.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import sys
import zipfile
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parent.parent
PACKAGE_DIR = ROOT / "python" / "sage_flags"
GENERATOR = "sage-flags tools/build_pure_wheel.py"
EPOCH = (1980, 1, 1, 0, 0, 0)


def package_files() -> list[Path]:
    """The files of the pure package: sources and the typing marker, nothing compiled."""
    files = [p for p in PACKAGE_DIR.rglob("*") if p.is_file() and (p.suffix == ".py" or p.name == "py.typed")]
    return sorted(p for p in files if "__pycache__" not in p.parts)


def metadata(project: dict) -> str:
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {project['name']}",
        f"Version: {project['version']}",
        f"Summary: {project['description']}",
    ]
    license_text = project.get("license", {}).get("text")
    if license_text:
        lines.append(f"License: {license_text}")
    lines.append(f"Requires-Python: {project['requires-python']}")
    lines += [f"Classifier: {c}" for c in project.get("classifiers", [])]
    readme = project.get("readme")
    body = ""
    if readme:
        lines.append("Description-Content-Type: text/markdown; charset=UTF-8")
        body = "\n" + (ROOT / readme).read_text(encoding="utf-8")
    return "\n".join(lines) + "\n" + body


def entry_points(project: dict) -> str:
    scripts = project.get("scripts", {})
    return "[console_scripts]\n" + "".join(f"{name} = {target}\n" for name, target in sorted(scripts.items()))


def record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
    return f"{name},sha256={digest},{len(data)}\n"


def build(out_dir: Path) -> Path:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    dist_name = project["name"].replace("-", "_")
    version = project["version"]
    dist_info = f"{dist_name}-{version}.dist-info"
    entries: list[tuple[str, bytes]] = []
    for path in package_files():
        entries.append((path.relative_to(PACKAGE_DIR.parent).as_posix(), path.read_bytes()))
    entries.append((f"{dist_info}/METADATA", metadata(project).encode("utf-8")))
    wheel = f"Wheel-Version: 1.0\nGenerator: {GENERATOR}\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    entries.append((f"{dist_info}/WHEEL", wheel.encode("ascii")))
    entries.append((f"{dist_info}/entry_points.txt", entry_points(project).encode("utf-8")))
    record = "".join(record_line(name, data) for name, data in entries) + f"{dist_info}/RECORD,,\n"
    entries.append((f"{dist_info}/RECORD", record.encode("utf-8")))

    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / f"{dist_name}-{version}-py3-none-any.whl"
    partial = target.with_suffix(".whl.part")
    with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=EPOCH)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    partial.replace(target)
    return target


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "dist", help="directory for the wheel (default: dist)")
    args = parser.parse_args()
    print(build(args.out.resolve()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
