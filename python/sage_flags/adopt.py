"""``sage-flags adopt [--dry-run] [--vocabulary NAME [--no-verify] | --undo | --check]``: sage-flags into the Sage
project here (SPEC 19).

Run at the root of a Sage project, which it recognises by Sage's own files only (N2): ``sage/VERSION`` (1.3 and
later), else Sage 1.1's ``sage/core/workflows/`` and ``sage/core/registry.yaml``. It adopts the vocabulary that
agrees with the project's own flag-parsing step (``_adopt_verify``, N2: the release's is tried first), then
writes, under ``.claude/`` only (never under ``sage/``, which ``sage update`` deletes and copies again):

- ``.claude/skills/flag-parser/``: the skill (Agent Skills form), ``scripts/sage-flags``, a POSIX sh wrapper
  that names the vocabulary, and ``scripts/sage_flags/``, a copy of the running package (its pure-Python files
  and data) that the wrapper runs with python3, or its bash port with bash, where no sage-flags of its version is
  installed: the folder is self-contained, for a teammate's clone and after ``sage update`` alike (N6);
- the prompt hook in ``.claude/settings.json`` (the file a team commits; never ``settings.local.json``, which
  Sage rewrites), and in ``.codex/hooks.json`` where the project has ``.codex/``.

Everything is checked before anything is written: a file it cannot edit safely (not strict JSON, unreadable,
a symbolic link, not a regular file, too large, a skill directory that is not ours) is left byte for byte,
with status 3 and one stderr line. Settings are edited in place (``_settings_edit``: every byte outside our
handler kept). A second run changes nothing. Writes are the one atomic write (``_io.write_atomically``).
It keeps a record of what it created (``_adopt_files``, N13), which ``adopt --undo`` (``_adopt_undo``) reads.
"""

import json
import os
import re

from sage_flags import _adopt_files, _adopt_verify, _io, _settings_edit, _vocab, _vocabulary, _vocabulary_name
from sage_flags._adopt_files import (
    CODEX_HOOKS,
    FOLDERS,
    RECORD,
    RECORD_NAME,
    REFUSED,
    SETTINGS,
    SETTINGS_LIMIT,
    SKILL_DIR,
    SKILL_FILE_LIMIT,
    WRAPPER,
    Refusal,
    read_file,
)
from sage_flags._adopt_files import safe_path as _safe_path
from sage_flags._io import OK, UsageError, _write
from sage_flags._strict_json import NotStrictJson
from sage_flags.hook_commands import (
    CLAUDE_CODE_ARGS,
    CLAUDE_CODE_LAUNCHERS,
    VOCABULARIES_EVER,
    codex_commands_ever_written,
    codex_hook_command,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Dict, FrozenSet, List, Optional, Sequence, Tuple

    from sage_flags._settings_edit import Form

    # (relative path, content, mode to keep or None for a new file, owner to keep, a new file's mode)
    Write = Tuple[str, bytes, Optional[int], Optional[Tuple[int, int]], int]

NO_VERSION_LAYOUT = "1.1-layout"  # N2: the release of a Sage 1.1 project (Sage's own files, no sage/VERSION)
RELEASE = re.compile(r"^[0-9]+\.[0-9]+\.[0-9]+$")
RELEASE_LINE_LIMIT = 256  # N2: sage/VERSION's first line ends within its first 256 bytes (the wrapper reads as many)
CHECKED = re.compile(r"^[A-Za-z0-9.-]+$")  # N6: a release as the wrapper takes it (anything else: "unrecognised")
PATH_TEXT = re.compile(r"^[A-Za-z0-9._/-]+$")  # N6.4: the parser's path in the project, as the wrapper holds it
VERSION_TEXT = re.compile(r"^[A-Za-z0-9.+-]+$")  # N6: a version as the wrapper reads one from `--version`
CLAUDE_MATCHER = "^(sage:)?(build|architect)$"  # K3: the workflows' commands, and a Sage plugin's
HOOK_TIMEOUT = 10
# N10: the command each Sage release's /build and /architect run to read their flags (no quote, no backslash).
SAGE_STEPS = {
    "sage-1.1": "`python -m core.flag_parser parse`",
    "sage-1.3": "`python3 sage/runtime/tools/sage_flags.py parse`",
    "sage-1.3.18": "`python3 sage/runtime/tools/sage_flags.py parse`",
}
# The vocabularies `--vocabulary` may name: every one this build carries (docs/SPEC.md B1).
VOCABULARIES = _vocab.NAMES


def vocabulary_for_release(release: str) -> "Optional[str]":
    """N2: the vocabulary of a Sage release (B5's generated table), or None for a release outside it."""
    if release == NO_VERSION_LAYOUT:
        return "sage-1.1"
    return _vocabulary.vocabulary_for_release(release) if RELEASE.match(release) else None


def _span(first: "Tuple[int, ...]", last: "Optional[Tuple[int, ...]]") -> str:
    start = ".".join(map(str, first))
    if last is None:
        return start + " and later"
    return "%s-%s" % (start, ".".join(map(str, last)) + ".x" * (len(last) == 2))


KNOWN_RELEASES = ", ".join("Sage %s (%s)" % (_span(first, last), name) for first, last, name in _vocab.RELEASES)


def project_release(root: str) -> "Optional[str]":
    """N2: the project's Sage release, read as the wrapper reads it: ``sage/VERSION``'s first line (its end within
    the first RELEASE_LINE_LIMIT bytes, NUL bytes dropped as a shell's ``$(...)`` drops them, blanks around it
    dropped), else NO_VERSION_LAYOUT for a Sage 1.1 project (Sage's own ``sage/core/workflows/`` and
    ``sage/core/registry.yaml``; never ``sage/core/flag_parser/``, which the bundle lays down), else None."""
    version = os.path.join(root, "sage", "VERSION")
    if os.path.isfile(version):
        try:
            with open(version, "rb") as handle:
                head = handle.read(RELEASE_LINE_LIMIT).replace(b"\0", b"")
        except OSError as error:
            raise Refusal("cannot read sage/VERSION (%s)" % error.strerror) from None
        if b"\n" not in head and len(head) >= RELEASE_LINE_LIMIT:
            raise Refusal("sage/VERSION's first line is %d bytes or longer: no Sage release" % RELEASE_LINE_LIMIT)
        return head.split(b"\n")[0].strip(b" \t").decode("utf-8", "replace")
    core = os.path.join(root, "sage", "core")
    if os.path.isdir(os.path.join(core, "workflows")) and os.path.isfile(os.path.join(core, "registry.yaml")):
        return NO_VERSION_LAYOUT
    return None


# ---------------------------------------------------------------------------------------------------------
# What is written


def wrapper_text(vocabulary: str, release: str, parser: str = "", fingerprint: str = "") -> str:
    """N6: the wrapper (package data, adopted/wrapper.sh) with the adopted vocabulary and release, this sage-flags'
    version, the step's command, and the parser file and its fingerprint it watches (N6.4; empty: none), each
    checked here (so none needs quoting)."""
    import sage_flags

    values = {"VOCABULARY": vocabulary, "RELEASE": release, "VERSION": sage_flags.__version__}
    values.update(PARSER=parser, FINGERPRINT=fingerprint.replace(" ", "-"))
    for name, value in values.items():
        if value and not {"VERSION": VERSION_TEXT, "PARSER": PATH_TEXT}.get(name, CHECKED).match(value):
            raise ValueError("not a value the wrapper can hold unquoted: %s=%r" % (name, value))
    with open(_adopt_files.WRAPPER_TEMPLATE, encoding="utf-8") as handle:
        text = handle.read()
    for name, value in dict(values, STEP=SAGE_STEPS[vocabulary]).items():
        text = text.replace("@%s@" % name, value)
    return text


def claude_command(vocabulary: str) -> str:
    """N5: the registered command: no one's install path; a missing wrapper is one notice, never a block."""
    return (
        'w="$CLAUDE_PROJECT_DIR/%s"; if [ -f "$w" ]; then exec sh "$w" --vocabulary %s hook claude-code'
        ' --config-path "$CLAUDE_PROJECT_DIR/.sage/config.yaml"; fi;'
        " printf '%%s\\n' '%s'" % (WRAPPER, vocabulary, missing_notice())
    )


def codex_command(vocabulary: str) -> str:
    """N5: the same for Codex: K9's one template, which finds the root at run time (the nearest folder up with
    `.codex/hooks.json`, never above `.git`) and runs the wrapper there if the person owns it; else status 0 and
    nothing (Codex runs it for every prompt, so a notice would be shown on every prompt)."""
    return codex_hook_command(vocabulary, adopted=True)


def missing_notice() -> str:
    return json.dumps(
        {
            "systemMessage": "sage-flags: %s is missing, so Sage parses the flags itself (run"
            " sage-flags adopt at the project root to restore it)" % WRAPPER
        }
    )


def skill_files(
    vocabulary: str, release: str, parser: str = "", fingerprint: str = ""
) -> "Dict[str, Tuple[bytes, int]]":
    """N6/N7: every file of the adopted skill directory, for the adopted vocabulary: relative path -> (content,
    the mode a new file gets before the umask: 0666, the wrapper 0777; N9). The runtime copy included."""
    from sage_flags import _render

    rendered = _render.render(_render.load(vocabulary), "adopted")
    files = {rel: (text.encode("utf-8"), 0o666) for rel, text in rendered.items()}
    files.update((rel, (data, 0o666)) for rel, data in _adopt_files.runtime_copy().items())
    files["scripts/sage-flags"] = (wrapper_text(vocabulary, release, parser, fingerprint).encode("utf-8"), 0o777)
    return files


# ---------------------------------------------------------------------------------------------------------
# Reading what is there (nothing is written until everything is read and checked)


def forms_ever_written() -> "FrozenSet[Form]":
    """N5's closed list: (command, args) of every handler adopt or a shipped K9 file has ever written, for
    every vocabulary (and none, where a form has none). A handler is ours when it is exactly one of these."""
    commands = [claude_command(name) for name in sorted(set(VOCABULARIES_EVER) | set(VOCABULARIES))]
    commands += codex_commands_ever_written()  # K9: every Codex form, the retired ones included
    forms = {(command, None) for command in commands}
    return frozenset(forms | {(launcher, CLAUDE_CODE_ARGS) for launcher in CLAUDE_CODE_LAUNCHERS})


def settings_plan(
    root: str, rel: str, event: str, group: dict
) -> "Tuple[Optional[Tuple[bytes, Optional[int], object]], Tuple[str, str]]":
    """N4/N5: (the new bytes, the mode to keep, the owner to keep) of REL with our handler, None when REL
    already holds exactly it; and what that adds (N13's record); Refusal (nothing written) for a file we
    cannot edit in place."""
    found = read_file(root, rel, SETTINGS_LIMIT)
    if found is None:
        return (_settings_edit.new_file(event, group), None, None), ("file", "")
    data, info = found
    try:
        added = _settings_edit.what_register_adds(data, event, forms_ever_written())
        updated = _settings_edit.register(data, event, group, forms_ever_written())
    except NotStrictJson as error:
        raise Refusal("%s %s; left untouched" % (rel, error)) from None
    if updated == data:
        return None, added
    return (updated, info.st_mode & 0o7777, (info.st_uid, info.st_gid)), added


def _skill_writes(root: str, files: "Dict[str, Tuple[bytes, int]]") -> "List[Write]":
    """N7: the skill files to write (new, changed, or a wrapper that lost its execute bit)."""
    _safe_path(root, ".claude/skills")
    if os.path.islink(os.path.join(root, SKILL_DIR)):
        raise Refusal("%s is a symbolic link; remove it (sage-flags adopt writes the skill there itself)" % SKILL_DIR)
    found = read_file(root, SKILL_DIR + "/SKILL.md", SKILL_FILE_LIMIT)
    if os.path.lexists(os.path.join(root, SKILL_DIR)):
        ours = b"project: sage-flags" in found[0] if found else _only_ours(os.path.join(root, SKILL_DIR), files)
        if not ours:
            raise Refusal("%s exists and is not sage-flags' skill; left untouched" % SKILL_DIR)
    writes: List[Write] = []
    # SKILL.md last: it says the directory is ours, so an adopt killed before it leaves only files of ours.
    for rel, (data, new_mode) in sorted(files.items(), key=lambda item: (item[0] == "SKILL.md", item[0])):
        found = read_file(root, SKILL_DIR + "/" + rel, SKILL_FILE_LIMIT)
        if found is None:
            writes.append((SKILL_DIR + "/" + rel, data, None, None, new_mode))
            continue
        old, info = found
        mode = info.st_mode & 0o7777
        if new_mode & 0o100 and not mode & 0o100:  # the wrapper lost its execute bits: those the umask allows
            mode |= (0o111 & ~_io.current_umask()) | 0o100
        if old != data or mode != info.st_mode & 0o7777:
            writes.append((SKILL_DIR + "/" + rel, data, mode, (info.st_uid, info.st_gid), new_mode))
    return writes


def _only_ours(skill: str, files: "Dict[str, Tuple[bytes, int]]") -> bool:
    """A skill directory without SKILL.md (an adopt killed before writing it) is ours when it holds nothing but
    our files and our temporary files, in our folders, and no link."""
    for folder, dirs, names in os.walk(skill):
        rel_folder = os.path.relpath(folder, skill)
        for name in names + dirs:
            rel = name if rel_folder == "." else rel_folder + "/" + name
            if os.path.islink(os.path.join(folder, name)):
                return False
            mine = rel in files or rel == RECORD_NAME or any(key.startswith(rel + "/") for key in files)
            if not (mine or _io.is_temp_name(os.fsencode(name))):
                return False
    return True


def _stale_files(root: str, old: "Optional[dict]", files: "Dict[str, Tuple[bytes, int]]") -> "List[str]":
    """N6: the files an earlier adopt wrote that this one does not (a module the upgraded package no longer has),
    where they are still as written (a changed one is the person's: kept, and undo says so)."""
    stale = []
    for rel, written in sorted(old["skill"].items() if old else []):
        if rel not in files:
            found = read_file(root, SKILL_DIR + "/" + rel, SKILL_FILE_LIMIT)
            if found is not None and _adopt_files.digest(found[0]) == written:
                stale.append(SKILL_DIR + "/" + rel)
    return stale


def plan(root: str, vocabulary: "Optional[str]", verify: bool = True) -> "Tuple[List[str], List[str], List[Write]]":
    """(the report's lines, the files to remove, the writes); raises Refusal before any change. N2: the vocabulary
    is the first that agrees with the project's own step (B5's guess tried first); VERIFY False (--no-verify) takes
    VOCABULARY."""
    release = project_release(root)
    if release is None:
        raise Refusal(
            "no Sage project here: neither sage/VERSION nor Sage 1.1's sage/core/workflows/ and"
            " sage/core/registry.yaml (run it at the project's root)"
        )
    guess = vocabulary_for_release(release)
    vocabulary, verified = _adopt_verify.choose(root, vocabulary, guess, verify)
    if vocabulary is None:  # our own drop-in answers, in a release outside B5's table: nothing tells its vocabulary
        raise Refusal(
            "Sage release %r is not one sage-flags knows (%s); choose a vocabulary by hand:"
            " sage-flags adopt --vocabulary NAME (%s)" % (release, KNOWN_RELEASES, ", ".join(VOCABULARIES))
        )
    if not CHECKED.match(release):
        release = "unrecognised"  # as the wrapper names it: never a string that needs quoting
    shown = "a Sage 1.1 project (no sage/VERSION)" if release == NO_VERSION_LAYOUT else "Sage " + release
    lines = ["sage-flags adopt: %s, vocabulary %s" % (shown, vocabulary), *verified]

    created = [folder for folder in FOLDERS if not os.path.lexists(os.path.join(root, folder))]
    watched = _adopt_verify.parser_files(root)  # N6.4: the one file the wrapper watches (none: our own drop-in)
    found_fingerprint = _adopt_verify.fingerprint(root) if len(watched) == 1 else None
    files = skill_files(vocabulary, release, *((watched[0], found_fingerprint) if found_fingerprint else ()))
    writes = _skill_writes(root, files)
    old_record = _adopt_files.read_record(root)
    stale = _stale_files(root, old_record, files)
    if writes or stale:
        removed = " (%d files written, %d removed)" % (len(writes), len(stale)) if stale else ""
        lines.append("  skill: %s/%s" % (SKILL_DIR, removed or " (%d files written)" % len(writes)))
    else:
        lines.append("  skill: %s/ unchanged" % SKILL_DIR)
    targets = [(SETTINGS, "UserPromptExpansion", {"matcher": CLAUDE_MATCHER}, claude_command(vocabulary))]
    if os.path.isdir(os.path.join(root, ".codex")):
        targets.append((CODEX_HOOKS, "UserPromptSubmit", {}, codex_command(vocabulary)))
    else:
        lines.append("  codex: no .codex/ here, no Codex hook")
    facts = {}
    for rel, event, head, command in targets:
        group = {**head, "hooks": [{"type": "command", "command": command, "timeout": HOOK_TIMEOUT}]}
        change, facts[rel] = settings_plan(root, rel, event, group)
        if change is None:
            lines.append("  hook: %s unchanged (%s)" % (rel, event))
            continue
        data, mode, owner = change
        writes.append((rel, data, mode, owner, 0o666))
        shown = "updated" if mode is not None else "written"
        lines.append("  hook: %s %s (%s, /build and /architect)" % (rel, shown, event))
    record = _record_write(root, old_record, created, facts, files, vocabulary)
    if record:
        lines.append("  record: %s written (what adopt created, for sage-flags adopt --undo)" % RECORD)
    return lines, stale, record + writes


def _record_write(
    root: str,
    old: "Optional[dict]",
    created: "List[str]",
    facts: "Dict[str, Tuple[str, str]]",
    files: "Dict[str, Tuple[bytes, int]]",
    vocabulary: str,
) -> "List[Write]":
    """N13: the record of what adopt created, first (an adopt killed after it leaves a record that claims
    only what undo removes when it is empty), or nothing when it already says exactly that."""
    folders = created + (old["created"] if old else [])
    skill = {rel: data for rel, (data, _) in files.items()}
    parser = {"vocabulary": vocabulary, "parser": _adopt_verify.parser_files(root)}  # N2, N6: for --check, the wrapper
    found_fingerprint = _adopt_verify.fingerprint(root)
    if found_fingerprint is not None:
        parser["fingerprint"] = found_fingerprint
    data = _adopt_files.record_bytes(folders, _adopt_files.merged_hooks(old, facts), skill, parser)
    found = read_file(root, RECORD, SKILL_FILE_LIMIT)
    if found is None:
        return [(RECORD, data, None, None, 0o666)]
    if found[0] == data:
        return []
    return [(RECORD, data, found[1].st_mode & 0o7777, (found[1].st_uid, found[1].st_gid), 0o666)]


class Adopted:
    """What undo (``_adopt_undo``, which does not import this module) needs of adopt's own knowledge."""

    def __init__(self) -> None:
        self.forms = forms_ever_written()
        self.vocabularies = VOCABULARIES
        self.skill_files = skill_files

    @staticmethod
    def is_sage_project(root: str) -> bool:
        try:
            return project_release(root) is not None
        except Refusal:  # a sage/VERSION adopt cannot read or take: Sage's file all the same
            return True


def _options(items: "Sequence[bytes]") -> "Tuple[bool, Optional[str], bool]":
    dry_run, vocabulary, undo = False, None, False
    rest = [item for item in items if item not in (b"--check", b"--no-verify")]  # N2: _verify_options reads them
    while rest:
        item = rest.pop(0)
        if item == b"--dry-run":
            dry_run = True
        elif item == b"--undo":
            undo = True
        elif item == b"--vocabulary" or item.startswith(b"--vocabulary="):
            value = item.partition(b"=")[2] if b"=" in item else (rest.pop(0) if rest else None)
            vocabulary = _vocabulary_name.judged(value, vocabulary)  # B3: the one reading of a name
        else:
            raise UsageError("adopt takes only --dry-run, --vocabulary NAME, --no-verify, --check and --undo")
    if undo and vocabulary is not None:
        raise UsageError("adopt --undo takes only --dry-run (it removes what adopt wrote, for any vocabulary)")
    return dry_run, vocabulary, undo


def _verify_options(items: "Sequence[bytes]", named: "Optional[str]", undo: bool) -> "Tuple[bool, bool]":
    """N2: (--check, whether to verify); --check alone, --no-verify only with a named vocabulary."""
    check, no_verify = b"--check" in items, b"--no-verify" in items
    if check and len(items) > 1:
        raise UsageError("adopt --check takes no other option (it verifies the adopted vocabulary, writing nothing)")
    if no_verify and undo:
        raise UsageError("adopt --undo takes only --dry-run (it removes what adopt wrote, for any vocabulary)")
    if no_verify and named is None:
        raise UsageError("adopt --no-verify needs a vocabulary: sage-flags adopt --vocabulary NAME --no-verify")
    return check, not no_verify


def _remove_emptied_folders(root: str, rel: str) -> None:
    """The folders below the skill folder that a stale file's removal left empty (a data folder an upgrade
    dropped)."""
    while rel.startswith(SKILL_DIR + "/") and not os.listdir(os.path.join(root, rel)):
        os.rmdir(os.path.join(root, rel))
        rel = os.path.dirname(rel)


def run_adopt(items: "Sequence[bytes]", named: "Optional[str]" = None) -> int:
    """N1: NAMED is the vocabulary the call named before `adopt` (B2); adopt's own --vocabulary wins over it, and
    with neither the project's release decides (N2). --undo (N13) takes no vocabulary: it removes any."""
    dry_run, vocabulary, undo = _options(items)
    vocabulary = vocabulary or named
    check, verify = _verify_options(items, vocabulary, undo)
    root = os.getcwd()
    if check:  # N2.2
        try:
            lines = _adopt_verify.check(root)
        except Refusal as refusal:
            _io.say("sage-flags: adopt --check: %s\n" % refusal)
            return REFUSED
        _write(("\n".join(lines) + "\n").encode("utf-8"))
        return OK
    if undo:
        from sage_flags import _adopt_undo

        return _adopt_undo.run_undo(root, dry_run, Adopted())
    try:
        lines, stale, writes = plan(root, vocabulary, verify)
    except Refusal as refusal:
        _io.say("sage-flags: adopt: %s\n" % refusal)
        return REFUSED
    if dry_run:
        shown = [line.replace(" written", " to write").replace(" updated", " to update") for line in lines]
        lines = [line.replace(" removed)", " to remove)") for line in shown] + ["  (dry run: nothing written)"]
    else:
        _adopt_files.remove_dead_writers_temp_files(root)  # N9: whether or not this run writes there
        rel = ""
        try:
            for rel in stale:  # first: a record written before them would no longer name them
                os.unlink(os.path.join(root, rel))
                _remove_emptied_folders(root, os.path.dirname(rel))
            for rel, data, mode, owner, new_mode in writes:
                path = os.path.join(root, rel)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                _io.write_atomically(os.fsencode(path), data, mode, owner, new_mode)
        except OSError as error:
            _io.say("sage-flags: adopt: cannot write %s (%s)\n" % (os.fsdecode(error.filename or rel), error.strerror))
            return REFUSED
        if not writes and not stale:
            lines.append("  nothing to do: already adopted")
    _write(("\n".join(lines) + "\n").encode("utf-8"))
    return OK
