"""The shipped Codex hook through the real Codex CLI, offline (`make e2e`), from the project's root and a subfolder.

A Sage project is built from the vendorable bundle (`make bundle`) as README says a Codex user sets one up: sage/
unpacked, `.sage/config.yaml` with `quality_locked: true`, the manual recipe's `docs/recipes/hooks/codex/hooks.json`
copied to `.codex/hooks.json`, a git repository (Codex reads the root's `.codex/` from a subfolder only below a
project root it finds by `.git`), in a folder whose name holds spaces, quotes and `$`. The CLI that PyPI's
openai-codex-cli-bin ships runs one turn (tests/e2e/codex_turn.py) against a stand-in for the Responses API
(tests/e2e/responses_standin.py) inside `unshare -rn` where that works, so nothing but the stand-in is reachable.
`codex exec` runs the prompt and prints what a script sees; the interactive Codex runs in tmux, the prompt typed, and
its screen is read. The model's request is the stand-in's record of it; the expected bytes are those of
`sage/bin/sage-flags parse` and `announce` in the same project and environment. Each exec prompt runs through the
launcher's Python (the bundle's own package), with no sage-flags on PATH and with the native executable on PATH
(never run: SPEC L1).

Run by mk/e2e.mk, which sets SAGE_FLAGS_E2E_CODEX (empty where the CLI could not be installed: these tests then skip
with that reason, a failure under CI=true), SAGE_FLAGS_E2E_BUNDLE and SAGE_FLAGS_E2E_NATIVE_EXE.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import pytest
from offline import network_isolation

from parity.optional import missing, skip_without_program

HERE = Path(__file__).resolve().parent
RUN_TIMEOUT = 180  # seconds for one turn, tmux included; one takes about 2 s here
# The manual recipe's hook file (docs/recipes/hooks/, an alternative to adopt; the bundle carries none, B7).
SHIPPED_HOOKS = HERE.parent.parent / "docs/recipes/hooks/codex/hooks.json"
HOOK_LABEL = "sage-flags hook result"  # docs/SPEC.md K5
CONFIG = "quality_locked: true\n"
PROJECT_NAME = "my proj 'single' \"double\" $HOME"  # the hook's command never holds the path: any name works
WHERE = {"root": ".", "subfolder": "src/deep"}
CLEAN = "--autonomous Ship it!"
TYPO = "--autonomus x"


def required_env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        pytest.fail("%s is not set: this test runs through `make e2e` (mk/e2e.mk)" % name, pytrace=False)
    return value


def codex_cli() -> str:
    """The Codex CLI, or the test skips naming why (CI=true turns that skip into a failure: parity/optional.py)."""
    if "SAGE_FLAGS_E2E_CODEX" not in os.environ:
        required_env("SAGE_FLAGS_E2E_CODEX")
    codex = os.environ["SAGE_FLAGS_E2E_CODEX"]
    if not codex or not os.access(codex, os.X_OK):
        pytest.skip(
            missing(
                "the Codex CLI",
                "make e2e installs PyPI's openai-codex-cli-bin (requirements-e2e-codex.txt) into build/, "
                "which did not work on this machine (%r)" % codex,
            )
        )
    return codex


def user_path(extra: Optional[Path]) -> str:
    """PATH without any sage-flags on it (the launcher would run that one), EXTRA first."""
    dirs = [d for d in os.environ.get("PATH", "").split(os.pathsep) if d and not (Path(d) / "sage-flags").exists()]
    return os.pathsep.join(([str(extra)] if extra else []) + dirs)


@dataclass
class Project:
    root: Path
    home: Path
    env: Dict[str, str] = field(repr=False)
    layer: str

    @property
    def config(self) -> Path:
        return self.root / ".sage" / "config.yaml"

    def launcher(self, *args: str, text: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(self.root / "sage/bin/sage-flags"), *args],
            input=text.encode(),
            capture_output=True,
            cwd=self.root,
            env=self.env,
            timeout=RUN_TIMEOUT,
        )


def make_project(base: Path, layer: str) -> Project:
    """LAYER: `vendored` (the bundle's Python package), `native` (the native executable on PATH), or `no-sage` (the
    hook file alone: sage/ removed after the hook file is copied out of it)."""
    root, home = base / PROJECT_NAME, base / "home"
    for directory in (home, root / ".codex", root / ".sage", root / "src" / "deep"):
        directory.mkdir(parents=True)
    with tarfile.open(required_env("SAGE_FLAGS_E2E_BUNDLE")) as bundle:
        bundle.extractall(root, filter="tar")
    assert SHIPPED_HOOKS.is_file(), "the repository has no %s" % SHIPPED_HOOKS
    shutil.copyfile(SHIPPED_HOOKS, root / ".codex" / "hooks.json")
    # Sage 1.1's own files that adopt recognises a Sage project by (N2); the bundle laid its drop-in beside them.
    (root / "sage/core/workflows").mkdir(parents=True, exist_ok=True)
    (root / "sage/core/registry.yaml").write_text("workflows: []\n")
    (root / ".sage" / "config.yaml").write_text(CONFIG)
    if layer == "no-sage":
        shutil.rmtree(root / "sage")
    git = skip_without_program("git", "Codex finds a project's root by its .git")
    subprocess.run([git, "init", "-q", str(root)], check=True, capture_output=True)
    installed = None
    if layer == "native":
        installed = base / "bin"
        installed.mkdir()
        (installed / "sage-flags").symlink_to(required_env("SAGE_FLAGS_E2E_NATIVE_EXE"))
    # No key, nothing of a Codex or Claude Code session this test may itself run under.
    prefixes = ("CODEX", "OPENAI", "ANTHROPIC", "CLAUDE", "SAGE_FLAGS", "PYTHON", "VIRTUAL_ENV", "TMUX")
    env = {k: v for k, v in os.environ.items() if not k.startswith(prefixes)}
    env.update(HOME=str(home), PATH=user_path(installed), OPENAI_API_KEY="sk-offline")
    return Project(root, home, env, layer)


@pytest.fixture(scope="module", params=["vendored", "native"])
def project(request, tmp_path_factory) -> Project:
    made = make_project(tmp_path_factory.mktemp(request.param), request.param)
    which = made.launcher("--which", text="")
    expected = "python3: python3 -m sage_flags"  # the bundle's own package, a native executable on PATH or not (L1)
    assert which.returncode == 0 and expected in which.stdout.decode(), which
    return made


@dataclass
class Turn:
    prompt: str
    result: dict

    @property
    def requests(self) -> List[dict]:
        return self.result["requests"]

    def texts(self, request: dict) -> List[Tuple[str, str]]:
        """(role, text) of every input text of a model request."""
        return [
            (item.get("role", ""), part["text"])
            for item in request["input"]
            if item.get("type") == "message"
            for part in item["content"]
            if "text" in part
        ]

    def hook_contexts(self) -> List[Tuple[str, str]]:
        return [(role, text) for request in self.requests for role, text in self.texts(request) if HOOK_LABEL in text]

    def describe(self) -> str:
        shown = {k: v for k, v in self.result.items() if k != "requests"}
        bodies = [self.texts(request)[-3:] for request in self.requests]
        return "prompt %r\n%s\nrequests (last texts): %s" % (self.prompt, json.dumps(shown, indent=1)[-6000:], bodies)


def run_codex(project: Project, where: str, prompt: str, ui: str = "exec") -> Turn:
    spec = {
        "codex": codex_cli(),
        "home": str(project.home),
        "project": str(project.root),
        "cwd": str(project.root / where),
        "prompt": prompt,
        "env": project.env,
        "ui": ui,
        "netns": bool(network_isolation()),
    }
    command = [*network_isolation(), sys.executable, str(HERE / "codex_turn.py")]
    try:
        done = subprocess.run(command, input=json.dumps(spec).encode(), capture_output=True, timeout=RUN_TIMEOUT)
    except subprocess.TimeoutExpired as timeout:
        pytest.fail("codex %s %r ran over %d s: %r" % (ui, prompt, RUN_TIMEOUT, timeout.stderr), pytrace=False)
    assert done.returncode == 0, "codex_turn.py: status %d, %s" % (done.returncode, done.stderr.decode()[-3000:])
    turn = Turn(prompt, json.loads(done.stdout))
    if ui == "tui":
        assert "Ask Codex to do anything" in turn.result["before"], (
            "the interactive Codex was not ready:\n" + turn.describe()
        )
    assert turn.result["others"] == [], "requests the stand-in does not serve:\n" + turn.describe()
    return turn


def expected(project: Project, text: str, status: int) -> Tuple[str, str]:
    """What `parse` and `announce build` print for TEXT in the project, with its config."""
    config = str(project.config)
    parse = project.launcher("parse", "--config-path", config, "--stdin", text=text)
    announce = project.launcher("announce", "build", "--config-path", config, "--stdin", text=text)
    for name, done in (("parse", parse), ("announce", announce)):
        assert done.returncode == status and not done.stderr, (name, done)
    return parse.stdout.decode(), announce.stdout.decode()


def expected_context(text: str, line: str) -> str:
    """K5: the label (the ARGUMENTS' length and SHA-256), then parse's line."""
    data = text.encode()
    return "%s for /build (ARGUMENTS: %d bytes, SHA-256 %s); sage-flags parse printed:\n%s" % (
        HOOK_LABEL,
        len(data),
        hashlib.sha256(data).hexdigest(),
        line,
    )


def hook_status(turn: Turn) -> List[str]:
    """The lines `codex exec` prints about the prompt hook (stderr)."""
    return [line for line in turn.result["stderr"].splitlines() if line.startswith("hook: ")]


@pytest.mark.parametrize("where", WHERE.values(), ids=list(WHERE))
def test_clean_parse_puts_exactly_parses_line_in_the_models_request(project, where):
    line, _ = expected(project, CLEAN, status=0)
    assert json.loads(line)["quality_locked_source"] == "config"  # the project's config, read from anywhere in it
    turn = run_codex(project, where, "/build " + CLEAN)
    why = turn.describe()
    assert turn.result["status"] == 0 and len(turn.requests) == 1, why
    assert hook_status(turn) == ["hook: UserPromptSubmit", "hook: UserPromptSubmit Completed"], why
    context = expected_context(CLEAN, line)
    assert turn.hook_contexts() == [("developer", context)], why
    texts = [text for _, text in turn.texts(turn.requests[0])]
    assert sum(text.count(line[:-1]) for text in texts) == 1, "parse's line is not in the request exactly once"
    assert texts[-2:] == ["/build " + CLEAN, context], "the prompt, then the hook's context, last:\n" + why


@pytest.mark.parametrize("where", WHERE.values(), ids=list(WHERE))
def test_a_bad_flag_makes_no_model_request(project, where):
    """E1: the turn ends before any request; `codex exec` says only that the hook blocked it, not why."""
    _, announcement = expected(project, TYPO, status=1)
    turn = run_codex(project, where, "/build " + TYPO)
    why = turn.describe()
    assert turn.requests == [], "a blocked prompt reached the model:\n" + why
    assert hook_status(turn) == ["hook: UserPromptSubmit", "hook: UserPromptSubmit Blocked"], why
    assert announcement.strip() not in turn.result["stderr"] + turn.result["stdout"], "exec now shows the reason"


@pytest.mark.parametrize("where", WHERE.values(), ids=list(WHERE))
@pytest.mark.parametrize("prompt", ["Ship it, then /build " + TYPO, "/other " + TYPO])
def test_a_prompt_that_is_no_workflow_gets_no_hook_context(project, where, prompt):
    turn = run_codex(project, where, prompt)
    why = turn.describe()
    assert len(turn.requests) == 1 and turn.hook_contexts() == [], why
    assert hook_status(turn) == ["hook: UserPromptSubmit", "hook: UserPromptSubmit Completed"], why


@pytest.mark.parametrize("where", WHERE.values(), ids=list(WHERE))
def test_a_hook_that_finds_no_sage_flags_blocks_nothing(tmp_path, where):
    """The shipped hook file in a project without sage/: silent, the prompt (a bad flag, even) goes on."""
    project = make_project(tmp_path, "no-sage")
    turn = run_codex(project, where, "/build " + TYPO)
    why = turn.describe()
    assert len(turn.requests) == 1 and turn.hook_contexts() == [], why
    assert hook_status(turn) == ["hook: UserPromptSubmit", "hook: UserPromptSubmit Completed"], why


def screen_lines(turn: Turn) -> List[str]:
    return [line.rstrip() for line in turn.result["screen"].splitlines() if line.strip()]


@pytest.fixture(scope="module")
def tui_project(tmp_path_factory) -> Project:
    skip_without_program("tmux", "the interactive Codex runs in tmux, its screen read with capture-pane")
    return make_project(tmp_path_factory.mktemp("tui"), "native")


@pytest.mark.parametrize("where", WHERE.values(), ids=list(WHERE))
def test_interactive_codex_shows_the_block_reason(tui_project, where):
    """What the person sees: `Blocked by hook`, then announce's line, and no model request. Typed as README says,
    with a space first (Codex trims it): a prompt that starts with `/` is one of Codex's own commands."""
    _, announcement = expected(tui_project, TYPO, status=1)
    turn = run_codex(tui_project, where, " /build " + TYPO, ui="tui")
    lines, why = screen_lines(turn), turn.describe()
    assert turn.requests == [], why
    start = lines.index("› /build " + TYPO)
    assert lines[start + 1 : start + 3] == ["• Blocked by hook", "  └ " + announcement[:-1]], why


@pytest.mark.parametrize("where", WHERE.values(), ids=list(WHERE))
def test_interactive_codex_shows_the_announcement(tui_project, where):
    """A clean parse: the announcement under the prompt (`↳ Hook · ` and its lines), the context in the model's
    request (the interactive Codex also asks the model for a title, without it)."""
    line, announcement = expected(tui_project, CLEAN, status=0)
    turn = run_codex(tui_project, where, " /build " + CLEAN, ui="tui")
    lines, why = screen_lines(turn), turn.describe()
    first, *rest = announcement[:-1].split("\n")
    start = lines.index("› /build " + CLEAN)
    assert lines[start + 1 : start + 2 + len(rest)] == ["↳ Hook · " + first, *("    " + r for r in rest)], why
    assert turn.hook_contexts() == [("developer", expected_context(CLEAN, line))], why


def test_interactive_codex_refuses_slash_build_before_any_hook(tui_project):
    """Typed as in Claude Code, `/build ...` is refused by Codex as an unknown command: no hook, no request."""
    turn = run_codex(tui_project, ".", "/build " + TYPO, ui="tui")
    why = turn.describe()
    assert "• Unrecognized command '/build'. Type \"/\" for a list of supported commands." in screen_lines(turn), why
    assert turn.requests == [] and "Blocked by hook" not in turn.result["screen"], why


@pytest.mark.parametrize("where", WHERE.values(), ids=list(WHERE))
def test_an_adopted_project_from_the_root_and_a_subfolder(tmp_path, where):
    """`sage-flags adopt` (SPEC N5) replaces the shipped entry with K9's adopted form, which runs the skill's
    wrapper at the nearest folder up with .codex/hooks.json: parse's line then N10's facts reach the model; a bad flag
    makes no request; with nothing for the wrapper to run (no runtime copy, no sage-flags on PATH) the prompt goes
    on, unblocked."""
    project = make_project(tmp_path, "vendored")
    adopt = Path(sys.executable).parent / "sage-flags"
    done = subprocess.run([str(adopt), "adopt"], cwd=project.root, capture_output=True, text=True, env=project.env)
    assert done.returncode == 0 and "vocabulary sage-1.1" in done.stdout, done
    (entry,) = json.loads((project.root / ".codex/hooks.json").read_text())["hooks"]["UserPromptSubmit"]
    assert (
        '.claude/skills/flag-parser/scripts/sage-flags" --vocabulary sage-1.1 hook codex'
        in entry["hooks"][0]["command"]
    )

    line, _ = expected(project, CLEAN, status=0)
    turn = run_codex(project, where, "/build " + CLEAN)
    why = turn.describe()
    assert turn.result["status"] == 0 and len(turn.requests) == 1, why
    ((role, context),) = turn.hook_contexts()
    assert role == "developer" and context.startswith(expected_context(CLEAN, line)), why
    assert "This is the result of the workflow's own flag-parsing step (`python -m core.flag_parser parse`)" in context

    assert run_codex(project, where, "/build " + TYPO).requests == [], "a blocked prompt reached the model"

    # The runtime copy gone (N6.1), and none on PATH: the wrapper finds nothing to run (K11's notice, none for Codex).
    shutil.rmtree(project.root / ".claude/skills/flag-parser/scripts/sage_flags")
    turn = run_codex(project, where, "/build " + TYPO)
    why = turn.describe()
    assert len(turn.requests) == 1 and turn.hook_contexts() == [], why
    assert hook_status(turn) == ["hook: UserPromptSubmit", "hook: UserPromptSubmit Completed"], why
