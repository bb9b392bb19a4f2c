"""The native `sage-flags` executable (crates/sage-flags-cli, docs/IMPLEMENTATION.md D27) as users get it.

- from the native wheel: a fresh venv's `sage-flags` is the executable (tests/test_wheels.py runs every vector
  through it); the subcommands it hands to the Python beside it print what `python -m sage_flags` prints;
- from `cargo install --path crates/sage-flags-cli` into a temporary root, with no Python beside it: every
  parse, batch and announce vector, and the handed-over subcommands end with status 3 and one line;
- the launcher says which kind of installed program it found.
The parity layer "exe" (parity/layers.py) runs the same build (mk/cli.mk) through make parity and make fuzz.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Tuple

import interpreters
import pytest
from artifacts import VERSION, Artifacts, artifacts, clean_env, entry, fresh_venv, vector_failures

from parity import vectors
from parity.layers import NATIVE_EXE, NATIVE_EXE_COMMANDS, ROOT

ELF = b"\x7fELF"


@pytest.fixture(scope="module")
def wheel_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bin/ of a fresh venv with the native wheel installed."""
    built: Artifacts = artifacts()
    return fresh_venv(tmp_path_factory.mktemp("native") / "venv", str(built.native_wheel))


@pytest.fixture(scope="module")
def cargo_installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`cargo install` of the crate from this clone into a temporary root; returns the program."""
    root = tmp_path_factory.mktemp("cargo-root")
    crate = ROOT / "crates" / "sage-flags-cli"
    done = subprocess.run(
        ["cargo", "install", "--quiet", "--locked", "--path", str(crate), "--root", str(root)],
        capture_output=True,
        text=True,
        env=clean_env(CARGO_TARGET_DIR=str(root / "target")),
        timeout=900,
    )
    assert done.returncode == 0, done.stderr
    program = root / "bin" / "sage-flags"
    assert program.read_bytes()[:4] == ELF and not (root / "bin" / "python3").exists()
    return program


def run(argv: List[str], **kwargs: object) -> subprocess.CompletedProcess:
    """argv in a clean environment (unless ``env`` is given), output captured."""
    kwargs.setdefault("env", clean_env())
    return subprocess.run(argv, capture_output=True, timeout=60, **kwargs)  # type: ignore[call-overload]


def test_the_wheel_installs_the_native_executable_as_sage_flags(wheel_venv: Path) -> None:
    assert (wheel_venv / "sage-flags").read_bytes()[:4] == ELF
    exe = run([str(wheel_venv / "sage-flags"), "--version"])
    module = run([str(wheel_venv / "python"), "-m", "sage_flags", "--version"])
    assert (exe.stdout, exe.returncode) == (module.stdout, 0)
    assert exe.stdout == f"sage-flags {VERSION} (vocabularies: sage-1.1, sage-1.3, sage-1.3.18)\n".encode()


@pytest.mark.parametrize(
    "argv",
    [["--help"], ["help"], ["-h"], ["config", "explain", "{config}"], ["config", "explain", "{config}", "--json"]],
    ids=lambda argv: " ".join(argv),
)
def test_handed_over_subcommands_print_what_python_prints(wheel_venv: Path, argv: List[str], tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_bytes(b"quality_locked: True\nautonomous: true\n")
    args = [a.replace("{config}", str(config)) for a in argv]
    exe = run([str(wheel_venv / "sage-flags"), *args], cwd=tmp_path)
    module = run([str(wheel_venv / "python"), "-m", "sage_flags", *args], cwd=tmp_path)
    assert (exe.stdout, exe.stderr, exe.returncode) == (module.stdout, module.stderr, module.returncode)
    assert exe.returncode == 0 and exe.stdout


def test_python_api_and_module_are_unchanged(wheel_venv: Path) -> None:
    code = "import sage_flags; r = sage_flags.parse('--autonomous go'); print(sage_flags.BACKEND, r.autonomous, r.goal)"
    assert run([str(wheel_venv / "python"), "-c", code]).stdout == b"native True go\n"
    done = run([str(wheel_venv / "python"), "-m", "sage_flags", "parse", "--quality-locked", "x"])
    assert done.stdout.startswith(b'{"quality_locked": true') and done.returncode == 0


def test_handoff_without_sage_flags_beside_it_is_status_3(tmp_path: Path) -> None:
    """A python3 beside the executable that cannot import sage_flags: one line, status 3."""
    bin_dir = fresh_venv(tmp_path / "venv")  # python3, and nothing installed
    shutil.copy(NATIVE_EXE, bin_dir / "sage-flags")
    done = run([str(bin_dir / "sage-flags"), "resume", str(tmp_path / "manifest.md"), "go"])
    assert (done.returncode, done.stdout, done.stderr.count(b"\n")) == (3, b"", 1), done.stderr
    assert b"has no sage_flags" in done.stderr


def test_cargo_install_runs_every_native_vector(cargo_installed: Path, tmp_path: Path) -> None:
    assert not vector_failures(entry("cargo-install", [str(cargo_installed)], NATIVE_EXE_COMMANDS), tmp_path, "every")


@pytest.mark.parametrize("command", ["persist", "resume", "help", "config", "adopt"])
def test_cargo_install_without_python_says_so_in_one_line(cargo_installed: Path, command: str, tmp_path: Path) -> None:
    manifest = tmp_path / "manifest.md"
    manifest.write_bytes(b"---\nflags:\n  autonomous: true\n---\n")
    line = vectors.load_all("persist")[0].stdin  # a line persist would accept
    done = run([str(cargo_installed), command, str(manifest)], input=line)
    assert (done.returncode, done.stdout, done.stderr.count(b"\n")) == (3, b"", 1), done.stderr
    assert done.stderr.startswith(b"sage-flags: '%s' needs the sage-flags Python package" % command.encode())
    assert manifest.read_bytes() == b"---\nflags:\n  autonomous: true\n---\n"


# Issue 24 item 3 (SPEC D27.1): the Python a native wheel's `sage-flags` was installed for, in every scheme pip
# installs into, found without touching this machine's Python: each install goes into a temporary folder (a
# temporary HOME/PYTHONUSERBASE for --user), by this venv's pip for the interpreter behind it.
BASE_PYTHON = Path(os.path.realpath(getattr(sys, "_base_executable", sys.executable)))
PYTHON_X_Y = f"python{sys.version_info[0]}.{sys.version_info[1]}"
MANIFEST = b"---\nflags:\n  autonomous: false\n---\nbody\n"
SCHEMES = ["venv", "pipx", "user", "prefix", "root"]


def pip_install(tmp_path: Path, scheme: str, wheel: Path) -> Tuple[Path, Dict[str, str]]:
    """Install ``wheel`` in ``scheme`` under ``tmp_path``; the directory holding its `sage-flags`, and the
    environment a user of that scheme has (PATH: that directory, then only a python3.X where one belongs)."""
    if scheme in ("venv", "pipx"):
        bin_dir = fresh_venv(tmp_path / "venv", str(wheel))
        if scheme == "pipx":  # pipx: a venv per tool, its command a symlink in ~/.local/bin
            (tmp_path / "local-bin").mkdir()
            (tmp_path / "local-bin" / "sage-flags").symlink_to(bin_dir / "sage-flags")
            bin_dir = tmp_path / "local-bin"
        return bin_dir, clean_env(PATH=str(bin_dir))
    env = clean_env(HOME=str(tmp_path / "home"), PYTHONUSERBASE=str(tmp_path / "userbase"))
    where = {"user": ["--user"], "prefix": ["--prefix", str(tmp_path / "prefix")], "root": ["--root", str(tmp_path)]}
    pip = [sys.executable, "-m", "pip", "--python", str(BASE_PYTHON), "install", "--quiet", "--no-index", "--no-deps"]
    done = subprocess.run(
        [*pip, "--break-system-packages", *where[scheme], str(wheel)], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr
    (program,) = [p for p in tmp_path.rglob("sage-flags") if "site-packages" not in p.parts]
    interpreter_dir = tmp_path / "interpreter"  # the installing Python, under the name pip's scheme implies
    interpreter_dir.mkdir()
    (interpreter_dir / PYTHON_X_Y).symlink_to(BASE_PYTHON)
    env["PATH"] = f"{program.parent}{os.pathsep}{interpreter_dir}"
    return program.parent, env


def parse_then_persist(
    program: str, manifest: Path, env: Dict[str, str]
) -> Tuple[bytes, "subprocess.CompletedProcess"]:
    line = run([program, "parse", "--autonomous", "ship"], env=env).stdout
    assert line.startswith(b'{"quality_locked": false, "autonomous": true'), line
    return line, run([program, "persist", str(manifest)], input=line, env=env, cwd=manifest.parent)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_the_wheel_executable_hands_over_to_its_installation_python(scheme: str, tmp_path: Path) -> None:
    bin_dir, env = pip_install(tmp_path, scheme, artifacts().native_wheel)
    program = str(bin_dir / "sage-flags")
    assert Path(program).resolve().read_bytes()[:4] == ELF
    manifest = tmp_path / "m.md"
    manifest.write_bytes(MANIFEST)
    line, persisted = parse_then_persist(program, manifest, env)
    assert (persisted.returncode, persisted.stdout, persisted.stderr) == (0, line, b""), persisted.stderr
    assert b"  autonomous: true\n" in manifest.read_bytes()
    resumed = run([program, "resume", str(manifest), "go"], env=env)
    assert (resumed.returncode, resumed.stderr) == (0, b"") and b'"autonomous_source": "manifest"' in resumed.stdout
    for argv in (["config", "explain", str(manifest)], ["--help"]):
        done = run([program, *argv], env=env)
        assert (done.returncode, done.stderr) == (0, b"") and done.stdout, (argv, done.stderr)


@pytest.mark.parametrize("scheme", ["user", "prefix"])
def test_no_python_of_the_installation_is_status_3(scheme: str, tmp_path: Path) -> None:
    """Without the scheme's python3.X: status 3 and one line, nothing read (the bundle's launcher never runs an
    installed program, SPEC L1: tests/test_launcher.py)."""
    bin_dir, env = pip_install(tmp_path, scheme, artifacts().native_wheel)
    env["PATH"] = str(bin_dir)  # no Python at all
    manifest = tmp_path / "m.md"
    manifest.write_bytes(MANIFEST)
    _, direct = parse_then_persist(str(bin_dir / "sage-flags"), manifest, env)
    assert (direct.returncode, direct.stdout, direct.stderr.count(b"\n")) == (3, b"", 1), direct.stderr
    assert b"no Python of this installation" in direct.stderr and manifest.read_bytes() == MANIFEST


@pytest.mark.parametrize("version", ["2.7", "3.6"])
def test_handoff_to_a_python_older_than_3_8_is_status_3(version: str, tmp_path: Path) -> None:
    """SPEC D27, D28: an old interpreter beside the executable gets the hand-over program's one line, not a
    SyntaxError or a traceback; with SAGE_FLAGS_LAUNCHER_EXEC set (what launchers before issue 42 set; nothing
    sets it now, L1) the same is status 97 and silent (D27)."""
    found = interpreters.find(version)
    if found is None:
        pytest.skip(f"Python {version} not found ({interpreters.where_looked(version)})")
    shutil.copy(NATIVE_EXE, tmp_path / "sage-flags")
    (tmp_path / "python3").symlink_to(found[0])
    done = run([str(tmp_path / "sage-flags"), "config", "explain", "x"])
    assert (done.returncode, done.stdout, done.stderr.count(b"\n")) == (3, b"", 1), done.stderr
    assert b"needs 3.8 or newer" in done.stderr
    quiet = run([str(tmp_path / "sage-flags"), "help"], env=clean_env(SAGE_FLAGS_LAUNCHER_EXEC="sage-flags"))
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (97, b"", b"")


def test_a_handed_over_subcommand_keeps_the_named_vocabulary(wheel_venv: Path, tmp_path: Path) -> None:
    """SPEC B2, D27: `--vocabulary NAME` before a subcommand the executable hands to its Python reaches it."""
    config = tmp_path / "config.yaml"
    config.write_bytes(b"parallel: true\n")
    named = run([str(wheel_venv / "sage-flags"), "--vocabulary", "sage-1.3.18", "config", "explain", str(config)])
    assert (named.returncode, named.stderr) == (0, b"") and b"honored: parallel is on by default" in named.stdout
    default = run([str(wheel_venv / "sage-flags"), "config", "explain", str(config)])
    assert default.returncode == 0 and b"parallel" not in default.stdout.split(b"\n")[-2]
    unknown = run([str(wheel_venv / "sage-flags"), "--vocabulary", "sage-9", "config", "explain", str(config)])
    assert (unknown.returncode, unknown.stdout, unknown.stderr.count(b"\n")) == (2, b"", 1)
