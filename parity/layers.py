"""Every layer, as a workflow calls it: the real command line of each entry.

A layer maps a subcommand ("parse", "batch", ...) to the argv prefix that runs
it. Tests and the fuzzer iterate over ``available_layers()``; a layer whose
code is not in the checkout yet is left out, never faked.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence

ROOT = Path(__file__).resolve().parent.parent
SAGE_DIR = ROOT / "sage"
FLAG_PARSER_DIR = SAGE_DIR / "core" / "flag_parser"
PYTHON = sys.executable
SAGE_FLAGS = str(Path(PYTHON).parent / ("sage-flags.exe" if os.name == "nt" else "sage-flags"))


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


# Windows looks in System32 before PATH, where bash.exe is WSL's: Git Bash's is named by its full path there.
BASH = (shutil.which("bash") or "bash") if os.name == "nt" else "bash"


def _native_available() -> bool:
    probe = subprocess.run([PYTHON, "-c", "import sage_flags._native"], capture_output=True)
    return probe.returncode == 0


# The subcommands the runners drive; the bash port has one script per subcommand.
COMMANDS = ("parse", "batch", "announce", "persist", "resume")
# `python -m core.flag_parser` is the drop-in for workflows: they call parse and announce through it.
COMPAT_COMMANDS = ("parse", "announce")
# The Python layers' argv words per command: the bash port's commands, and `config explain` (as "explain").
PYTHON_COMMANDS = {**{c: [c] for c in COMMANDS}, "explain": ["config", "explain"]}


def package_layers(suffix: str, python: str, console_script: str, env: Dict[str, str]) -> List[Layer]:
    """One installation's two entries: its `sage-flags` program (cli-SUFFIX) and `python -m sage_flags`."""
    cli = {c: [console_script, *words] for c, words in PYTHON_COMMANDS.items()}
    module = {c: [python, "-m", "sage_flags", *words] for c, words in PYTHON_COMMANDS.items()}
    return [Layer(f"cli-{suffix}", cli, env), Layer(f"module-{suffix}", module, env)]


def compat_layer(suffix: str, python: str, env: Dict[str, str]) -> Layer:
    """`python -m core.flag_parser`, run from sage/ as a workflow runs it."""
    return Layer(f"compat-{suffix}", {c: [python, "-m", "core.flag_parser", c] for c in COMPAT_COMMANDS}, env, SAGE_DIR)


def all_layers() -> List[Layer]:
    pure = {"SAGE_FLAGS_BACKEND": "python"}
    native = {"SAGE_FLAGS_BACKEND": "native"}
    layers = [*package_layers("pure", PYTHON, SAGE_FLAGS, pure), compat_layer("pure", PYTHON, pure)]
    if _native_available():
        layers += [*package_layers("native", PYTHON, SAGE_FLAGS, native), compat_layer("native", PYTHON, native)]
    scripts = {c: FLAG_PARSER_DIR / f"{c}.sh" for c in COMMANDS}
    bash = {c: [BASH, bash_path(script)] for c, script in scripts.items() if script.exists()}
    if "parse" in bash:
        layers.append(Layer("bash", bash))
    return layers


def bash_path(path: Path) -> str:
    """``path`` as bash sees it: on Windows, Git Bash's /c/... form (the scripts find their siblings by it)."""
    if os.name != "nt":
        return str(path)
    drive, rest = os.path.splitdrive(str(path.resolve()))
    return "/" + drive.rstrip(":").lower() + rest.replace("\\", "/")


_LAYERS: Optional[List[Layer]] = None


def available_layers(command: str = "parse") -> List[Layer]:
    global _LAYERS
    if _LAYERS is None:
        _LAYERS = all_layers()
    return [layer for layer in _LAYERS if command in layer.commands]
