"""`sage-flags adopt --undo` (issue 43; docs/SPEC.md N13), through every entry that runs adopt (the `adopt` fixture
of tests/test_adopt_in_place.py: the venv's console script, `python -m sage_flags`, the native executable handing
adopt to Python, the launcher `sh sage/bin/sage-flags`), in git repositories laid out as Sage 1.3 and 1.1
projects: adopt then undo leaves every file and folder byte for byte and mode for mode as it was (`git status
--porcelain --ignored` empty), a second undo and `--dry-run` change nothing, a person's edits are kept and said.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Dict, Optional, Tuple

import pytest
from sage_flags.adopt import CLAUDE_MATCHER, SKILL_DIR, claude_command
from sage_step import OWN_PARSE_SH, lay_own_step
from test_adopt_in_place import adopt, native_bin, refused  # noqa: F401  (the entries fixture, reused)

SETTINGS = ".claude/settings.json"
CODEX = ".codex/hooks.json"
RECORD = SKILL_DIR + "/.adopted.json"
MINE = {"type": "command", "command": "./my-lint.sh"}

SETTINGS_VARIANTS = {
    "none": None,
    # Tabs, CRLF, no final newline, a person's group under our event and a person's event.
    "unusual": (
        b'{\r\n\t"n": 1E5,\r\n\t"hooks": {\r\n\t\t"UserPromptExpansion": [\r\n\t\t\t{"matcher": "deploy",'
        b' "hooks": [{"type": "command", "command": "./mine.sh"}]}\r\n\t\t],\r\n\t\t"Stop": [{"hooks": []}]'
        b'\r\n\t},\r\n\t"z": "\\u00e9"\r\n}'
    ),
    "empty-event": b'{\n    "hooks": {\n        "UserPromptExpansion": [\n        ]\n    }\n}\n',  # blanks inside
    "empty-hooks": b'{"hooks": { \t }, "env": {"A": "1"}}',
    "no-hooks": b'{ "env" : {} }\n',
    "empty-root": b"{ \n }\n",
}
CODEX_VARIANTS = {
    "no-codex": None,
    "codex-no-file": b"",
    "codex-file": b'{\n\t"hooks": {\n\t\t"UserPromptSubmit": [\n'
    b'\t\t\t{"hooks": [{"type": "command", "command": "x"}]}\n\t\t]\n\t}\n}\n',
}


def git(root: Path, *args: str) -> str:
    ident = ["-c", "user.email=t@t", "-c", "user.name=t", "-c", "core.autocrlf=false"]
    done = subprocess.run(["git", *ident, *args], cwd=root, capture_output=True, check=True, text=True)
    return done.stdout


def project(tmp_path: Path, layout: str, settings: Optional[bytes], codex: Optional[bytes]) -> Path:
    """A committed git repository laid out as a Sage project of LAYOUT (1.3: sage/VERSION 1.3.21 and Sage's
    own .claude/; 1.1: Sage 1.1's own sage/core/workflows/, sage/core/registry.yaml and sage/core/flag_parser/, no
    VERSION, no .claude/ unless settings are given)."""
    root = tmp_path / "proj"
    if layout == "1.3":
        (root / "sage").mkdir(parents=True)
        (root / "sage/VERSION").write_text("1.3.21\n")
        lay_own_step(root)  # nothing to verify against (N2): these tests are about what undo removes
        (root / ".claude/commands").mkdir(parents=True)
        (root / ".claude/commands/build.md").write_text("# build\n")
    else:
        (root / "sage/core/flag_parser").mkdir(parents=True)
        (root / "sage/core/workflows").mkdir()
        (root / "sage/core/workflows/build.workflow.md").write_text("# build\n")
        (root / "sage/core/registry.yaml").write_text("workflows: {}\n")
        (root / "sage/core/flag_parser/parser.py").write_text("# Sage 1.1's own\n")
        (root / "sage/core/flag_parser/parse.sh").write_text(OWN_PARSE_SH)
        (root / "sage/core/flag_parser/parse.sh").chmod(0o755)
    if settings is not None:
        (root / ".claude").mkdir(exist_ok=True)
        (root / SETTINGS).write_bytes(settings)
        (root / SETTINGS).chmod(0o640)
    if codex is not None:
        (root / ".codex").mkdir()
        (root / ".codex/config.toml").write_text("x = 1\n")
        if codex:
            (root / CODEX).write_bytes(codex)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "before adopt")
    return root


def snapshot(root: Path) -> Dict[str, Tuple[int, Optional[bytes]]]:
    """Every file and folder below ROOT but .git: its mode, and a file's bytes."""
    found = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if rel == ".git" or rel.startswith(".git/"):
            continue
        info = path.lstat()
        found[rel] = (info.st_mode, path.read_bytes() if path.is_file() else None)
    return found


def clean(root: Path) -> None:
    assert git(root, "status", "--porcelain", "--ignored") == "", git(root, "status", "--porcelain", "--ignored")


def ok(done: subprocess.CompletedProcess) -> str:
    assert done.returncode == 0 and done.stderr == b"", done
    return done.stdout.decode()


@pytest.mark.parametrize("codex", sorted(CODEX_VARIANTS))
@pytest.mark.parametrize("settings", sorted(SETTINGS_VARIANTS))
@pytest.mark.parametrize("layout", ["1.3", "1.1"])
def test_adopt_then_undo_leaves_every_byte_and_mode(adopt, tmp_path, layout, settings, codex):  # noqa: F811
    root = project(tmp_path, layout, SETTINGS_VARIANTS[settings], CODEX_VARIANTS[codex])
    before = snapshot(root)
    ok(adopt(root))
    assert json.loads((root / SETTINGS).read_bytes())["hooks"]["UserPromptExpansion"], "adopt registered nothing"
    assert (root / CODEX).is_file() == (codex != "no-codex")
    assert (root / SKILL_DIR / "scripts/sage_flags/bash/parse.sh").is_file(), "no runtime copy (N6.1) to undo"
    adopted = snapshot(root)
    dry = ok(adopt(root, "--undo", "--dry-run"))
    assert "dry run: nothing changed" in dry and "to remove" in dry, dry
    assert snapshot(root) == adopted, "--undo --dry-run changed something"
    out = ok(adopt(root, "--undo"))
    assert "skill: %s/ removed" % SKILL_DIR in out, out
    assert snapshot(root) == before
    clean(root)
    again = ok(adopt(root, "--undo"))
    assert again == "sage-flags adopt --undo: nothing to undo: sage-flags is not adopted here\n"
    assert snapshot(root) == before


def test_undo_after_adopting_twice_and_a_person_adding_a_handler_to_our_group(adopt, tmp_path):  # noqa: F811
    """adopt twice (the record is kept as the first run wrote it), then the person puts a handler of theirs in
    our matcher group: undo removes ours alone, their handler and our group's matcher stay (it is theirs now)."""
    root = project(tmp_path, "1.3", None, None)
    ok(adopt(root))
    record = (root / RECORD).read_bytes()
    assert "nothing to do" in ok(adopt(root)) and (root / RECORD).read_bytes() == record
    settings = json.loads((root / SETTINGS).read_bytes())
    settings["hooks"]["UserPromptExpansion"][0]["hooks"].append(MINE)
    (root / SETTINGS).write_text(json.dumps(settings, indent=2) + "\n")
    out = ok(adopt(root, "--undo"))
    assert "%s edited" % SETTINGS in out, out
    after = json.loads((root / SETTINGS).read_bytes())
    assert after == {"hooks": {"UserPromptExpansion": [{"matcher": CLAUDE_MATCHER, "hooks": [MINE]}]}}
    assert not (root / SKILL_DIR).exists() and (root / ".claude/commands/build.md").is_file()


def test_a_skill_file_edited_after_adopt_keeps_the_folder_and_says_so(adopt, tmp_path):  # noqa: F811
    root = project(tmp_path, "1.3", SETTINGS_VARIANTS["unusual"], None)
    ok(adopt(root))
    (root / SKILL_DIR / "SKILL.md").write_bytes((root / SKILL_DIR / "SKILL.md").read_bytes() + b"\nMy note.\n")
    edited = (root / SKILL_DIR / "SKILL.md").read_bytes()
    out = ok(adopt(root, "--undo"))
    assert "kept: %s/ (SKILL.md changed since adopt wrote it" % SKILL_DIR in out, out
    assert (root / SETTINGS).read_bytes() == SETTINGS_VARIANTS["unusual"], "the handlers are removed all the same"
    assert (root / SKILL_DIR / "SKILL.md").read_bytes() == edited
    assert json.loads((root / RECORD).read_bytes())["hooks"] == {}, "the kept record claims no hooks any more"
    kept = snapshot(root)
    again = ok(adopt(root, "--undo"))
    assert "kept: %s/" % SKILL_DIR in again and snapshot(root) == kept, "a second undo changed something"
    # A file of the person's in the folder: kept the same way.
    (root / SKILL_DIR / "SKILL.md").unlink()
    (root / SKILL_DIR / "notes.txt").write_text("mine\n")
    assert "notes.txt is not a file adopt wrote" in ok(adopt(root, "--undo"))
    assert (root / SKILL_DIR / "notes.txt").is_file()


def test_undo_without_a_record_removes_what_is_exactly_ours(adopt, tmp_path):  # noqa: F811
    """A project adopted before the record existed: our handlers go (by the exact forms), and the skill folder
    when its files are what this adopt writes for the vocabulary and release its wrapper names; the settings
    file and its `hooks` that adopt created stay (nothing says adopt created them), and undo says so."""
    root = project(tmp_path, "1.1", None, None)
    (root / ".claude").mkdir()
    (root / SETTINGS).write_text('{"env": {}}\n')
    ok(adopt(root))
    (root / RECORD).unlink()
    out = ok(adopt(root, "--undo"))
    assert "no record" in out and 'kept: %s\'s empty "hooks"' % SETTINGS in out, out
    assert json.loads((root / SETTINGS).read_bytes()) == {"env": {}, "hooks": {}}
    assert not (root / ".claude/skills/flag-parser").exists()
    # Not what adopt writes (an older wrapper, say): kept, and said.
    ok(adopt(root))
    (root / RECORD).unlink()
    wrapper = root / SKILL_DIR / "scripts/sage-flags"
    wrapper.write_bytes(wrapper.read_bytes().replace(b"adopted=1.1-layout", b"adopted=1.1-layout\n# old"))
    out = ok(adopt(root, "--undo"))
    assert "kept: %s/ (scripts/sage-flags changed since adopt wrote it" % SKILL_DIR in out, out
    assert claude_command("sage-1.1") not in (root / SETTINGS).read_text()


def test_undo_in_a_project_never_adopted_changes_nothing(adopt, tmp_path):  # noqa: F811
    root = project(tmp_path, "1.3", SETTINGS_VARIANTS["unusual"], CODEX_VARIANTS["codex-file"])
    before = snapshot(root)
    for args in (["--undo"], ["--undo", "--dry-run"]):
        out = ok(adopt(root, *args))
        assert out.startswith("sage-flags adopt --undo: nothing to undo: sage-flags is not adopted here\n"), out
    assert snapshot(root) == before
    clean(root)
    elsewhere = tmp_path / "not-sage"
    elsewhere.mkdir()
    refused(adopt(elsewhere, "--undo"), "no Sage project here")
    assert list(elsewhere.iterdir()) == []


@pytest.mark.parametrize(
    "damage",
    ["settings-not-strict", "record-not-ours", "skill-link"],
)
def test_a_refusal_changes_nothing(adopt, tmp_path, damage):  # noqa: F811
    root = project(tmp_path, "1.3", None, b"")
    ok(adopt(root))
    if damage == "settings-not-strict":
        (root / SETTINGS).write_bytes((root / SETTINGS).read_bytes().replace(b"{", b'{"n": NaN, ', 1))
        what = SETTINGS
    elif damage == "record-not-ours":
        (root / RECORD).write_text('{"created": ["/etc"], "hooks": {}, "skill": {}}\n')
        what = RECORD
    else:
        (root / SKILL_DIR / "references").rename(root / "elsewhere")
        (root / SKILL_DIR / "references").symlink_to(root / "elsewhere")
        what = SKILL_DIR  # a link inside the folder: not as adopt wrote it, kept (status 0), handlers removed
    before = snapshot(root)
    done = adopt(root, "--undo")
    if damage == "skill-link":
        assert "kept: %s/ (references is not a regular file" % SKILL_DIR in ok(done)
        assert (root / "elsewhere/examples.md").is_file() and (root / SKILL_DIR / "references").is_symlink()
        return
    refused(done, what)
    assert snapshot(root) == before


def test_undo_takes_no_vocabulary(adopt, tmp_path):  # noqa: F811
    root = project(tmp_path, "1.3", None, None)
    done = adopt(root, "--undo", "--vocabulary", "sage-1.1")
    assert done.returncode == 2 and done.stderr.count(b"\n") == 1 and b"--undo takes only --dry-run" in done.stderr
    assert not (root / SKILL_DIR).exists()


# The editor's two operations, bytes in and bytes out: unregister undoes register exactly, for every shape.

SHAPES = [
    b"{}",
    b"{ }",
    b'{"a": 1}',
    b'{"a": [1, {"b": null}], "hooks": {}}\n',
    b'{\n  "hooks": {\n    "Stop": []\n  }\n}\n',
    b'{\r\n\t"hooks": {"UserPromptExpansion": [ ]}\r\n}',
    b'{"hooks": {"UserPromptExpansion": [{"matcher": "m", "hooks": [{"type": "command", "command": "x"}]}]}}',
    b'{\n    "x": 1E5,\n    "hooks": {\n        "Stop": [{"hooks": []}],\n        "UserPromptExpansion": [\n'
    b'            {"hooks": []}\n        ]\n    }\n}',
    b'  {"hooks"  :  {  "A" : [ ] ,  "B" : [ 1 ]  }  }  \n',
]


@pytest.mark.parametrize("data", SHAPES, ids=range(len(SHAPES)))
def test_unregister_undoes_register_byte_for_byte(data):
    from sage_flags import _settings_edit
    from sage_flags.adopt import forms_ever_written

    forms = forms_ever_written()
    event = "UserPromptExpansion"
    group = {"matcher": CLAUDE_MATCHER, "hooks": [{"type": "command", "command": claude_command("sage-1.1")}]}
    added, inside = _settings_edit.what_register_adds(data, event, forms)
    registered = _settings_edit.register(data, event, group, forms)
    assert registered != data and added in ("group", "event", "hooks")
    assert _settings_edit.unregister(registered, event, forms, added, inside) == data
    created = _settings_edit.new_file(event, group)
    assert _settings_edit.what_register_adds(None, event, forms) == ("file", "")
    assert _settings_edit.unregister(created, event, forms, "file", "") is None
    # No record (N13.3): ours goes all the same; a `hooks` adopt added stays, empty.
    without_record = _settings_edit.unregister(registered, event, forms, None, "")
    assert without_record is not None and claude_command("sage-1.1").encode() not in without_record
    assert "hooks" in json.loads(without_record)
    assert added != "event" or without_record == data, "an array adopt added goes with ours, record or not"
