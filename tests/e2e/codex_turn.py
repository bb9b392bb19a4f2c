"""One Codex turn against the Responses API stand-in; run by tests/e2e/test_codex.py as its own process.

Standard input: a JSON object with `codex` (the CLI), `home` (its HOME; CODEX_HOME is HOME/.codex), `project` (the
folder Codex trusts), `cwd` (where the session starts), `prompt`, `env` (the environment, without HOME), `ui`
(`exec`: `codex exec`; `tui`: the interactive Codex in tmux, the prompt typed and Enter pressed) and `netns` (true
when started by `unshare -rn`: the loopback interface is brought up, and nothing else is reachable). Standard
output: a JSON object with `status`, `stdout`, `stderr` (exec) or `screen` (tui: the pane after the turn), and the
stand-in's `requests` (the model requests' bodies) and `others` (any other request).
"""

from __future__ import annotations

import fcntl
import json
import os
import shlex
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path

from responses_standin import ResponsesStandIn

RUN_TIMEOUT = 120  # seconds for one turn; one takes about 2 s here
SIOCSIFFLAGS, IFF_UP, IFF_LOOPBACK, IFF_RUNNING = 0x8914, 0x1, 0x8, 0x40
# On the screen of the interactive Codex: its prompt box, ready for input, and the end of a turn.
TUI_READY = "Ask Codex to do anything"
TUI_TURN_ENDED = ("Worked for", "Blocked by hook", "Unrecognized command")


def loopback_up() -> None:
    """In a new network namespace `lo` is down: up, 127.0.0.1 is the one address there is."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        fcntl.ioctl(sock, SIOCSIFFLAGS, struct.pack("16sh14s", b"lo", IFF_UP | IFF_LOOPBACK | IFF_RUNNING, b""))


def write_config(codex_home: Path, base_url: str, project: str) -> None:
    """The model provider at the stand-in, and the project trusted (its .codex/ is read only then)."""
    codex_home.mkdir(parents=True, exist_ok=True)
    lines = [
        'model = "gpt-mock"',
        'model_provider = "mock"',
        "check_for_update_on_startup = false",
        # Typed keys that arrive together are a paste to the interactive Codex, and Enter inside one a line break.
        "disable_paste_burst = true",
        "[model_providers.mock]",
        'name = "mock"',
        "base_url = %s" % json.dumps(base_url),
        'wire_api = "responses"',
        'env_key = "OPENAI_API_KEY"',
        # A JSON string is a TOML basic string: the project's path may hold quotes, backslashes, any character.
        "[projects.%s]" % json.dumps(project),
        'trust_level = "trusted"',
    ]
    (codex_home / "config.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")


def run_exec(spec: dict, env: dict) -> dict:
    command = [spec["codex"], "exec", "--skip-git-repo-check", "--dangerously-bypass-hook-trust", spec["prompt"]]
    done = subprocess.run(
        command, cwd=spec["cwd"], env=env, capture_output=True, stdin=subprocess.DEVNULL, timeout=RUN_TIMEOUT
    )
    return {"status": done.returncode, "stdout": done.stdout.decode(), "stderr": done.stderr.decode()}


def wait_for_screen(tmux: list, texts: tuple, deadline: float) -> str:
    screen = ""
    while time.monotonic() < deadline:
        screen = subprocess.run([*tmux, "capture-pane", "-p", "-J"], capture_output=True, text=True).stdout
        if any(text in screen for text in texts):
            break
        time.sleep(0.2)
    return screen


def run_tui(spec: dict, env: dict) -> dict:
    """The interactive Codex in a detached tmux session of its own: the prompt typed, Enter, the screen read."""
    tmux = ["tmux", "-S", str(Path(spec["home"]) / "tmux.socket")]
    command = " ".join(shlex.quote(a) for a in [spec["codex"], "--dangerously-bypass-hook-trust"])
    env = dict(env, TERM="xterm-256color")
    start = [*tmux, "-f", os.devnull, "new-session", "-d", "-x", "200", "-y", "50", "-c", spec["cwd"], command]
    subprocess.run(start, env=env, check=True)
    try:
        deadline = time.monotonic() + RUN_TIMEOUT
        before = wait_for_screen(tmux, (TUI_READY,), deadline)
        subprocess.run([*tmux, "send-keys", "-l", spec["prompt"]], check=True)
        wait_for_screen(tmux, (spec["prompt"].strip(),), deadline)  # in the prompt box: then Enter
        subprocess.run([*tmux, "send-keys", "Enter"], check=True)
        screen = wait_for_screen(tmux, TUI_TURN_ENDED, deadline)
        time.sleep(0.5)  # what the turn writes after its last line
        screen = wait_for_screen(tmux, TUI_TURN_ENDED, deadline)
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)
    return {"before": before, "screen": screen}


def main() -> None:
    spec = json.load(sys.stdin)
    if spec["netns"]:
        loopback_up()
    env = dict(spec["env"], HOME=spec["home"], CODEX_HOME=str(Path(spec["home"]) / ".codex"))
    with ResponsesStandIn() as api:
        write_config(Path(env["CODEX_HOME"]), api.base_url, spec["project"])
        result = run_tui(spec, env) if spec["ui"] == "tui" else run_exec(spec, env)
        result.update(requests=api.requests, others=api.others)
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
