"""`sage-flags adopt` then `sage-flags adopt --undo` in projects Sage's own installer made (issue 43; docs/SPEC.md
N13), offline (`make e2e`, or this file named): the project is as it was, byte for byte, `git status` clean."""

from __future__ import annotations

import subprocess

import pytest
from test_adopt_sage import RELEASES, Sage
from test_adopt_undo import snapshot


@pytest.mark.parametrize("release", sorted(RELEASES))
def test_adopt_then_undo_in_a_project_sage_made(tmp_path, release):
    sage = Sage(tmp_path, release)
    sage.git("add", "-A")
    sage.git("commit", "-qm", "sage init")
    status = ["git", "status", "--porcelain", "--ignored"]
    ignored = subprocess.run(status, cwd=sage.project, capture_output=True, text=True, check=True).stdout
    before = snapshot(sage.project)
    done = sage.adopt()
    assert done.returncode == 0 and not done.stderr, done
    assert sage.our_command() and snapshot(sage.project) != before
    undone = sage.adopt("--undo")
    assert undone.returncode == 0 and not undone.stderr, undone
    assert "skill: .claude/skills/flag-parser/ removed" in undone.stdout, undone.stdout
    assert snapshot(sage.project) == before
    # Sage's own ignored files (1.1.5: sage/docs/, a __pycache__) were there before: the same, and nothing else.
    assert subprocess.run(status, cwd=sage.project, capture_output=True, text=True).stdout == ignored
    assert subprocess.run(status[:3], cwd=sage.project, capture_output=True, text=True).stdout == ""
    again = sage.adopt("--undo")
    assert again.returncode == 0 and "nothing to undo" in again.stdout, again
