"""The Claude Code hook and the flag-parser skill through the real Claude Code CLI, offline (`make e2e`).

A Sage project is built from the vendorable bundle (`make bundle`) as README says a user sets one up: sage/
unpacked, `.sage/config.yaml`, `/build` and `/architect` commands, the shipped `.claude/settings.json`, and the
skill exposed as `.claude/skills/flag-parser`. The CLI that PyPI's claude-agent-sdk bundles runs a prompt in
it with a throwaway HOME and no login: it runs the prompt hooks, expands the command and stops at "Not logged
in" before any request. Its session transcript (HOME/.claude/projects/*/SESSION.jsonl, the hook event's
`transcript_path`) records what the model gets (a `hook_additional_context` attachment, rendered as a
system reminder) and what the person sees (`hook_system_message`); a block ends the run with the reason as its
result text. Each prompt runs through two layers of the launcher, the bundle's Python package (no sage-flags
on PATH) and the native executable installed on PATH (what a native wheel gives), with the shipped
UserPromptExpansion settings, and through the native executable with the UserPromptSubmit alternative and as
a plugin named sage (`--plugin-dir`, the shipped hooks.json, `/sage:build`); the expected bytes are those of
`sage/bin/sage-flags parse` and `announce` in the same project and environment.

Run by mk/e2e.mk, which sets SAGE_FLAGS_E2E_CLAUDE, SAGE_FLAGS_E2E_BUNDLE and SAGE_FLAGS_E2E_NATIVE_EXE;
`make test` does not collect this directory (pyproject.toml: --ignore=tests/e2e).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tarfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional

import pytest
import yaml
from offline import network_isolation

RUN_TIMEOUT = 120  # seconds for one CLI run; one takes about 3 s here
ROOT = Path(__file__).resolve().parents[2]
SKILL_LINK = ".claude/skills/flag-parser"  # where Claude Code discovers a project's skill (adopt writes it there)
# The manual recipes' hook files (docs/recipes/hooks/, alternatives to adopt; the bundle carries none, B7), by
# how a user installs them: a project's .claude/settings.json (UserPromptExpansion), the alternative for versions
# without that event (UserPromptSubmit), and the hooks.json fragment of a plugin named sage (Sage's own install
# path: commands /sage:build, sage/ in the plugin's root).
SHIPPED_HOOKS = {
    "settings": "docs/recipes/hooks/claude-code/settings.json",
    "submit": "docs/recipes/hooks/claude-code/settings-submit.json",
    "plugin": "docs/recipes/hooks/claude-code/hooks.json",
}
NOT_LOGGED_IN = "Not logged in · Please run /login"
CONFIG = "quality_locked: true\n"
COMMAND = "---\ndescription: Sage {0} workflow\n---\nRun the Sage {0} workflow.\n\nARGUMENTS: $ARGUMENTS\n"

# Texts typed after `/build `, each as it must reach the parser. None starts or ends with whitespace: the CLI
# removes the whitespace around a command's arguments (measured: `/build  z\t` gives command_args `z`).
CLEAN_TEXTS = [
    "--autonomous Ship it!",
    "!bang first, then \\ back\\\\slashes \"double\" 'single' `tick` $(rm -rf ~) ${HOME} $HOME",
    "first line\nSAGE_ARGUMENTS_7Q2F\n\tindented\tand\ttabbed\nlast!",
    "--autonomous crlf\r\nline two",
    "unicode é — 😀 and NBSP\u00a0here",
    "--autonomous fix typo\nSage → build workflow. Modes: --autonomous",
]
ERROR_TEXTS = [
    "--autonomus x",
    '--nope!$(id) "q" \\',
]


def required_env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        pytest.fail("%s is not set: this test runs through `make e2e` (mk/e2e.mk)" % name, pytrace=False)
    return value


@dataclass
class Project:
    """A Sage project with its own HOME, and the environment its CLI runs and its hooks inherit."""

    root: Path
    home: Path
    env: Dict[str, str] = field(repr=False)
    layer: str
    form: str
    sage_home: Path  # the directory holding sage/: the project's root, or the plugin's

    @property
    def event(self) -> str:
        return "UserPromptSubmit" if self.form == "submit" else "UserPromptExpansion"

    def command(self, workflow: str) -> str:
        """The slash command's name as typed: a plugin's commands are namespaced by the plugin's name."""
        return ("sage:" if self.form == "plugin" else "") + workflow

    @property
    def claude_options(self) -> List[str]:
        return ["--plugin-dir", str(self.sage_home)] if self.form == "plugin" else []

    @property
    def config(self) -> Path:
        return self.root / ".sage" / "config.yaml"

    def launcher(self, *args: str, text: str) -> subprocess.CompletedProcess:
        """sage/bin/sage-flags ARGS with TEXT on stdin, as the hook's own process would run it."""
        return subprocess.run(
            [str(self.sage_home / "sage/bin/sage-flags"), *args],
            input=text.encode(),
            capture_output=True,
            cwd=self.root,
            env=self.env,
            timeout=RUN_TIMEOUT,
        )


def user_path(extra: Optional[Path]) -> str:
    """PATH without any sage-flags on it (the launcher would run that one), EXTRA first."""
    dirs = [d for d in os.environ.get("PATH", "").split(os.pathsep) if d and not (Path(d) / "sage-flags").exists()]
    return os.pathsep.join(([str(extra)] if extra else []) + dirs)


def write_skill(where: Path) -> None:
    """The skill as the package's renderer writes it for the default vocabulary (the bundle carries none, B7)."""
    from sage_flags import _render

    for rel, text in _render.render(_render.load("sage-1.1"), "adopted").items():
        (where / rel).parent.mkdir(parents=True, exist_ok=True)
        (where / rel).write_text(text, encoding="utf-8")


def make_project(base: Path, layer: str, form: str) -> Project:
    root, home = base / "project", base / "home"
    sage_home = base / "plugin" if form == "plugin" else root
    for directory in (home, root / ".claude", sage_home):
        directory.mkdir(parents=True, exist_ok=True)
    with tarfile.open(required_env("SAGE_FLAGS_E2E_BUNDLE")) as bundle:
        bundle.extractall(sage_home, filter="tar")
    (root / ".sage").mkdir()
    (root / ".sage/config.yaml").write_text(CONFIG)
    shipped = ROOT / SHIPPED_HOOKS[form]
    assert shipped.is_file(), "the repository has no %s" % SHIPPED_HOOKS[form]
    if form == "plugin":
        (sage_home / ".claude-plugin").mkdir()
        (sage_home / ".claude-plugin/plugin.json").write_text('{"name": "sage", "version": "1.3.0"}\n')
        (sage_home / "hooks").mkdir()
        shutil.copyfile(shipped, sage_home / "hooks/hooks.json")
        commands = sage_home / "commands"
    else:
        shutil.copyfile(shipped, root / ".claude/settings.json")
        commands = root / ".claude/commands"
    commands.mkdir()
    for workflow in ("build", "architect", "other"):
        (commands / (workflow + ".md")).write_text(COMMAND.format(workflow))
    write_skill(root / SKILL_LINK)

    installed = None
    if layer == "native":
        installed = base / "bin"
        installed.mkdir()
        (installed / "sage-flags").symlink_to(required_env("SAGE_FLAGS_E2E_NATIVE_EXE"))
    # No login, no key, nothing of a Claude Code session this test may itself run under; no network traffic.
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("ANTHROPIC", "CLAUDE", "SAGE_FLAGS", "AWS_", "GOOGLE_", "PYTHON", "VIRTUAL_ENV"))
    }
    env.update(
        HOME=str(home),
        PATH=user_path(installed),
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        DISABLE_TELEMETRY="1",
        DISABLE_AUTOUPDATER="1",
    )
    return Project(root, home, env, layer, form, sage_home)


# The hook file installed; the launcher runs its bundle's Python package (a native executable on PATH is never
# run: SPEC L1, so the "native" project proves that too).
PROJECTS = [("vendored", "settings"), ("native", "settings"), ("vendored", "submit"), ("vendored", "plugin")]


@pytest.fixture(scope="module", params=PROJECTS, ids=["-".join(p) for p in PROJECTS])
def project(request, tmp_path_factory) -> Project:
    """The project, its hook run by the bundle's Python package (with or without a native executable on PATH)."""
    layer, form = request.param
    made = make_project(tmp_path_factory.mktemp(layer + "-" + form), layer, form)
    which = made.launcher("--which", text="")
    expected = "python3: python3 -m sage_flags"
    assert which.returncode == 0 and expected in which.stdout.decode(), (
        "sage/bin/sage-flags --which in the %s project: status %d, %r" % (made.layer, which.returncode, which.stdout)
    )
    return made


@dataclass
class Run:
    """One CLI run: its stream-json lines and the records of its session transcript."""

    prompt: str
    lines: List[dict]
    transcript: List[dict]
    stderr: str

    @property
    def init(self) -> dict:
        return self.lines[0]

    @property
    def result(self) -> dict:
        return self.lines[-1]

    def attachments(self, prefix: str) -> List[dict]:
        return [
            r for r in self.transcript if r.get("type") == "attachment" and r["attachment"]["type"].startswith(prefix)
        ]

    def describe(self) -> str:
        return "prompt %r\nstream-json:\n%s\ntranscript:\n%s\nstderr:\n%s" % (
            self.prompt,
            "\n".join(json.dumps(line)[:400] for line in self.lines),
            "\n".join(json.dumps(record)[:400] for record in self.transcript),
            self.stderr[-2000:],
        )


def run_claude(project: Project, prompt: str) -> Run:
    claude = required_env("SAGE_FLAGS_E2E_CLAUDE")
    assert os.access(claude, os.X_OK), "SAGE_FLAGS_E2E_CLAUDE=%s is not an executable" % claude
    command = [*network_isolation(), claude, *project.claude_options, "-p", prompt]
    command += ["--output-format", "stream-json", "--verbose"]
    try:
        done = subprocess.run(
            command,
            cwd=project.root,
            env=project.env,
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=RUN_TIMEOUT,
        )
    except subprocess.TimeoutExpired as timeout:
        pytest.fail("claude -p %r ran over %d s; stderr: %r" % (prompt, RUN_TIMEOUT, timeout.stderr), pytrace=False)
    stdout, stderr = done.stdout.decode(), done.stderr.decode()
    try:
        lines = [json.loads(line) for line in stdout.splitlines() if line.strip()]
    except ValueError:
        pytest.fail(
            "claude -p %r: stdout is not JSON lines: %r; stderr %r" % (prompt, stdout[-2000:], stderr), pytrace=False
        )
    assert len(lines) >= 2 and lines[0].get("subtype") == "init" and lines[-1].get("type") == "result", (
        "claude -p %r (status %d): no init line and result line: %r; stderr %r"
        % (prompt, done.returncode, stdout, stderr)
    )
    session = lines[0]["session_id"]
    found = list((project.home / ".claude/projects").glob("*/%s.jsonl" % session))
    assert len(found) == 1, "claude -p %r: session %s has %d transcripts under %s" % (
        prompt,
        session,
        len(found),
        project.home,
    )
    transcript = [json.loads(line) for line in found[0].read_text(encoding="utf-8").splitlines() if line.strip()]
    return Run(prompt, lines, transcript, stderr)


def hook_records(run: Run, event: str) -> Dict[str, List[dict]]:
    """The hook attachments of RUN by type, every one checked to come from EVENT."""
    by_type: Dict[str, List[dict]] = {}
    for record in run.attachments("hook_"):
        attachment = record["attachment"]
        assert attachment.get("hookEvent") == event, "a hook answered another event than %s:\n%s" % (
            event,
            run.describe(),
        )
        by_type.setdefault(attachment["type"], []).append(record)
    return by_type


def expected_parse_and_announcement(project: Project, workflow: str, text: str, status: int):
    parse = project.launcher("parse", "--config-path", str(project.config), "--stdin", text=text)
    announce = project.launcher("announce", workflow, "--config-path", str(project.config), "--stdin", text=text)
    for name, done in (("parse", parse), ("announce", announce)):
        assert done.returncode == status and done.stdout.endswith(b"\n") and not done.stderr, (
            "sage/bin/sage-flags %s for %r: status %d (expected %d), stderr %r"
            % (name, text, done.returncode, status, done.stderr)
        )
    return parse.stdout.decode(), announce.stdout.decode()


@pytest.mark.parametrize("workflow, text", [("build", t) for t in CLEAN_TEXTS] + [("architect", CLEAN_TEXTS[0])])
def test_clean_parse_reaches_the_model_and_the_person(project, workflow, text):
    """The model's context holds exactly parse's line, the person sees exactly the announcement, once each."""
    line, announcement = expected_parse_and_announcement(project, workflow, text, status=0)
    command = project.command(workflow)
    run = run_claude(project, "/%s %s" % (command, text))
    why = run.describe()

    assert run.result.get("result") == NOT_LOGGED_IN, "the run did not reach the model call:\n" + why
    users = [r for r in run.transcript if r.get("type") == "user" and isinstance(r["message"]["content"], str)]
    assert [u["message"]["content"] for u in users] == [
        "<command-message>%s</command-message>\n<command-name>/%s</command-name>\n<command-args>%s</command-args>"
        % (command, command, text)
    ], "the CLI changed the typed text:\n" + why

    hooks = hook_records(run, project.event)
    assert sorted(hooks) == ["hook_additional_context", "hook_system_message"], "hook attachments:\n" + why
    assert len(hooks["hook_additional_context"]) == 1 and len(hooks["hook_system_message"]) == 1, (
        "the hook answered more than once:\n" + why
    )
    context_record = hooks["hook_additional_context"][0]
    (context,) = context_record["attachment"]["content"]
    label = context.split("\n")[0]
    assert label.startswith("sage-flags hook result for /%s" % workflow), "context label:\n" + why
    assert hashlib.sha256(text.encode()).hexdigest() in label, "the label names other ARGUMENTS:\n" + why
    json_lines = [piece for piece in context.split("\n") if piece.startswith("{")]
    assert json_lines == [line[:-1]], "the context's JSON line is not parse's:\n%r\n%r" % (context, line)
    # What the model reads: the context verbatim inside the CLI's system reminder.
    assert [r["content"] for r in context_record["rendered"]] == [
        "<system-reminder>\n%s hook additional context: %s\n</system-reminder>" % (project.event, context)
    ], "the model got other text:\n" + why

    shown = hooks["hook_system_message"][0]["attachment"]["content"]
    assert shown == announcement, "the person saw %r, announce prints %r" % (shown, announcement)

    if text == "--autonomous Ship it!":
        # The config the shipped settings name (${CLAUDE_PROJECT_DIR}/.sage/config.yaml) was read.
        parsed = json.loads(json_lines[0])
        assert (parsed["goal"], parsed["autonomous"], parsed["quality_locked_source"]) == ("Ship it!", True, "config")


@pytest.mark.parametrize("text", ERROR_TEXTS)
def test_error_blocks_with_the_verbatim_reason(project, text):
    """E1: the expansion is blocked, the result text is the error as announce prints it, the model gets nothing."""
    _, announcement = expected_parse_and_announcement(project, "build", text, status=1)
    assert announcement.startswith("Sage: ") and announcement.count("\n") == 1
    prompt = "/%s %s" % (project.command("build"), text)
    run = run_claude(project, prompt)
    why = run.describe()
    assert run.result.get("result") == (
        "%s operation blocked by hook:\n%s\n\nOriginal prompt: %s" % (project.event, announcement[:-1], prompt)
    ), "the block's result text:\n" + why
    assert run.result.get("num_turns") == 0 and not [
        r for r in run.transcript if r.get("type") in ("user", "assistant")
    ], "a blocked command reached the model:\n" + why
    assert not run.attachments("hook_"), "hook attachments beside the block:\n" + why


@pytest.mark.parametrize("prompt", ["/{other} --autonomus x", "hello /{build} --autonomus x"])
def test_not_a_workflow_gets_nothing(project, prompt):
    """Another command or plain text: the hook adds nothing, blocks nothing, reports no error."""
    run = run_claude(project, prompt.format(other=project.command("other"), build=project.command("build")))
    assert run.result.get("result") == NOT_LOGGED_IN, "the prompt did not reach the model call:\n" + run.describe()
    assert not run.attachments("hook_"), "hook attachments for a prompt that is not a workflow:\n" + run.describe()


def test_skill_is_discovered_under_its_name(tmp_path):
    """Where adopt writes it (.claude/skills/flag-parser/), the skill is listed in the init line under its name,
    and the model's skill list carries its description."""
    project = make_project(tmp_path, "vendored", "settings")
    skill = project.root / SKILL_LINK / "SKILL.md"
    meta = yaml.safe_load(skill.read_text(encoding="utf-8").split("---\n")[1])
    assert meta["name"] == "flag-parser", "SKILL.md's frontmatter name is %r" % meta["name"]
    run = run_claude(project, "/build --autonomous Ship it!")
    assert "flag-parser" in run.init.get("skills", []), "skills in the init line: %r" % run.init.get("skills")
    listings = [r["attachment"]["content"] for r in run.attachments("skill_listing")]
    # A skill whose frontmatter name differs from its directory's is listed as `- DIR (NAME): DESCRIPTION`.
    entry = "- flag-parser: %s" % " ".join(meta["description"].split())
    assert any(entry in " ".join(listing.split()) for listing in listings), "the model's skill list lacks %r:\n%s" % (
        entry,
        run.describe(),
    )


def utf16_units(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def hook_answer(project: Project, text: str) -> dict:
    """What `sage-flags hook claude-code` prints for the event the CLI sends for `/build TEXT` (fields as measured)."""
    event = {
        "session_id": "e2e",
        "transcript_path": str(project.home / "transcript.jsonl"),
        "cwd": str(project.root),
        "prompt_id": "e2e",
        "permission_mode": "default",
        "hook_event_name": project.event,
    }
    if project.event == "UserPromptExpansion":
        event.update(expansion_type="slash_command", command_name=project.command("build"), command_args=text)
    event["prompt"] = "/%s %s" % (project.command("build"), text)
    done = project.launcher("hook", "claude-code", "--config-path", str(project.config), text=json.dumps(event))
    assert done.returncode == 0 and not done.stderr, "sage-flags hook: status %d, %r" % (done.returncode, done.stderr)
    return json.loads(done.stdout)


# Over the CLI's cap of 10,000 UTF-16 code units per string (measured: 10,000 pass whole; 10,001, or 5,001
# astral characters, are saved to a file and replaced by a 2 KB preview), in code points and in bytes alike.
LONG_TEXT = "--autonomous" + " ship it 😀 ü!" * 900


def test_long_text_reaches_the_model_whole(project):
    """Over the cap, the hook's answer fits it, so the CLI passes it on as is; the goal reaches the model whole."""
    answer = hook_answer(project, LONG_TEXT)
    run = run_claude(project, "/%s %s" % (project.command("build"), LONG_TEXT))
    why = run.describe()
    hooks = hook_records(run, project.event)
    (context,) = hooks["hook_additional_context"][0]["attachment"]["content"]
    shown = hooks["hook_system_message"][0]["attachment"]["content"]
    assert context == answer["hookSpecificOutput"]["additionalContext"], "the CLI changed the context:\n" + why
    assert shown == answer["systemMessage"], "the CLI changed the announcement:\n" + why
    assert max(utf16_units(context), utf16_units(shown)) <= 10000
    assert hashlib.sha256(LONG_TEXT.encode()).hexdigest() in context.split("\n")[0]
    expanded = [r for r in run.transcript if r.get("type") == "user" and r.get("isMeta")]
    assert any(LONG_TEXT in part["text"] for r in expanded for part in r["message"]["content"]), (
        "the expanded command lacks the goal:\n" + why
    )


def test_long_error_blocks_with_the_hooks_reason(project):
    """E1 echoes a token over the cap: the block's reason is the hook's, within the cap, shown as is."""
    text = "--" + "x" * 12000 + " go"
    answer = hook_answer(project, text)
    assert answer["decision"] == "block" and answer["reason"].startswith("Sage: ")
    assert utf16_units(answer["reason"]) <= 10000
    prompt = "/%s %s" % (project.command("build"), text)
    run = run_claude(project, prompt)
    assert run.result.get("result") == (
        "%s operation blocked by hook:\n%s\n\nOriginal prompt: %s" % (project.event, answer["reason"], prompt)
    ), "the block's result text:\n" + run.describe()


@pytest.mark.parametrize("text", ["--autonomous Ship it!", "--autonomus x"])
def test_bash_layer_fails_open(tmp_path, text):
    """With only the bash layer (the bundle's package without its modules, no sage-flags on PATH) the hook fails open
    (SPEC K8, K11): the CLI reports a non-blocking error, and the prompt, even one with a bad flag, goes on."""
    project = make_project(tmp_path, "vendored", "settings")
    for module in (project.root / "sage/core/flag_parser/_vendor/sage_flags").glob("*.py"):
        module.unlink()  # the package's bash port stays: the launcher's bash
    which = project.launcher("--which", text="").stdout.decode()
    assert which.startswith("bash"), "the launcher would run %r" % which
    run = run_claude(project, "/build " + text)
    why = run.describe()
    assert run.result.get("result") == NOT_LOGGED_IN, "the prompt did not go on to the model call:\n" + why
    errors = hook_records(run, project.event)
    assert sorted(errors) == ["hook_non_blocking_error"] and len(errors["hook_non_blocking_error"]) == 1, why
    error = errors["hook_non_blocking_error"][0]["attachment"]
    assert error["exitCode"] == 3 and error["stdout"] == "", why
    assert error["stderr"].startswith("Failed with non-blocking status code: sage-flags: hook: "), why
    assert error["stderr"].count("\n") == 0, "more than one stderr line:\n" + why
