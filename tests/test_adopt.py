"""`sage-flags adopt` (docs/SPEC.md section 19) through the installed command, and the wrapper it writes under dash
and bash. tests/test_adopt_sage.py does the same in projects Sage's own installer made."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict

import pytest
from sage_flags import __version__ as VERSION
from sage_flags.adopt import SKILL_DIR, VOCABULARIES, claude_command, vocabulary_for_release
from sage_flags.hook_commands import codex_hook_command
from sage_step import lay_own_step

SAGE_FLAGS = Path(sys.executable).parent / "sage-flags"
WRAPPER = ".claude/skills/flag-parser/scripts/sage-flags"
SHELLS = [shell for shell in ("dash", "bash") if shutil.which(shell)]
EVENT = {
    "session_id": "s",
    "transcript_path": "/t",
    "cwd": "/c",
    "permission_mode": "default",
    "hook_event_name": "UserPromptExpansion",
    "expansion_type": "slash_command",
    "command_name": "build",
    "command_args": "--autonomous Ship it!",
    "prompt": "/build --autonomous Ship it!",
}
OTHER_SETTINGS = {
    "permissions": {"allow": ["Bash(git status)"]},
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "bash x.sh"}]}],
        "UserPromptExpansion": [{"matcher": "deploy", "hooks": [{"type": "command", "command": "theirs"}]}],
    },
    "env": {"NAME": "é"},
}


def adopt(root: Path, *args: str, path: str = "") -> subprocess.CompletedProcess:
    env = dict(os.environ, PATH=path or os.environ["PATH"])
    return subprocess.run([str(SAGE_FLAGS), "adopt", *args], cwd=root, capture_output=True, text=True, env=env)


STEP_1_3 = "sage/runtime/tools/sage_flags.py"  # Sage 1.3's own flag-parsing step (N2)
STAND_IN_STEP = "# a stand-in for Sage's sage_flags.py: adopt --no-verify never runs it\n"


def sage_project(tmp_path: Path, release: str = "1.3.21") -> Path:
    root = tmp_path / "proj"
    (root / "sage/core").mkdir(parents=True)
    if release == "1.1-layout":  # Sage 1.1's own files (N2): no VERSION
        (root / "sage/core/workflows").mkdir()
        (root / "sage/core/registry.yaml").write_text("workflows: {}\n")
    else:
        (root / "sage/VERSION").write_text(release + "\n")
    lay_own_step(root)  # nothing to verify against: the release's vocabulary is the table's (N2)
    (root / ".sage").mkdir()
    (root / ".sage/config.yaml").write_text("quality_locked: true\n")
    return root


def tree(root: Path) -> Dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize(
    "release, vocabulary",
    [
        ("1.1.5", "sage-1.1"),
        ("1.2.9", "sage-1.1"),
        ("1.1-layout", "sage-1.1"),
        ("1.3.0", "sage-1.3"),
        ("1.3.17", "sage-1.3"),
        ("1.3.18", "sage-1.3.18"),
        ("1.3.21", "sage-1.3.18"),
        ("1.4.0", None),
        ("2.0.0", None),
        ("1.0.9", None),
        ("1.3", None),
        ("v1.3.21", None),
    ],
)
def test_release_to_vocabulary(release, vocabulary):
    assert vocabulary_for_release(release) == vocabulary


def test_adopt_registers_keeps_everything_else_and_is_idempotent(tmp_path):
    root = sage_project(tmp_path)
    (root / ".claude").mkdir()
    (root / ".claude/settings.json").write_text(json.dumps(OTHER_SETTINGS, indent=4))
    (root / ".claude/settings.local.json").write_text("{not json")
    sage_before = tree(root / "sage")

    dry = adopt(root, "--dry-run")
    assert dry.returncode == 0 and "dry run: nothing written" in dry.stdout, dry
    assert json.loads((root / ".claude/settings.json").read_text()) == OTHER_SETTINGS
    assert not (root / ".claude/skills").exists()

    done = adopt(root)
    assert done.returncode == 0 and not done.stderr, done
    assert "Sage 1.3.21, vocabulary sage-1.3.18" in done.stdout
    settings = json.loads((root / ".claude/settings.json").read_text(encoding="utf-8"))
    assert list(settings) == list(OTHER_SETTINGS) and settings["env"] == {"NAME": "é"}
    assert settings["permissions"] == OTHER_SETTINGS["permissions"]
    assert settings["hooks"]["PreToolUse"] == OTHER_SETTINGS["hooks"]["PreToolUse"]
    theirs, ours = settings["hooks"]["UserPromptExpansion"]
    assert theirs == OTHER_SETTINGS["hooks"]["UserPromptExpansion"][0]
    assert ours["matcher"] == "^(sage:)?(build|architect)$"
    assert ours["hooks"][0]["command"] == claude_command("sage-1.3.18")
    assert "--vocabulary sage-1.3.18" in ours["hooks"][0]["command"]
    assert (root / ".claude/settings.local.json").read_text() == "{not json"  # never touched
    assert tree(root / "sage") == sage_before  # nothing under sage/
    assert os.access(root / WRAPPER, os.X_OK)
    wrapper = (root / WRAPPER).read_text()
    assert "\nvocabulary=sage-1.3.18\n" in wrapper and "\nadopted=1.3.21\n" in wrapper
    assert not (root / ".codex").exists()

    before = tree(root)
    again = adopt(root)
    assert again.returncode == 0 and "nothing to do: already adopted" in again.stdout, again
    assert tree(root) == before


def test_readoption_replaces_our_entry_in_place(tmp_path):
    root = sage_project(tmp_path, "1.1.5")
    assert adopt(root).returncode == 0
    (root / "sage/VERSION").write_text("1.3.21\n")
    done = adopt(root)
    assert done.returncode == 0, done
    entries = json.loads((root / ".claude/settings.json").read_text())["hooks"]["UserPromptExpansion"]
    assert len(entries) == 1 and "--vocabulary sage-1.3.18" in entries[0]["hooks"][0]["command"]


def test_codex_hook_where_the_project_has_codex(tmp_path):
    root = sage_project(tmp_path, "1.1-layout")
    (root / ".codex").mkdir()
    done = adopt(root)
    assert done.returncode == 0 and "a Sage 1.1 project (no sage/VERSION), vocabulary sage-1.1" in done.stdout
    (entry,) = json.loads((root / ".codex/hooks.json").read_text())["hooks"]["UserPromptSubmit"]
    # K9's one template, in its adopted form: the nearest folder up with .codex/hooks.json, its wrapper, --vocabulary.
    assert entry == {
        "hooks": [{"type": "command", "command": codex_hook_command("sage-1.1", adopted=True), "timeout": 10}]
    }
    assert "--vocabulary sage-1.1 hook codex" in entry["hooks"][0]["command"]
    assert WRAPPER == SKILL_DIR + "/scripts/sage-flags"


def test_readoption_replaces_the_shipped_codex_entry(tmp_path):
    """A project that copied the bundle's codex/hooks.json (K9) and then adopts has one hook of ours, not two."""
    root = sage_project(tmp_path, "1.3.21")
    (root / ".codex").mkdir()
    shipped = {"type": "command", "command": codex_hook_command(), "timeout": 10}
    theirs = {"hooks": [{"type": "command", "command": "their-hook"}]}
    (root / ".codex/hooks.json").write_text(json.dumps({"hooks": {"UserPromptSubmit": [theirs, {"hooks": [shipped]}]}}))
    assert adopt(root).returncode == 0
    entries = json.loads((root / ".codex/hooks.json").read_text())["hooks"]["UserPromptSubmit"]
    assert entries[0] == theirs and len(entries) == 2
    assert entries[1]["hooks"][0]["command"] == codex_hook_command("sage-1.3.18", adopted=True)


def codex_event(prompt: str) -> dict:
    """Codex's UserPromptSubmit input (tests/test_hook.py validates this shape against Codex's schema)."""
    return {
        "session_id": "s",
        "turn_id": "t",
        "transcript_path": None,
        "cwd": "/c",
        "hook_event_name": "UserPromptSubmit",
        "model": "gpt-5-codex",
        "permission_mode": "default",
        "prompt": prompt,
    }


def codex_run(shell: str, command: str, cwd: Path, event: dict, path: str) -> subprocess.CompletedProcess:
    """COMMAND as Codex runs it: `$SHELL -c COMMAND` in the session's folder, the event on stdin."""
    env = {"PATH": path, "HOME": str(cwd), "SHELL": shell}
    return subprocess.run(
        [shell, "-c", command], input=json.dumps(event), capture_output=True, text=True, env=env, cwd=cwd
    )


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("where", [".", "src/deep"])
def test_the_adopted_codex_command_from_the_root_and_a_subfolder(tmp_path, shell, where):
    """SPEC N5/K9: from the root or a subfolder, the wrapper answers with the real sage-flags and the root's
    config: `parse`'s line (and N10's facts) for a /build, the misspelt flag's block, nothing for a plain prompt.
    With no sage-flags anywhere, or the wrapper gone: status 0, nothing at all (never a block, no notice)."""
    root = sage_project(tmp_path, "1.1.5")
    (root / ".codex").mkdir()
    (root / "src/deep/.codex").mkdir(parents=True)  # a subfolder's own .codex/ (no wrapper beside it) is no root
    (root / STEP_1_3).parent.mkdir(parents=True)
    (root / STEP_1_3).write_text(STAND_IN_STEP)  # Sage's own step, watched (N6.4); not run: --no-verify
    assert adopt(root, "--vocabulary", "sage-1.1", "--no-verify").returncode == 0
    (entry,) = json.loads((root / ".codex/hooks.json").read_text())["hooks"]["UserPromptSubmit"]
    command = entry["hooks"][0]["command"]
    config = str(root / ".sage/config.yaml")
    with_program = str(SAGE_FLAGS.parent) + os.pathsep + system_path()

    for prompt in ("/build --autonomous Ship it!", "/build --autonomus x", "fix the login page"):
        event = codex_event(prompt)
        done = codex_run(shell, command, root / where, event, with_program)
        assert done.returncode == 0 and not done.stderr, done
        own = subprocess.run(
            [str(SAGE_FLAGS), "--vocabulary", "sage-1.1", "hook", "codex", "--config-path", config],
            input=json.dumps(event),
            capture_output=True,
            text=True,
        )
        assert own.returncode == 0, own
        if prompt.startswith("fix"):
            assert done.stdout == own.stdout == ""
        elif "--autonomus" in prompt:
            assert done.stdout == own.stdout and json.loads(done.stdout)["decision"] == "block"
            assert "Did you mean '--autonomous'?" in done.stdout
        else:
            got, expected = json.loads(done.stdout), json.loads(own.stdout)
            context = expected["hookSpecificOutput"]["additionalContext"]
            assert '"quality_locked": true, "autonomous": true' in context  # the root's config was read
            added = got["hookSpecificOutput"]["additionalContext"]
            assert added.startswith(context) and "computed by sage-flags (vocabulary sage-1.1)" in added[len(context) :]
            assert got["systemMessage"] == expected["systemMessage"]

    event = codex_event("/build --autonomus x")
    copy = codex_run(shell, command, root / where, event, system_path())  # python3 and the project's copy
    assert copy.returncode == 0 and json.loads(copy.stdout)["decision"] == "block", copy
    nothing = codex_run(shell, command, root / where, event, bare_bin(tmp_path, shell, "sh", "cksum"))
    assert (nothing.returncode, nothing.stdout, nothing.stderr) == (0, "", ""), nothing
    (root / "sage/VERSION").write_text("1.4.0\n")  # an upgrade that leaves the parser alone: still answered
    kept = codex_run(shell, command, root / where, event, with_program)
    assert json.loads(kept.stdout)["decision"] == "block", kept
    (root / STEP_1_3).write_text(STAND_IN_STEP + "# a patch\n")  # the parser changed: no answer, no notice
    changed = codex_run(shell, command, root / where, event, with_program)
    assert (changed.returncode, changed.stdout, changed.stderr) == (0, "", ""), changed
    shutil.rmtree(root / SKILL_DIR)
    gone = codex_run(shell, command, root / where, event, with_program)
    assert (gone.returncode, gone.stdout, gone.stderr) == (0, "", ""), gone


@pytest.mark.parametrize(
    "content",
    [b"{not json", b'{"a": 1, "a": 2}', b"[]", b'{"hooks": []}', b'{"hooks": {"Stop": {}}}', b"\xff\xfe"],
)
def test_a_settings_file_we_cannot_keep_whole_is_left_untouched(tmp_path, content):
    root = sage_project(tmp_path)
    (root / ".claude").mkdir()
    (root / ".claude/settings.json").write_bytes(content)
    done = adopt(root)
    assert done.returncode == 3 and not done.stdout, done
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("sage-flags: adopt: .claude/settings.json")
    assert (root / ".claude/settings.json").read_bytes() == content
    assert not (root / ".claude/skills").exists(), "a refusal wrote something"


def test_never_through_a_planted_link(tmp_path):
    root = sage_project(tmp_path)
    (root / ".claude").mkdir()
    target = tmp_path / "elsewhere.json"
    target.write_text("{}")
    (root / ".claude/settings.json").symlink_to(target)
    done = adopt(root)
    assert done.returncode == 3 and "symbolic link" in done.stderr, done
    assert target.read_text() == "{}"


def test_unknown_release_and_not_a_project(tmp_path):
    root = sage_project(tmp_path, "1.4.0")
    done = adopt(root)
    assert done.returncode == 3 and done.stderr.count("\n") == 1, done
    for word in ("'1.4.0'", "1.3.18-1.3.x", "--vocabulary NAME", *VOCABULARIES):
        assert word in done.stderr
    assert not (root / ".claude").exists()
    chosen = adopt(root, "--vocabulary", "sage-1.3")
    assert chosen.returncode == 0 and "Sage 1.4.0, vocabulary sage-1.3" in chosen.stdout, chosen
    bad = adopt(root, "--vocabulary", "sage-9")
    assert bad.returncode == 2 and "sage-1.3.18" in bad.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    nothing = adopt(empty)
    assert nothing.returncode == 3 and "no Sage project here" in nothing.stderr and not list(empty.iterdir())


def test_a_skill_directory_not_ours_is_left_alone(tmp_path):
    root = sage_project(tmp_path)
    (root / ".claude/skills/flag-parser").mkdir(parents=True)
    (root / ".claude/skills/flag-parser/SKILL.md").write_text("---\nname: flag-parser\n---\nsomeone else's\n")
    done = adopt(root)
    assert done.returncode == 3 and "not sage-flags' skill" in done.stderr
    assert not (root / ".claude/settings.json").exists()


def test_the_adopted_skill_is_a_valid_agent_skill(tmp_path):
    from skills_ref.validator import validate

    root = sage_project(tmp_path)
    assert adopt(root).returncode == 0
    assert validate(root / ".claude/skills/flag-parser") == []
    text = (root / ".claude/skills/flag-parser/SKILL.md").read_text()
    for fact in ("sage_flags.py parse", "python -m core.flag_parser parse", ".sage/work/<slug>/manifest.md"):
        assert fact in text
    assert "sage/bin/sage-flags parse" not in text and ".sage/cycle.md" not in text


# The wrapper, under each shell


def hook_run(root: Path, shell: str, path: str, event: dict = EVENT, command: str = "") -> subprocess.CompletedProcess:
    env = {"PATH": path, "CLAUDE_PROJECT_DIR": str(root), "HOME": str(root)}
    return subprocess.run(
        [shell, "-c", command or claude_command("sage-1.3.18")],
        input=json.dumps(event),
        capture_output=True,
        text=True,
        env=env,
        cwd=root,
    )


def system_message(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 0, done
    (line,) = done.stdout.splitlines()
    return json.loads(line)["systemMessage"]


def fake_program(directory: Path, body: str, version: str = VERSION) -> Path:
    """A sage-flags on PATH of VERSION (its `--version`) that records what the wrapper hands it (the real one's
    answers: test_hook.py)."""
    directory.mkdir()
    program = directory / "sage-flags"
    program.write_text(
        '#!/bin/sh\nif [ "$1" = --version ]; then echo "sage-flags %s (vocabularies: x)"; exit 0; fi\n' % version
        + 'printf \'%s\\n\' "$@" >"${0%/*}/argv"\ncat >"${0%/*}/stdin"\n'
        + body
    )
    program.chmod(0o755)
    return program


def system_path() -> str:
    return os.pathsep.join(d for d in ("/usr/bin", "/bin") if Path(d).is_dir())


def bare_bin(tmp_path: Path, *names: str) -> str:
    """A PATH of one folder holding only NAMES (links to the system's): no python3, no sage-flags."""
    folder = tmp_path / ("bare-" + "-".join(names))
    folder.mkdir(exist_ok=True)
    for name in names:
        found = shutil.which(name, path=system_path())
        assert found, name
        if not (folder / name).exists():
            (folder / name).symlink_to(found)
    return str(folder)


def test_wrapper_passes_shellcheck(tmp_path):
    root = sage_project(tmp_path)
    assert adopt(root).returncode == 0
    shellcheck = Path(sys.executable).parent / "shellcheck"
    done = subprocess.run([str(shellcheck), "-s", "sh", str(root / WRAPPER)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout


@pytest.mark.parametrize("shell", SHELLS)
def test_wrapper_runs_the_program_on_path_with_the_vocabulary(tmp_path, shell):
    root = sage_project(tmp_path)
    assert adopt(root).returncode == 0
    bin_dir = tmp_path / "bin"
    fake_program(bin_dir, "printf '%s\\n' '{\"systemMessage\": \"ok\"}'\n")
    done = hook_run(root, shell, str(bin_dir) + os.pathsep + system_path())
    assert system_message(done) == "ok"
    argv = (bin_dir / "argv").read_text().splitlines()
    config = str(root / ".sage/config.yaml")
    assert argv == ["--vocabulary", "sage-1.3.18", "hook", "claude-code", "--config-path", config]
    assert json.loads((bin_dir / "stdin").read_text()) == EVENT


@pytest.mark.parametrize("shell", SHELLS)
def test_wrapper_never_blocks(tmp_path, shell):
    root = sage_project(tmp_path)
    (root / STEP_1_3).parent.mkdir(parents=True)
    (root / STEP_1_3).write_text(STAND_IN_STEP)  # Sage's own step, watched (N6.4); not run: --no-verify
    assert adopt(root, "--vocabulary", "sage-1.3.18", "--no-verify").returncode == 0
    # Neither python3 nor a sage-flags anywhere (K11: bash reads no JSON): one notice, status 0.
    bare = bare_bin(tmp_path, shell, "sh", "cksum", "bash")
    nothing = system_message(hook_run(root, shell, bare))
    assert "cannot answer here: no sage-flags %s on PATH and no python3" % VERSION in nothing
    # A program of this version that fails (status 2): one notice, status 0.
    bin_dir = tmp_path / "bin"
    fake_program(bin_dir, "echo 'sage-flags: unknown subcommand' >&2\nexit 2\n")
    failing = hook_run(root, shell, str(bin_dir) + os.pathsep + system_path())
    assert "could not answer (status 2)" in system_message(failing) and not failing.stderr
    # The release changed but the parser did not (issue 44, N6.4): the program still runs.
    (bin_dir / "argv").unlink()
    (root / "sage/VERSION").write_text("1.4.0\n")
    hook_run(root, shell, str(bin_dir) + os.pathsep + system_path())
    assert (bin_dir / "argv").exists()
    # The parser changed: one notice naming how to re-adopt; the program is not run.
    (bin_dir / "argv").unlink()
    (root / STEP_1_3).write_text(STAND_IN_STEP + "# a patch\n")
    changed = system_message(hook_run(root, shell, str(bin_dir) + os.pathsep + system_path()))
    assert "flag parser (%s) changed" % STEP_1_3 in changed and "sage-flags adopt" in changed
    assert not (bin_dir / "argv").exists()
    (root / STEP_1_3).unlink()  # gone: the same
    assert "changed since sage-flags adopt" in system_message(hook_run(root, shell, system_path()))
    # The wrapper itself is gone (sage update cannot take it, a person can): one notice, status 0.
    shutil.rmtree(root / ".claude/skills/flag-parser")
    assert "is missing" in system_message(hook_run(root, shell, system_path()))


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("args", ["--autonomous Ship it!", 'x "}, "systemMessage": \\"}, \\"systemMessage\\": y'])
def test_wrapper_adds_the_facts_to_the_hooks_context(tmp_path, shell, args):
    """N10: the hook's real answer, its context ending with the facts; JSON whole, the rest byte for byte."""
    root = sage_project(tmp_path, "1.1.5")
    assert adopt(root).returncode == 0
    event = dict(EVENT, command_args=args, prompt="/build " + args)
    real = subprocess.run(
        [str(SAGE_FLAGS), "hook", "claude-code"], input=json.dumps(event), capture_output=True, text=True
    )
    assert real.returncode == 0, real
    answer = json.loads(real.stdout)
    bin_dir = tmp_path / "bin"
    (tmp_path / "answer").write_text(real.stdout)
    fake_program(bin_dir, "cat '%s'\n" % (tmp_path / "answer"))
    done = hook_run(root, shell, str(bin_dir) + os.pathsep + system_path(), event, claude_command("sage-1.1"))
    assert done.returncode == 0 and done.stdout.count("\n") == 1, done
    got = json.loads(done.stdout)
    context = answer["hookSpecificOutput"]["additionalContext"]
    added = got["hookSpecificOutput"].pop("additionalContext")
    assert added.startswith(context) and added.endswith("\n")
    facts = added[len(context) :]
    assert facts.startswith("This is the result of the workflow's own flag-parsing step (`python -m core.flag_parser")
    assert "computed by sage-flags (vocabulary sage-1.1) from the exact text the person typed" in facts
    assert "the announcement has been shown" in facts and facts.count("\n") == 1
    answer["hookSpecificOutput"].pop("additionalContext")
    assert got == answer


@pytest.mark.parametrize("how", ["option", "option=", "environment"])
def test_a_vocabulary_named_before_adopt_is_adopted(tmp_path, how):
    """Issue 42: `sage-flags --vocabulary sage-1.3 adopt` (or SAGE_FLAGS_VOCABULARY=sage-1.3) in a Sage 1.3.21
    project adopts sage-1.3, not the release's sage-1.3.18; adopt's own --vocabulary still wins over it."""
    root = sage_project(tmp_path)
    env = dict(os.environ)
    env.pop("SAGE_FLAGS_VOCABULARY", None)
    before = {"option": ["--vocabulary", "sage-1.3"], "option=": ["--vocabulary=sage-1.3"], "environment": []}[how]
    if how == "environment":
        env["SAGE_FLAGS_VOCABULARY"] = "sage-1.3"
    run = [str(SAGE_FLAGS), *before, "adopt", "--dry-run"]
    done = subprocess.run(run, cwd=root, capture_output=True, text=True, env=env)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines()[0] == "sage-flags adopt: Sage 1.3.21, vocabulary sage-1.3"
    own = subprocess.run([*run, "--vocabulary", "sage-1.1"], cwd=root, capture_output=True, text=True, env=env)
    assert own.stdout.splitlines()[0] == "sage-flags adopt: Sage 1.3.21, vocabulary sage-1.1"
    env.pop("SAGE_FLAGS_VOCABULARY", None)
    unnamed = subprocess.run([str(SAGE_FLAGS), "adopt", "--dry-run"], cwd=root, capture_output=True, text=True, env=env)
    assert unnamed.stdout.splitlines()[0] == "sage-flags adopt: Sage 1.3.21, vocabulary sage-1.3.18"
