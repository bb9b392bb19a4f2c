"""The CPython interpreters of other versions on this machine: the Python matrix and the launcher's old-python tests.

Looked up in order: SAGE_FLAGS_PYTHONS (interpreter paths separated by os.pathsep: what CI passes from
actions/setup-python), then ~/.pyenv/versions/<version>.* (the newest patch release; $PYENV_ROOT if set), then
``python<version>`` on PATH. Each candidate is asked its version, so a broken shim or a wrong binary is passed over.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Dict, List, Optional, Tuple

# The versions the package claims (pyproject.toml: requires-python >= 3.8) and the ones the launcher must pass over.
SUPPORTED = ("3.8", "3.9", "3.10", "3.11", "3.12", "3.13")
TOO_OLD = ("2.7", "3.6", "3.7")
VERSION_PROBE = "import sys; print('%d.%d.%d' % sys.version_info[:3])"


def pyenv_versions() -> Path:
    root = os.environ.get("PYENV_ROOT") or str(Path.home() / ".pyenv")
    return Path(root) / "versions"


def _release(name: str) -> Tuple[int, ...]:
    return tuple(int(part) for part in name.split("."))


def _candidates(version: str) -> List[str]:
    found = [path for path in os.environ.get("SAGE_FLAGS_PYTHONS", "").split(os.pathsep) if path]
    releases = [d for d in pyenv_versions().glob(version + ".*") if re.fullmatch(r"\d+\.\d+\.\d+", d.name)]
    for release in sorted(releases, key=lambda d: _release(d.name), reverse=True):
        bin_dir = release / ("Scripts" if os.name == "nt" else "bin")
        found += [str(bin_dir / f"python{version}"), str(bin_dir / "python")]
    on_path = shutil.which(f"python{version}")
    if on_path:
        found.append(on_path)
    return found


@functools.lru_cache(maxsize=None)
def _version_of(path: str) -> Optional[str]:
    if not os.path.isfile(path):
        return None
    try:
        done = subprocess.run([path, "-c", VERSION_PROBE], capture_output=True, text=True, timeout=60)
    except OSError:
        return None
    return done.stdout.strip() if done.returncode == 0 else None


@functools.lru_cache(maxsize=None)
def find(version: str) -> Optional[Tuple[str, str]]:
    """(interpreter path, full version such as "3.8.18") of CPython ``version`` ("3.8"), or None."""
    for path in _candidates(version):
        full = _version_of(path)
        if full and full.rsplit(".", 1)[0] == version:
            return path, full
    return None


def where_looked(version: str) -> str:
    return f"SAGE_FLAGS_PYTHONS, {pyenv_versions()}/{version}.*, python{version} on PATH"


def present(versions: Tuple[str, ...]) -> Dict[str, Tuple[str, str]]:
    return {v: found for v in versions for found in [find(v)] if found}
