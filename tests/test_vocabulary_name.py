"""One reading of the vocabulary's name (docs/SPEC.md B3's table; issue 42), for what the vectors cannot carry.

The vectors `*vocabulary-name-*` (parity/vectors/sage-1.1.jsonl) hold the table for parse, batch, announce, persist,
resume and hook through every layer. Here, through every entry that takes B2's option (the Python CLI and module on
both backends, the native executable, the launcher before Python and before the executable): the subcommands only
Python has (`config`, `adopt`, `help`; the executable judges the name before it would hand them over), `--version`,
`--vocabulary` as the last item, adopt's own `--vocabulary`, and adopt honouring a name given before it. Each
refusal is the same status and the same bytes everywhere: 2 and B3's line, nothing on stdout, nothing written.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Dict, List

import pytest

from parity.layers import Layer, available_layers
from tests.sage_step import lay_own_step

# Every entry that takes the option before the subcommand (each hook layer does).
ENTRIES = [layer for layer in available_layers("hook") if layer.program is not None]
UNKNOWN = b"sage-flags: unknown vocabulary (known: sage-1.1, sage-1.3, sage-1.3.18)\n"
NO_NAME = b"sage-flags: --vocabulary needs a name (try 'sage-flags --help')\n"
TWICE = b"sage-flags: --vocabulary given more than once (try 'sage-flags --help')\n"


def run(entry: Layer, argv: List[bytes], cwd: Path, env: Dict[str, str]) -> subprocess.CompletedProcess:
    """``argv`` (the whole command line after the program) through ``entry``."""
    program = [os.fsencode(word) for word in entry.commands["hook"][: entry.program]]
    full = {k: v for k, v in os.environ.items() if k != "SAGE_FLAGS_VOCABULARY"}
    full.update(entry.env)
    full.update(env)
    return subprocess.run([*program, *argv], capture_output=True, env=full, cwd=cwd, timeout=60)


SUBCOMMANDS = {
    "config": [b"config", b"explain", b"config.yaml"],
    "adopt": [b"adopt", b"--dry-run"],
    "help": [b"help"],
    "version": [b"--version"],
}
# (items before the subcommand, environment, the one stderr line)
REFUSALS = {
    "empty-equals": ([b"--vocabulary="], {}, NO_NAME),
    "empty": ([b"--vocabulary", b""], {}, NO_NAME),
    "twice": ([b"--vocabulary", b"sage-1.3", b"--vocabulary", b"sage-1.3"], {}, TWICE),
    "twice-mixed": ([b"--vocabulary=sage-1.3", b"--vocabulary", b"sage-1.1"], {}, TWICE),
    "cr": ([b"--vocabulary", b"sage-1.3\r"], {}, UNKNOWN),
    "trailing-blank": ([b"--vocabulary=sage-1.3 "], {}, UNKNOWN),
    "leading-blank": ([b"--vocabulary", b" sage-1.3"], {}, UNKNOWN),
    "newline": ([b"--vocabulary", b"sage-1.3\n"], {}, UNKNOWN),
    "environment-cr": ([], {"SAGE_FLAGS_VOCABULARY": "sage-1.3\r"}, UNKNOWN),
    "environment-blank": ([], {"SAGE_FLAGS_VOCABULARY": "sage-1.3 "}, UNKNOWN),
    "unknown-environment-and-twice": ([b"--vocabulary=x", b"--vocabulary=y"], {"SAGE_FLAGS_VOCABULARY": "z"}, TWICE),
    # B3's order: the name missing or empty, then the option again, then the name.
    "unknown-then-twice": ([b"--vocabulary", b"sage-9", b"--vocabulary", b"sage-1.1"], {}, TWICE),
    "empty-then-twice": ([b"--vocabulary=", b"--vocabulary", b"sage-1.1"], {}, NO_NAME),
    "option-as-the-name": ([b"--vocabulary", b"--vocabulary=sage-1.3"], {}, TWICE),
}


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda entry: entry.name)
@pytest.mark.parametrize("subcommand", SUBCOMMANDS)
@pytest.mark.parametrize("refusal", REFUSALS)
def test_every_refusal_is_status_2_and_b3s_line(entry: Layer, subcommand: str, refusal: str, tmp_path: Path) -> None:
    before, env, line = REFUSALS[refusal]
    result = run(entry, [*before, *SUBCOMMANDS[subcommand]], tmp_path, env)
    assert (result.returncode, result.stdout, result.stderr) == (2, b"", line)
    assert not list(tmp_path.iterdir())  # adopt wrote nothing


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda entry: entry.name)
def test_the_option_as_the_last_item_needs_a_name(entry: Layer, tmp_path: Path) -> None:
    result = run(entry, [b"--vocabulary"], tmp_path, {})
    assert (result.returncode, result.stdout, result.stderr) == (2, b"", NO_NAME)


ADOPT_OWN = {
    "missing": ([b"--vocabulary"], NO_NAME),
    "empty": ([b"--vocabulary="], NO_NAME),
    "twice": ([b"--vocabulary=sage-1.3", b"--vocabulary", b"sage-1.3"], TWICE),
    "cr": ([b"--vocabulary", b"sage-1.3\r"], UNKNOWN),
    "blank": ([b"--vocabulary=sage-1.3 "], UNKNOWN),
    "not-utf-8": ([b"--vocabulary", b"sage-1.\xff"], UNKNOWN),
}
PYTHON_ENTRIES = [entry for entry in ENTRIES if entry.name != "exe"]  # the executable here has no Python beside it


def sage_project(root: Path, release: str = "1.3.21") -> Path:
    (root / "sage").mkdir(parents=True)
    (root / "sage" / "VERSION").write_text(release + "\n")
    lay_own_step(root)  # nothing to verify against (N2): what adopt writes is what these tests look at
    return root


@pytest.mark.parametrize("entry", PYTHON_ENTRIES, ids=lambda entry: entry.name)
@pytest.mark.parametrize("form", ADOPT_OWN)
def test_adopts_own_option_is_read_by_the_same_rule(entry: Layer, form: str, tmp_path: Path) -> None:
    """N1: adopt's --vocabulary after the subcommand, judged as B3 judges the option before it: B3's line (the name
    never echoed), given twice refused (the second no longer wins), nothing written."""
    root = sage_project(tmp_path)
    items, line = ADOPT_OWN[form]
    result = run(entry, [b"adopt", b"--dry-run", *items], root, {})
    assert (result.returncode, result.stdout, result.stderr) == (2, b"", line)
    result = run(entry, [b"adopt", *items], root, {})
    assert (result.returncode, result.stdout, result.stderr) == (2, b"", line)
    assert sorted(p.name for p in root.iterdir()) == ["sage"]


@pytest.mark.parametrize("entry", PYTHON_ENTRIES, ids=lambda entry: entry.name)
@pytest.mark.parametrize("how", ["option", "option-equals", "environment"])
def test_adopt_honours_a_name_given_before_it(entry: Layer, how: str, tmp_path: Path) -> None:
    """In a Sage 1.3.21 project (the release's vocabulary: sage-1.3.18), a name given before `adopt` is adopted."""
    root = sage_project(tmp_path)
    before = {"option": [b"--vocabulary", b"sage-1.3"], "option-equals": [b"--vocabulary=sage-1.3"]}.get(how, [])
    env = {"SAGE_FLAGS_VOCABULARY": "sage-1.3"} if how == "environment" else {}
    result = run(entry, [*before, b"adopt", b"--dry-run"], root, env)
    assert (result.returncode, result.stderr) == (0, b""), result
    assert result.stdout.splitlines()[0] == b"sage-flags adopt: Sage 1.3.21, vocabulary sage-1.3"


def k8(line: bytes) -> bytes:
    why = line[len(b"sage-flags: ") :].replace(b" (try 'sage-flags --help')", b"").rstrip(b"\n")
    return b"sage-flags: hook: " + why + b"; not answering (the prompt goes on without it)\n"


HOOK_PLACES = {  # the subcommand is the item past every option before it (B3): each of these is `hook`
    "twice-then-hook": [b"--vocabulary", b"sage-1.3", b"--vocabulary=sage-1.1", b"hook", b"codex"],
    "equals-twice-then-hook": [b"--vocabulary=sage-1.3", b"--vocabulary", b"hook", b"codex"],
    "option-as-the-name-then-hook": [b"--vocabulary", b"--vocabulary", b"hook", b"codex"],
    "unknown-then-twice-then-hook": [b"--vocabulary", b"sage-9", b"--vocabulary", b"x", b"hook", b"codex"],
}


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda entry: entry.name)
@pytest.mark.parametrize("place", HOOK_PLACES)
def test_under_hook_every_place_of_it_fails_open(entry: Layer, place: str, tmp_path: Path) -> None:
    """K8: whatever options stand before `hook`, our refusal never blocks the prompt (status 3, K8's line)."""
    result = run(entry, HOOK_PLACES[place], tmp_path, {})
    assert (result.returncode, result.stdout, result.stderr) == (3, b"", k8(TWICE))
