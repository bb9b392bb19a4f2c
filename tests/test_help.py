"""Help that answers (issue 43, docs/SPEC.md D4.1-D4.4): `sage-flags help SUBCOMMAND` for every subcommand,
`SUBCOMMAND --help` where no item is a person's text, the person's text never taken for help, the text read from
the package's data folder and pointing to documentation an installed package can reach.

The native executable's help (handed over to its Python, byte for byte) is tests/test_native_exe.py's; the wheels'
and the bundle's copies of the data are tests/test_wheels.py's and tests/test_bundle.py's."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest

from parity.layers import PYTHON, SAGE_FLAGS

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the venv's Python is 3.11+; tomli for older ones
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
HELP_DIR = ROOT / "python" / "sage_flags" / "help"
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
DOCUMENTATION = f"https://pypi.org/project/{PROJECT['name']}/{PROJECT['version']}/"


def run(*argv: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([SAGE_FLAGS, *argv], capture_output=True, timeout=30, stdin=subprocess.DEVNULL, **kwargs)


def subcommands() -> List[str]:
    """Every subcommand the dispatcher knows, help and version aside: a new one without help fails below."""
    from sage_flags.cli import COMMANDS

    return [name.decode() for name in COMMANDS if not name.startswith(b"-") and name != b"help"]


def test_every_subcommand_is_a_topic() -> None:
    from sage_flags._help import TOPICS

    assert sorted(subcommands()) == sorted(TOPICS)
    assert len(subcommands()) == 8


@pytest.mark.parametrize("topic", subcommands())
def test_help_subcommand_prints_its_paragraph(topic: str) -> None:  # D4.1
    done = run("help", topic)
    assert (done.returncode, done.stderr) == (0, b""), done
    text = done.stdout.decode()
    assert text.startswith(f"usage: sage-flags {topic}"), text
    paragraph = text.split("\n\n")[1]
    assert len(paragraph.split()) > 40, f"help {topic}: a paragraph, not a line"
    assert text == (HELP_DIR / f"{topic}.txt").read_text(encoding="utf-8") + more()
    # The overview lists the subcommand's every usage line, exactly as its own help does.
    overview = run("--help").stdout.decode()
    for line in text.split("\n\n")[0].split("\n"):
        assert "sage-flags " + line.split("sage-flags ", 1)[1] in overview


def more() -> str:
    return (HELP_DIR / "more.txt").read_text(encoding="utf-8").replace("{version}", PROJECT["version"])


@pytest.mark.parametrize("argv", [["help"], ["--help"], ["-h"], ["help", "help"]])
def test_the_overview_names_every_subcommand(argv: List[str]) -> None:
    done = run(*argv)
    assert (done.returncode, done.stderr) == (0, b"")
    text = done.stdout.decode()
    assert text.startswith("usage: sage-flags parse ARGUMENTS...")
    for topic in subcommands():
        assert f"\n       sage-flags {topic} " in text
    assert "sage-flags help SUBCOMMAND" in text


def test_help_points_to_documentation_an_installed_package_reaches() -> None:  # D4.3
    for argv in (["--help"], *(["help", topic] for topic in subcommands())):
        text = run(*argv).stdout.decode()
        assert DOCUMENTATION in text, argv
        # docs/SPEC.md only as a file of the source distribution that page lists, never alone
        urls = re.findall(r"https?://\S+", text)
        assert urls == [DOCUMENTATION], (argv, urls)
        assert f"sage_flags-{PROJECT['version']}.tar.gz" in text


@pytest.mark.parametrize(
    "argv, topic",
    [
        (["adopt", "--help"], "adopt"),
        (["adopt", "-h"], "adopt"),
        (["adopt", "--dry-run", "--help"], "adopt"),
        (["adopt", "--undo", "--help"], "adopt"),
        (["--vocabulary", "sage-1.3", "adopt", "--help"], "adopt"),
        (["config", "--help"], "config"),
        (["config", "explain", "--help"], "config"),
        (["config", "explain", "some.yaml", "--json", "-h"], "config"),
        (["persist", "--help"], "persist"),
        (["help", "config", "explain"], "config"),
    ],
    ids=lambda value: " ".join(value) if isinstance(value, list) else value,
)
def test_subcommand_help_option_prints_its_help_and_does_nothing_else(
    argv: List[str], topic: str, tmp_path: Path
) -> None:  # D4.2
    (tmp_path / "sage").mkdir()
    (tmp_path / "sage" / "VERSION").write_text("1.3.21\n")  # a Sage project: adopt would write here
    done = run(*argv, cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, b""), done
    assert done.stdout == run("help", topic).stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sage"], "help wrote nothing"


def test_after_double_dash_help_is_an_operand(tmp_path: Path) -> None:  # D4.2: `--` ends the options
    done = run("config", "explain", "--", "--help", cwd=tmp_path)
    assert done.returncode == 0 and b"--help" in done.stdout and not done.stdout.startswith(b"usage:")


@pytest.mark.parametrize(
    "argv, status",
    [
        (["parse", "--help"], 1),
        (["parse", "-h"], 0),
        (["parse", "help"], 0),
        (["announce", "build", "--help"], 1),
        (["resume", "{manifest}", "--help"], 1),
        (["resume", "{manifest}", "-h"], 0),
    ],
    ids=lambda value: " ".join(value) if isinstance(value, list) else str(value),
)
def test_the_persons_text_is_never_taken_for_help(argv: List[str], status: int, tmp_path: Path) -> None:  # C4
    args = [a.replace("{manifest}", str(tmp_path / "m.md")) for a in argv]
    done = run(*args)
    assert (done.returncode, done.stderr) == (status, b""), done
    assert b"usage:" not in done.stdout
    if argv[0] != "announce":
        result = json.loads(done.stdout)
        word = argv[-1]
        assert result["goal"] == ("" if word == "--help" else word)
        assert (result["error"] or "").startswith("Unknown flag '--help'") == (word == "--help")
    else:
        assert done.stdout.startswith(b"Sage: Unknown flag '--help'")


@pytest.mark.parametrize("argv", [["hook", "--help"], ["hook", "claude-code", "--help"], ["hook", "-h"]])
def test_hook_answers_help_with_its_fail_open(argv: List[str]) -> None:  # K1, K8
    done = run(*argv)
    assert (done.returncode, done.stdout, done.stderr.count(b"\n")) == (3, b"", 1), done
    assert done.stderr.startswith(b"sage-flags: hook: ") and done.stderr.endswith(b"(the prompt goes on without it)\n")


@pytest.mark.parametrize("argv", [["help", "frobnicate"], ["help", "parse", "batch"], ["help", "--version"]])
def test_help_for_what_is_no_subcommand_is_a_usage_error(argv: List[str]) -> None:
    done = run(*argv)
    assert (done.returncode, done.stdout, done.stderr.count(b"\n")) == (2, b"", 1), done
    assert b"one of: parse, batch, announce, hook, config, persist, resume, adopt" in done.stderr


@pytest.mark.parametrize("option", ["--dry-run", "--undo", "--vocabulary=sage-1.1", "--check", "--no-verify"])
def test_adopts_help_names_exactly_the_options_adopt_takes(option: str, tmp_path: Path) -> None:
    """Issue 44 adds --check and --no-verify: whichever adopt accepts (not a usage error; in a folder with no Sage
    it refuses with status 3) its help names, and none it refuses."""
    given = ("--vocabulary=sage-1.1", option) if option == "--no-verify" else (option,)  # only with a name
    accepted = run("adopt", *given, cwd=tmp_path).returncode != 2
    named = f"\n  {option.split('=')[0]} " in run("help", "adopt").stdout.decode()
    assert accepted == named, f"adopt {'accepts' if accepted else 'refuses'} {option}; its help names it: {named}"
    assert not (tmp_path / ".claude").exists()


def test_every_file_of_the_help_folder_is_read() -> None:
    from sage_flags._help import TOPICS

    names = sorted(p.name for p in HELP_DIR.iterdir())
    assert names == sorted([*(f"{t}.txt" for t in TOPICS), "overview.txt", "more.txt"])


def test_a_missing_help_folder_is_one_line_and_status_3(tmp_path: Path) -> None:
    """A broken install (the data folder gone) says so in one line, no traceback."""
    import shutil

    package = tmp_path / "sage_flags"
    shutil.copytree(ROOT / "python" / "sage_flags", package, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    shutil.rmtree(package / "help")
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tmp_path), "SAGE_FLAGS_BACKEND": "python"}
    done = subprocess.run([PYTHON, "-m", "sage_flags", "help", "adopt"], capture_output=True, env=env, timeout=30)
    assert (done.returncode, done.stdout, done.stderr.count(b"\n")) == (3, b"", 1), done
    assert b"help text" in done.stderr and b"Traceback" not in done.stderr


def test_python_3_8_reads_the_help_folder() -> None:
    """D4.4: the data is read through __file__, which Python 3.8 has (importlib.resources.files is 3.9+)."""
    import interpreters

    found = interpreters.find("3.8")
    if found is None:
        pytest.skip(f"Python 3.8 not found ({interpreters.where_looked('3.8')})")
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT / "python"), "SAGE_FLAGS_BACKEND": "python"}
    for argv in (["help", "adopt"], ["config", "--help"], ["--help"]):
        done = subprocess.run([found[0], "-m", "sage_flags", *argv], capture_output=True, env=env, timeout=30)
        assert (done.returncode, done.stderr) == (0, b""), done
        assert done.stdout == run(*argv).stdout, argv
