"""Every layer, as a workflow calls it: the real command line of each entry.

A layer maps a subcommand ("parse", "batch", ...) to the argv prefix that runs
it. Tests and the fuzzer iterate over ``available_layers()``; the native layers
are left out when the native core is not built, never faked.

The bash port is one layer per bash interpreter (``bash_interpreters()``): the
environment variable SAGE_FLAGS_BASHES lists interpreter paths, colon-separated
(the Makefile sets the old bashes it built and the system bash); unset or empty,
the system bash alone. The system bash's layer is "bash", the others
"bash-MAJOR.MINOR" (e.g. "bash-3.2").
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple

ROOT = Path(__file__).resolve().parent.parent
SAGE_DIR = ROOT / "sage"
FLAG_PARSER_DIR = SAGE_DIR / "core" / "flag_parser"
PYTHON = sys.executable
SAGE_FLAGS = str(Path(PYTHON).parent / "sage-flags")


@dataclass(frozen=True)
class Layer:
    name: str
    commands: Dict[str, List[str]]
    env: Dict[str, str] = field(default_factory=dict)
    cwd: Optional[Path] = None

    def argv(self, command: str, args: Sequence[bytes]) -> List[bytes]:
        return [os.fsencode(a) for a in self.commands[command]] + list(args)

    def run(
        self,
        command: str,
        args: Sequence[bytes],
        *,
        stdin: bytes = b"",
        env: Optional[Dict[str, str]] = None,
        cwd: Optional[Path] = None,
        timeout: float = 30,
    ) -> subprocess.CompletedProcess:
        full_env = dict(os.environ)
        full_env.update(self.env)
        full_env.update(env or {})
        return subprocess.run(
            self.argv(command, args),
            input=stdin,
            capture_output=True,
            env=full_env,
            cwd=cwd or self.cwd,
            timeout=timeout,
        )


def _native_available() -> bool:
    probe = subprocess.run([PYTHON, "-c", "import sage_flags._native"], capture_output=True)
    return probe.returncode == 0


# The subcommands the runners drive; the bash port has one script per subcommand.
COMMANDS = ("parse", "batch", "announce", "persist", "resume")
# `python -m core.flag_parser` is the drop-in for workflows: they call parse and announce through it.
COMPAT_COMMANDS = ("parse", "announce")


BASHES_VARIABLE = "SAGE_FLAGS_BASHES"
SYSTEM_BASH = "bash"  # the layer name of the bash found on PATH


class BashInterpreter(NamedTuple):
    name: str  # "bash" (the one on PATH) or "bash-MAJOR.MINOR"
    path: str  # absolute
    version: Tuple[int, int]  # (major, minor), from BASH_VERSINFO


def _bash_version(path: str) -> Tuple[int, int]:
    probe = subprocess.run(
        [path, "-c", 'printf "%s.%s" "${BASH_VERSINFO[0]}" "${BASH_VERSINFO[1]}"'],
        capture_output=True,
        text=True,
        timeout=30,
    )
    if probe.returncode != 0 or not re.fullmatch(r"\d+\.\d+", probe.stdout):
        raise RuntimeError(f"{BASHES_VARIABLE}: {path} does not run as bash: {probe.stderr.strip()!r}")
    major, minor = probe.stdout.split(".")
    return int(major), int(minor)


@functools.lru_cache(maxsize=None)
def _interpreters(listed: str, system: Optional[str]) -> List[BashInterpreter]:
    paths = [p for p in listed.split(":") if p] if listed else [system] if system else []
    system_file = os.path.realpath(system) if system else None
    found: List[BashInterpreter] = []
    seen = set()
    for path in paths:
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            # A wrong list must not quietly test fewer bashes.
            raise RuntimeError(f"{BASHES_VARIABLE} lists {path!r}, which is not an executable file")
        real = os.path.realpath(path)
        if real in seen:
            continue
        seen.add(real)
        version = _bash_version(path)
        name = SYSTEM_BASH if real == system_file else "bash-%d.%d" % version
        if name in {b.name for b in found}:
            name += "-" + str(len(found) + 1)  # two builds of one version: both run, told apart
        found.append(BashInterpreter(name, os.path.abspath(path), version))
    return found


def bash_interpreters() -> List[BashInterpreter]:
    """The bashes the bash layer runs under: $SAGE_FLAGS_BASHES, or the bash on PATH (none: an empty list)."""
    return list(_interpreters(os.environ.get(BASHES_VARIABLE, ""), shutil.which("bash")))


def all_layers() -> List[Layer]:
    pure = {"SAGE_FLAGS_BACKEND": "python"}
    native = {"SAGE_FLAGS_BACKEND": "native"}
    cli = {c: [SAGE_FLAGS, c] for c in COMMANDS}
    module = {c: [PYTHON, "-m", "sage_flags", c] for c in COMMANDS}
    compat = {c: [PYTHON, "-m", "core.flag_parser", c] for c in COMPAT_COMMANDS}
    layers = [
        Layer("cli-pure", cli, pure),
        Layer("module-pure", module, pure),
        Layer("compat-pure", compat, pure, SAGE_DIR),
    ]
    if _native_available():
        layers += [
            Layer("cli-native", cli, native),
            Layer("module-native", module, native),
            Layer("compat-native", compat, native, SAGE_DIR),
        ]
    # Every script, present or not: a missing one fails its tests (bash exits 127), it is never skipped.
    scripts = {c: str(FLAG_PARSER_DIR / f"{c}.sh") for c in COMMANDS}
    for bash in bash_interpreters():
        layers.append(Layer(bash.name, {c: [bash.path, script] for c, script in scripts.items()}))
    return layers


_LAYERS: Optional[List[Layer]] = None


def available_layers(command: str = "parse") -> List[Layer]:
    global _LAYERS
    if _LAYERS is None:
        _LAYERS = all_layers()
    return [layer for layer in _LAYERS if command in layer.commands]
