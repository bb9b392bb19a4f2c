"""Sage projects made by Sage's own installer, adopted, driven through the real Claude Code (`make e2e`, issue 32).

Each release of ../shared/sage/ (1.3.21, 1.1.5) is installed offline into a temporary HOME and a project made with
`sage init` (tests/test_adopt_sage.py's Sage); `sage-flags adopt` takes sage-flags in, with the native executable
on PATH (what a native wheel gives). The CLI that PyPI's claude-agent-sdk bundles then runs whole turns against
a local stand-in for the Messages API (tests/e2e/messages_standin.py), which records every request: the model's
first request is the whole input the model would see (Sage's generated command and our hook's context).
The expected parse lines are sage-flags' own, computed in the same project with the adopted vocabulary.

Run by mk/e2e.mk (SAGE_FLAGS_E2E_CLAUDE, SAGE_FLAGS_E2E_NATIVE_EXE); skipped, naming the file, where
../shared/sage/ is missing (under CI=true that fails).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import List, Tuple

import pytest
from messages_standin import MessagesStandIn, request_text
from test_adopt_sage import SAGE_FLAGS, Sage

RUN_TIMEOUT = 180
VOCABULARY = {"1.3.21": "sage-1.3.18", "1.1.5": "sage-1.1"}
# What each release's generated /build runs to read its flags (its own flag-parsing step).
SAGE_STEP = {
    "1.3.21": 'python3 sage/runtime/tools/sage_flags.py parse "$ARGUMENTS" --config-path .sage/config.yaml',
    "1.1.5": 'python -m core.flag_parser parse "$ARGUMENTS" --config-path .sage/config.yaml',
}
SEED_E1 = "Unknown flag '{0}'. Supported flags: --quality-locked, --autonomous."  # the contract's E1


def required_env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        pytest.fail("%s is not set: this test runs through `make e2e` (mk/e2e.mk)" % name, pytrace=False)
    return value


class Adopted:
    def __init__(self, base: Path, release: str) -> None:
        self.release = release
        self.sage = Sage(base, release)
        self.root = self.sage.project
        self.bin = base / "bin"
        self.bin.mkdir()
        (self.bin / "sage-flags").symlink_to(required_env("SAGE_FLAGS_E2E_NATIVE_EXE"))
        done = subprocess.run([str(SAGE_FLAGS), "adopt"], cwd=self.root, capture_output=True, text=True)
        assert done.returncode == 0 and "vocabulary %s" % VOCABULARY[release] in done.stdout, done
        self.claude_home = base / "claude-home"
        self.claude_home.mkdir()
        self.env = {
            "HOME": str(self.claude_home),
            "PATH": "%s:/usr/local/bin:/usr/bin:/bin" % self.bin,
            "ANTHROPIC_API_KEY": "standin",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "LC_ALL": "C.UTF-8",
        }

    def sage_flags(self, *args: str, text: str) -> Tuple[int, str]:
        """The installed sage-flags with the adopted vocabulary (what the hook's wrapper runs)."""
        done = subprocess.run(
            [str(self.bin / "sage-flags"), "--vocabulary", VOCABULARY[self.release], *args],
            input=text,
            capture_output=True,
            text=True,
            cwd=self.root,
            env=self.env,
        )
        assert done.returncode in (0, 1) and not done.stderr, "sage-flags --vocabulary %s %s: status %d, %r" % (
            VOCABULARY[self.release],
            " ".join(args),
            done.returncode,
            done.stderr,
        )
        return done.returncode, done.stdout

    def run(self, prompt: str) -> Tuple[List[dict], List[dict]]:
        """One `claude -p PROMPT` turn: (the requests the stand-in received, the stream-json lines)."""
        claude = required_env("SAGE_FLAGS_E2E_CLAUDE")
        with MessagesStandIn() as api:
            done = subprocess.run(
                [claude, "-p", prompt, "--output-format", "stream-json", "--verbose"],
                cwd=self.root,
                env=dict(self.env, ANTHROPIC_BASE_URL=api.url),
                capture_output=True,
                text=True,
                stdin=subprocess.DEVNULL,
                timeout=RUN_TIMEOUT,
            )
            requests = list(api.requests)
        lines = [json.loads(line) for line in done.stdout.splitlines() if line.strip().startswith("{")]
        assert lines and lines[-1].get("type") == "result", "claude -p %r: %r %r" % (prompt, done.stdout, done.stderr)
        return requests, lines


@pytest.fixture(scope="module", params=sorted(VOCABULARY))
def adopted(request, tmp_path_factory) -> Adopted:
    return Adopted(tmp_path_factory.mktemp("e2e-sage-" + request.param), request.param)


def first_request_for(requests: List[dict], text: str) -> str:
    for request in requests:
        seen = request_text(request)
        if text in seen:
            return seen
    raise AssertionError("no request to the model holds %r (%d requests)" % (text, len(requests)))


def test_the_model_gets_sages_command_and_our_result(adopted):
    text = {"1.3.21": "--subagents --parallel=3 Ship it!", "1.1.5": "--autonomous Ship it!"}[adopted.release]
    status, line = adopted.sage_flags("parse", "--config-path", ".sage/config.yaml", "--stdin", text=text)
    parsed = json.loads(line)
    assert status == 0 and parsed["goal"] == "Ship it!"
    if adopted.release == "1.3.21":  # the four modes: Sage 1.3.18+'s vocabulary
        assert (parsed["subagents"], parsed["parallel"], parsed["parallel_lanes"]) == (True, True, 3), parsed
    else:  # the seed's two modes
        assert list(parsed)[:2] == ["quality_locked", "autonomous"] and "subagents" not in parsed, parsed
    requests, lines = adopted.run("/build " + text)
    seen = first_request_for(requests, "Ship it!")
    step = SAGE_STEP[adopted.release].replace("$ARGUMENTS", text)  # the CLI puts the typed text in
    assert step in seen, "Sage's own /build command (%r) is not in the model's input" % step
    assert "sage-flags hook result for /build" in seen, "our hook's context is not in the model's input"
    assert line.rstrip("\n") in seen, "the model's input lacks sage-flags' parse line %r" % line
    facts = "the result of the workflow's own flag-parsing step (%s)" % SAGE_STEP[adopted.release].split(' "')[0]
    assert facts in seen.replace("`", ""), "the context does not say what the result is (SPEC N10)"
    assert lines[-1].get("result") == "Understood."
    (init,) = [line for line in lines if line.get("subtype") == "init"]
    assert "flag-parser" in init.get("skills", []), "the adopted skill is not discovered: %r" % init.get("skills")


def test_a_misspelt_flag_never_reaches_the_model(adopted):
    requests, lines = adopted.run("/build --autonomus x")
    assert not [r for r in requests if "--autonomus" in request_text(r)], "the misspelt flag reached the model"
    result = lines[-1].get("result", "")
    assert "Did you mean '--autonomous'?" in result, result


def test_a_flag_of_a_newer_sage_is_refused_on_1_1_5_as_sage_1_1_5_refuses_it(adopted):
    if adopted.release != "1.1.5":
        pytest.skip("Sage 1.3.21 has --subagents")
    own = subprocess.run(
        [sys.executable, "-m", "core.flag_parser", "parse", "--subagents x"],
        cwd=adopted.root / "sage",
        capture_output=True,
        text=True,
    )
    assert own.returncode == 1 and json.loads(own.stdout)["error"].startswith("Unknown flag '--subagents'.")
    requests, lines = adopted.run("/build --subagents x")
    assert not [r for r in requests if "--subagents x" in request_text(r)], "the refused flag reached the model"
    assert "Sage: " + SEED_E1.format("--subagents") in lines[-1].get("result", ""), lines[-1]


def test_after_sage_update_build_still_reaches_the_model(adopted):
    """`sage update` recopies sage/ (taking any vendored copy of ours) and merges its settings: /build goes on."""
    adopted.sage.sage("update")
    requests, lines = adopted.run("/build --autonomous Ship it!")
    first_request_for(requests, "Ship it!")
    assert lines[-1].get("result") == "Understood.", lines[-1]


def test_after_an_upgrade_a_newer_flag_is_never_refused_by_us(tmp_path):
    """1.1.5 adopted, then Sage 1.3.21's install.sh and `sage update`: the wrapper sees the release changed, shows
    one notice, and `/build --subagents x` (a flag 1.1.5's vocabulary lacks) reaches the model, for Sage's own step.
    """
    project = Adopted(tmp_path, "1.1.5")
    project.sage.install("1.3.21")
    project.sage.sage("update")
    assert (project.root / "sage/VERSION").read_text().strip() == "1.3.21"
    requests, lines = project.run("/build --subagents x")
    first_request_for(requests, "--subagents x")
    assert lines[-1].get("result") == "Understood.", lines[-1]
    shown = json.dumps(lines)
    changed = "flag parser (sage/core/flag_parser/parse.sh) changed"  # N6.4: the parser, not the release number
    assert changed in shown and "sage-flags adopt" in shown, shown[-3000:]
