"""Windows-safe by construction (issue 12), proven here without Windows.

Every vector (parse, batch, announce, persist, resume), a few hook vectors and every config explain report runs
in-process in a simulated Windows (tests/windows_sim.py: the Unix-only names of ``os`` removed, ``os.name``
"nt", ``sys.platform`` "win32", text-mode opens, ``os.kill`` and ``os.rename`` over a file watched) and must
give the same bytes as on POSIX; both backends. The vectors Windows cannot express (a FIFO) are left out by name.
A static check makes sure no Unix-only name of ``os`` is used without a fallback, wherever the code runs.
"""

from __future__ import annotations

import ast
import json
import os
import select
import subprocess
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import pytest
from test_explain import check_explain
from test_manifest import check_vector
from windows_sim import UNIX_ONLY

from parity import vectors
from parity.layers import PYTHON, PYTHON_COMMANDS, ROOT, available_layers

SIM = Path(__file__).with_name("windows_sim.py")
SOURCES = sorted((ROOT / "python" / "sage_flags").glob("*.py")) + sorted(
    (ROOT / "sage" / "core" / "flag_parser").glob("*.py")
)
BACKENDS = ["python"] + (["native"] if any(layer.name == "cli-native" for layer in available_layers()) else [])


class WindowsLayer:
    """A layer (the ``run`` of parity.layers.Layer) answered in-process by one simulated-Windows interpreter."""

    def __init__(self, backend: str, extra_env: Optional[Dict[str, str]] = None) -> None:
        self.name = f"windows-sim-{backend}"
        env = {**os.environ, "SAGE_FLAGS_BACKEND": backend, **(extra_env or {})}
        self.proc = subprocess.Popen([PYTHON, str(SIM)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(30)

    def request(self, argv: Sequence[bytes], stdin: bytes, env: Dict[str, str], cwd: Path, main: str = "") -> dict:
        request = {"argv": [a.hex() for a in argv], "stdin": stdin.hex(), "env": env, "cwd": str(cwd)}
        if main:
            request["main"] = main
        self.proc.stdin.write(json.dumps(request).encode() + b"\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], 60)
        assert ready, f"{self.name}: no answer in 60 s (blocked?) for {argv!r}"
        line = self.proc.stdout.readline()
        assert line, f"{self.name}: the simulated interpreter exited with status {self.proc.wait(30)}"
        return json.loads(line)

    def run(
        self,
        command: str,
        args: Sequence[bytes],
        *,
        stdin: bytes = b"",
        env: Optional[Dict[str, str]] = None,
        cwd: Optional[Path] = None,
        timeout: float = 30,
    ) -> subprocess.CompletedProcess:
        argv = [*(word.encode() for word in PYTHON_COMMANDS[command]), *args]
        answer = self.request(argv, stdin, env or {}, cwd or Path.cwd())
        stderr = bytes.fromhex(answer["stderr"])
        assert answer["status"] is not None, f"{self.name}: raised\n{stderr.decode(errors='replace')}"
        assert not answer["kills"], f"{self.name}: os.kill{tuple(answer['kills'][0])}: CTRL_C_EVENT on Windows"
        assert not answer["text_mode_opens"], f"{self.name}: opened without O_BINARY: {answer['text_mode_opens']}"
        return subprocess.CompletedProcess(argv, answer["status"], bytes.fromhex(answer["stdout"]), stderr)


def skip_on_windows() -> None:
    if os.name == "nt":
        pytest.skip("on Windows the real layers run instead (make test-layers); the simulation is for POSIX hosts")


@pytest.fixture(scope="module", params=BACKENDS)
def windows(request: pytest.FixtureRequest):
    skip_on_windows()
    layer = WindowsLayer(request.param)
    yield layer
    layer.close()


# Every vector a Windows host can hold (a FIFO cannot exist there, and opened without O_NONBLOCK here would block):
# the cover in make test, the rest in make test-full (parity/tiers.py VECTOR_COVER_TESTS).
SAMPLE = [v for v in vectors.load_all() if "fifo" not in vectors.windows_lacks(v)]
PER_COMMAND = [v for v in SAMPLE if v.command in ("parse", "batch", "announce")]


@pytest.mark.parametrize("vector", PER_COMMAND, ids=lambda v: f"{v.command}-{v.name}")
def test_vector_on_windows(windows: WindowsLayer, vector: vectors.Vector, tmp_path: Path) -> None:
    result = windows.run(vector.command, vector.materialise(tmp_path), stdin=vector.stdin, env=vector.env)
    vectors.assert_matches(vector, result, f"{windows.name} {vector.name}")


# A few hook vectors (SPEC K10: the hook's bytes are the same on Windows), one of each kind of answer: a clean
# parse for each harness and event, silence, a block, the cap, a config, CRLF and NUL in the text, fail-open.
HOOK_ON_WINDOWS = (
    "hook-claude-expansion-clean",
    "hook-claude-submit-clean",
    "hook-codex-clean",
    "hook-claude-submit-plain-prompt",
    "hook-e2-blocks",
    "hook-cap-long-goal",
    "hook-config-negated-by-flag",
    "hook-hostile-crlf",
    "hook-nul-is-e4",
    "hook-fails-open-malformed-json",
)


@pytest.mark.parametrize("name", HOOK_ON_WINDOWS)
def test_hook_vector_on_windows(windows: WindowsLayer, name: str, tmp_path: Path) -> None:
    (vector,) = [v for v in vectors.load_all("hook") if v.name == name]
    result = windows.run("hook", vector.materialise(tmp_path), stdin=vector.stdin, env=vector.env)
    vectors.assert_matches(vector, result, f"{windows.name} {vector.name}")


@pytest.mark.parametrize("vector", [v for v in SAMPLE if v.command in ("persist", "resume")], ids=lambda v: v.name)
def test_manifest_vector_on_windows(windows: WindowsLayer, vector: vectors.Vector, tmp_path: Path) -> None:
    check_vector(windows, vector, tmp_path)


@pytest.mark.parametrize("vector", [v for v in SAMPLE if v.config], ids=lambda v: v.name)
def test_config_explain_on_windows(windows: WindowsLayer, vector: vectors.Vector, tmp_path: Path) -> None:
    """Both forms of the report, byte for byte as on POSIX (made in this process)."""
    check_explain(windows, vector, tmp_path)


def test_every_vector_ran_or_lacks_a_fifo() -> None:
    """The simulation leaves out only what Windows cannot have."""
    left_out = [v.name for v in vectors.load_all() if "fifo" in vectors.windows_lacks(v)]
    assert sorted(left_out) == ["cfg-fifo", "cfg-symlink-to-fifo", "persist-fifo", "resume-fifo"]


def stale_temp_files(directory: Path) -> Dict[str, Path]:
    """A manifest with two leftover temp files of writers whose pids are dead: one two hours old, one fresh."""
    (directory / "manifest.md").write_bytes(b"---\nflags:\n  autonomous: true\n---\n")
    dead_pid = 2**22 + 7  # above Linux's pid_max: no such process
    old = directory / f".manifest.md.sage-flags-tmp.{dead_pid}"
    fresh = directory / f".manifest.md.sage-flags-tmp.{dead_pid + 1}"
    for path in (old, fresh):
        path.write_bytes(b"half a manif")
    two_hours_ago = time.time() - 7200
    os.utime(old, (two_hours_ago, two_hours_ago))
    return {"old": old, "fresh": fresh}


def test_stale_temp_files_age_out_on_windows_and_no_signal_is_sent(windows: WindowsLayer, tmp_path: Path) -> None:
    temps = stale_temp_files(tmp_path)
    line = b'{"quality_locked": true, "autonomous": false, "goal": "g", "error": null, '
    line += b'"quality_locked_source": "flag", "autonomous_source": null}\n'
    result = windows.run("persist", [os.fsencode(tmp_path / "manifest.md")], stdin=line, cwd=tmp_path)  # no os.kill
    assert (result.returncode, result.stdout, result.stderr) == (0, line, b"")
    assert not temps["old"].exists(), "a temp file older than STALE_TEMP_SECONDS is a dead writer's"
    assert temps["fresh"].exists(), "without a pid check, a fresh temp file may be a live writer's: kept"
    # POSIX, for contrast: the pid check removes both.
    (tmp_path / "posix").mkdir()
    temps = stale_temp_files(tmp_path / "posix")
    (cli,) = [layer for layer in available_layers("persist") if layer.name == "cli-pure"]
    assert cli.run("persist", [os.fsencode(tmp_path / "posix" / "manifest.md")], stdin=line).returncode == 0
    assert not temps["old"].exists() and not temps["fresh"].exists()


CANARY = """
import os

def nonblocking(argv):
    os.close(os.open(argv[0], os.O_RDONLY | os.O_NONBLOCK))
    return 0

def signal(argv):
    os.kill(os.getpid(), 0)
    return 0

def text_mode(argv):
    os.close(os.open(argv[0], os.O_RDONLY))
    return 0

def rename_over(argv):
    os.rename(argv[0], argv[1])
    return 0
"""


def test_the_simulation_catches_what_windows_would_break(tmp_path: Path) -> None:
    """Each Windows difference the simulation claims, shown failing on code that ignores it."""
    skip_on_windows()
    (tmp_path / "canary.py").write_text(CANARY)
    (tmp_path / "a").write_bytes(b"a")
    (tmp_path / "b").write_bytes(b"b")
    layer = WindowsLayer("python", {"PYTHONPATH": str(tmp_path)})
    try:

        def ask(function: str, *args: bytes) -> dict:
            return layer.request(list(args), b"", {}, tmp_path, main=f"canary:{function}")

        answer = ask("nonblocking", b"a")
        assert answer["status"] is None and "O_NONBLOCK" in bytes.fromhex(answer["stderr"]).decode()
        assert ask("signal")["kills"] == [[layer.proc.pid, 0]]
        assert ask("text_mode", b"a")["text_mode_opens"] == ["a"]
        answer = ask("rename_over", b"a", b"b")
        assert answer["status"] is None and "FileExistsError" in bytes.fromhex(answer["stderr"]).decode()
    finally:
        layer.close()


def unguarded_unix_names(source: str) -> List[str]:
    """``os.NAME`` for a Unix-only NAME (or os.rename, which cannot replace a file on Windows), with line numbers.

    A fallback is written ``getattr(os, "NAME", default)``: that is not an attribute access.
    """
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "os":
            if node.attr in UNIX_ONLY or node.attr == "rename":
                found.append((node.lineno, f"line {node.lineno}: os.{node.attr}"))
    return [text for _, text in sorted(found)]


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_unix_only_name_without_a_fallback(path: Path) -> None:
    assert unguarded_unix_names(path.read_text(encoding="utf-8")) == []


def test_the_static_check_sees_the_old_code() -> None:
    old = "fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK)\nos.fchmod(fd, 0o600)\nos.rename(a, b)\nos.geteuid()\n"
    expected = ["line 1: os.O_NONBLOCK", "line 2: os.fchmod", "line 3: os.rename", "line 4: os.geteuid"]
    assert unguarded_unix_names(old) == expected
