"""Make the native `sage-flags` executable the wheel's `sage-flags` command (`make wheel-native`, release.yml).

    python tools/wheel_add_executable.py WHEEL EXECUTABLE

maturin puts one Rust artifact into a wheel, the PyO3 extension, and writes [project.scripts] as a
console script; it cannot add a second crate's program. So the native wheel is finished here: `wheel
unpack`, the `sage-flags` console script dropped from entry_points.txt, EXECUTABLE added as the wheel's
scripts data (`<name>.data/scripts/sage-flags`, `sage-flags.exe` on Windows, mode 0755), `wheel pack`
(which writes RECORD). pip installs it as `sage-flags` on PATH; `python -m sage_flags` and the Python
API are unchanged. The wheel is replaced atomically, under the same name.
"""

from __future__ import annotations

import argparse
import configparser
import io
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

COMMAND = "sage-flags"


def without_console_script(entry_points: str) -> str:
    """entry_points.txt less the COMMAND console script (and a section it leaves empty)."""
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # names are case-sensitive
    parser.read_string(entry_points)
    if not (parser.has_section("console_scripts") and parser.remove_option("console_scripts", COMMAND)):
        raise SystemExit("wheel_add_executable: the wheel has no %s console script" % COMMAND)
    if not parser.items("console_scripts"):
        parser.remove_section("console_scripts")
    out = io.StringIO()
    parser.write(out)
    return out.getvalue().strip() + "\n" if parser.sections() else ""


def add_executable(wheel: Path, executable: Path) -> None:
    with tempfile.TemporaryDirectory(dir=wheel.parent) as work:
        unpacked, packed = Path(work) / "unpacked", Path(work) / "packed"
        wheel_cli = [sys.executable, "-m", "wheel"]
        # Every entry gets maturin's time (1980-01-01) unless SOURCE_DATE_EPOCH says otherwise: same inputs,
        # same wheel.
        env = dict(os.environ, SOURCE_DATE_EPOCH=os.environ.get("SOURCE_DATE_EPOCH", "315532800"))
        quiet = {"check": True, "stdout": subprocess.DEVNULL, "env": env}
        subprocess.run([*wheel_cli, "unpack", "--dest", str(unpacked), str(wheel)], **quiet)
        (root,) = unpacked.iterdir()
        (dist_info,) = root.glob("*.dist-info")
        entry_points = dist_info / "entry_points.txt"
        rest = without_console_script(entry_points.read_text(encoding="utf-8"))
        if rest:
            entry_points.write_text(rest, encoding="utf-8")
        else:
            entry_points.unlink()
        scripts = root / (dist_info.name[: -len(".dist-info")] + ".data") / "scripts"
        scripts.mkdir(parents=True)
        target = scripts / (COMMAND + executable.suffix)  # ".exe" on Windows, nothing elsewhere
        shutil.copyfile(executable, target)
        os.chmod(target, 0o755)
        packed.mkdir()
        subprocess.run([*wheel_cli, "pack", "--dest-dir", str(packed), str(root)], **quiet)
        (result,) = packed.iterdir()
        if result.name != wheel.name:
            raise SystemExit("wheel_add_executable: wheel pack wrote %s, not %s" % (result.name, wheel.name))
        result.replace(wheel)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("wheel", type=Path, help="the native wheel maturin built (changed in place)")
    parser.add_argument("executable", type=Path, help="the sage-flags program built for the same platform")
    args = parser.parse_args()
    add_executable(args.wheel.resolve(), args.executable.resolve())
    return 0


if __name__ == "__main__":
    sys.exit(main())
