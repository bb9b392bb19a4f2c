"""Where ``sage-flags adopt`` keeps its files, how it reads them (docs/SPEC.md N9), the runtime copy it writes
beside the wrapper (N6), and the record it keeps of what it created, which ``adopt --undo`` reads (N13). Shared
by adopt and its undo; no subcommand here.
"""

import hashlib
import json
import os

from sage_flags import _io
from sage_flags.hook_commands import ADOPTED_WRAPPER

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Dict, Iterable, Optional, Tuple

REFUSED = 3  # N4: nothing written (D19's status)
SKILL_DIR = ".claude/skills/flag-parser"
WRAPPER = ADOPTED_WRAPPER  # SKILL_DIR + "/scripts/sage-flags", named once in hook_commands (K9's template runs it)
SETTINGS = ".claude/settings.json"
CODEX_HOOKS = ".codex/hooks.json"
EVENTS = {SETTINGS: "UserPromptExpansion", CODEX_HOOKS: "UserPromptSubmit"}  # N5: where our handler goes
SETTINGS_LIMIT = 1 << 20  # N4: a settings or hooks file over 1 MiB is refused, never read on
SKILL_FILE_LIMIT = 1 << 20  # N7: a skill file adopt compares is read no further than this
RECORD_NAME = ".adopted.json"  # N13: in the skill folder, beside what it describes
RECORD = SKILL_DIR + "/" + RECORD_NAME
FOLDERS = (".claude", ".claude/skills")  # the folders above the skill that adopt may create
COPY = "scripts/sage_flags"  # N6: the runtime copy, in the skill folder beside the wrapper (scripts/sage-flags)
PACKAGE = os.path.dirname(os.path.abspath(__file__))  # the running package: the copy's source
WRAPPER_TEMPLATE = os.path.join(PACKAGE, "adopted", "wrapper.sh")  # package data (N6), read as a file
_ADDED = ("handler", "group", "event", "hooks", "file")  # _settings_edit.ADDED (kept a leaf: no import of it)


class Refusal(Exception):
    """N4: nothing is written; status 3 and this one line."""


def safe_path(root: str, rel: str) -> str:
    """N9: no component of REL below ROOT may be a symbolic link (we never write through a planted link)."""
    path = root
    for part in rel.split("/"):
        path = os.path.join(path, part)
        if os.path.islink(path):
            raise Refusal("%s is a symbolic link; not writing through it" % os.path.relpath(path, root))
    return path


def read_file(root: str, rel: str, limit: int) -> "Optional[Tuple[bytes, os.stat_result]]":
    """N9: look before reading: REL's bytes and stat, None when absent; a link (on the way or at the end), a
    FIFO, a device, a directory or a file over LIMIT bytes refuses, unread (opened without blocking)."""
    try:
        return _io.read_regular_file(safe_path(root, rel), limit, rel)
    except _io.UnsafeFile as error:
        raise Refusal("%s; left untouched" % error) from None


def remove_dead_writers_temp_files(root: str) -> None:
    """P6, P6.1, N9: the temp files killed writers left in every folder adopt writes in (``.claude``, ``.codex``,
    the skill folder and all below it), whatever file each was for; a live writer's are kept."""
    for folder in (".claude", ".codex", SKILL_DIR):
        _io.remove_stale_temp_files_in(os.fsencode(os.path.join(root, folder)), folder == SKILL_DIR)


def runtime_copy() -> "Dict[str, bytes]":
    """N6: the running package's pure-Python files and data, as the runtime copy holds them (relative to the skill
    folder -> bytes): every ``.py`` file beside this module and every file of its data folders (``adopted/``,
    ``bash/``, ``skill/``), never compiled code (``_native*``), ``__pycache__``, bytecode or a hidden file. The
    same whether the package runs from a wheel or from a bundle's ``_vendor/``."""
    files = {}
    for folder, dirs, names in os.walk(PACKAGE):
        dirs[:] = [name for name in dirs if name != "__pycache__" and not name.startswith(".")]
        inside = os.path.relpath(folder, PACKAGE).replace(os.sep, "/")
        for name in names:
            if name.startswith((".", "_native")) or name.endswith((".pyc", ".pyo", ".so", ".pyd")):
                continue
            if inside == "." and not name.endswith(".py"):  # py.typed, _native.pyi: for type checkers only
                continue
            with open(os.path.join(folder, name), "rb") as handle:
                files[COPY + "/" + (name if inside == "." else inside + "/" + name)] = handle.read()
    return files


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# ---------------------------------------------------------------------------------------------------------
# The record (N13): {"created": [folders], "hooks": {file: {"added": ..., "inside": ...}}, "skill": {rel: sha256}}


def read_record(root: str) -> "Optional[dict]":
    """The record, None when there is none; Refusal for one adopt did not write (nothing is guessed)."""
    found = read_file(root, RECORD, SKILL_FILE_LIMIT)
    if found is None:
        return None
    try:
        record = json.loads(found[0].decode("utf-8"))
        folders, hooks, skill = record["created"], record["hooks"], record["skill"]
        assert isinstance(folders, list) and set(folders) <= set(FOLDERS)
        assert isinstance(hooks, dict) and set(hooks) <= set(EVENTS)
        for fact in hooks.values():
            assert fact["added"] in _ADDED and isinstance(fact.get("inside", ""), str)
            assert not fact.get("inside", "").strip(" \t\r\n")
        assert isinstance(skill, dict) and all(isinstance(v, str) for v in skill.values())
        assert all(isinstance(k, str) and ".." not in k.split("/") and not k.startswith("/") for k in skill)
    except (ValueError, KeyError, TypeError, AssertionError, AttributeError):
        raise Refusal(
            "%s is not a record sage-flags adopt wrote; left untouched (delete it to go on)" % RECORD
        ) from None
    return record


def record_bytes(
    folders: "Iterable[str]",
    hooks: "Dict[str, Dict[str, str]]",
    skill: "Dict[str, bytes]",
    parser: "Optional[Dict[str, object]]" = None,
) -> bytes:
    """PARSER (N2, N6): the adopted vocabulary, the project's parser file(s) and their fingerprint."""
    record = {
        "about": "what sage-flags adopt created here; sage-flags adopt --undo reads it to remove exactly that",
        "created": sorted(set(folders)),
        "hooks": hooks,
        "skill": {rel: digest(data) for rel, data in sorted(skill.items())},
        **(parser or {}),
    }
    return record_as(record)


def record_as(record: dict) -> bytes:
    return (json.dumps(record, indent=2, sort_keys=True) + "\n").encode("utf-8")


def merged_hooks(old: "Optional[dict]", new: "Dict[str, Tuple[str, str]]") -> "Dict[str, Dict[str, str]]":
    """Per file, the most adopt ever added there (this run's on a tie: the file as it was just before it)."""
    facts = dict(old["hooks"]) if old else {}
    for rel, (added, inside) in new.items():
        before = facts.get(rel)
        if before is None or _ADDED.index(added) >= _ADDED.index(before["added"]):
            facts[rel] = {"added": added, **({"inside": inside} if inside else {})}
    return facts
