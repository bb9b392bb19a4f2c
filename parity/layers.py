"""Every layer, as a workflow calls it: the real command line of each entry.

A layer maps a subcommand ("parse", "batch", ...) to the argv prefix that runs
it. Tests and the fuzzer iterate over ``available_layers()``; the native layers
are left out when the native core is not built, never faked.

The project whose layers run is this checkout, or a copy of it built for another
vocabulary (tools/build_vocabulary.py): ``project_layers(copy)``, or, for the
whole harness (``make parity`` runs the fuzzer on Sage 1.3's build so), the
environment variable SAGE_FLAGS_PROJECT naming the copy with PYTHONPATH naming
its python/ directory, so that the in-process reference is the copy's too.

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
PROJECT = Path(os.environ.get("SAGE_FLAGS_PROJECT") or ROOT).resolve()
SAGE_DIR = PROJECT / "sage"
FLAG_PARSER_DIR = SAGE_DIR / "core" / "flag_parser"  # the drop-in (Sage 1.1's `python -m core.flag_parser`)
# The bash port: package data of sage_flags (python/sage_flags/bash/), in the checkout being tested.
BASH_DIR = PROJECT / "python" / "sage_flags" / "bash"
PYTHON = sys.executable
SAGE_FLAGS = str(Path(PYTHON).parent / ("sage-flags.exe" if os.name == "nt" else "sage-flags"))
# The native executable (crates/sage-flags-cli), as `make setup` builds it for this machine (mk/cli.mk).
NATIVE_EXE = ROOT / "target" / "native" / "sage-flags"


def vendored_bundle() -> Path:
    """This checkout's bundle laid out as unpacking it would (tools/build_bundle.py's files, the package being
    python/sage_flags's), for the launcher's layers: the launcher runs its own bundle's copy only (SPEC L1). Laid
    once per content under build/vendored-bundle/, by rename, so that processes never see half of it."""
    import hashlib
    import tempfile

    sys.path.insert(0, str(ROOT / "tools"))
    import build_bundle

    package = ROOT / "python" / "sage_flags"
    vendored = [
        (build_bundle.VENDOR + "/sage_flags/" + path.relative_to(package).as_posix(), path.read_bytes(), False)
        for path in sorted(package.rglob("*"))
        if path.is_file()
        and "__pycache__" not in path.parts
        and (path.suffix == ".py" or path.name == "py.typed" or len(path.relative_to(package).parts) > 1)
    ]
    files = build_bundle.bundle_files(vendored)
    digest = hashlib.sha256(repr(sorted(files.items())).encode()).hexdigest()[:16]
    where = ROOT / "build" / "vendored-bundle" / digest
    if not where.is_dir():
        where.parent.mkdir(parents=True, exist_ok=True)
        partial = Path(tempfile.mkdtemp(dir=where.parent))
        for member, (data, executable) in files.items():
            (partial / member).parent.mkdir(parents=True, exist_ok=True)
            (partial / member).write_bytes(data)
            (partial / member).chmod(0o755 if executable else 0o644)
        try:
            partial.rename(where)
        except OSError:  # another process laid it first
            shutil.rmtree(partial)
    return where


@dataclass(frozen=True)
class Layer:
    name: str
    commands: Dict[str, List[str]]
    env: Dict[str, str] = field(default_factory=dict)
    cwd: Optional[Path] = None
    bash: Optional[str] = None  # the bash layers: the interpreter's path (SPEC H4)

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


def _native_available(env: Dict[str, str]) -> bool:
    probe = subprocess.run([PYTHON, "-c", "import sage_flags._native"], capture_output=True, env={**os.environ, **env})
    return probe.returncode == 0


# The subcommands the runners drive; the bash port has one script per subcommand.
COMMANDS = ("parse", "batch", "announce", "persist", "resume")
# What the bash layer answers as every layer does: persist.sh and resume.sh only refuse (they record and restore
# nothing, SPEC P12), so the persist and resume vectors run in the Python layers, where the one implementation is.
BASH_COMMANDS = ("parse", "batch", "announce")
# `python -m core.flag_parser` is the drop-in for workflows: they call parse and announce through it.
COMPAT_COMMANDS = ("parse", "announce")
# What the native executable runs itself; it hands persist and resume to the Python beside it (SPEC D27),
# which target/native/ does not have.
NATIVE_EXE_COMMANDS = ("parse", "batch", "announce", "hook")
# The Python layers' argv words per command: the bash port's commands, `config` (vectors give `explain ...`
# as their argv) and `config explain` (as "explain").
PYTHON_COMMANDS = {
    **{c: [c] for c in COMMANDS},
    "config": ["config"],
    "explain": ["config", "explain"],
    "hook": ["hook"],
}
# The launcher as a harness runs it for `hook` (docs/SPEC.md K9, K12): with the system's programs only, so its
# Python layer (the checkout's package) runs, and with the native executable on PATH, which it then execs.
LAUNCHER_PATHS = {"launcher": "/usr/bin:/bin", "launcher-exe": f"{NATIVE_EXE.parent}:/usr/bin:/bin"}


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


def package_layers(suffix: str, python: str, console_script: str, env: Dict[str, str]) -> List[Layer]:
    """One installation's two entries: its `sage-flags` program (cli-SUFFIX) and `python -m sage_flags`."""
    cli = {c: [console_script, *words] for c, words in PYTHON_COMMANDS.items()}
    module = {c: [python, "-m", "sage_flags", *words] for c, words in PYTHON_COMMANDS.items()}
    return [Layer(f"cli-{suffix}", cli, env), Layer(f"module-{suffix}", module, env)]


def compat_layer(suffix: str, python: str, env: Dict[str, str], sage_dir: Path = SAGE_DIR) -> Layer:
    """`python -m core.flag_parser`, run from sage/ as a workflow runs it."""
    commands = {c: [python, "-m", "core.flag_parser", c] for c in COMPAT_COMMANDS}
    return Layer(f"compat-{suffix}", commands, env, sage_dir)


def project_layers(root: Path) -> List[Layer]:
    """Every layer of the project at ``root``: this checkout, or a copy built for another vocabulary."""
    root = root.resolve()
    path = {} if root == ROOT else {"PYTHONPATH": str(root / "python")}
    pure = {"SAGE_FLAGS_BACKEND": "python", **path}
    native = {"SAGE_FLAGS_BACKEND": "native", **path}
    layers = [*package_layers("pure", PYTHON, SAGE_FLAGS, pure), compat_layer("pure", PYTHON, pure, root / "sage")]
    if _native_available(path):
        layers += [
            *package_layers("native", PYTHON, SAGE_FLAGS, native),
            compat_layer("native", PYTHON, native, root / "sage"),
        ]
    if (root / "crates" / "sage-flags-cli").is_dir():  # built by make setup (or build_vocabulary.py), never skipped
        exe = NATIVE_EXE if root == ROOT else root / NATIVE_EXE.relative_to(ROOT)
        layers.append(Layer("exe", {c: [str(exe), c] for c in NATIVE_EXE_COMMANDS}))
    if root == ROOT:  # the hook through the bundle's launcher (the other commands: tests/test_launcher.py)
        launcher = str(vendored_bundle() / "sage" / "bin" / "sage-flags")
        for name, path in LAUNCHER_PATHS.items():
            layers.append(
                Layer(name, {"hook": ["/bin/sh", launcher, "hook"]}, {"PATH": path, "SAGE_FLAGS_BACKEND": ""})
            )
    # Every script, present or not: a missing one fails its tests (bash exits 127), it is never skipped.
    scripts = {c: bash_path(root / "python" / "sage_flags" / "bash" / f"{c}.sh") for c in BASH_COMMANDS}
    for bash in bash_interpreters():
        layers.append(Layer(bash.name, {c: [bash.path, script] for c, script in scripts.items()}, bash=bash.path))
    return layers


def bash_path(path: Path) -> str:
    """``path`` as bash sees it: on Windows, Git Bash's /c/... form (the scripts find their siblings by it)."""
    if os.name != "nt":
        return str(path)
    drive, rest = os.path.splitdrive(str(path.resolve()))
    return "/" + drive.rstrip(":").lower() + rest.replace("\\", "/")


def all_layers() -> List[Layer]:
    return project_layers(PROJECT)


_LAYERS: Optional[List[Layer]] = None


def available_layers(command: str = "parse") -> List[Layer]:
    global _LAYERS
    if _LAYERS is None:
        _LAYERS = all_layers()
    return [layer for layer in _LAYERS if command in layer.commands]
