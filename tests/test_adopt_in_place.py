"""`sage-flags adopt` in a stranger's project (issue 40 items 3-6, issue 42's one atomic write; docs/SPEC.md N4,
N5, N9): through every entry that runs it (the venv's console script, `python -m sage_flags`, the native
executable handing adopt to its installation's Python, the vendored launcher), a person's hooks survive, the
settings file is edited in place (every byte outside our handler kept), what is not strict JSON is refused with
one line, nothing but a regular file is read, and the writes keep owner, group and mode and honour the umask.
tests/test_settings_editor.py tests the editor itself."""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import List

import pytest
from sage_flags.adopt import SKILL_DIR, claude_command, forms_ever_written
from sage_flags.hook_commands import codex_hook_command

from parity.layers import NATIVE_EXE, ROOT, vendored_bundle

BIN = Path(sys.executable).parent
SETTINGS = ".claude/settings.json"
WRAPPER = SKILL_DIR + "/scripts/sage-flags"
OURS_NOW = claude_command("sage-1.3.18")
K9_ARGS = ["hook", "claude-code", "--config-path", "${CLAUDE_PROJECT_DIR}/.sage/config.yaml"]
K9_HANDLER = {"type": "command", "command": "${CLAUDE_PROJECT_DIR}/sage/bin/sage-flags", "args": K9_ARGS, "timeout": 10}
ENTRIES = ["console-script", "python-m", "native-exe", "launcher"]
TIMEOUT = 60  # a hang (a FIFO read blocking, /dev/zero read to the end) fails the test instead of the suite


@pytest.fixture(scope="module")
def native_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the native executable beside a Python that imports this checkout's sage_flags (D27.1: a
    copy, no RECORD, takes the python3 beside it)."""
    if not NATIVE_EXE.exists():
        pytest.skip("no native executable at %s (make setup builds it)" % NATIVE_EXE)
    venv = tmp_path_factory.mktemp("native") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    purelib = sysconfig.get_path("purelib", vars={"base": str(venv), "platbase": str(venv)})
    Path(purelib, "checkout.pth").write_text(str(ROOT / "python") + "\n")
    shutil.copy(NATIVE_EXE, venv / "bin" / "sage-flags")
    return venv / "bin"


def argv_of(entry: str, request: pytest.FixtureRequest) -> List[str]:
    if entry == "console-script":
        return [str(BIN / "sage-flags"), "adopt"]
    if entry == "python-m":
        return [sys.executable, "-m", "sage_flags", "adopt"]
    if entry == "native-exe":
        return [str(request.getfixturevalue("native_bin") / "sage-flags"), "adopt"]
    return ["sh", str(vendored_bundle() / "sage" / "bin" / "sage-flags"), "adopt"]  # the bundle's own package


@pytest.fixture(params=ENTRIES)
def adopt(request: pytest.FixtureRequest):
    """adopt(root, *args, umask=None): the entry's run in ROOT, output captured as bytes."""
    argv = argv_of(request.param, request)
    path = "/usr/bin:/bin" if request.param == "launcher" else os.environ["PATH"]  # the launcher: its own copy

    def run(root: Path, *args: str, umask: "int | None" = None) -> subprocess.CompletedProcess:
        def limits() -> None:  # a read that never ends fails here, not on the machine
            resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
            if umask is not None:
                os.umask(umask)

        env = dict(os.environ, PATH=path)
        return subprocess.run(
            [*argv, *args], cwd=root, capture_output=True, env=env, timeout=TIMEOUT, preexec_fn=limits
        )

    return run


def sage_project(tmp_path: Path, settings: "bytes | None" = None) -> Path:
    root = tmp_path / "proj"
    (root / "sage").mkdir(parents=True)
    (root / "sage/VERSION").write_text("1.3.21\n")
    (root / ".claude").mkdir()
    if settings is not None:
        (root / SETTINGS).write_bytes(settings)
    return root


def ours(settings: dict) -> List[dict]:
    forms = forms_ever_written()
    found = []
    for groups in settings.get("hooks", {}).values():
        for group in groups:
            for handler in group.get("hooks", []):
                args = handler.get("args")
                if (handler.get("command"), tuple(args) if isinstance(args, list) else args) in forms:
                    found.append(handler)
    return found


def refused(done: subprocess.CompletedProcess, what: str) -> None:
    assert done.returncode == 3 and done.stdout == b"", done
    assert done.stderr.count(b"\n") == 1 and done.stderr.startswith(b"sage-flags: adopt: " + what.encode()), done
    assert b"Traceback" not in done.stderr


# Item 3: a person's hooks are never deleted


def test_a_persons_handlers_beside_ours_and_naming_our_wrapper_survive(adopt, tmp_path):
    mine = {"type": "command", "command": "./my-lint.sh"}
    names_wrapper = {"type": "command", "command": WRAPPER + " config explain .sage/config.yaml"}
    settings = {
        "hooks": {
            "UserPromptExpansion": [{"matcher": "^(sage:)?(build|architect)$", "hooks": [mine, K9_HANDLER]}],
            "UserPromptSubmit": [{"hooks": [dict(K9_HANDLER)]}],  # settings-submit.json, hand-merged: ours too
            "Stop": [{"hooks": [names_wrapper]}],
        }
    }
    root = sage_project(tmp_path, json.dumps(settings, indent=2).encode())
    done = adopt(root)
    assert done.returncode == 0 and done.stderr == b"", done
    after = json.loads((root / SETTINGS).read_bytes())
    group = after["hooks"]["UserPromptExpansion"][0]
    assert group["hooks"][0] == mine, "the person's handler sharing our entry is kept, first"
    assert group["hooks"][1] == {"type": "command", "command": OURS_NOW, "timeout": 10}, "ours, edited in place"
    assert len(after["hooks"]["UserPromptExpansion"]) == 1
    assert after["hooks"]["Stop"] == [{"hooks": [names_wrapper]}], "a hook merely naming the wrapper is theirs"
    assert "UserPromptSubmit" not in after["hooks"], "the hand-merged second handler of ours: answered once"
    assert len(ours(after)) == 1
    before = (root / SETTINGS).read_bytes()
    assert adopt(root).returncode == 0 and (root / SETTINGS).read_bytes() == before


def test_args_5_in_someone_elses_handler_is_theirs(adopt, tmp_path):
    theirs = b'{"type": "command", "command": "sage/bin/sage-flags hook x", "args": 5}'
    data = b'{"hooks": {"Stop": [{"hooks": [' + theirs + b"]}]}}\n"
    root = sage_project(tmp_path, data)
    done = adopt(root)
    assert done.returncode == 0 and done.stderr == b"", done
    after = (root / SETTINGS).read_bytes()
    assert theirs in after and len(ours(json.loads(after))) == 1


# Item 4: an edit in place, never a re-serialisation

UNUSUAL = (
    '{\r\n\t"z-last-key-first": {"n": 1E5, "zero": -0, "big": 1e400, "e": "\\u00e9", "slash": "a\\/b",'
    ' "raw": "\u00e9\u4e2d"},\r\n\t"hooks": {\r\n\t\t"UserPromptExpansion": [\r\n\t\t\t{\r\n'
    '\t\t\t\t"matcher": "deploy|build",\r\n\t\t\t\t"hooks": [\r\n'
    '\t\t\t\t\t{"type": "command", "command": "their-first"},\r\n'
    "\t\t\t\t\t@OURS@,\r\n"
    '\t\t\t\t\t{"type":"command","command":"their-last","timeout":1.50}\r\n'
    "\t\t\t\t]\r\n\t\t\t}\r\n\t\t]\r\n\t},\r\n"
    '\t"a": [1.0, 2E-3, -0.0, true, false, null, {}, []]\r\n}'
)


@pytest.mark.parametrize("old_handler", ["k9", "adopt-1.1"])
def test_every_byte_outside_our_handler_is_kept(adopt, tmp_path, old_handler):
    handler = K9_HANDLER if old_handler == "k9" else {"type": "command", "command": claude_command("sage-1.1")}
    prefix, suffix = (part.encode("utf-8") for part in UNUSUAL.split("@OURS@"))
    data = prefix + json.dumps(handler).encode() + suffix
    root = sage_project(tmp_path, data)
    done = adopt(root)
    assert done.returncode == 0 and done.stderr == b"", done
    after = (root / SETTINGS).read_bytes()
    assert after.startswith(prefix) and after.endswith(suffix), after
    middle = after[len(prefix) : len(after) - len(suffix)]
    assert json.loads(middle) == {"type": "command", "command": OURS_NOW, "timeout": 10}
    assert b"\n" not in middle.replace(b"\r\n", b""), "line ends copied (CRLF)"
    parsed = json.loads(after)
    assert len(ours(parsed)) == 1 and list(parsed) == ["z-last-key-first", "hooks", "a"]
    assert adopt(root).returncode == 0 and (root / SETTINGS).read_bytes() == after, "a second run changes nothing"


@pytest.mark.parametrize("indent", ["\t", "    "])
def test_what_adopt_inserts_copies_the_files_indentation_and_line_ends(adopt, tmp_path, indent):
    data = json.dumps({"env": {"A": "1E5"}, "hooks": {"Stop": [{"hooks": []}]}}, indent=indent)
    data = data.replace("\n", "\r\n").encode()  # no final newline either
    root = sage_project(tmp_path, data)
    assert adopt(root).returncode == 0
    after = (root / SETTINGS).read_bytes()
    cut = next(i for i in range(len(data)) if data[i] != after[i])
    assert after[:cut] + after[cut + len(after) - len(data) :] == data, "one insertion, nothing else changed"
    inserted = after[cut : cut + len(after) - len(data)]
    lines = inserted.split(b"\r\n")
    assert b"\n" not in b"".join(lines) and len(lines) > 3
    assert all(line.startswith(indent.encode()) for line in lines[1:]), inserted
    parsed = json.loads(after)
    assert parsed["hooks"]["UserPromptExpansion"][0]["hooks"][0]["command"] == OURS_NOW


DEEP = b'{"a": ' + b"[" * 130 + b"]" * 130 + b"}"


@pytest.mark.parametrize(
    "content, why",
    [
        (b'{"a": NaN}', b"NaN"),
        (b'{"a": Infinity}', b"Infinity"),
        (b'{"a": [-Infinity]}', b"Infinity"),
        (b'{"a": "\\udc80"}', b"surrogate"),
        (b'{"a": "\\ud800x"}', b"surrogate"),
        (b'{"a": {"b": 1, "b": 2}}', b"twice"),
        (b'\xef\xbb\xbf{"a": 1}', b"byte order mark"),
        (b'{"hooks": {"Stop": [{}], "x": 1}}', b"not an object of arrays"),
        (b'{"a": "' + b"x" * (1 << 20) + b'"}', b"larger than"),
        (DEEP, b"deeper than 128"),
        (b'{"a": "\xed\xa0\x80"}', b"UTF-8"),
        (b"[1]", b"not a JSON object"),
    ],
    ids=lambda v: v.decode("ascii", "replace")[:24] if isinstance(v, bytes) else None,
)
def test_not_strict_json_is_refused_in_one_line_and_left_untouched(adopt, tmp_path, content, why):
    root = sage_project(tmp_path, content)
    done = adopt(root)
    refused(done, SETTINGS)
    assert why in done.stderr, done.stderr
    assert (root / SETTINGS).read_bytes() == content
    assert not (root / ".claude/skills").exists(), "a refusal wrote something"


# Item 6: look before reading


@pytest.mark.parametrize(
    "where", [SETTINGS, ".codex/hooks.json", SKILL_DIR + "/SKILL.md", SKILL_DIR + "/references/examples.md", WRAPPER]
)
@pytest.mark.parametrize("dry_run", [False, True])
def test_a_fifo_is_refused_promptly_never_read(adopt, tmp_path, where, dry_run):
    root = sage_project(tmp_path)
    (root / ".codex").mkdir()
    if where.startswith(SKILL_DIR):
        assert adopt(root).returncode == 0
        (root / where).unlink()
    (root / where).parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(root / where)
    done = adopt(root, *(["--dry-run"] if dry_run else []))
    refused(done, where)
    assert b"not a regular file" in done.stderr


@pytest.mark.parametrize("dry_run", [False, True])
def test_a_skill_file_linked_to_dev_zero_is_refused_unread(adopt, tmp_path, dry_run):
    root = sage_project(tmp_path)
    (root / SKILL_DIR).mkdir(parents=True)
    (root / SKILL_DIR / "SKILL.md").symlink_to("/dev/zero")
    done = adopt(root, *(["--dry-run"] if dry_run else []))
    refused(done, SKILL_DIR + "/SKILL.md")
    assert b"symbolic link" in done.stderr


def test_a_skill_directory_an_interrupted_adopt_left_is_finished(adopt, tmp_path):
    """Only our files, SKILL.md not yet written (it is written last): ours, so the next run completes it."""
    root = sage_project(tmp_path)
    (root / SKILL_DIR / "references").mkdir(parents=True)
    (root / SKILL_DIR / "references/examples.md").write_text("half")
    done = adopt(root)
    assert done.returncode == 0, done
    assert b"project: sage-flags" in (root / SKILL_DIR / "SKILL.md").read_bytes()
    (root / SKILL_DIR / "SKILL.md").unlink()
    (root / SKILL_DIR / "notes.txt").write_text("someone else's")
    refused(adopt(root), SKILL_DIR)


# Issue 42: one atomic write (persist's guarantees)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="giving a file back needs root")
def test_root_keeps_a_users_owner_group_and_mode(adopt, tmp_path):
    root = sage_project(tmp_path, b'{"permissions": {}}\n')
    os.chown(root / SETTINGS, 4321, 4322)
    os.chmod(root / SETTINGS, 0o660)
    assert adopt(root).returncode == 0
    info = (root / SETTINGS).stat()
    assert (info.st_uid, info.st_gid, info.st_mode & 0o7777) == (4321, 4322, 0o660)
    assert [handler["command"] for handler in ours(json.loads((root / SETTINGS).read_bytes()))] == [OURS_NOW]


@pytest.mark.parametrize("umask, file_mode, wrapper_mode", [(0o022, 0o644, 0o755), (0o077, 0o600, 0o700)])
def test_new_files_honour_the_umask(adopt, tmp_path, umask, file_mode, wrapper_mode):
    root = sage_project(tmp_path)
    (root / ".codex").mkdir()
    assert adopt(root, umask=umask).returncode == 0
    for rel in (SETTINGS, ".codex/hooks.json", SKILL_DIR + "/SKILL.md"):
        assert (root / rel).stat().st_mode & 0o7777 == file_mode, rel
    assert (root / WRAPPER).stat().st_mode & 0o7777 == wrapper_mode
    again = adopt(root, umask=umask)
    assert b"nothing to do" in again.stdout, again


KILLED_AT_THE_RENAME = """
import os, signal, sys
os.replace = lambda *a: os.kill(os.getpid(), signal.SIGKILL)  # killed after the temp file, before the rename
from sage_flags.cli import main
sys.argv[0] = "sage-flags"
sys.exit(main())
"""


def test_an_adopt_killed_mid_write_leaves_no_temp_file_after_the_next_run(adopt, tmp_path):
    root = sage_project(tmp_path, b'{"env": {}}\n')
    killed = subprocess.run([sys.executable, "-c", KILLED_AT_THE_RENAME, "adopt"], cwd=root, capture_output=True)
    assert killed.returncode == -signal.SIGKILL
    leftovers = [p for p in root.rglob("*") if p.is_file() and "sage-flags-" in p.name and p.name.startswith(".")]
    assert leftovers, "the kill left a temporary file (else this test proves nothing)"
    assert (root / SETTINGS).read_bytes() == b'{"env": {}}\n'
    assert adopt(root).returncode == 0
    left = [p for p in root.rglob("*") if p.is_file() and "sage-flags-" in p.name and p.name.startswith(".")]
    assert left == [], left


def test_the_codex_file_keeps_a_persons_handler_in_our_group(adopt, tmp_path):
    root = sage_project(tmp_path)
    (root / ".codex").mkdir()
    mine = {"type": "command", "command": "echo mine"}
    old = {"type": "command", "command": codex_hook_command(), "timeout": 10}
    (root / ".codex/hooks.json").write_text(json.dumps({"hooks": {"UserPromptSubmit": [{"hooks": [old, mine]}]}}))
    assert adopt(root).returncode == 0
    (group,) = json.loads((root / ".codex/hooks.json").read_text())["hooks"]["UserPromptSubmit"]
    assert group["hooks"][1] == mine
    assert group["hooks"][0]["command"] == codex_hook_command("sage-1.3.18", adopted=True)
