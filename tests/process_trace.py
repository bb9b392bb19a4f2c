"""strace a command: the system calls behind the no-fork and lazy-loading tests."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from parity.optional import skip_without_program

PROCESS_CALL = re.compile(r"\b(clone3?|v?fork|execve)\(")


def traced(
    argv: Sequence[str], log_dir: Path, calls: str, stdin: bytes = b"", env: Optional[Dict[str, str]] = None
) -> List[str]:
    """strace's log lines for ``calls`` (e.g. "open,openat") made by ``argv`` and its children."""
    strace = skip_without_program("strace", "the no-fork and lazy-loading tests trace system calls with it")
    log = log_dir / "strace.log"
    subprocess.run(
        [strace, "-f", "-qq", "-e", "trace=" + calls, "-o", str(log), *argv],
        input=stdin,
        capture_output=True,
        env={**os.environ, **(env or {})},
        timeout=60,
    )
    return log.read_text().splitlines()


def process_calls(argv: Sequence[str], log_dir: Path, stdin: bytes = b"") -> List[str]:
    """Every clone, fork, vfork and execve: a fork-free command shows one execve (its own start)."""
    lines = traced(argv, log_dir, "clone,clone3,fork,vfork,execve", stdin)
    return [line for line in lines if PROCESS_CALL.search(line)]
