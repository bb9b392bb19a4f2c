"""A Sage release installed as a user installs it (../shared/sage/README.md): the release's own install.sh into a
HOME, then a project `sage init` made in a new git repository. One place for the tests that need a real Sage
(tests/test_adopt_verify.py, tests/e2e/test_adopt_sage.py) and the bench (tools/bench_rows.py).
"""

from __future__ import annotations

import subprocess
import tarfile
from pathlib import Path
from typing import Dict

SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "sage"  # beside the checkout


def archive(release: str) -> Path:
    """The release's tarball (it may be missing: the caller decides what that means)."""
    return SHARED / ("sage-%s.tar.gz" % release)


class SageInstall:
    """BASE/home with Sage RELEASE installed by its own installer, and BASE/proj that `sage init` made."""

    def __init__(self, base: Path, release: str) -> None:
        self.base, self.home, self.project = base, base / "home", base / "proj"
        self.home.mkdir(parents=True)
        self.install(release)
        self.project.mkdir()
        for command in (["init", "-q"], ["add", "."], ["commit", "-qm", "init"]):
            if command[0] == "add":
                (self.project / "README.md").write_text("x\n")
            self.git(*command)
        self.sage("init", "--platform", "claude-code", "--preset", "base", "--no-memory")

    @property
    def env(self) -> Dict[str, str]:
        path = "%s:%s:%s" % (self.home / "bin", self.home / ".local/bin", "/usr/local/bin:/usr/bin:/bin")
        return {"HOME": str(self.home), "PATH": path, "SAGE_BIN_DIR": str(self.home / "bin"), "LC_ALL": "C.UTF-8"}

    def git(self, *args: str) -> None:
        ident = ["-c", "user.email=t@t", "-c", "user.name=t"]
        subprocess.run(["git", *ident, *args], cwd=self.project, check=True, env=self.env, capture_output=True)

    def install(self, release: str) -> None:
        """Install RELEASE (over an earlier one too: an upgrade, then `sage update` in the project)."""
        source = self.base / ("sage-" + release)
        if not source.exists():
            with tarfile.open(archive(release)) as opened:
                opened.extractall(self.base, filter="tar")
        # 1.3.21's install.sh exits 1 after a PATH note; the command is installed all the same (README).
        subprocess.run(["bash", "install.sh"], cwd=source, env=self.env, capture_output=True, stdin=subprocess.DEVNULL)
        if not self.sage_command().is_file():
            raise RuntimeError("Sage %s's install.sh installed no sage command" % release)

    def sage_command(self) -> Path:
        for candidate in (self.home / "bin/sage", self.home / ".local/bin/sage"):
            if candidate.is_file():
                return candidate
        return self.home / "bin/sage"

    def sage(self, *args: str) -> subprocess.CompletedProcess:
        """`sage ARGS` in the project; RuntimeError with its output when it fails."""
        done = subprocess.run(
            ["bash", str(self.sage_command()), *args],
            cwd=self.project,
            env=self.env,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
        )
        if done.returncode:
            raise RuntimeError("sage %s: %s\n%s" % (" ".join(args), done.stdout[-2000:], done.stderr[-2000:]))
        return done
