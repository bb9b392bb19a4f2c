"""Cycle manifests as Sage 1.3.21 writes them (issue 33): the template's and those of Sage's own writers.

``write_manifests(tools, template, workdir)`` runs Sage's real writers (``runtime/tools/ledger.py init``,
``manifest.py scope derive`` and ``manifest.py graph derive``, from the release tarball) in ``workdir`` and
returns the manifests they leave, by name. Their front matter is what a Sage user's ``/continue`` meets:
the ledger writes a plan title raw (``title: Parse: the flags``, which YAML rejects) and scope derive writes
globs (``- **/*.py  # T1``, an alias to YAML).
"""

from __future__ import annotations

import re
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Dict

from parity.layers import ROOT

TARBALL = (ROOT / ".." / "shared" / "sage" / "sage-1.3.21.tar.gz").resolve()
TEMPLATE = "core/templates/manifest-template.md"
# The template's placeholders (an alternative list `a | b` or a YYYY date), as a cycle in progress fills them.
FILLED = {
    '"YYYYMMDD-slug"': '"20261203-parse-flags"',
    "workflow: build | architect | fix | research | design | analyze | reflect": "workflow: build",
    "phase: framing | brief | spec | plan | implement | quality-gates | review | complete": "phase: implement",
    "status: in-progress | paused | blocked | complete": "status: in-progress",
    "created: YYYY-MM-DD": "created: 2026-12-03",
    "updated: YYYY-MM-DD HH:MM": "updated: 2026-12-03 09:30",
}
# A plan in the template's grammar: a colon in a title (the ledger writes it raw), globs in Files:.
PLAN = """# Implementation Plan: flags

## Tasks

- [ ] **Task 1:** Parse: the flags [P]
  - **Files:** `**/*.py`, `tests/test_flags.py`
  - **Depends on:** none
- [ ] **Task 2:** Persist the modes
  - **Files:** `src/manifest.py`
  - **Depends on:** T1
"""


def extract(tarball: Path, into: Path) -> Path:
    """The release unpacked into ``into``; its top directory."""
    with tarfile.open(tarball) as archive:
        archive.extractall(into)  # our own fixture tarball
    return next(p for p in into.iterdir() if p.is_dir())


def template_manifest(release: Path) -> str:
    """The cycle manifest in the template's fenced markdown block, its placeholders filled."""
    text = (release / TEMPLATE).read_text(encoding="utf-8")
    block = re.search(r"^```markdown\n(.*?)^```$", text, re.S | re.M)
    assert block, "the template has no fenced markdown block"
    manifest = block.group(1)
    for placeholder, value in FILLED.items():
        assert placeholder in manifest, placeholder
        manifest = manifest.replace(placeholder, value)
    return manifest


def run_tool(release: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    tool = release / "runtime" / "tools" / args[0]
    return subprocess.run(
        [sys.executable, "-B", str(tool), *args[1:]], cwd=cwd, capture_output=True, text=True, timeout=120
    )


WRITERS = (
    ("template", []),
    ("ledger", [["ledger.py", "init", "{m}", "{plan}"]]),
    ("scope", [["manifest.py", "scope", "derive", "{m}"]]),
    ("scope-graph", [["manifest.py", "scope", "derive", "{m}"], ["manifest.py", "graph", "derive", "{m}"]]),
    (
        "all",
        [
            ["ledger.py", "init", "{m}", "{plan}"],
            ["manifest.py", "scope", "derive", "{m}"],
            ["manifest.py", "graph", "derive", "{m}"],
        ],
    ),
)
NAMES = tuple(name for name, _ in WRITERS)


def write_manifests(release: Path, workdir: Path) -> Dict[str, Path]:
    """Each manifest Sage's writers leave, in a project of its own under ``workdir``."""
    made: Dict[str, Path] = {}
    for name, steps in WRITERS:
        project = workdir / name
        cycle = project / ".sage" / "work" / "20261203-parse-flags"
        cycle.mkdir(parents=True)
        manifest = cycle / "manifest.md"
        text = template_manifest(release)
        if "ledger.py" in str(steps):  # an inline cycle omits `tasks:` (the template says so); init writes it
            text = re.sub(r"^tasks: \[\].*\n(^ +#.*\n)*", "", text, flags=re.M)
        manifest.write_text(text, encoding="utf-8")
        (cycle / "plan.md").write_text(PLAN, encoding="utf-8")
        for step in steps:
            args = [a.replace("{m}", str(manifest)).replace("{plan}", str(cycle / "plan.md")) for a in step]
            done = run_tool(release, *args, cwd=project)
            assert done.returncode == 0, f"{' '.join(step)}: {done.stdout}{done.stderr}"
        made[name] = manifest
    return made


def check(release: Path, manifest: Path) -> subprocess.CompletedProcess:
    """Sage's own `manifest.py check` on one manifest, from its project's root."""
    project = manifest.parents[3]
    return run_tool(release, "manifest.py", "check", str(manifest), "--repo-root", str(project), cwd=project)
