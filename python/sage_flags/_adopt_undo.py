"""``sage-flags adopt --undo [--dry-run]``: remove exactly what ``adopt`` added (docs/SPEC.md N13).

It reads adopt's record (``.claude/skills/flag-parser/.adopted.json``, ``_adopt_files``), then removes our
handlers from ``.claude/settings.json`` and ``.codex/hooks.json`` in place (``_settings_edit.unregister``: the
exact-form rule, per handler), any group, event array, ``hooks`` object or file adopt added and that is now
empty, the skill folder (the record with it) when every file in it is as adopt wrote it, and the folders above
it adopt created, when empty. Without a record (a project adopted before it existed), handlers are removed all
the same, an event array left empty with them, and the skill folder when its files are exactly what this adopt
writes for the vocabulary and release its wrapper names; what it keeps it says. Everything is read and checked
before the first write; a refusal is adopt's (N4: status 3, one line, nothing changed).
"""

import os
import stat

from sage_flags import _adopt_files, _io, _settings_edit
from sage_flags._adopt_files import (
    EVENTS,
    RECORD,
    RECORD_NAME,
    REFUSED,
    SETTINGS_LIMIT,
    SKILL_DIR,
    SKILL_FILE_LIMIT,
    Refusal,
    read_file,
)
from sage_flags._io import OK, _write
from sage_flags._strict_json import NotStrictJson, scan

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Dict, List, Optional, Set, Tuple

    from sage_flags.adopt import Adopted

    # ("write", rel, bytes, mode, owner) | ("unlink", rel) | ("rmdir", rel), in the order they are done
    Action = Tuple[object, ...]


def plan_undo(root: str, adopted: "Adopted") -> "Tuple[List[str], List[Action]]":
    """(the report's lines, the actions); Refusal before any action."""
    record = _adopt_files.read_record(root)
    skill_there = os.path.lexists(os.path.join(root, SKILL_DIR))
    if record is None and not skill_there and not adopted.is_sage_project(root):
        raise Refusal("no Sage project here and no record of an adopt (run it at the project's root)")
    lines = ["sage-flags adopt --undo:"]
    if record is None:
        lines[0] += " no record of what adopt created here: removing only what is exactly ours"
    actions: "List[Action]" = []
    gone: "Set[str]" = set()  # what the actions remove, for the folders' emptiness
    for rel, event in EVENTS.items():
        _settings_actions(root, rel, event, record, adopted, lines, actions, gone)
    if skill_there:
        expected = _expected_skill(root, record, adopted)
        files, folders, differs = _skill_contents(root, expected)
        if differs is None:
            actions += [("unlink", rel) for rel in files] + [("rmdir", rel) for rel in folders]
            gone.update(files + folders)
            shown = len([rel for rel in files if not rel.endswith("/" + RECORD_NAME)])
            lines.append("  skill: %s/ removed (%d files, as adopt wrote them, and its record)" % (SKILL_DIR, shown))
        else:
            lines.append("  kept: %s/ (%s; yours now: delete it yourself if you want it gone)" % (SKILL_DIR, differs))
            if record and record["hooks"]:  # the hooks' facts are spent: a later undo claims nothing there
                data = _adopt_files.record_as(dict(record, hooks={}))
                info = os.lstat(os.path.join(root, RECORD))
                actions.append(("write", RECORD, data, info.st_mode & 0o7777, (info.st_uid, info.st_gid)))
    for folder in sorted(record["created"] if record else [], key=len, reverse=True):
        path = os.path.join(root, folder)
        if os.path.isdir(path) and not os.path.islink(path):
            left = [name for name in os.listdir(path) if folder + "/" + name not in gone]
            if not left:
                actions.append(("rmdir", folder))
                gone.add(folder)
                lines.append("  folder: %s/ removed (adopt created it; it is empty now)" % folder)
    if not actions and not any(line.startswith("  kept") for line in lines):
        lines = ["sage-flags adopt --undo: nothing to undo: sage-flags is not adopted here"]
    return lines, actions


def _settings_actions(
    root: str,
    rel: str,
    event: str,
    record: "Optional[dict]",
    adopted: "Adopted",
    lines: "List[str]",
    actions: "List[Action]",
    gone: "Set[str]",
) -> None:
    """N13.1: REL without our handlers (and what adopt added there, now empty), as an action and a line."""
    found = read_file(root, rel, SETTINGS_LIMIT)
    if found is None:
        return
    data, info = found
    fact = record["hooks"].get(rel) if record else None
    added = fact["added"] if fact else None
    try:
        updated = _settings_edit.unregister(data, event, adopted.forms, added, fact.get("inside", "") if fact else "")
        hooks = _settings_edit.hooks_of(scan(updated)) if updated is not None else None
    except NotStrictJson as error:
        raise Refusal("%s %s; left untouched" % (rel, error)) from None
    if updated is None:
        actions.append(("unlink", rel))
        gone.add(rel)
        lines.append("  hook: %s removed (adopt created it; nothing else was in it)" % rel)
    elif updated != data:
        actions.append(("write", rel, updated, info.st_mode & 0o7777, (info.st_uid, info.st_gid)))
        lines.append("  hook: %s edited (our handler removed, every other byte kept)" % rel)
        if added is None and hooks is not None and not hooks.members:
            lines.append('  kept: %s\'s empty "hooks" (no record says adopt added it)' % rel)


def _expected_skill(root: str, record: "Optional[dict]", adopted: "Adopted") -> "Dict[str, str]":
    """rel -> sha256 of each skill file as adopt wrote it: the record's, else (no record) what this adopt
    writes for the vocabulary and release the wrapper there names (nothing known: nothing is ours)."""
    if record is not None:
        return dict(record["skill"], **{RECORD_NAME: ""})
    found = read_file(root, _adopt_files.WRAPPER, SKILL_FILE_LIMIT)
    named = {}
    for line in (found[0] if found else b"").decode("utf-8", "replace").splitlines()[:20]:
        key, _, value = line.partition("=")
        if key in ("vocabulary", "adopted", "parser", "fingerprint"):
            named[key] = value
    if named.get("vocabulary") not in adopted.vocabularies or "adopted" not in named:
        return {}
    watched = (named.get("parser", ""), named.get("fingerprint", "").replace("-", " "))
    files = adopted.skill_files(named["vocabulary"], named["adopted"], *watched)
    return {rel: _adopt_files.digest(data) for rel, (data, _) in files.items()}


def _skill_contents(root: str, expected: "Dict[str, str]") -> "Tuple[List[str], List[str], Optional[str]]":
    """(the files to remove, the folders to remove deepest first, None) when every file in the skill folder
    is one adopt wrote, as it wrote it (the record itself and our temp files too); else (.., .., why not)."""
    files: "List[str]" = []
    folders: "List[str]" = []
    top = os.path.join(root, SKILL_DIR)
    if os.path.islink(top) or not os.path.isdir(top):
        raise Refusal("%s is a symbolic link or not a folder; left untouched" % SKILL_DIR)
    for folder, dirs, names in os.walk(top, topdown=False):
        rel_folder = os.path.relpath(folder, top)
        for name in names + dirs:
            rel = name if rel_folder == "." else rel_folder + "/" + name
            info = os.lstat(os.path.join(folder, name))
            if stat.S_ISDIR(info.st_mode):
                continue
            if not stat.S_ISREG(info.st_mode):
                return files, folders, "%s is not a regular file" % rel
            if _io.is_temp_name(os.fsencode(name)):  # P6, P6.1: a dead writer's goes, a live one's stays
                if _io.temp_writer_is_live(os.fsencode(os.path.join(folder, name))):
                    return files, folders, "%s is being written (a sage-flags still running)" % rel
                files.append(SKILL_DIR + "/" + rel)
                continue
            if rel not in expected:
                return files, folders, "%s is not a file adopt wrote" % rel
            if rel != RECORD_NAME:
                found = read_file(root, SKILL_DIR + "/" + rel, SKILL_FILE_LIMIT)
                if found is None or _adopt_files.digest(found[0]) != expected[rel]:
                    return files, folders, "%s changed since adopt wrote it" % rel
            files.append(SKILL_DIR + "/" + rel)
        folders.append(SKILL_DIR if rel_folder == "." else SKILL_DIR + "/" + rel_folder)
    if SKILL_DIR + "/" + RECORD_NAME in files:  # the record last: an undo killed before it is finished by the next
        files.remove(SKILL_DIR + "/" + RECORD_NAME)
        files.append(SKILL_DIR + "/" + RECORD_NAME)
    return files, folders, None


def run_undo(root: str, dry_run: bool, adopted: "Adopted") -> int:
    if not dry_run:
        _adopt_files.remove_dead_writers_temp_files(root)  # so that the folders a killed adopt made can go
    try:
        lines, actions = plan_undo(root, adopted)
    except Refusal as refusal:
        _io.say("sage-flags: adopt: %s\n" % refusal)
        return REFUSED
    if dry_run:
        lines = [line.replace(" removed", " to remove").replace(" edited", " to edit") for line in lines]
        lines.append("  (dry run: nothing changed)")
    else:
        rel = ""
        try:
            for action in actions:
                rel = str(action[1])
                path = os.path.join(root, rel)
                if action[0] == "write":
                    _io.write_atomically(os.fsencode(path), action[2], action[3], action[4])  # type: ignore[arg-type]
                elif action[0] == "unlink":
                    os.unlink(path)
                else:
                    os.rmdir(path)
        except OSError as error:
            _io.say("sage-flags: adopt: cannot remove %s (%s)\n" % (os.fsdecode(error.filename or rel), error.strerror))
            return REFUSED
    _write(("\n".join(lines) + "\n").encode("utf-8"))
    return OK
