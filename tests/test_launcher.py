"""sage/bin/sage-flags: picks the best layer present, and passes argv/stdout/stderr/status through untouched.

Each layer is hidden in turn by building PATH from a sandbox directory holding only the programs the
scenario allows (and by copying the checkout without python/), then a sample of the vectors is run
through the launcher and compared byte for byte with the expected output. The launcher itself runs
under every POSIX shell at hand: dash (Debian's /bin/sh) and each bash of $SAGE_FLAGS_BASHES in sh
mode (`bash-3.2 --posix` is macOS's /bin/sh); the bash layer then runs under that same bash
(under dash: the bash on PATH), so every bash also serves as the launcher's bash layer.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import interpreters
import pytest

from parity import vectors
from parity.layers import NATIVE_EXE, ROOT, SAGE_FLAGS, SYSTEM_BASH, BashInterpreter, bash_interpreters
from parity.optional import missing

LAUNCHER = ROOT / "sage" / "bin" / "sage-flags"
BASH_DIR = ROOT / "python" / "sage_flags" / "bash"
# The interpreter behind .venv (a symlink to it outside the venv does not see the venv's site-packages).
BASE_PYTHON = os.path.realpath(getattr(sys, "_base_executable", sys.executable))
HAS_BASH_LAYER = bool(bash_interpreters())  # a missing script fails; only a machine without bash skips


class Shell:
    """A POSIX shell that runs the launcher (argv prefix), and the bash its bash layer finds on PATH."""

    def __init__(self, name: str, argv: List[str], bash: Optional[BashInterpreter]) -> None:
        self.name, self.argv, self.bash = name, argv, bash

    def __repr__(self) -> str:
        return self.name


def launcher_shells() -> List[object]:
    system = next((b for b in bash_interpreters() if b.name == SYSTEM_BASH), None)
    dash = shutil.which("dash")
    shells: List[object] = [
        pytest.param(
            Shell("dash", [dash or "dash"], system),
            marks=pytest.mark.skipif(dash is None, reason=missing("dash", "not on PATH; the launcher under /bin/sh")),
            id="dash",
        )
    ]
    for bash in bash_interpreters():
        shells.append(pytest.param(Shell(f"{bash.name}-posix", [bash.path, "--posix"], bash), id=f"{bash.name}-posix"))
    return shells


SHELLS = launcher_shells()


def _sample() -> List[vectors.Vector]:
    parse = vectors.load_all("parse")
    # Every stdin vector too (I1-I6): the launcher passes --stdin and standard input through to every layer.
    picked = [
        v for i, v in enumerate(parse) if i % 8 == 0 or v.status == 2 or "E4" in v.rules or v.name.startswith("stdin-")
    ]
    return picked + vectors.load_all("batch") + vectors.load_all("announce")


SAMPLE = _sample()


def make_path(tmp: Path, programs: Dict[str, str]) -> str:
    """A directory holding exactly ``programs`` (name -> real path), as a PATH value."""
    bin_dir = tmp / "bin"
    bin_dir.mkdir(exist_ok=True)
    for name, target in programs.items():
        (bin_dir / name).symlink_to(target)
    return str(bin_dir)


def tool(name: str) -> str:
    path = shutil.which(name)
    assert path, f"{name} is needed by this test"
    return os.path.realpath(path)


class Scenario:
    """One arrangement of layers: a PATH, an environment, and the layer the launcher should pick."""

    def __init__(
        self,
        name: str,
        expected: str,
        launcher: Path = LAUNCHER,
        env: Optional[Dict[str, str]] = None,
        shell: Sequence[str] = (),
    ):
        self.name, self.expected, self.launcher, self.env = name, expected, launcher, env or {}
        self.shell = list(shell)  # empty: the launcher's own #!/bin/sh

    def run(self, args: List[bytes], stdin: bytes = b"", cwd: Optional[Path] = None) -> subprocess.CompletedProcess:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SAGE_FLAGS_BACKEND", "VIRTUAL_ENV")}
        env.update(self.env)
        return subprocess.run(
            [*self.shell, str(self.launcher), *args], input=stdin, capture_output=True, env=env, cwd=cwd, timeout=30
        )


def scenarios(tmp: Path, which: str, shell: Optional[Shell] = None) -> Scenario:
    """Build the named scenario in ``tmp``; the launcher runs under ``shell``, its bash layer under shell.bash."""
    scenario = _scenario(tmp, which, tool("sh"), shell.bash.path if shell and shell.bash else tool("bash"))
    scenario.shell = shell.argv if shell else []
    return scenario


def _scenario(tmp: Path, which: str, sh: str, bash: str) -> Scenario:
    if which == "installed":
        # The installed console script, without python3 on PATH (its shebang names its own interpreter).
        path = make_path(tmp, {"sage-flags": SAGE_FLAGS, "sh": sh, "bash": bash})
        env = {"PATH": path, "PYTHONPATH": "/nonexistent"}
        return Scenario(which, f"installed: {tmp}/bin/sage-flags (script)", env=env)
    if which == "installed-native":
        # The native executable (a native wheel's or cargo install's sage-flags): no Python anywhere.
        path = make_path(tmp, {"sage-flags": str(NATIVE_EXE), "sh": sh})
        return Scenario(which, f"installed: {tmp}/bin/sage-flags (native executable)", env={"PATH": path})
    if which == "installed-after-launcher-on-path":
        # The launcher's own directory first on PATH: it must skip itself (and any copy of itself).
        copy = tmp / "other" / "sage-flags"
        copy.parent.mkdir()
        shutil.copy(LAUNCHER, copy)
        path = make_path(tmp, {"sage-flags": SAGE_FLAGS, "sh": sh})
        env = {"PATH": f"{LAUNCHER.parent}:{copy.parent}:{path}"}
        return Scenario(which, f"installed: {tmp}/bin/sage-flags (script)", env=env)
    if which == "checkout":
        path = make_path(tmp, {"python3": BASE_PYTHON, "sh": sh, "bash": bash})
        return Scenario(which, f"checkout: python3 -m sage_flags (from {ROOT}/python)", env={"PATH": path})
    if which == "checkout-via-symlinked-launcher":
        path = make_path(tmp, {"python3": BASE_PYTHON, "readlink": tool("readlink")})
        link = tmp / "bin" / "sage-flags"
        link.symlink_to(LAUNCHER)
        return Scenario(which, f"checkout: python3 -m sage_flags (from {ROOT}/python)", link, {"PATH": path})
    if which == "bash":
        path = make_path(tmp, {"bash": bash})
        return Scenario(which, f"bash: {BASH_DIR}", env={"PATH": path})
    if which == "bash-python-cannot-import":
        # python3 is there but the checkout has no python/: a copy of sage/ alone.
        shutil.copytree(ROOT / "sage", tmp / "repo" / "sage", ignore=shutil.ignore_patterns("__pycache__"))
        path = make_path(tmp, {"python3": BASE_PYTHON, "bash": bash})
        launcher = tmp / "repo" / "sage" / "bin" / "sage-flags"
        return Scenario(which, f"bash: {tmp}/repo/sage/core/flag_parser", launcher, {"PATH": path})
    if which.startswith("bash-python-") and which[len("bash-python-") :] in interpreters.TOO_OLD:
        # The only python3 on PATH is a real CPython older than 3.8 (2.7 included): the checkout's own tree.
        version = which[len("bash-python-") :]
        found = interpreters.find(version)
        if found is None:
            pytest.skip(missing(f"Python {version}", f"not found ({interpreters.where_looked(version)})"))
        path = make_path(tmp, {"python3": found[0], "bash": bash})
        return Scenario(which, f"bash: {BASH_DIR}", env={"PATH": path})
    if which == "bash-python-syntax-error":
        # python3 runs but cannot import the package: here a SyntaxError in the package itself.
        for part in ("sage", "python"):
            shutil.copytree(ROOT / part, tmp / "repo" / part, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
        with open(tmp / "repo" / "python" / "sage_flags" / "cli.py", "a") as cli:
            cli.write("\ndef broken(:\n")
        path = make_path(tmp, {"python3": BASE_PYTHON, "bash": bash})
        launcher = tmp / "repo" / "sage" / "bin" / "sage-flags"
        return Scenario(which, f"bash: {tmp}/repo/sage/core/flag_parser", launcher, {"PATH": path})
    raise ValueError(which)


LAYER_SCENARIOS = [
    "installed",
    "installed-native",
    "installed-after-launcher-on-path",
    "checkout",
    "checkout-via-symlinked-launcher",
]
TOO_OLD_SCENARIOS = [f"bash-python-{version}" for version in interpreters.TOO_OLD]
BASH_SCENARIOS = ["bash", "bash-python-cannot-import", "bash-python-syntax-error", *TOO_OLD_SCENARIOS]
needs_bash = pytest.mark.skipif(not HAS_BASH_LAYER, reason="no bash on this machine")
ALL_SCENARIOS = LAYER_SCENARIOS + [pytest.param(s, marks=needs_bash) for s in BASH_SCENARIOS]


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("which", ALL_SCENARIOS)
def test_which_names_the_layer(which: str, shell: Shell, tmp_path: Path) -> None:
    scenario = scenarios(tmp_path, which, shell)
    result = scenario.run([b"--which"])
    assert (result.returncode, result.stderr) == (0, b"")
    assert result.stdout.decode() == scenario.expected + "; vocabulary sage-1.1\n"  # the repository's VOCABULARY


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("which", ALL_SCENARIOS)
def test_output_is_identical_through_every_layer(which: str, shell: Shell, tmp_path: Path) -> None:
    """The whole sample under dash and through the plain bash layer (every bash); a tenth of it otherwise
    (a Python start per vector under each shell would cost minutes)."""
    scenario = scenarios(tmp_path, which, shell)
    sample = SAMPLE if shell.name == "dash" or which == "bash" else SAMPLE[::10]
    checked = 0
    for i, vector in enumerate(sample):
        work = tmp_path / f"v{i}"
        work.mkdir()
        args = [vector.command.encode(), *vector.materialise(work)]
        result = scenario.run(args, stdin=vector.stdin, cwd=work)
        where = f"{which} {vector.name}"
        assert result.stdout == vector.stdout, where
        assert result.returncode == vector.status, where
        if vector.status in (0, 1):
            assert result.stderr == b"", where
        else:
            assert result.stderr.endswith(b"\n") and result.stderr.count(b"\n") == 1, where
        checked += 1
    assert checked == len(sample) >= 8


def test_argv_is_passed_through_untouched(tmp_path: Path) -> None:
    """Items with spaces, globs, empty strings, backslashes, dashes and invalid UTF-8 arrive as given."""
    tricky = [b"--quality-locked", b"*", b"", b"a  b", b"\\n", b"$HOME", b"-n", b"-e", b"--config-path=", b"\xff"]
    direct = subprocess.run([SAGE_FLAGS, "parse", *tricky[:-1]], capture_output=True).stdout
    goal = b'"goal": "*  a  b \\\\n $HOME -n -e"'
    assert goal in direct
    for which in ["installed", "checkout"] + (["bash"] if HAS_BASH_LAYER else []):
        (tmp_path / which).mkdir()
        scenario = scenarios(tmp_path / which, which)
        assert scenario.run([b"parse", *tricky[:-1]], cwd=tmp_path).stdout == direct, which
        invalid = scenario.run([b"parse", *tricky], cwd=tmp_path)
        assert (invalid.returncode, b"not valid UTF-8" in invalid.stdout) == (1, True), which


@pytest.mark.parametrize("which", ["installed", "checkout"])
def test_python_layers_pass_every_subcommand(which: str, tmp_path: Path) -> None:
    scenario = scenarios(tmp_path, which)
    version = scenario.run([b"--version"])
    assert (version.returncode, version.stdout.startswith(b"sage-flags ")) == (0, True)
    config = tmp_path / "c.yaml"
    config.write_bytes(b"quality_locked: True\n")
    explained = scenario.run([b"config", b"explain", os.fsencode(config)])
    assert explained.returncode == 0 and b"titlecase" in explained.stdout
    missing = scenario.run([])
    assert (missing.returncode, missing.stdout, missing.stderr.count(b"\n")) == (2, b"", 1)


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize(
    ("args", "status"),
    [([b"config", b"explain", b"x"], 3), ([b"--version"], 3), ([b"nope\nx"], 3), ([b"hook", b"codex"], 3), ([], 2)],
)
def test_bash_layer_refuses_what_it_lacks(args: List[bytes], status: int, shell: Shell, tmp_path: Path) -> None:
    result = scenarios(tmp_path, "bash", shell).run(args)
    assert result.returncode == status
    assert result.stdout == b""
    assert result.stderr.endswith(b"\n") and result.stderr.count(b"\n") == 1


@pytest.mark.parametrize("shell", SHELLS)
def test_bash_layer_quiet_under_a_missing_locale(shell: Shell, tmp_path: Path) -> None:
    """bash warns at start-up about an LC_ALL the machine lacks; the launcher keeps its bash layer quiet (C19).
    A bash >= 4 running the launcher itself as /bin/sh (Fedora, Arch) warns before the launcher's first line:
    that one line is the shell's own (SPEC D24); dash and bash 3.2 (macOS's /bin/sh) do not warn."""
    scenario = scenarios(tmp_path, "bash", shell)
    scenario.env["LC_ALL"] = "xx_XX.UTF-8"
    result = scenario.run([b"parse", "--autonomous caf\u00e9".encode()])
    assert result.returncode == 0
    assert b'"autonomous": true, "goal": "caf\xc3\xa9"' in result.stdout
    if shell.name == "dash" or shell.bash is None or shell.bash.version < (4, 0):
        assert result.stderr == b""
    else:
        assert (
            result.stderr
            == f"{shell.argv[0]}: warning: setlocale: LC_ALL: cannot change locale (xx_XX.UTF-8)\n".encode()
        )


def test_no_layer_at_all(tmp_path: Path) -> None:
    path = make_path(tmp_path, {})
    scenario = Scenario("none", "none", env={"PATH": path})
    which = scenario.run([b"--which"])
    assert (which.returncode, which.stdout) == (3, b"none\n")
    result = scenario.run([b"parse", b"x"])
    assert (result.returncode, result.stdout) == (3, b"")
    assert result.stderr.count(b"\n") == 1 and b"SKILL.md" in result.stderr


@pytest.mark.parametrize("shell", SHELLS)
def test_runs_under_posix_shells(shell: Shell, tmp_path: Path) -> None:
    env = dict(os.environ, PATH=make_path(tmp_path, {"python3": BASE_PYTHON}))
    env.pop("PYTHONPATH", None)
    args = [*shell.argv, str(LAUNCHER), "announce", "build", "--autonomous", "x"]
    result = subprocess.run(args, capture_output=True, env=env)
    assert (result.returncode, result.stdout) == (0, "Sage → build workflow. Modes: --autonomous\nGoal: x\n".encode())


def test_launcher_is_shellcheck_clean() -> None:
    shellcheck = Path(sys.executable).parent / "shellcheck"
    result = subprocess.run([str(shellcheck), "-s", "sh", str(LAUNCHER)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout


def test_the_current_directory_cannot_shadow_the_checkout(tmp_path: Path) -> None:
    """python3 -m would put the current directory first on sys.path; the launcher does not."""
    scenario = scenarios(tmp_path, "checkout")
    fake = tmp_path / "work" / "sage_flags"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise SystemExit('shadowed')\n")
    result = scenario.run([b"parse", b"x"], cwd=tmp_path / "work")
    assert (result.returncode, result.stderr) == (0, b"")
    assert result.stdout.startswith(b'{"quality_locked": false')


# --- Section 15: a hostile environment (H5-H7) ---------------------------------------------------------------

GO_AUTONOMOUS = b'{"quality_locked": false, "autonomous": true, "goal": "go", "error": null, ' + (
    b'"quality_locked_source": null, "autonomous_source": "flag"}\n'
)


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("which", ["checkout", pytest.param("bash", marks=needs_bash)])
def test_cdpath_cannot_move_the_checkout_root(which: str, shell: Shell, tmp_path: Path) -> None:
    """H6: run as `sage/bin/sage-flags` from the project root with CDPATH=.:/tmp, `cd` would print the directory
    into the $(...) that computes the root (then: `none`, status 3)."""
    scenario = scenarios(tmp_path, which, shell)
    scenario.launcher = Path("sage") / "bin" / "sage-flags"
    scenario.env["CDPATH"] = ".:/tmp"
    which_line = scenario.run([b"--which"], cwd=ROOT)
    assert (which_line.returncode, which_line.stderr) == (0, b"")
    assert which_line.stdout.decode().split(":")[0] == which
    result = scenario.run([b"parse", b"--autonomous", b"go"], cwd=ROOT)
    assert (result.returncode, result.stdout, result.stderr) == (0, GO_AUTONOMOUS, b"")


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("which", ["checkout", pytest.param("bash", marks=needs_bash)])
def test_a_wrapper_that_execs_the_launcher_runs_once(which: str, shell: Shell, tmp_path: Path) -> None:
    """H7: a `sage-flags` on PATH that execs the launcher (a common way to put a vendored tool on PATH) comes back
    to the launcher, which then skips the installed layer with one stderr line and runs the next layer."""
    scenario = scenarios(tmp_path, which, shell)
    wrapper = tmp_path / "bin" / "sage-flags"
    wrapper.write_text(f'#!{tool("sh")}\nexec "{LAUNCHER}" "$@"\n')
    wrapper.chmod(0o755)
    result = scenario.run([b"parse", b"--autonomous", b"go"])  # timeout=30: a loop fails the test
    assert (result.returncode, result.stdout) == (0, GO_AUTONOMOUS)
    assert result.stderr == f"sage-flags: {wrapper} on PATH runs this launcher again; not running it\n".encode()
    usage = scenario.run([b"parse", b"--config-path"])
    assert (usage.returncode, usage.stdout, usage.stderr.count(b"\n")) == (2, b"", 2)


@pytest.mark.parametrize("shell", SHELLS)
def test_bash_layer_runs_without_bash_env_or_shell_options(shell: Shell, tmp_path: Path) -> None:
    """H5: the launcher removes BASH_ENV, ENV, SHELLOPTS and BASHOPTS before it runs bash, so a file they name
    never runs and an option they set never traces or changes the bash layer."""
    scenario = scenarios(tmp_path, "bash", shell)
    env_file = tmp_path / "bash_env"
    env_file.write_text("echo from-bash-env\nprintf() { builtin echo hijacked; }\n")
    scenario.env.update(BASH_ENV=str(env_file), ENV=str(env_file), SHELLOPTS="xtrace", BASHOPTS="xpg_echo")
    if shell.name != "dash":  # a bash running the launcher as sh takes SHELLOPTS=xtrace itself: out of scope
        del scenario.env["SHELLOPTS"]
    result = scenario.run([b"parse", b"--autonomous", b"go"])
    assert (result.returncode, result.stdout, result.stderr) == (0, GO_AUTONOMOUS, b"")


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("folder", ["tools", "my tools"], ids=["shebang", "pip-sh-exec-form"])
def test_an_installed_script_whose_python_is_gone_is_no_layer(folder: str, shell: Shell, tmp_path: Path) -> None:
    """SPEC L1 (issue 24 item 5): a pure-wheel venv whose python was removed (a pipx tool after a Python
    upgrade) is skipped; pip writes `#!/path/python`, or for a path with a space `#!/bin/sh` and `'''exec'`."""
    from artifacts import artifacts, fresh_venv

    bin_dir = fresh_venv(tmp_path / folder / "venv", str(artifacts().pure_wheel))
    assert ((bin_dir / "sage-flags").read_bytes().startswith(b"#!/bin/sh\n'''exec'")) == (" " in folder)
    others = make_path(tmp_path, {"python3": BASE_PYTHON, "sh": tool("sh"), "bash": tool("bash")})
    scenario = Scenario("broken-installed", "", env={"PATH": f"{bin_dir}:{others}"}, shell=shell.argv)
    assert (
        scenario.run([b"--which"]).stdout == f"installed: {bin_dir}/sage-flags (script); vocabulary sage-1.1\n".encode()
    )
    for python in bin_dir.glob("python*"):
        python.unlink()
    which = scenario.run([b"--which"])
    assert (which.returncode, which.stdout) == (
        0,
        f"checkout: python3 -m sage_flags (from {ROOT}/python); vocabulary sage-1.1\n".encode(),
    )
    expected = subprocess.run([SAGE_FLAGS, "parse", "--stdin"], input=b"--autonomous go\n", capture_output=True)
    done = scenario.run([b"parse", b"--stdin"], stdin=b"--autonomous go\n")
    assert (done.returncode, done.stdout, done.stderr) == (0, expected.stdout, b"")
    assert b'"autonomous": true' in done.stdout


def test_a_missing_env_interpreter_is_skipped_for_the_next_sage_flags_on_path(tmp_path: Path) -> None:
    """SPEC L1: `#!/usr/bin/env NAME` with no NAME on PATH is no layer; a later sage-flags on PATH is."""
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "sage-flags").write_text("#!/usr/bin/env no-such-python-for-sage-flags\nprint('never')\n")
    (broken / "sage-flags").chmod(0o755)
    later = make_path(tmp_path, {"sage-flags": SAGE_FLAGS, "sh": tool("sh")})
    scenario = Scenario("env-broken", "", env={"PATH": f"{broken}:{later}"})
    assert (
        scenario.run([b"--which"]).stdout == f"installed: {later}/sage-flags (script); vocabulary sage-1.1\n".encode()
    )
    done = scenario.run([b"parse", b"--autonomous", b"go"])
    assert (done.returncode, done.stderr) == (0, b"") and b'"autonomous": true' in done.stdout


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("which", ["checkout", pytest.param("bash", marks=needs_bash)])
def test_a_project_path_ending_in_a_newline(which: str, shell: Shell, tmp_path: Path) -> None:
    """Issue 33, defect 6: `$(cd ... && pwd -P)` drops the newlines a path ends in, so the launcher found no
    layer in a project whose folder's name ends in one."""
    scenario = scenarios(tmp_path, which, shell)
    project = tmp_path / "project\n"
    parts = ("sage", "python") if which == "checkout" else ("sage",)
    for part in parts:
        shutil.copytree(ROOT / part, project / part, ignore=shutil.ignore_patterns("__pycache__"))
    scenario.launcher = project / "sage" / "bin" / "sage-flags"
    layer = f"checkout: python3 -m sage_flags (from {project}/python)" if which == "checkout" else f"bash: {project}/"
    which_line = scenario.run([b"--which"])
    assert (which_line.returncode, which_line.stderr) == (0, b"")
    assert which_line.stdout.decode().startswith(layer), which_line.stdout
    result = scenario.run([b"parse", b"--autonomous", b"go"])
    assert (result.returncode, result.stdout, result.stderr) == (0, GO_AUTONOMOUS, b"")


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("which", ["checkout", pytest.param("bash", marks=needs_bash)])
def test_a_deleted_working_folder_adds_no_stderr_line(which: str, shell: Shell, tmp_path: Path) -> None:
    """Issue 33, defect 8 (C19): run from a folder deleted meanwhile, the launcher parses with status 0 and
    writes nothing to stderr of its own; the layer it runs (bash: `shell-init: error retrieving current
    directory`) says nothing either. What the shell running the launcher prints as it starts (dash's
    `getcwd() failed`, before the launcher's first line) is no line of the launcher's: a shell started with PWD
    naming the folder (as the launcher gives its layers) prints nothing at all."""
    scenario = scenarios(tmp_path, which, shell)
    folder = tmp_path / "gone"

    def run(argv: List[str], pwd: Optional[str] = None) -> subprocess.CompletedProcess:
        folder.mkdir()
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SAGE_FLAGS_BACKEND", "VIRTUAL_ENV")}
        env.update(scenario.env, PWD=pwd or str(folder))
        return subprocess.run(
            argv, capture_output=True, env=env, timeout=30, preexec_fn=lambda: (os.chdir(folder), os.rmdir(folder))
        )

    shell_alone = run([*shell.argv, "-c", ":"])
    result = run([*shell.argv, str(LAUNCHER), "parse", "--autonomous", "go"])
    assert (result.returncode, result.stdout, result.stderr) == (0, GO_AUTONOMOUS, shell_alone.stderr)
    quiet = run([*shell.argv, str(LAUNCHER), "parse", "--autonomous", "go"], pwd="/proc/self/cwd")
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, GO_AUTONOMOUS, b"")
