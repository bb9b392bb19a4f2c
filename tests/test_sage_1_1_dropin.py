"""The drop-in at sage/core/flag_parser/ over Sage 1.1.5's own modules (issue 40 item 8, docs/SPEC.md N8.1).

Sage 1.1.5 is installed offline by its own install.sh and `sage init` makes a project (tests/e2e/test_adopt_sage.py's
``Sage``); the bundle's files are laid over it exactly as unpacking the sage-1.1 bundle does (the list of
tools/build_bundle.py, the vendored package being python/sage_flags's files, which tests/test_bundle.py holds equal
to the pure wheel's: no `make dist`). Then, with a python3 that has no sage_flags of its own (the drop-in takes the
bundle's copy, as in a user's project): every name Sage's replaced modules define is still there with the same type
(and value, but for the two N8.1 decides); Sage's own `core/flag_parser/cli.py` runs and answers as the drop-in's
`python3 -B -m core.flag_parser parse` does; Sage's own flag_parser tests pass as they do on the untouched project.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Dict, List, Tuple

import pytest
from artifacts import VOCABULARY_NAMES, clean_env, fresh_venv, package_sources

from parity.layers import ROOT
from parity.optional import missing

sys.path.insert(0, str(ROOT / "tools"))
import build_bundle

SAGE_1_1_5 = ROOT.parent / "shared" / "sage" / "sage-1.1.5.tar.gz"
# Reads each (module, name) given as JSON and prints what it is: its kind and, for data, its value.
PROBE = r"""
import importlib, json, sys
described = {}
for module_name, names in json.loads(sys.argv[1]).items():
    module = importlib.import_module(module_name)
    for name in names:
        if not hasattr(module, name):
            described[module_name + ":" + name] = None
            continue
        value = getattr(module, name)
        kind = "class" if isinstance(value, type) else "function" if callable(value) else type(value).__name__
        shown = None if kind in ("class", "function") else sorted(value) if isinstance(value, set) else value
        described[module_name + ":" + name] = [kind, shown]
parser = importlib.import_module("core.flag_parser.parser")
sage_flags = sys.modules.get("sage_flags")
print(json.dumps({
    "names": described,
    "unknown_flag_error": parser.parse("--foo x").error,
    "sage_flags": [sage_flags.__file__, sage_flags.__version__] if sage_flags else None,
}))
"""


def defined_names(source: str) -> List[str]:
    """The names a module's own top-level statements bind (assignments, def, class; not its imports): the public
    ones and dunders such as ``__version__``."""
    names: List[str] = []
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            names += [target.id for target in node.targets if isinstance(target, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.append(node.target.id)
    return [name for name in names if not name.startswith("_") or (name.startswith("__") and name.endswith("__"))]


@pytest.fixture(scope="module")
def sage_projects(tmp_path_factory: pytest.TempPathFactory) -> Tuple[Path, Path, Dict[str, List[str]]]:
    """(Sage 1.1.5's own sage/ as `sage init` copied it, the same with the bundle laid over it, module -> the names
    Sage defines in each Python module the bundle replaces)."""
    if not SAGE_1_1_5.is_file():
        pytest.skip(missing("Sage 1.1.5's release", f"{SAGE_1_1_5} (../shared/sage/README.md) is not there"))
    from tests.e2e.test_adopt_sage import Sage  # Sage's own installer and `sage init`, offline

    projects = []
    for name in ("untouched", "bundled"):
        projects.append(Sage(tmp_path_factory.mktemp(name), "1.1.5").project)
    untouched, bundled = projects
    vendored = [(build_bundle.VENDOR + "/" + name, data, False) for name, data in package_sources().items()]
    replaced: Dict[str, List[str]] = {}
    for member, (data, executable) in build_bundle.bundle_files(vendored).items():
        path = bundled / member
        names = defined_names(path.read_text(encoding="utf-8")) if path.is_file() and member.endswith(".py") else []
        if names:  # __main__.py defines none (and importing it would run it)
            replaced[member[len("sage/") : -len(".py")].replace("/", ".").replace(".__init__", "")] = names
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        path.chmod(0o755 if executable else 0o644)
    assert "core.flag_parser.parser" in replaced and "core.flag_parser" in replaced, replaced
    return untouched / "sage", bundled / "sage", replaced


@pytest.fixture(scope="module")
def python_without_sage_flags(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A python3 that imports pytest (this venv's site directory, as a plain path entry: the .pth there that names
    this checkout's python/ is not read) and no sage_flags."""
    bin_dir = fresh_venv(tmp_path_factory.mktemp("bare") / "venv")
    (site,) = bin_dir.parent.glob("lib/python*/site-packages")
    (site / "test_tools.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    python = str(bin_dir / "python3")
    done = run([python, "-c", "import pytest, sage_flags"], cwd=bin_dir)
    assert b"No module named 'sage_flags'" in done.stderr, done.stderr
    return python


def run(argv: List[str], cwd: Path) -> subprocess.CompletedProcess:
    env = clean_env(SAGE_FLAGS_VOCABULARY="", PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run(argv, capture_output=True, cwd=cwd, env=env, timeout=300, stdin=subprocess.DEVNULL)


def probe(python: str, sage_dir: Path, names: Dict[str, List[str]]) -> dict:
    done = run([python, "-c", PROBE, json.dumps(names)], cwd=sage_dir)
    assert done.returncode == 0, done.stderr.decode()
    return json.loads(done.stdout)


def test_every_name_of_sages_replaced_modules_is_kept(sage_projects, python_without_sage_flags: str) -> None:
    """N8.1: each name Sage 1.1.5's replaced modules define exists with the same kind (set, dict, list, str, class,
    function) and, for data, the same value, but SUPPORTED_FOR_ERROR (E1's list, N12) and __version__ (the
    answering sage_flags's)."""
    untouched, bundled, replaced = sage_projects
    theirs = probe(python_without_sage_flags, untouched, replaced)
    ours = probe(python_without_sage_flags, bundled, replaced)
    assert ours["sage_flags"][0].startswith(str(bundled / "core" / "flag_parser" / "_vendor")), ours["sage_flags"]
    decided = {"core.flag_parser.parser:SUPPORTED_FOR_ERROR", "core.flag_parser:__version__"}
    assert len(theirs["names"]) >= 9 and decided <= set(theirs["names"]), theirs["names"]
    for name, (kind, value) in theirs["names"].items():
        assert ours["names"][name] is not None, f"{name} is missing from the drop-in"
        assert ours["names"][name][0] == kind, f"{name}: {ours['names'][name][0]}, Sage's is a {kind}"
        if name not in decided:
            assert ours["names"][name][1] == value, name
    supported = ours["names"]["core.flag_parser.parser:SUPPORTED_FOR_ERROR"][1]
    assert ours["unknown_flag_error"] == "Unknown flag '--foo'. Supported flags: %s." % ", ".join(supported)
    assert ours["names"]["core.flag_parser:__version__"][1] == ours["sage_flags"][1]


CONFIG = b"project-name: test\nquality_locked: true\n"
CLI_ARGUMENTS = [
    "",
    "ship it",
    "--autonomous x",
    "--no-quality-locked --autonomous y",
    "--foo x",
    "--autonomous --no-autonomous",
]


def test_sages_cli_runs_and_answers_as_the_drop_in(sage_projects, python_without_sage_flags: str) -> None:
    """Sage 1.1.5's own core/flag_parser/cli.py (the bundle leaves it in place): `parse` prints what
    `python3 -B -m core.flag_parser parse` prints, with the same status (ASCII arguments: Sage's json.dumps
    escapes what C17 writes raw); `--version` names the answering sage_flags's version."""
    _, bundled, _ = sage_projects
    config = bundled.parent / ".sage" / "config.yaml"
    config.parent.mkdir(exist_ok=True)
    config.write_bytes(CONFIG)
    python = python_without_sage_flags
    for arguments in CLI_ARGUMENTS:
        tail = [arguments, "--config-path", str(config)]
        theirs = run([python, "-B", "-m", "core.flag_parser.cli", "parse", *tail], cwd=bundled)
        ours = run([python, "-B", "-m", "core.flag_parser", "parse", *tail], cwd=bundled)
        assert theirs.stderr == b"" and ours.stderr == b"", (arguments, theirs.stderr, ours.stderr)
        assert (theirs.returncode, theirs.stdout) == (ours.returncode, ours.stdout), arguments
        assert theirs.returncode == (1 if json.loads(ours.stdout)["error"] else 0), arguments
    version = run([python, "-B", "-m", "core.flag_parser.cli", "--version"], cwd=bundled)
    package = (bundled / "core" / "flag_parser" / "_vendor" / "sage_flags" / "__init__.py").read_text()
    (line,) = [text for text in package.splitlines() if text.startswith("__version__ = ")]
    assert (version.returncode, version.stdout) == (0, b"sage-flag-parser %s\n" % ast.literal_eval(line[14:]).encode())


def test_sages_own_flag_parser_tests_pass(sage_projects, python_without_sage_flags: str) -> None:
    """Sage 1.1.5's core/flag_parser/tests (the parser, the config loader, and parse.sh against the Python parser)
    pass with the bundle as they pass on the untouched project."""
    untouched, bundled, _ = sage_projects
    command = [python_without_sage_flags, "-m", "pytest", "-q", "-p", "no:cacheprovider", "core/flag_parser/tests"]
    before, after = run(command, cwd=untouched), run(command, cwd=bundled)
    assert before.returncode == 0, before.stdout.decode()[-3000:]
    assert after.returncode == 0, after.stdout.decode()[-3000:]
    passed = [done.stdout.splitlines()[-1].split(b" passed")[0] for done in (before, after)]
    assert passed[0] == passed[1] and int(passed[0]) >= 40, passed


NAMES_IN_EVERY_VOCABULARY = r"""
import json
from core.flag_parser import parser
import os
from sage_flags._vocabulary import vocabulary
MODES = vocabulary(os.environ["SAGE_FLAGS_VOCABULARY"]).modes
print(json.dumps({
    "e1": parser.parse("--foo").error,
    "supported": parser.SUPPORTED_FOR_ERROR,
    "to_key": parser.FLAG_TO_KEY,
    "sets": [sorted(parser.POSITIVE_FLAGS), sorted(parser.NEGATIVE_FLAGS), sorted(parser.ALL_FLAGS)],
    "modes": MODES,
}))
"""


@pytest.mark.parametrize("vocabulary", VOCABULARY_NAMES)
def test_the_names_follow_the_vocabulary(vocabulary: str) -> None:
    """N8.1 in every vocabulary's bundle (the same drop-in, here from the checkout's sage/): FLAG_TO_KEY maps each
    mode's two flags to its key, the sets split them, and SUPPORTED_FOR_ERROR joined is E1's list."""
    done = subprocess.run(
        [sys.executable, "-B", "-c", NAMES_IN_EVERY_VOCABULARY],
        capture_output=True,
        cwd=ROOT / "sage",
        env=clean_env(SAGE_FLAGS_VOCABULARY=vocabulary),
        timeout=60,
    )
    assert (done.returncode, done.stderr) == (0, b""), done.stderr
    found = json.loads(done.stdout)
    expected = {flag: key for key, name in found["modes"] for flag in ("--" + name, "--no-" + name)}
    assert found["to_key"] == expected and list(found["to_key"]) == list(expected)
    positive, negative, every = found["sets"]
    assert positive == sorted(f for f in expected if not f.startswith("--no-")) and every == sorted(expected)
    assert negative == sorted(f for f in expected if f.startswith("--no-"))
    assert found["e1"] == "Unknown flag '--foo'. Supported flags: %s." % ", ".join(found["supported"])
    assert len(found["supported"]) == len(found["modes"])
