"""Every Sage vocabulary in one build (docs/SPEC.md B1-B7): how a call names one, in every layer.

The vectors of each vocabulary run through every layer in parity/test_vectors.py; here: the usage error for a
name no layer carries, the option's one place (before the subcommand; after it, the same text is ARGUMENTS), the
option over the environment, and Sage's release table.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Dict, List

import pytest

from parity.layers import NATIVE_EXE, PYTHON, ROOT, SAGE_FLAGS, Layer, available_layers, vendored_bundle

sys.path.insert(0, str(ROOT / "tools"))
import generate
from sage_flags import _vocab, _vocabulary

UNKNOWN = b"sage-flags: unknown vocabulary (known: sage-1.1, sage-1.3, sage-1.3.18)\n"
UNKNOWN_UNDER_HOOK = (
    b"sage-flags: hook: unknown vocabulary (known: sage-1.1, sage-1.3, sage-1.3.18); not answering (the prompt goes"
    b" on without it)\n"
)
LAUNCHER = vendored_bundle() / "sage" / "bin" / "sage-flags"  # the bundle's launcher runs its own package (L1)
# The command lines that take `--vocabulary NAME` before the subcommand (B2): the Python CLI (console script and
# module, each backend), the native executable and the launcher.
OPTION_TAKERS: Dict[str, List[str]] = {
    "cli": [SAGE_FLAGS],
    "module-pure": [PYTHON, "-m", "sage_flags"],
    "exe": [str(NATIVE_EXE)],
    "launcher": ["/bin/sh", str(LAUNCHER)],
}


def run(argv: List[str], env: Dict[str, str], stdin: bytes = b"", cwd: Path = ROOT) -> subprocess.CompletedProcess:
    import os

    full = {k: v for k, v in os.environ.items() if k != "SAGE_FLAGS_VOCABULARY"}
    full.update(env)
    return subprocess.run(argv, input=stdin, capture_output=True, env=full, cwd=cwd, timeout=60)


def layer_run(layer: Layer, command: str, args: List[bytes], env: Dict[str, str]) -> subprocess.CompletedProcess:
    return layer.run(command, args, env=env, stdin=b"--subagents go\0" if command == "batch" else b"")


@pytest.mark.parametrize("command", ["parse", "batch", "announce", "hook"])
def test_an_unknown_name_in_the_environment_is_a_usage_error_in_every_layer(command: str) -> None:
    """B3: status 2, nothing on stdout, the one line naming the known ones; never the default's rules. Under
    `hook` the same refusal is K8's fail-open (status 3, K8's line), never 2, which would block the prompt."""
    layers = available_layers(command)
    assert layers
    args = {"parse": [b"--subagents go"], "batch": [], "announce": [b"build", b"go"], "hook": [b"claude-code"]}
    expected = (2, b"", UNKNOWN) if command != "hook" else (3, b"", UNKNOWN_UNDER_HOOK)
    for name in ("sage-9", "SAGE-1.1", "sage-1.1 ", "x\ny"):
        for layer in layers:
            done = layer_run(layer, command, args[command], {"SAGE_FLAGS_VOCABULARY": name})
            assert (done.returncode, done.stdout, done.stderr) == expected, (layer.name, name, done)


@pytest.mark.parametrize("taker", OPTION_TAKERS)
def test_an_unknown_name_in_the_option_is_a_usage_error(taker: str) -> None:
    for form in (["--vocabulary", "sage-9"], ["--vocabulary=sage-9"], ["--vocabulary=sage-1.3", "--vocabulary"]):
        done = run([*OPTION_TAKERS[taker], *form, "parse", "go"], {"PATH": "/usr/bin:/bin"})
        expected_stderr = UNKNOWN if form[-1] != "--vocabulary" else None
        assert (done.returncode, done.stdout) == (2, b""), (taker, form, done)
        assert done.stderr.count(b"\n") == 1, (taker, form, done.stderr)
        if expected_stderr:
            assert done.stderr == expected_stderr, (taker, form)


@pytest.mark.parametrize("taker", OPTION_TAKERS)
def test_the_option_after_the_subcommand_is_arguments_text_not_a_selector(taker: str) -> None:
    """B2: the seed's `parse "$ARGUMENTS" --config-path ...` form: nothing a person types picks a vocabulary."""
    env = {"PATH": "/usr/bin:/bin"}
    goal = json.loads(run([*OPTION_TAKERS[taker], "parse", "go --vocabulary sage-1.3 --subagents"], env).stdout)
    assert goal["goal"] == "go --vocabulary sage-1.3 --subagents" and "subagents" not in goal
    first = run([*OPTION_TAKERS[taker], "parse", "--vocabulary", "sage-1.3", "--subagents", "go"], env)
    assert first.returncode == 1 and json.loads(first.stdout)["error"].startswith("Unknown flag '--vocabulary'.")
    config = run(
        [*OPTION_TAKERS[taker], "parse", "--vocabulary=sage-1.3 --subagents go", "--config-path", "/none"], env
    )
    assert json.loads(config.stdout)["error"].startswith("Unknown flag '--vocabulary=sage-1.3'.")
    announce = run([*OPTION_TAKERS[taker], "announce", "build", "--vocabulary", "sage-1.3.18", "x"], env)
    assert announce.returncode == 1 and announce.stdout.startswith(b"Sage: Unknown flag '--vocabulary'.")


@pytest.mark.parametrize("taker", OPTION_TAKERS)
def test_the_option_wins_over_the_environment(taker: str) -> None:
    argv = OPTION_TAKERS[taker]
    newest = run(
        [*argv, "--vocabulary", "sage-1.3.18", "parse", "--parallel=3 go"], {"SAGE_FLAGS_VOCABULARY": "sage-1.3"}
    )
    assert (newest.returncode, json.loads(newest.stdout)["parallel_lanes"]) == (0, 3), newest.stderr
    older = run([*argv, "--vocabulary=sage-1.3", "parse", "--parallel go"], {"SAGE_FLAGS_VOCABULARY": "sage-1.3.18"})
    assert older.returncode == 1 and "parallel_lanes" not in json.loads(older.stdout)
    seed = run([*argv, "--vocabulary", "sage-1.1", "parse", "--subagents go"], {"SAGE_FLAGS_VOCABULARY": "sage-9"})
    assert seed.returncode == 1 and list(json.loads(seed.stdout))[:3] == ["quality_locked", "autonomous", "goal"]
    from_env = run([*argv, "parse", "--subagents go"], {"SAGE_FLAGS_VOCABULARY": "sage-1.3"})
    assert (from_env.returncode, json.loads(from_env.stdout)["subagents"]) == (0, True)
    empty = run([*argv, "parse", "--subagents go"], {"SAGE_FLAGS_VOCABULARY": ""})  # empty: none named
    assert empty.returncode == 1 and "subagents" not in json.loads(empty.stdout)


def test_the_bash_scripts_and_the_drop_in_take_no_option() -> None:
    """B2: bash and `python -m core.flag_parser` read SAGE_FLAGS_VOCABULARY only."""
    drop_in = run(
        [PYTHON, "-B", "-m", "core.flag_parser", "--vocabulary", "sage-1.3", "parse", "x"], {}, cwd=ROOT / "sage"
    )
    assert (drop_in.returncode, drop_in.stdout) == (2, b"")
    assert drop_in.stderr.startswith(b"sage-flags: unknown subcommand '--vocabulary'")
    env = {"SAGE_FLAGS_VOCABULARY": "sage-1.3"}
    by_env = run([PYTHON, "-B", "-m", "core.flag_parser", "parse", "--subagents go"], env, cwd=ROOT / "sage")
    assert (by_env.returncode, json.loads(by_env.stdout)["subagents"]) == (0, True)
    bash = run(["bash", str(ROOT / "python" / "sage_flags" / "bash" / "parse.sh"), "--vocabulary", "sage-1.3"], {})
    assert bash.returncode == 1 and json.loads(bash.stdout)["error"].startswith("Unknown flag '--vocabulary'.")


def test_every_layer_lists_the_same_vocabularies() -> None:
    """B4: `--version` names every vocabulary the layer carries, the default first."""
    names = [vocab.name for vocab in generate.load_vocabularies(ROOT)]
    assert names == list(_vocab.NAMES) == ["sage-1.1", "sage-1.3", "sage-1.3.18"]
    for argv in OPTION_TAKERS.values():
        done = run([*argv, "--version"], {"PATH": "/usr/bin:/bin"})
        assert done.stdout.endswith(f"(vocabularies: {', '.join(names)})\n".encode()), (argv, done)


@pytest.mark.parametrize(
    ("release", "vocabulary"),
    [
        ("1.1.5", "sage-1.1"),
        ("1.1.0", "sage-1.1"),
        ("1.2.9", "sage-1.1"),
        ("1.2", "sage-1.1"),
        ("1.3.0", "sage-1.3"),
        ("v1.3.17", "sage-1.3"),
        ("1.3.18", "sage-1.3.18"),
        ("1.3.21", "sage-1.3.18"),
        ("1.3.99", "sage-1.3.18"),  # the last row runs through every 1.3.x
        ("1.4.0", None),  # newer than the table: none (a newer Sage may add flags we would refuse)
        ("2.0", None),
        ("1.0.9", None),
        ("1.3.21.4", None),
        ("latest", None),
        ("", None),
    ],
)
def test_the_release_table(release: str, vocabulary: object) -> None:
    """B5: spec/releases.toml, generated into _vocab.RELEASES (vocabulary_for_release reads it)."""
    assert _vocabulary.vocabulary_for_release(release) == vocabulary


def test_the_release_table_in_spec_is_the_generated_one() -> None:
    spec = (ROOT / "docs" / "SPEC.md").read_text(encoding="utf-8")
    assert generate.release_table(generate.load_build(ROOT)) in spec


def test_the_drop_in_never_runs_an_installed_package(tmp_path: Path) -> None:
    """Issue 42, one chooser (D25): the drop-in runs the copy it ships (here the checkout's), never an installed
    sage_flags, whatever the vocabulary: an old install first on the path answers nothing."""
    old = tmp_path / "site" / "sage_flags"
    old.mkdir(parents=True)
    (old / "__init__.py").write_text("from sage_flags import _vocab\n")
    (old / "_vocab.py").write_text('MODES = (("quality_locked", "quality-locked"), ("autonomous", "autonomous"))\n')
    (old / "cli.py").write_text("import sys\ndef main(argv=None):\n    print('the old install')\n    return 0\n")
    env = {"PYTHONPATH": str(tmp_path / "site")}
    for name, subagents in (("", False), ("sage-1.3", True), ("sage-1.3.18", True)):
        named = run(
            [PYTHON, "-B", "-m", "core.flag_parser", "parse", "--subagents go"],
            {**env, "SAGE_FLAGS_VOCABULARY": name},
            cwd=ROOT / "sage",
        )
        assert b"the old install" not in named.stdout, named
        if subagents:
            assert (named.returncode, json.loads(named.stdout)["subagents"]) == (0, True), named.stderr
        else:
            assert named.returncode == 1 and b"Unknown flag '--subagents'" in named.stdout, named
