"""K9's Codex command finds only the project's own program (docs/SPEC.md K9, section 15; issue 40, item 1).

The command as generated (sage_flags.hook_commands) runs in temporary trees the way Codex runs it, `SHELL -c
COMMAND` in the session's folder, with the script under /bin/sh, dash and bash. A folder above the project may
hold anything another local user planted there (a shared /tmp, a work folder): the walk stops at the first folder
up holding `.codex/hooks.json`, never goes above the first folder holding `.git`, and there runs a regular file
the person owns in a folder the person owns, or nothing (status 0, no output, standard input unread). Files owned
by another user can be made only as root (CI runs as root); elsewhere those tests skip and say why.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import List, Optional

import pytest
from sage_flags.hook_commands import ADOPTED_WRAPPER, LAUNCHER, codex_commands_ever_written, codex_hook_command

from parity.layers import bash_interpreters

# `SHELL -c COMMAND` as Codex runs it (the command itself is `/bin/sh -c '...'`), and the script inside the quotes
# under each POSIX shell present, so that dash and bash both run it whatever /bin/sh is here; every bash the suite
# was given too (SAGE_FLAGS_BASHES: bash 3.2 is macOS's /bin/sh), in its POSIX mode as /bin/sh runs it.
SHELLS = [
    "/bin/sh -c",
    *(name for name in ("dash", "bash") if shutil.which(name)),
    *(bash.path for bash in bash_interpreters() if bash.name != "bash"),
]
SHELL_NAMES = {bash.path: bash.name for bash in bash_interpreters()}


def shell_id(shell: str) -> str:
    return SHELL_NAMES.get(shell, shell)


FORMS = {"shipped": False, "adopted": True}
NOBODY = 65534  # another user: the `nobody` of most systems
ROOT_ONLY = "files owned by another user can be made only as root (chown); CI runs these as root, this run is uid %d"
# The planted program and the project's: each says who it is, its arguments and what it read from stdin.
PROGRAM = "#!/bin/sh\nprintf '%%s\\0' %s \"$@\"; cat\n"


def program_path(adopted: bool) -> str:
    return ADOPTED_WRAPPER if adopted else LAUNCHER


def plant(folder: Path, adopted: bool, who: str, hooks_json: bool = True) -> Path:
    """FOLDER/.codex/hooks.json (unless not HOOKS_JSON) and the program of the form, which prints WHO."""
    (folder / ".codex").mkdir(parents=True, exist_ok=True)
    if hooks_json:
        (folder / ".codex" / "hooks.json").write_text('{"hooks": {}}\n')
    path = folder / program_path(adopted)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(PROGRAM % who)
    path.chmod(0o755)
    return path


def run(shell: str, command: str, cwd: Path, stdin: bytes = b'{"prompt": "/build x"}') -> subprocess.CompletedProcess:
    assert command.startswith("/bin/sh -c '") and command.endswith("'")
    script = command[len("/bin/sh -c '") : -1]
    argv = ["/bin/sh", "-c", command] if shell == "/bin/sh -c" else [shell, "-c", script]
    if os.path.basename(shell) == "bash" and os.path.isabs(shell):
        argv = [shell, "--posix", "-c", script]
    env = {"PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "PWD": str(cwd)}
    return subprocess.run(argv, input=stdin, capture_output=True, cwd=cwd, env=env, timeout=60)


def ran(result: subprocess.CompletedProcess) -> Optional[List[bytes]]:
    """Who ran and its arguments (None: nothing ran: status 0, nothing on stdout or stderr)."""
    if (result.returncode, result.stdout, result.stderr) == (0, b"", b""):
        return None
    assert result.returncode == 0 and result.stderr == b"", result
    return result.stdout.split(b"\0")[:-1]


def nothing_runs(result: subprocess.CompletedProcess) -> None:
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b""), result


def project(base: Path, adopted: bool, with_program: bool = True, git: Optional[str] = "dir") -> Path:
    """BASE/proj: .codex/hooks.json, src/deep/, .git (a folder, a file as a worktree has, or none) and its program."""
    root = base / "proj"
    (root / "src" / "deep").mkdir(parents=True)
    if with_program:
        plant(root, adopted, "project")
    else:
        (root / ".codex").mkdir()
        (root / ".codex" / "hooks.json").write_text('{"hooks": {}}\n')
    if git == "dir":
        (root / ".git").mkdir()
    elif git == "file":
        (root / ".git").write_text("gitdir: /elsewhere/.git/worktrees/proj\n")
    return root


@pytest.mark.parametrize("shell", SHELLS, ids=shell_id)
@pytest.mark.parametrize("form", FORMS)
def test_a_project_without_its_program_runs_nothing_planted_above(shell: str, form: str, tmp_path: Path) -> None:
    """The issue's reproduction: the project has .codex/hooks.json but not its program (a Sage 1.3 project that
    never unpacked the bundle, a project after `sage update`); .codex/hooks.json and the program planted in a
    folder above: the walk stops at the project, and nothing runs."""
    adopted = FORMS[form]
    planted = plant(tmp_path, adopted, "planted")
    if os.geteuid() == 0:  # as another user did (elsewhere the files are the test's own: the stop alone is tested)
        for path in (planted, tmp_path / ".codex", tmp_path / ".codex" / "hooks.json"):
            os.chown(path, NOBODY, NOBODY)
    for git in ("dir", None):  # with .git or without, the project's .codex/hooks.json ends the walk
        base = tmp_path / ("git" if git else "nogit")
        root = project(base, adopted, with_program=False, git=git)
        for where in (root, root / "src" / "deep"):
            nothing_runs(run(shell, codex_hook_command("sage-1.3" if adopted else None, adopted), where))


@pytest.mark.parametrize("shell", SHELLS, ids=shell_id)
@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("git", ["dir", "file"])
def test_the_walk_never_goes_above_git(shell: str, form: str, git: str, tmp_path: Path) -> None:
    """A repository with no .codex/hooks.json of its own (the command came from the person's own Codex config):
    the first folder up holding .git (a folder, or a file as in a worktree or submodule) ends the walk."""
    adopted = FORMS[form]
    plant(tmp_path, adopted, "planted")
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / ".codex").mkdir()
    (root / ".codex" / "config.toml").write_text("")  # a .codex/ without hooks.json is no root
    if git == "dir":
        (root / ".git").mkdir()
    else:
        (root / ".git").write_text("gitdir: /elsewhere\n")
    for where in (root, root / "src"):
        nothing_runs(run(shell, codex_hook_command(None, adopted), where))
    # Without the .git, the same tree walks on up to the folder holding .codex/hooks.json: that is the root.
    (root / ".git").unlink() if git == "file" else (root / ".git").rmdir()
    assert ran(run(shell, codex_hook_command(None, adopted), root / "src"))[0] == b"planted"


@pytest.mark.parametrize("shell", SHELLS, ids=shell_id)
@pytest.mark.parametrize("form", FORMS)
def test_a_subfolder_codex_with_only_config_toml_is_passed_over(shell: str, form: str, tmp_path: Path) -> None:
    """A subfolder's .codex/ with config.toml only (K9's reason for walking) is no root, even with a program of
    the form beside it (a vendored copy of sage/ in src/): the project's root, with .codex/hooks.json, answers."""
    adopted = FORMS[form]
    root = project(tmp_path, adopted)
    plant(root / "src", adopted, "subfolder", hooks_json=False)
    (root / "src" / ".codex" / "config.toml").write_text('model = "x"\n')
    got = ran(run(shell, codex_hook_command("sage-1.3", adopted), root / "src" / "deep"))
    assert got is not None and got[0] == b"project", got


@pytest.mark.parametrize("shell", SHELLS, ids=shell_id)
@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("owned_by_another", ["program", "root-folder", "both"])
def test_a_program_or_folder_the_person_does_not_own_is_not_run(
    shell: str, form: str, owned_by_another: str, tmp_path: Path
) -> None:
    """At the root, the program runs only when the person owns it and the folder: another user's files, in a
    folder above (the walk's only way to reach them without .git) or in a shared project, never run."""
    if os.geteuid() != 0:
        pytest.skip(ROOT_ONLY % os.geteuid())
    adopted = FORMS[form]
    shared = tmp_path / "shared"
    program = plant(shared, adopted, "planted")
    project_dir = shared / "work" / "proj" / "src"  # no .git, no .codex/hooks.json: the walk reaches shared/
    project_dir.mkdir(parents=True)
    if owned_by_another in ("program", "both"):
        os.chown(program, NOBODY, NOBODY)
    if owned_by_another in ("root-folder", "both"):
        os.chown(shared, NOBODY, NOBODY)
    nothing_runs(run(shell, codex_hook_command(None, adopted), project_dir))
    os.chown(program, 0, 0)
    os.chown(shared, 0, 0)
    assert ran(run(shell, codex_hook_command(None, adopted), project_dir))[0] == b"planted"  # the control


@pytest.mark.parametrize("shell", SHELLS, ids=shell_id)
@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("kind", ["link", "fifo", "directory"])
def test_a_link_or_non_regular_program_is_refused(shell: str, form: str, kind: str, tmp_path: Path) -> None:
    """The program must be a regular file, not a link (a link to the person's own launcher elsewhere would run it
    with this folder's config): else nothing runs, neither it nor anything further up."""
    adopted = FORMS[form]
    plant(tmp_path, adopted, "planted-above")
    root = project(tmp_path / "base", adopted, with_program=False, git=None)
    elsewhere = plant(tmp_path / "elsewhere", adopted, "linked")
    path = root / program_path(adopted)
    path.parent.mkdir(parents=True)
    if kind == "link":
        path.symlink_to(elsewhere)
    elif kind == "fifo":
        os.mkfifo(path, 0o755)
    else:
        path.mkdir(mode=0o755)
    for where in (root, root / "src" / "deep"):
        nothing_runs(run(shell, codex_hook_command("sage-1.1", adopted), where))


@pytest.mark.parametrize("shell", SHELLS, ids=shell_id)
@pytest.mark.parametrize("form", FORMS)
def test_the_projects_own_program_runs_from_a_subfolder(shell: str, form: str, tmp_path: Path) -> None:
    """The happy path (a guard: it passes with the earlier command too): from the root and a subfolder, with a
    planted folder above and .git at the root, the project's own program runs, with exactly `[--vocabulary
    NAME] hook codex --config-path ROOT/.sage/config.yaml`, the event on its stdin."""
    adopted = FORMS[form]
    plant(tmp_path, adopted, "planted")
    root = project(tmp_path, adopted)
    config = os.fsencode(root / ".sage" / "config.yaml")
    event = json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": "/build x"}).encode()
    for vocabulary in (None, "sage-1.3.18"):
        option = [b"--vocabulary", vocabulary.encode()] if vocabulary else []
        for where in (root, root / "src" / "deep"):
            result = run(shell, codex_hook_command(vocabulary, adopted), where, event)
            expected = [b"project", *option, b"hook", b"codex", b"--config-path", config, event]
            assert result.stdout.split(b"\0") == expected


def test_every_form_ever_written_is_known() -> None:
    """codex_commands_ever_written(): the forms adopt and the shipped hooks.json have had (git log -p of
    python/sage_flags/hook_commands.py, python/sage_flags/adopt.py and the shipped file), and the current ones,
    for no vocabulary and each vocabulary, adopted or not; nothing else."""
    from sage_flags import _vocab

    forms = codex_commands_ever_written()
    assert isinstance(forms, frozenset)
    shipped = json.loads((Path(__file__).resolve().parent.parent / "docs/recipes/hooks/codex/hooks.json").read_text())
    assert shipped["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"] in forms
    for vocabulary in [None, *_vocab.NAMES]:
        for adopted in (False, True):
            assert codex_hook_command(vocabulary, adopted) in forms
    # As written before (quoted from git history, not computed): the shipped file until 7160d99, its first walk,
    # adopt's first walk (ff44f52) and adopt's git top-level form (8031bf6).
    first_walk = (
        '/bin/sh -c \'d=$PWD; while :; do if [ -d "$d/.codex" ] && [ -x "$d/sage/bin/sage-flags" ]; then exec'
        ' "$d/sage/bin/sage-flags" hook codex --config-path "$d/.sage/config.yaml"; fi; case $d in */*)'
        " d=${d%/*};; *) exit 0;; esac; done'"
    )
    adopted_walk = (
        '/bin/sh -c \'d=$PWD; while :; do if [ -d "$d/.codex" ] && [ -f'
        ' "$d/.claude/skills/flag-parser/scripts/sage-flags" ]; then exec sh'
        ' "$d/.claude/skills/flag-parser/scripts/sage-flags" --vocabulary sage-1.3 hook codex --config-path'
        ' "$d/.sage/config.yaml"; fi; case $d in */*) d=${d%/*};; *) exit 0;; esac; done\''
    )
    git_toplevel = (
        'r=$(git rev-parse --show-toplevel 2>/dev/null) || r=.; w="$r/.claude/skills/flag-parser/scripts/sage-flags";'
        ' if [ -f "$w" ]; then exec sh "$w" --vocabulary sage-1.3.18 hook codex --config-path'
        ' "$r/.sage/config.yaml"; fi; printf \'%s\\n\' \'{"systemMessage": "sage-flags:'
        " .claude/skills/flag-parser/scripts/sage-flags is missing, so Sage parses the flags itself (run sage-flags"
        " adopt at the project root to restore it)\"}'"
    )
    for old in (
        "sage/bin/sage-flags hook codex --config-path .sage/config.yaml",
        first_walk,
        first_walk.replace('flags" hook', 'flags" --vocabulary sage-1.3.18 hook'),
        adopted_walk,
        git_toplevel,
        git_toplevel.replace("sage-1.3.18", "sage-1.1"),
    ):
        assert old in forms, old
    # 1 relative form; (none + 3 names) x (shipped, adopted) x (first walk, now); 3 names x git top level.
    assert len(forms) == 1 + 4 * 2 * 2 + 3
    assert all("hook codex" in form for form in forms)


@pytest.mark.parametrize("form", sorted(codex_commands_ever_written()))
def test_adopt_replaces_every_earlier_form(form: str, tmp_path: Path) -> None:
    """A project's .codex/hooks.json holding any form ever written: adopt replaces it in place with the current
    adopted command, and leaves one hook of ours."""
    import sys

    root = tmp_path / "proj"
    (root / "sage").mkdir(parents=True)
    (root / "sage" / "VERSION").write_text("1.3.21\n")
    (root / ".codex").mkdir()
    theirs = {"hooks": [{"type": "command", "command": "their-hook"}]}
    ours = {"hooks": [{"type": "command", "command": form, "timeout": 10}]}
    (root / ".codex" / "hooks.json").write_text(json.dumps({"hooks": {"UserPromptSubmit": [ours, theirs]}}))
    program = Path(sys.executable).parent / "sage-flags"
    done = subprocess.run([str(program), "adopt"], cwd=root, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done
    entries = json.loads((root / ".codex" / "hooks.json").read_text())["hooks"]["UserPromptSubmit"]
    new = {"hooks": [{"type": "command", "command": codex_hook_command("sage-1.3.18", adopted=True), "timeout": 10}]}
    assert entries == [new, theirs]
