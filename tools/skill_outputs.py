"""What every command of the flag-parser skill's ```console blocks prints, per vocabulary (docs/SPEC.md G6, G8).

tools/generate.py stores it in python/sage_flags/skill/vocabularies.json, where the renderer
(python/sage_flags/_render.py) reads it to write each command's output and status after it. Each block runs in a
fresh folder, as tests/test_skill.py runs it: `$ cat FILE` creates FILE, every other command runs in bash with
adopt's wrapper (`.claude/skills/flag-parser/scripts/sage-flags`) standing for the reference (`python -m
sage_flags`, the pure backend) in the vocabulary.
A command writes nothing on stderr, or exactly one line when its first line holds `2>/dev/null`; else this fails.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import List

# generate.py runs the blocks in threads. A program file written while another thread forks is held open for
# writing by that child until it execs, and running the program then fails with ETXTBSY ("Text file busy"):
# writing a program and starting a process never overlap.
_WRITE_OR_SPAWN = threading.Lock()


def console_outputs(render, text: str, root: Path, vocabulary: str, where: str) -> List[List[object]]:
    """[stdout, status] of each command of ``text`` (an expanded template), in order."""
    printed: List[List[object]] = []
    env = {
        **os.environ,
        "PYTHONPATH": str(root / "python"),
        "SAGE_FLAGS_BACKEND": "python",
        "SAGE_FLAGS_VOCABULARY": vocabulary,
        "SAGE_FLAGS_PYTHON": sys.executable,
    }
    with tempfile.TemporaryDirectory() as scratch:
        workdir = Path(scratch)
        for number, (_, kind, what) in enumerate(render.console_steps(text)):
            if kind == "block":
                workdir = Path(scratch) / str(number)
                program = workdir / render.WRAPPER
                program.parent.mkdir(parents=True)
                with _WRITE_OR_SPAWN:
                    program.write_text('#!/bin/sh\nexec "$SAGE_FLAGS_PYTHON" -m sage_flags "$@"\n', encoding="utf-8")
                    program.chmod(0o755)
            elif kind == "file":
                path, lines = what
                (workdir / path).parent.mkdir(parents=True, exist_ok=True)
                (workdir / path).write_text("".join(line + "\n" for line in lines), encoding="utf-8")
            else:
                quiet = render.QUIET in what.split("\n", 1)[0]
                script = what.replace(render.QUIET, "", 1) if quiet else what  # its one stderr line is checked
                with _WRITE_OR_SPAWN:  # Popen returns once the child has exec'd: no write fd of ours is held
                    child = subprocess.Popen(
                        ["bash", "--norc", "--noprofile", "-c", script + "\n"],
                        stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE,
                        stdin=subprocess.DEVNULL,
                        cwd=workdir,
                        env=env,
                    )
                with child:
                    out, err = child.communicate(timeout=60)
                done = subprocess.CompletedProcess(child.args, child.returncode, out, err)
                stdout = done.stdout.decode("utf-8")
                one_line = done.stderr.endswith(b"\n") and done.stderr.count(b"\n") == 1
                whole_lines = stdout == "" or stdout.endswith("\n")
                if not (one_line if quiet else done.stderr == b"") or not whole_lines:
                    raise SystemExit(
                        "generate: %s (%s): `%s`: stderr %r, stdout %r" % (where, vocabulary, what, done.stderr, stdout)
                    )
                printed.append([stdout, done.returncode])
    return printed
