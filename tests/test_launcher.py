"""sage/bin/sage-flags: runs what its bundle ships (python3 with the bundle's package, else bash with its bash port),
never a sage-flags found on PATH, and passes argv/stdout/stderr/status through untouched (docs/SPEC.md L1-L3).

The bundle is laid out from this checkout (tests/artifacts.py's lay_bundle: tools/build_bundle.py's files, no
`make dist`). Each arrangement is made by building PATH from a sandbox directory holding only the programs the
scenario allows; then a sample of the vectors is run through the launcher and compared byte for byte with the
expected output. The launcher itself runs under every POSIX shell at hand: dash (Debian's /bin/sh) and each bash
of $SAGE_FLAGS_BASHES in sh mode (`bash-3.2 --posix` is macOS's /bin/sh); the bash port then runs under that same
bash (under dash: the bash on PATH), so every bash also serves as the launcher's bash.
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
from artifacts import lay_bundle

from parity import vectors
from parity.layers import ROOT, SYSTEM_BASH, BashInterpreter, bash_interpreters
from parity.optional import missing

LAUNCHER_SOURCE = ROOT / "sage" / "bin" / "sage-flags"
MAX_CODE_LINES = 140  # issue 42: lines that are neither blank nor comment-only
VENDOR = "sage/core/flag_parser/_vendor"
# The interpreter behind .venv (a symlink to it outside the venv does not see the venv's site-packages).
BASE_PYTHON = os.path.realpath(getattr(sys, "_base_executable", sys.executable))
HAS_BASH_LAYER = bool(bash_interpreters())  # a missing script fails; only a machine without bash skips


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project folder with the bundle unpacked into it."""
    return lay_bundle(tmp_path_factory.mktemp("bundle"))


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
    """One arrangement: a PATH, an environment, the launcher, and what it should say it runs."""

    def __init__(
        self, name: str, expected: str, launcher: Path, env: Optional[Dict[str, str]] = None, shell: Sequence[str] = ()
    ):
        self.name, self.expected, self.launcher, self.env = name, expected, launcher, env or {}
        self.shell = list(shell)  # empty: the launcher's own #!/bin/sh

    def run(self, args: List[bytes], stdin: bytes = b"", cwd: Optional[Path] = None) -> subprocess.CompletedProcess:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SAGE_FLAGS_BACKEND", "VIRTUAL_ENV")}
        env.pop("SAGE_FLAGS_VOCABULARY", None)
        env.update(self.env)
        return subprocess.run(
            [*self.shell, str(self.launcher), *args], input=stdin, capture_output=True, env=env, cwd=cwd, timeout=30
        )


def scenarios(tmp: Path, which: str, project: Path, shell: Optional[Shell] = None) -> Scenario:
    """Build the named scenario in ``tmp`` for the bundle unpacked in ``project``; the launcher runs under
    ``shell``, the bash port under shell.bash."""
    scenario = _scenario(tmp, which, project, tool("sh"), shell.bash.path if shell and shell.bash else tool("bash"))
    scenario.shell = shell.argv if shell else []
    return scenario


def _scenario(tmp: Path, which: str, project: Path, sh: str, bash: str) -> Scenario:
    launcher = project / "sage" / "bin" / "sage-flags"
    python = f"python3: python3 -m sage_flags (from {project}/{VENDOR})"
    if which == "python":
        path = make_path(tmp, {"python3": BASE_PYTHON, "sh": sh, "bash": bash})
        return Scenario(which, python, launcher, {"PATH": path})
    if which == "python-via-symlinked-launcher":
        path = make_path(tmp, {"python3": BASE_PYTHON, "readlink": tool("readlink")})
        link = tmp / "bin" / "sage-flags"
        link.symlink_to(launcher)
        return Scenario(which, python, link, {"PATH": path})
    if which == "bash":
        path = make_path(tmp, {"bash": bash})
        return Scenario(which, f"bash: {project}/{VENDOR}/sage_flags/bash", launcher, {"PATH": path})
    raise ValueError(which)


SCENARIOS = ["python", "python-via-symlinked-launcher"]
needs_bash = pytest.mark.skipif(not HAS_BASH_LAYER, reason="no bash on this machine")
ALL_SCENARIOS = [*SCENARIOS, pytest.param("bash", marks=needs_bash)]


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("which", ALL_SCENARIOS)
def test_which_names_the_layer(which: str, shell: Shell, bundle: Path, tmp_path: Path) -> None:
    scenario = scenarios(tmp_path, which, bundle, shell)
    result = scenario.run([b"--which"])
    assert (result.returncode, result.stderr) == (0, b"")
    assert result.stdout.decode() == scenario.expected + "\n"


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("which", ALL_SCENARIOS)
def test_output_is_identical_through_every_layer(which: str, shell: Shell, bundle: Path, tmp_path: Path) -> None:
    """The whole sample under dash and through the bash port (every bash); a tenth of it otherwise (a Python start
    per vector under each shell would cost minutes)."""
    scenario = scenarios(tmp_path, which, bundle, shell)
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


def test_argv_is_passed_through_untouched(bundle: Path, tmp_path: Path) -> None:
    """Items with spaces, globs, empty strings, backslashes, dashes and invalid UTF-8 arrive as given."""
    tricky = [b"--quality-locked", b"*", b"", b"a  b", b"\\n", b"$HOME", b"-n", b"-e", b"--config-path=", b"\xff"]
    direct = subprocess.run([sys.executable, "-m", "sage_flags", "parse", *tricky[:-1]], capture_output=True).stdout
    goal = b'"goal": "*  a  b \\\\n $HOME -n -e"'
    assert goal in direct
    for which in ["python"] + (["bash"] if HAS_BASH_LAYER else []):
        (tmp_path / which).mkdir()
        scenario = scenarios(tmp_path / which, which, bundle)
        assert scenario.run([b"parse", *tricky[:-1]], cwd=tmp_path).stdout == direct, which
        invalid = scenario.run([b"parse", *tricky], cwd=tmp_path)
        assert (invalid.returncode, b"not valid UTF-8" in invalid.stdout) == (1, True), which


def test_the_python_layer_passes_every_subcommand(bundle: Path, tmp_path: Path) -> None:
    scenario = scenarios(tmp_path, "python", bundle)
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
def test_bash_layer_refuses_what_it_lacks(
    args: List[bytes], status: int, shell: Shell, bundle: Path, tmp_path: Path
) -> None:
    result = scenarios(tmp_path, "bash", bundle, shell).run(args)
    assert result.returncode == status
    assert result.stdout == b""
    assert result.stderr.endswith(b"\n") and result.stderr.count(b"\n") == 1


UNKNOWN = b"sage-flags: unknown vocabulary (known: sage-1.1, sage-1.3, sage-1.3.18)\n"
NEEDS_A_NAME = b"sage-flags: --vocabulary needs a name (try 'sage-flags --help')\n"
HOOK_NEEDS_A_NAME = b"sage-flags: hook: --vocabulary needs a name; not answering (the prompt goes on without it)\n"
# DESIGN-R3's one reading of the vocabulary's name: (argv, SAGE_FLAGS_VOCABULARY or None) -> status, stderr.
VOCABULARY_CASES = {
    "option-names-it": ([b"--vocabulary", b"sage-1.3", b"parse", b"--subagents go"], None, 0, b""),
    "option-equals-names-it": ([b"--vocabulary=sage-1.3", b"parse", b"--subagents go"], "sage-1.1", 0, b""),
    "environment-names-it": ([b"parse", b"--subagents go"], "sage-1.3", 0, b""),
    "empty-environment-is-the-default": ([b"parse", b"--subagents go"], "", 1, b""),
    "empty-option": ([b"--vocabulary=", b"parse", b"x"], None, 2, NEEDS_A_NAME),
    "empty-option-item": ([b"--vocabulary", b"", b"parse", b"x"], None, 2, NEEDS_A_NAME),
    "no-name": ([b"--vocabulary"], None, 2, NEEDS_A_NAME),
    "no-name-before-hook": ([b"--vocabulary", b"hook", b"claude-code"], None, 3, HOOK_NEEDS_A_NAME),
    "unknown-from-the-environment": ([b"parse", b"x"], "sage-9", 2, UNKNOWN),
    "carriage-return-is-no-name": ([b"parse", b"x"], "sage-1.3\r", 2, UNKNOWN),
    "trailing-blank-is-no-name": ([b"--vocabulary", b"sage-1.3 ", b"parse", b"x"], None, 2, UNKNOWN),
    "trailing-newline-is-no-name": ([b"--vocabulary=sage-1.3\n", b"batch"], None, 2, UNKNOWN),
}


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("case", sorted(VOCABULARY_CASES))
def test_the_bash_path_reads_the_vocabulary_by_the_one_rule(
    case: str, shell: Shell, bundle: Path, tmp_path: Path
) -> None:
    """B2-B3 without python3: the option before the subcommand, else SAGE_FLAGS_VOCABULARY (empty: unset), else
    sage-1.1; no trimming; the same status and line as the package's command line (asked here too)."""
    args, environment, status, stderr = VOCABULARY_CASES[case]
    scenario = scenarios(tmp_path, "bash", bundle, shell)
    if environment is not None:
        scenario.env["SAGE_FLAGS_VOCABULARY"] = environment
    done = scenario.run(args, stdin=b"")
    assert (done.returncode, done.stderr) == (status, stderr), done
    if status == 0:
        assert b'"subagents": true' in done.stdout
    (tmp_path / "python").mkdir()
    python = scenarios(tmp_path / "python", "python", bundle)
    python.env.update({"SAGE_FLAGS_VOCABULARY": environment} if environment is not None else {})
    by_python = python.run(args, stdin=b"")
    assert (by_python.returncode, by_python.stderr, by_python.stdout) == (status, stderr, done.stdout), by_python


@pytest.mark.parametrize("shell", SHELLS)
def test_bash_layer_quiet_under_a_missing_locale(shell: Shell, bundle: Path, tmp_path: Path) -> None:
    """bash warns at start-up about an LC_ALL the machine lacks; the launcher keeps the bash port quiet (C19).
    A bash >= 4 running the launcher itself as /bin/sh (Fedora, Arch) warns before the launcher's first line:
    that one line is the shell's own (SPEC D24); dash and bash 3.2 (macOS's /bin/sh) do not warn."""
    scenario = scenarios(tmp_path, "bash", bundle, shell)
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


def test_no_layer_at_all(bundle: Path, tmp_path: Path) -> None:
    path = make_path(tmp_path, {})
    scenario = Scenario("none", "none", bundle / "sage" / "bin" / "sage-flags", {"PATH": path})
    which = scenario.run([b"--which"])
    assert (which.returncode, which.stdout) == (3, b"none\n")
    result = scenario.run([b"parse", b"x"])
    assert (result.returncode, result.stdout) == (3, b"")
    assert result.stderr.count(b"\n") == 1 and b"SKILL.md" in result.stderr


@pytest.mark.parametrize("shell", SHELLS)
def test_runs_under_posix_shells(shell: Shell, bundle: Path, tmp_path: Path) -> None:
    env = dict(os.environ, PATH=make_path(tmp_path, {"python3": BASE_PYTHON}))
    env.pop("PYTHONPATH", None)
    args = [*shell.argv, str(bundle / "sage" / "bin" / "sage-flags"), "announce", "build", "--autonomous", "x"]
    result = subprocess.run(args, capture_output=True, env=env)
    assert (result.returncode, result.stdout) == (
        0,
        "Sage \u2192 build workflow. Modes: --autonomous\nGoal: x\n".encode(),
    )


def test_launcher_is_shellcheck_clean() -> None:
    shellcheck = Path(sys.executable).parent / "shellcheck"
    result = subprocess.run([str(shellcheck), "-s", "sh", str(LAUNCHER_SOURCE)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout


def test_the_launcher_stays_small() -> None:
    """Issue 42: at most 140 lines that are neither blank nor comment-only."""
    lines = LAUNCHER_SOURCE.read_text(encoding="utf-8").splitlines()
    code = [line for line in lines if line.strip() and not line.strip().startswith("#")]
    assert len(code) <= MAX_CODE_LINES, len(code)


def test_the_current_directory_cannot_shadow_the_package(bundle: Path, tmp_path: Path) -> None:
    """python3 -m would put the current directory first on sys.path; the launcher does not."""
    scenario = scenarios(tmp_path, "python", bundle)
    fake = tmp_path / "work" / "sage_flags"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise SystemExit('shadowed')\n")
    result = scenario.run([b"parse", b"x"], cwd=tmp_path / "work")
    assert (result.returncode, result.stderr) == (0, b"")
    assert result.stdout.startswith(b'{"quality_locked": false')


# --- Section 11: the bundle's own copy, never one on PATH (L1) -----------------------------------------------

GO_AUTONOMOUS = b'{"quality_locked": false, "autonomous": true, "goal": "go", "error": null, ' + (
    b'"quality_locked_source": null, "autonomous_source": "flag"}\n'
)


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("which", ["python", pytest.param("bash", marks=needs_bash)])
@pytest.mark.parametrize("impostor", ["native-executable", "script", "wrapper-that-execs-the-launcher"])
def test_an_impostor_sage_flags_first_on_path_never_runs(
    impostor: str, which: str, shell: Shell, bundle: Path, tmp_path: Path
) -> None:
    """L1 (issue 42): the launcher runs its own bundle's copy; a `sage-flags` first on PATH (an older install, a
    planted program, a wrapper that execs the launcher) never runs, and the launcher neither loops nor says so."""
    scenario = scenarios(tmp_path, which, bundle, shell)
    planted = tmp_path / "planted"
    planted.mkdir()
    program = planted / "sage-flags"
    if impostor == "native-executable":
        program.write_bytes(b"\x7fELF" + b"\0" * 60)  # not runnable: were it run, the status would say so
    elif impostor == "script":
        program.write_text('#!/bin/sh\necho impostor; touch "$0.ran"; exit 42\n')
    else:
        program.write_text(f'#!/bin/sh\ntouch "$0.ran"; exec "{scenario.launcher}" "$@"\n')
    program.chmod(0o755)
    scenario.env["PATH"] = f"{planted}:{scenario.env['PATH']}"
    result = scenario.run([b"parse", b"--autonomous", b"go"], cwd=tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (0, GO_AUTONOMOUS, b"")
    assert scenario.run([b"--which"]).stdout.decode() == scenario.expected + "\n"
    assert not (planted / "sage-flags.ran").exists()


@pytest.mark.parametrize("version", interpreters.TOO_OLD)
def test_a_python3_older_than_3_8_says_so_in_one_line(version: str, bundle: Path, tmp_path: Path) -> None:
    """L2, D28: the bundle's package needs Python 3.8; an older python3 on PATH gives one stderr line and status
    3 (under hook, K8's line), never a traceback and never another program."""
    found = interpreters.find(version)
    if found is None:
        pytest.skip(missing(f"Python {version}", f"not found ({interpreters.where_looked(version)})"))
    path = make_path(tmp_path, {"python3": found[0], "bash": tool("bash")})
    scenario = Scenario(version, "", bundle / "sage" / "bin" / "sage-flags", {"PATH": path})
    done = scenario.run([b"parse", b"x"])
    assert (done.returncode, done.stdout) == (3, b"")
    assert done.stderr.startswith(b"sage-flags: cannot run: sage_flags needs Python 3.8 or newer; python3 is Python")
    assert done.stderr.count(b"\n") == 1
    hook = scenario.run([b"--vocabulary", b"sage-1.3", b"hook", b"claude-code"])
    assert (hook.returncode, hook.stdout, hook.stderr.count(b"\n")) == (3, b"", 1)
    assert hook.stderr.startswith(b"sage-flags: hook: cannot run: ") and hook.stderr.endswith(
        b"; not answering (the prompt goes on without it)\n"
    )


def test_a_package_python3_cannot_import_says_so_in_one_line(tmp_path: Path) -> None:
    """L2: a bundle whose package python3 cannot import (here a SyntaxError in it): status 3, one stderr line."""
    project = lay_bundle(tmp_path / "project")
    with open(project / VENDOR / "sage_flags" / "cli.py", "a") as cli:
        cli.write("\ndef broken(:\n")
    path = make_path(tmp_path, {"python3": BASE_PYTHON, "bash": tool("bash")})
    done = Scenario("broken", "", project / "sage" / "bin" / "sage-flags", {"PATH": path}).run([b"parse", b"x"])
    assert (done.returncode, done.stdout, done.stderr.count(b"\n")) == (3, b"", 1), done
    assert done.stderr.startswith(b"sage-flags: cannot run: python3 cannot import the bundle's package (")


# --- Section 15: a hostile environment (H5-H7) ---------------------------------------------------------------


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("which", ["python", pytest.param("bash", marks=needs_bash)])
def test_cdpath_cannot_move_the_root(which: str, shell: Shell, bundle: Path, tmp_path: Path) -> None:
    """H6: run as `sage/bin/sage-flags` from the project root with CDPATH=.:/tmp, `cd` would print the directory
    into the $(...) that computes the root (then: `none`, status 3)."""
    scenario = scenarios(tmp_path, which, bundle, shell)
    scenario.launcher = Path("sage") / "bin" / "sage-flags"
    scenario.env["CDPATH"] = ".:/tmp"
    which_line = scenario.run([b"--which"], cwd=bundle)
    assert (which_line.returncode, which_line.stderr) == (0, b"")
    assert which_line.stdout.decode().split(":")[0] == ("python3" if which == "python" else which)
    result = scenario.run([b"parse", b"--autonomous", b"go"], cwd=bundle)
    assert (result.returncode, result.stdout, result.stderr) == (0, GO_AUTONOMOUS, b"")


@pytest.mark.parametrize("shell", SHELLS)
def test_a_bare_name_is_the_file_in_the_working_folder(shell: Shell, bundle: Path, tmp_path: Path) -> None:
    """L1: `sh sage-flags` run in sage/bin/ is that file, never a sage-flags looked up on PATH."""
    scenario = scenarios(tmp_path, "python", bundle, shell)
    planted = tmp_path / "planted"
    planted.mkdir()
    (planted / "sage-flags").write_text("#!/bin/sh\necho impostor\n")
    (planted / "sage-flags").chmod(0o755)
    scenario.env["PATH"] = f"{planted}:{scenario.env['PATH']}"
    scenario.launcher = Path("sage-flags")
    done = scenario.run([b"parse", b"--autonomous", b"go"], cwd=bundle / "sage" / "bin")
    assert (done.returncode, done.stdout, done.stderr) == (0, GO_AUTONOMOUS, b"")


@pytest.mark.parametrize("shell", SHELLS)
def test_bash_layer_runs_without_bash_env_or_shell_options(shell: Shell, bundle: Path, tmp_path: Path) -> None:
    """H5: the launcher removes BASH_ENV, ENV, SHELLOPTS and BASHOPTS before it runs bash, so a file they name
    never runs and an option they set never traces or changes the bash port."""
    scenario = scenarios(tmp_path, "bash", bundle, shell)
    env_file = tmp_path / "bash_env"
    env_file.write_text("echo from-bash-env\nprintf() { builtin echo hijacked; }\n")
    scenario.env.update(BASH_ENV=str(env_file), ENV=str(env_file), SHELLOPTS="xtrace", BASHOPTS="xpg_echo")
    if shell.name != "dash":  # a bash running the launcher as sh takes SHELLOPTS=xtrace itself: out of scope
        del scenario.env["SHELLOPTS"]
    result = scenario.run([b"parse", b"--autonomous", b"go"])
    assert (result.returncode, result.stdout, result.stderr) == (0, GO_AUTONOMOUS, b"")


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("which", ["python", pytest.param("bash", marks=needs_bash)])
def test_a_project_path_ending_in_a_newline(which: str, shell: Shell, tmp_path: Path) -> None:
    """Issue 33, defect 6: `$(cd ... && pwd -P)` drops the newlines a path ends in, so the launcher found no
    layer in a project whose folder's name ends in one."""
    project = lay_bundle(tmp_path / "project\n")
    scenario = scenarios(tmp_path, which, project, shell)
    which_line = scenario.run([b"--which"])
    assert (which_line.returncode, which_line.stderr) == (0, b"")
    assert which_line.stdout.decode() == scenario.expected + "\n", which_line.stdout
    result = scenario.run([b"parse", b"--autonomous", b"go"])
    assert (result.returncode, result.stdout, result.stderr) == (0, GO_AUTONOMOUS, b"")


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("which", ["python", pytest.param("bash", marks=needs_bash)])
def test_a_deleted_working_folder_adds_no_stderr_line(which: str, shell: Shell, bundle: Path, tmp_path: Path) -> None:
    """Issue 33, defect 8 (C19): run from a folder deleted meanwhile, the launcher parses with status 0 and
    writes nothing to stderr of its own; what it runs (bash: `shell-init: error retrieving current directory`)
    says nothing either. What the shell running the launcher prints as it starts (dash's `getcwd() failed`,
    before the launcher's first line) is no line of the launcher's: a shell started with PWD naming the folder
    (as the launcher gives what it runs) prints nothing at all."""
    scenario = scenarios(tmp_path, which, bundle, shell)
    folder = tmp_path / "gone"
    launcher = str(bundle / "sage" / "bin" / "sage-flags")

    def run(argv: List[str], pwd: Optional[str] = None) -> subprocess.CompletedProcess:
        folder.mkdir()
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SAGE_FLAGS_BACKEND", "VIRTUAL_ENV")}
        env.update(scenario.env, PWD=pwd or str(folder))
        return subprocess.run(
            argv, capture_output=True, env=env, timeout=30, preexec_fn=lambda: (os.chdir(folder), os.rmdir(folder))
        )

    shell_alone = run([*shell.argv, "-c", ":"])
    result = run([*shell.argv, launcher, "parse", "--autonomous", "go"])
    assert (result.returncode, result.stdout, result.stderr) == (0, GO_AUTONOMOUS, shell_alone.stderr)
    quiet = run([*shell.argv, launcher, "parse", "--autonomous", "go"], pwd="/proc/self/cwd")
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, GO_AUTONOMOUS, b"")
