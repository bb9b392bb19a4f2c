"""Our own refusals never block a prompt (docs/SPEC.md B3's table, K8; issue 40, item 2).

Under `hook`, an unknown vocabulary (from `--vocabulary` or SAGE_FLAGS_VOCABULARY)
and a bad command line before `hook` (`--vocabulary` without its name) are K8's fail-open: status 3, nothing on
stdout, one stderr line `sage-flags: hook: WHY; not answering (the prompt goes on without it)`, never status 2,
which blocks the prompt in Claude Code and Codex. Every other subcommand keeps B3's status 2 and its line.
Through every real entry point: the Python CLI and `python -m sage_flags` on both backends, the native
executable, the bundle's launcher (its Python, and its bash), the drop-in
`python -m core.flag_parser`, and the bundle unpacked in a project (its launcher and drop-in).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Dict, List

import pytest
from artifacts import lay_bundle

from parity.layers import PYTHON, ROOT, Layer, available_layers, bash_interpreters

LAYERS = available_layers("hook")
NATIVE_DIR = ROOT / "target" / "native"
# A workflow's prompt, so that a layer that did not refuse would answer on stdout.
EVENT = json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": "/build --autonomous go"}).encode()
UNKNOWN = b"unknown vocabulary (known: sage-1.1, sage-1.3, sage-1.3.18)"
NO_NAME = b"--vocabulary needs a name"


def k8(why: bytes) -> bytes:
    return b"sage-flags: hook: " + why + b"; not answering (the prompt goes on without it)\n"


def env_without_vocabulary(**extra: str) -> Dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "SAGE_FLAGS_VOCABULARY"}
    env.update(extra)
    return env


def run_layer(layer: Layer, before: List[str], env: Dict[str, str]) -> subprocess.CompletedProcess:
    """`hook codex` through LAYER, with the items BEFORE placed before `hook` (B2's place)."""
    prefix = layer.commands["hook"]
    assert prefix[-1] == "hook", prefix
    argv = [*prefix[:-1], *before, "hook", "codex"]
    full = env_without_vocabulary(**layer.env)
    full.update(env)
    return subprocess.run(argv, input=EVENT, capture_output=True, env=full, cwd=layer.cwd, timeout=60)


def outcome(result: subprocess.CompletedProcess):
    return result.returncode, result.stdout, result.stderr


# The layers that take B2's option (every hook layer does: the Python CLI and module, the executable, the launcher).
OPTION_FORMS = {
    "unknown": (["--vocabulary", "sage-9"], UNKNOWN),
    "unknown-equals": (["--vocabulary=sage-9"], UNKNOWN),
    "empty-equals": (["--vocabulary="], NO_NAME),
    "empty": (["--vocabulary", ""], NO_NAME),
    "name-left-out": (["--vocabulary"], NO_NAME),  # `--vocabulary hook codex`: no vocabulary is named `hook`
}


@pytest.mark.parametrize("layer", LAYERS, ids=lambda layer: layer.name)
@pytest.mark.parametrize("name", ["sage-9", "SAGE-1.1", "sage-1.1 ", "x\ny"])
def test_an_unknown_vocabulary_in_the_environment_fails_open(layer: Layer, name: str) -> None:
    result = run_layer(layer, [], {"SAGE_FLAGS_VOCABULARY": name})
    assert outcome(result) == (3, b"", k8(UNKNOWN)), (layer.name, result)


@pytest.mark.parametrize("layer", LAYERS, ids=lambda layer: layer.name)
@pytest.mark.parametrize("form", OPTION_FORMS)
def test_a_bad_option_before_hook_fails_open(layer: Layer, form: str) -> None:
    before, why = OPTION_FORMS[form]
    result = run_layer(layer, before, {})
    assert outcome(result) == (3, b"", k8(why)), (layer.name, form, result)


@pytest.mark.parametrize("layer", LAYERS, ids=lambda layer: layer.name)
def test_the_status_is_3_with_stderr_closed(layer: Layer) -> None:
    """K8: with stderr closed the line is lost, the status is still 3."""
    for before, env in ((["--vocabulary", "sage-9"], {}), ([], {"SAGE_FLAGS_VOCABULARY": "sage-9"})):
        prefix = layer.commands["hook"]
        full = {**env_without_vocabulary(**layer.env), **env}
        result = subprocess.run(
            [*prefix[:-1], *before, "hook", "codex"],
            input=EVENT,
            stdout=subprocess.PIPE,
            preexec_fn=lambda: os.close(2),
            env=full,
            timeout=60,
        )
        assert (result.returncode, result.stdout) == (3, b""), (layer.name, before, env)


@pytest.mark.parametrize("layer", LAYERS, ids=lambda layer: layer.name)
def test_other_subcommands_keep_status_2(layer: Layer) -> None:
    """B3's table: the same refusals under parse are status 2 and B3's line (a layer's option forms included)."""
    prefix = layer.commands["hook"][:-1]
    full = env_without_vocabulary(**layer.env)
    cases = [
        ([], {"SAGE_FLAGS_VOCABULARY": "sage-9"}, b"sage-flags: " + UNKNOWN + b"\n"),
        (["--vocabulary=sage-9"], {}, b"sage-flags: " + UNKNOWN + b"\n"),
        (["--vocabulary="], {}, b"sage-flags: " + NO_NAME + b" (try 'sage-flags --help')\n"),
        (["--vocabulary", ""], {}, b"sage-flags: " + NO_NAME + b" (try 'sage-flags --help')\n"),
    ]
    for before, env, line in cases:
        argv = [*prefix, *before, "parse", "--autonomous go"]
        result = subprocess.run(argv, capture_output=True, env={**full, **env}, cwd=layer.cwd, timeout=60)
        assert outcome(result) == (2, b"", line), (layer.name, before, env, result)


def drop_in_backends() -> List[str]:
    return [layer.env["SAGE_FLAGS_BACKEND"] for layer in LAYERS if layer.name.startswith("module-")]


@pytest.mark.parametrize("backend", drop_in_backends())
def test_the_drop_in_fails_open_under_hook(backend: str) -> None:
    """`python -m core.flag_parser hook codex` (the drop-in reads the environment only, B2)."""
    env = env_without_vocabulary(SAGE_FLAGS_BACKEND=backend, SAGE_FLAGS_VOCABULARY="sage-9")
    argv = [PYTHON, "-B", "-m", "core.flag_parser", "hook", "codex"]
    result = subprocess.run(argv, input=EVENT, capture_output=True, env=env, cwd=ROOT / "sage", timeout=60)
    assert outcome(result) == (3, b"", k8(UNKNOWN)), result
    parse = subprocess.run([*argv[:4], "parse", "go"], capture_output=True, env=env, cwd=ROOT / "sage", timeout=60)
    assert outcome(parse) == (2, b"", b"sage-flags: " + UNKNOWN + b"\n"), parse


def vendored(tmp_path: Path) -> Path:
    """A project with the bundle unpacked in it (the launcher, the drop-in, the bundle's package in _vendor/)."""
    return lay_bundle(tmp_path / "project")


# B3: a name not exactly a known one, whatever it holds (no trimming anywhere): SAGE_FLAGS_VOCABULARY's bytes.
BAD_NAMES = {"unknown": b"sage-9", "not-utf-8": b"\xff\xfe sage", "crlf": b"sage-1.3\r", "blank": b"sage-1.3 "}


@pytest.mark.parametrize("name", BAD_NAMES)
@pytest.mark.parametrize("path", ["system", "with-exe"])
def test_a_bad_name_fails_open_through_the_bundles_launcher(name: str, path: str, tmp_path: Path) -> None:
    """B2-B3 through the bundle's launcher (python3 from PATH with the bundle's package; a native executable on
    PATH is never run, L1): fails open under hook, refuses parse with status 2 and B3's line."""
    project = vendored(tmp_path)
    search = "/usr/bin:/bin" if path == "system" else f"{NATIVE_DIR}:/usr/bin:/bin"
    env = env_without_vocabulary(PATH=search, SAGE_FLAGS_BACKEND="")
    env["SAGE_FLAGS_VOCABULARY"] = os.fsdecode(BAD_NAMES[name])
    launcher = ["/bin/sh", str(project / "sage" / "bin" / "sage-flags")]
    hook = subprocess.run([*launcher, "hook", "codex"], input=EVENT, capture_output=True, env=env, timeout=60)
    assert outcome(hook) == (3, b"", k8(UNKNOWN)), hook
    parse = subprocess.run([*launcher, "parse", "go"], capture_output=True, env=env, timeout=60)
    assert outcome(parse) == (2, b"", b"sage-flags: " + UNKNOWN + b"\n"), parse


@pytest.mark.parametrize("name", BAD_NAMES)
@pytest.mark.parametrize("backend", drop_in_backends())
def test_a_bad_name_fails_open_through_the_drop_in(name: str, backend: str, tmp_path: Path) -> None:
    """B6: the drop-in takes SAGE_FLAGS_VOCABULARY as it is (never a traceback, whatever it holds)."""
    project = vendored(tmp_path)
    env = env_without_vocabulary(SAGE_FLAGS_BACKEND=backend, SAGE_FLAGS_VOCABULARY=os.fsdecode(BAD_NAMES[name]))
    argv = [PYTHON, "-B", "-m", "core.flag_parser"]
    cwd = project / "sage"
    hook = subprocess.run([*argv, "hook", "codex"], input=EVENT, capture_output=True, env=env, cwd=cwd, timeout=60)
    assert outcome(hook) == (3, b"", k8(UNKNOWN)), hook
    parse = subprocess.run([*argv, "parse", "go"], capture_output=True, env=env, cwd=cwd, timeout=60)
    assert outcome(parse) == (2, b"", b"sage-flags: " + UNKNOWN + b"\n"), parse


def test_a_good_name_still_answers(tmp_path: Path) -> None:
    """The control: the same vendored project with a name of a vocabulary answers the hook in it; with none,
    the launcher's and the drop-in's default is sage-1.1 (B6), which refuses --subagents."""
    project = vendored(tmp_path)
    event = json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": "/build --subagents go"}).encode()
    for argv, cwd in (
        (["/bin/sh", str(project / "sage" / "bin" / "sage-flags")], None),
        ([PYTHON, "-B", "-m", "core.flag_parser"], project / "sage"),
    ):
        env = env_without_vocabulary(PATH="/usr/bin:/bin", SAGE_FLAGS_BACKEND="", SAGE_FLAGS_VOCABULARY="sage-1.3")
        hook = subprocess.run([*argv, "hook", "codex"], input=event, capture_output=True, env=env, cwd=cwd, timeout=60)
        assert hook.returncode == 0 and b'\\"subagents\\": true' in hook.stdout, hook
        env.pop("SAGE_FLAGS_VOCABULARY")
        seed = subprocess.run([*argv, "hook", "codex"], input=event, capture_output=True, env=env, cwd=cwd, timeout=60)
        assert seed.returncode == 0 and b'"decision": "block"' in seed.stdout, seed


@pytest.mark.skipif(not bash_interpreters(), reason="no bash on this machine")
def test_the_bash_layer_fails_open_with_an_unknown_vocabulary(tmp_path: Path) -> None:
    """K11 (a guard: the bash layer failed open before too): with only sh and bash on PATH, the launcher's bash
    layer answers hook with status 3 whatever the vocabulary, and parse with B3's status 2."""
    sandbox = tmp_path / "bin"
    sandbox.mkdir()
    (sandbox / "bash").symlink_to(bash_interpreters()[0].path)
    (sandbox / "sh").symlink_to("/bin/sh")
    env = {"PATH": str(sandbox), "SAGE_FLAGS_VOCABULARY": "sage-9"}
    launcher = str(vendored(tmp_path) / "sage" / "bin" / "sage-flags")
    hook = subprocess.run(["/bin/sh", launcher, "hook", "codex"], input=EVENT, capture_output=True, env=env)
    assert (hook.returncode, hook.stdout) == (3, b"") and hook.stderr.startswith(b"sage-flags: hook: "), hook
    assert hook.stderr.endswith(b"; not answering (the prompt goes on without it)\n") and hook.stderr.count(b"\n") == 1
    parse = subprocess.run(["/bin/sh", launcher, "parse", "go"], capture_output=True, env=env)
    assert (parse.returncode, parse.stdout) == (2, b""), parse


def test_the_drop_in_that_cannot_import_the_package_fails_open_with_k8s_line(tmp_path: Path) -> None:
    """A vendored sage/ with no copy of the package (no _vendor/; an installed one is never run, D25): status 3
    either way (D19), and under `hook` K8's one line."""
    project = vendored(tmp_path)
    shutil.rmtree(project / "sage" / "core" / "flag_parser" / "_vendor")
    env = env_without_vocabulary(SAGE_FLAGS_BACKEND="python", SAGE_FLAGS_VOCABULARY="sage-9")
    argv = [PYTHON, "-B", "-m", "core.flag_parser"]
    cwd = project / "sage"
    hook = subprocess.run([*argv, "hook", "codex"], input=EVENT, capture_output=True, env=env, cwd=cwd, timeout=60)
    assert outcome(hook) == (
        3,
        b"",
        k8(b"cannot run: no copy of the sage_flags package beside this drop-in (unpack the bundle again)"),
    ), hook
    parse = subprocess.run([*argv, "parse", "go"], capture_output=True, env=env, cwd=cwd, timeout=60)
    assert (parse.returncode, parse.stdout) == (3, b"") and parse.stderr.startswith(b"core.flag_parser: cannot run")
