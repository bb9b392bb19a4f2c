"""The one atomic write (docs/SPEC.md P6, P6.1, N9; issue 42) through the real entry, `sage-flags adopt` as a
process: an adopt killed mid-write (SIGKILL at each of its renames, injected by strace: no hook in the code)
leaves no temporary file after the next run, which keeps a person's owner, group and mode and honours the umask;
a later run removes only a dead writer's temp files (a live writer's are kept), in every folder adopt writes,
old-named ones (`.sage-flags-XXXXXXXX`, before issue 42) only when provably ours and dead."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional

import pytest
from sage_flags._adopt_files import SETTINGS, SKILL_DIR
from sage_flags.adopt import skill_files

from parity.optional import skip_without_program
from tests.sage_step import lay_own_step

SAGE_FLAGS = Path(sys.executable).parent / "sage-flags"
RENAMES = "rename,renameat,renameat2"
WRITES_OF_ONE_ADOPT = 8  # the record, 5 references and scripts, SKILL.md, settings.json: one rename each
AS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
USERS_SETTINGS = b'{"env": {"A": "1"}}\n'


def run(root: Path, *args: str, umask: int = 0o077, kill_at: Optional[int] = None) -> subprocess.CompletedProcess:
    """`sage-flags adopt ARGS` in ROOT under UMASK; KILL_AT: SIGKILL at its KILL_AT-th rename (strace)."""
    argv = [str(SAGE_FLAGS), "adopt", *args]
    if kill_at is not None:
        strace = skip_without_program("strace", "it injects the SIGKILL at adopt's rename (no hook in the code)")
        argv = [strace, "-f", "-o", os.devnull, "-e", "trace=" + RENAMES, "-e"]
        argv += ["inject=%s:signal=KILL:when=%d" % (RENAMES, kill_at), str(SAGE_FLAGS), "adopt", *args]
    return subprocess.run(argv, cwd=root, capture_output=True, timeout=60, preexec_fn=lambda: os.umask(umask))


def sage_project(tmp_path: Path, settings: bool) -> Path:
    root = tmp_path / "proj"
    (root / "sage/core").mkdir(parents=True)
    (root / "sage/VERSION").write_text("1.3.21\n")
    lay_own_step(root)  # nothing to verify against (N2)
    if settings:  # a person's settings, their own owner and group (where we are root), mode 0660
        (root / ".claude").mkdir()
        (root / SETTINGS).write_bytes(USERS_SETTINGS)
        os.chmod(root / SETTINGS, 0o660)
        if AS_ROOT:
            os.chown(root / SETTINGS, 4321, 4322)
    return root


def temp_files(root: Path) -> List[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if ".sage-flags-" in p.name)


def tree(root: Path) -> Dict[str, object]:
    return {p.relative_to(root).as_posix(): p.is_dir() or p.read_bytes() for p in sorted(root.rglob("*"))}


def dead_pid() -> int:
    done = subprocess.Popen([sys.executable, "-c", "pass"])
    done.wait()
    return done.pid


@pytest.mark.parametrize("kill_at", range(1, WRITES_OF_ONE_ADOPT + 1))
def test_an_adopt_killed_at_a_rename_is_finished_by_the_next_run(tmp_path, kill_at):
    """The next adopt leaves no temp file, the person's settings keep owner, group and 0660, every new file and
    folder honours umask 077 (nothing for group or others)."""
    root = sage_project(tmp_path, settings=True)
    owner = (root / SETTINGS).stat()
    killed = run(root, kill_at=kill_at)
    assert killed.returncode == -9 or killed.returncode == 137, killed
    assert temp_files(root), "the kill left no temp file: this kill point proves nothing"
    assert (root / SETTINGS).read_bytes() == USERS_SETTINGS
    done = run(root)
    assert done.returncode == 0, done.stderr
    assert temp_files(root) == []
    info = (root / SETTINGS).stat()
    assert (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (owner.st_uid, owner.st_gid, 0o660)
    assert b"UserPromptExpansion" in (root / SETTINGS).read_bytes()
    for path in (root / SKILL_DIR).rglob("*"):
        assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0, path
    assert stat.S_IMODE((root / SKILL_DIR / "SKILL.md").stat().st_mode) == 0o600


@pytest.mark.parametrize("kill_at", range(1, WRITES_OF_ONE_ADOPT + 1))
def test_an_adopt_killed_at_a_rename_is_undone_whole(tmp_path, kill_at):
    """adopt --undo after a killed adopt: no temp file, and every folder adopt created is gone (a dead writer's
    temp file in .claude/ kept it before)."""
    root = sage_project(tmp_path, settings=False)
    before = tree(root)
    assert run(root, kill_at=kill_at).returncode in (-9, 137)
    assert temp_files(root), "the kill left no temp file: this kill point proves nothing"
    undone = run(root, "--undo")
    assert undone.returncode == 0, undone.stderr
    assert temp_files(root) == []
    if kill_at > 1:  # killed at the first rename, the record's, adopt left no record of the folders it made
        assert tree(root) == before, undone.stdout


def test_a_dead_writers_temp_files_go_a_live_writers_stay(tmp_path):
    """Planted temp files of a dead and of a live writer, in every folder adopt writes, for files this adopt
    writes and for one it does not (another release's, or a killed writer's of the runtime copy): adopt removes
    the dead writer's and keeps the live one's; undo keeps the skill folder while a writer is live in it."""
    root = sage_project(tmp_path, settings=True)
    assert run(root).returncode == 0
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        dead = dead_pid()
        folders = [".claude", SKILL_DIR, SKILL_DIR + "/references", SKILL_DIR + "/scripts"]
        names = ["settings.json", "SKILL.md", "examples.md", "gone-since.md", "sage-flags"]
        planted = {}
        for folder in folders:
            for name in names:
                for pid, alive in ((dead, False), (live.pid, True)):
                    rel = "%s/.%s.sage-flags-tmp.%d" % (folder, name, pid)
                    (root / rel).write_bytes(b"half")
                    planted[rel] = alive
        assert run(root).returncode == 0
        assert temp_files(root) == sorted(rel for rel, alive in planted.items() if alive)
        undone = run(root, "--undo")
        assert undone.returncode == 0, undone.stderr
        assert b"being written" in undone.stdout, undone.stdout
        assert all((root / rel).read_bytes() == b"half" for rel, alive in planted.items() if alive)
        assert (root / SKILL_DIR / "SKILL.md").exists()
    finally:
        live.kill()
        live.wait()
    again = run(root, "--undo")
    assert again.returncode == 0 and temp_files(root) == [], again
    assert not (root / SKILL_DIR).exists() and (root / SETTINGS).read_bytes() == USERS_SETTINGS


def test_old_named_temp_files_go_only_when_ours_and_dead(tmp_path):
    """P6.1: `.sage-flags-XXXXXXXX` (adopt's mkstemp names before issue 42, no pid in them) is removed when it
    is a regular file of ours, older than a writer holds one, and no process has it open; a fresh one, one held
    open, one of another user and a name of another shape are kept. Without /proc nothing proves a writer
    dead: every one is kept."""
    root = sage_project(tmp_path, settings=True)
    (root / SKILL_DIR / "references").mkdir(parents=True)
    old = time.time() - 3600
    gone = [
        ".claude/.sage-flags-k3j9x0a_",
        SKILL_DIR + "/.sage-flags-abcdefgh",
        SKILL_DIR + "/references/.sage-flags-0a1b2c3d",
    ]
    kept = [".claude/.sage-flags-fresh123", ".claude/.sage-flags-held1234", ".claude/.sage-flags-notes.md"]
    for rel in gone + kept:
        (root / rel).write_bytes(b"half")
        if rel != ".claude/.sage-flags-fresh123":
            os.utime(root / rel, (old, old))
    if AS_ROOT:
        kept.append(".claude/.sage-flags-theirs12")
        (root / kept[-1]).write_bytes(b"half")
        os.chown(root / kept[-1], 4321, 4321)
        os.utime(root / kept[-1], (old, old))
    code = "import sys, time; f = open(sys.argv[1], 'rb'); print('open', flush=True); time.sleep(120)"
    holder = subprocess.Popen([sys.executable, "-c", code, str(root / kept[1])], stdout=subprocess.PIPE)
    provable = os.path.isdir("/proc/self/fd")
    try:
        assert holder.stdout.readline() == b"open\n"
        done = run(root)
        assert done.returncode == 0, done.stderr
        assert temp_files(root) == sorted(kept if provable else kept + gone)
    finally:
        holder.kill()
        holder.wait()
    assert run(root).returncode == 0
    left = [rel for rel in kept if rel != ".claude/.sage-flags-held1234"]
    assert temp_files(root) == sorted(left if provable else kept + gone)


def test_a_write_that_fails_names_its_file_as_text_and_leaves_no_temp_file(tmp_path):
    """N4, N9: a write the system refuses is status 3 and one line naming the file as a person reads it (not
    Python's b'...'), and its temp file is gone. Here: a project so deep that every file adopt reads has a path
    the system takes, but the temp file of the longest (`.NAME.sage-flags-tmp.<pid>` beside it) does not."""
    deep = tmp_path
    while len(str(deep)) < 4000 - 200:
        deep = deep / ("d" * 200)
    longest = max(len(SKILL_DIR + "/" + rel) for rel in skill_files("sage-1.3.18", "1.3.21"))  # the runtime copy's
    deep = deep / ("p" * (4095 - len(str(deep)) - 2 - longest))  # its longest file: 4095 bytes, PATH_MAX - 1
    deep.mkdir(parents=True)
    (deep / "sage/core").mkdir(parents=True)
    (deep / "sage/VERSION").write_text("1.3.21\n")
    lay_own_step(deep)
    done = subprocess.run([str(SAGE_FLAGS), "adopt"], cwd=deep, capture_output=True, timeout=60)
    assert done.returncode == 3, done
    assert done.stderr.startswith(b"sage-flags: adopt: cannot write /"), done.stderr
    assert done.stderr.count(b"\n") == 1 and b"b'" not in done.stderr, done.stderr
    assert temp_files(deep) == []
