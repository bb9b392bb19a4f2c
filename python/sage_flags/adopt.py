"""``sage-flags adopt [--dry-run] [--vocabulary NAME]``: take sage-flags into the Sage project here (SPEC section 19).

Run at the root of a Sage project. It finds the project's Sage release (``sage/VERSION``; a Sage 1.1 layout has
``sage/core/flag_parser/`` and no VERSION) and so its vocabulary, then writes, under ``.claude/`` only (never
under ``sage/``, which ``sage update`` deletes and copies again):

- ``.claude/skills/flag-parser/``: the skill (Agent Skills form) and ``scripts/sage-flags``, a POSIX sh wrapper
  that finds sage-flags at run time (PATH, then the vendored ``sage/bin/sage-flags``) and names the vocabulary;
- the prompt hook in ``.claude/settings.json`` (the file a team commits; never ``settings.local.json``, which
  Sage rewrites), and in ``.codex/hooks.json`` where the project has ``.codex/``.

Everything is checked before anything is written: a file it cannot edit safely (invalid JSON, unreadable, a
symbolic link, a skill directory that is not ours) is left byte for byte, with status 3 and one stderr line.
A second run changes nothing. Writes are atomic (a temporary file in the same directory, then a rename).
"""

import json
import os
import re
import sys

from sage_flags import _vocab, _vocabulary
from sage_flags._io import OK, UsageError, _write
from sage_flags.hook_commands import ADOPTED_WRAPPER, codex_hook_command

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Dict, List, Optional, Sequence, Tuple

REFUSED = 3  # N4: nothing written (D19's status)
SKILL_DIR = ".claude/skills/flag-parser"
WRAPPER = ADOPTED_WRAPPER  # SKILL_DIR + "/scripts/sage-flags", named once in hook_commands (K9's template runs it)
SETTINGS = ".claude/settings.json"
CODEX_HOOKS = ".codex/hooks.json"
NO_VERSION_LAYOUT = "1.1-layout"  # N2: the release a project with sage/core/flag_parser/ and no sage/VERSION has
RELEASE = re.compile(r"^[0-9]+\.[0-9]+\.[0-9]+$")
# N5: what marks a hook entry as ours (a re-adoption replaces it in place; nothing else is touched): the wrapper,
# or the vendored launcher running `hook` (the shipped K9 files: Claude Code's exec form, Codex's script).
OUR_MARKS = (WRAPPER, "sage/bin/sage-flags hook", "sage/bin/sage-flags\u0000hook", 'sage/bin/sage-flags" hook')
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


class Refusal(Exception):
    """N4: nothing is written; status 3 and this one line."""


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
    """N2: ``sage/VERSION``'s first line without surrounding blanks (as the wrapper's ``read`` takes it), else
    NO_VERSION_LAYOUT for a Sage 1.1 layout, else None (no Sage project here)."""
    version = os.path.join(root, "sage", "VERSION")
    if os.path.isfile(version):
        try:
            with open(version, "rb") as handle:
                first = handle.read(4096).split(b"\n")[0].strip(b" \t")
        except OSError as error:
            raise Refusal("cannot read sage/VERSION (%s)" % error.strerror) from None
        return first.decode("utf-8", "replace")
    if os.path.isdir(os.path.join(root, "sage", "core", "flag_parser")):
        return NO_VERSION_LAYOUT
    return None


# ---------------------------------------------------------------------------------------------------------
# What is written


def wrapper_text(vocabulary: str, release: str) -> str:
    """N6: the wrapper, with the adopted vocabulary and release (both checked: no quoting is needed)."""
    from sage_flags._adopt_wrapper import WRAPPER_TEMPLATE

    text = WRAPPER_TEMPLATE.replace("@VOCABULARY@", vocabulary).replace("@RELEASE@", release)
    return text.replace("@STEP@", SAGE_STEPS[vocabulary])


def claude_command(vocabulary: str) -> str:
    """N5: the registered command: no one's install path; a missing wrapper is one notice, never a block."""
    return (
        'w="$CLAUDE_PROJECT_DIR/%s"; if [ -f "$w" ]; then exec sh "$w" --vocabulary %s hook claude-code'
        ' --config-path "$CLAUDE_PROJECT_DIR/.sage/config.yaml"; fi;'
        " printf '%%s\\n' '%s'" % (WRAPPER, vocabulary, missing_notice())
    )


def codex_command(vocabulary: str) -> str:
    """N5: the same for Codex: K9's one template, which finds the root at run time (the nearest folder up with
    `.codex/` and the wrapper) and runs the wrapper there; none found, status 0 and nothing (Codex runs it for
    every prompt, so a notice would be shown on every prompt)."""
    return codex_hook_command(vocabulary, adopted=True)


def missing_notice() -> str:
    return json.dumps(
        {
            "systemMessage": "sage-flags: %s is missing, so Sage parses the flags itself (run"
            " sage-flags adopt at the project root to restore it)" % WRAPPER
        }
    )


def skill_files(vocabulary: str, release: str) -> "Dict[str, Tuple[bytes, int]]":
    """N7: every file of the adopted skill directory, for the adopted vocabulary: relative path -> (content, mode)."""
    from sage_flags import _render

    rendered = _render.render(_render.load(vocabulary), "adopted")
    files = {rel: (text.encode("utf-8"), 0o644) for rel, text in rendered.items()}
    files["scripts/sage-flags"] = (wrapper_text(vocabulary, release).encode("utf-8"), 0o755)
    return files


# ---------------------------------------------------------------------------------------------------------
# Reading what is there (nothing is written until everything is read and checked)


def _safe_path(root: str, rel: str) -> str:
    """N9: no component of REL below ROOT may be a symbolic link (we never write through a planted link)."""
    path = root
    for part in rel.split("/"):
        path = os.path.join(path, part)
        if os.path.islink(path):
            raise Refusal("%s is a symbolic link; not writing through it" % os.path.relpath(path, root))
    return path


def _no_duplicates(pairs: "List[Tuple[str, object]]") -> dict:
    keys = [key for key, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ValueError("a key appears twice")
    return dict(pairs)


def read_json_object(root: str, rel: str) -> "Tuple[Optional[dict], Optional[bytes]]":
    """N4: (the object, its bytes), (None, None) when absent; anything else we could not keep whole refuses."""
    path = _safe_path(root, rel)
    if not os.path.lexists(path):
        return None, None
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as error:
        raise Refusal("cannot read %s (%s); left untouched" % (rel, error.strerror)) from None
    try:
        value = json.loads(data.decode("utf-8"), object_pairs_hook=_no_duplicates)
    except (ValueError, RecursionError):
        raise Refusal("%s is not valid JSON (or has a key twice); left untouched" % rel) from None
    if not isinstance(value, dict):
        raise Refusal("%s is not a JSON object; left untouched" % rel)
    hooks = value.get("hooks", {})
    if not isinstance(hooks, dict) or not all(isinstance(entries, list) for entries in hooks.values()):
        raise Refusal('%s: its "hooks" is not an object of lists; left untouched' % rel)
    return value, data


def _is_ours(entry: object) -> bool:
    if not isinstance(entry, dict) or not isinstance(entry.get("hooks"), list):
        return False
    for handler in entry["hooks"]:
        if isinstance(handler, dict):
            text = "\0".join([str(handler.get("command", ""))] + [str(arg) for arg in handler.get("args", []) or []])
            if any(mark in text for mark in OUR_MARKS):
                return True
    return False


def register(settings: "Optional[dict]", event: str, entry: dict) -> dict:
    """N5: SETTINGS with ENTRY as the one hook of ours under EVENT: an entry of ours already there (under any
    event) is replaced in place, or removed where EVENT has it; every other key and hook keeps its place."""
    result = dict(settings or {})
    hooks = dict(result.get("hooks", {}))
    placed = False
    for name in list(hooks):
        kept = []
        for item in hooks[name]:
            if not _is_ours(item):
                kept.append(item)
            elif name == event and not placed:
                kept.append(entry)
                placed = True
        hooks[name] = kept
    if not placed:
        hooks[event] = [*hooks.get(event, []), entry]
    result["hooks"] = hooks
    return result


def json_bytes(value: dict) -> bytes:
    """Sage's own form for .claude/settings.json (json.dump with indent=2), non-ASCII kept as it is."""
    return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


# ---------------------------------------------------------------------------------------------------------
# Writing


def write_atomically(path: str, data: bytes, mode: int) -> None:
    """N9: a temporary file beside PATH (created exclusively: no planted link is followed), then a rename."""
    import tempfile

    directory = os.path.dirname(path)
    os.makedirs(directory, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=".sage-flags-", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def _current_bytes(path: str) -> "Optional[bytes]":
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError:
        return None


def plan(root: str, vocabulary: "Optional[str]") -> "Tuple[List[str], List[Tuple[str, bytes, int]]]":
    """(the report's lines, the writes: relative path, content, mode); raises Refusal before any write."""
    release = project_release(root)
    if release is None:
        raise Refusal(
            "no Sage project here: neither sage/VERSION nor sage/core/flag_parser/ (run it at the project's root)"
        )
    if vocabulary is None:
        vocabulary = vocabulary_for_release(release)
        if vocabulary is None:
            raise Refusal(
                "Sage release %r is not one sage-flags knows (%s); choose a vocabulary by hand:"
                " sage-flags adopt --vocabulary NAME (%s)" % (release, KNOWN_RELEASES, ", ".join(VOCABULARIES))
            )
    if not re.match(r"^[A-Za-z0-9.-]+$", release):
        release = "unrecognised"  # as the wrapper names it: never a string that needs quoting
    shown = "a Sage 1.1 layout (no sage/VERSION)" if release == NO_VERSION_LAYOUT else "Sage " + release
    lines = ["sage-flags adopt: %s, vocabulary %s" % (shown, vocabulary)]
    writes: List[Tuple[str, bytes, int]] = []

    # The skill directory: ours (our frontmatter), or absent, or a link README once suggested (into sage/).
    skill = os.path.join(root, SKILL_DIR)
    _safe_path(root, ".claude/skills")
    if os.path.islink(skill):
        raise Refusal("%s is a symbolic link; remove it (sage-flags adopt writes the skill there itself)" % SKILL_DIR)
    existing = _current_bytes(os.path.join(skill, "SKILL.md"))
    if os.path.exists(skill) and (existing is None or b"project: sage-flags" not in existing):
        raise Refusal("%s exists and is not sage-flags' skill; left untouched" % SKILL_DIR)
    changed = []
    for rel, (data, mode) in sorted(skill_files(vocabulary, release).items()):
        _safe_path(root, SKILL_DIR + "/" + rel)
        path = os.path.join(skill, rel)
        if _current_bytes(path) != data or (os.stat(path).st_mode & 0o777) != mode:
            writes.append((SKILL_DIR + "/" + rel, data, mode))
            changed.append(rel)
    lines.append(
        ("  skill: %s/ (%d files written)" % (SKILL_DIR, len(changed)))
        if changed
        else "  skill: %s/ unchanged" % SKILL_DIR
    )

    targets = [(SETTINGS, "UserPromptExpansion", {"matcher": CLAUDE_MATCHER}, claude_command(vocabulary))]
    if os.path.isdir(os.path.join(root, ".codex")):
        targets.append((CODEX_HOOKS, "UserPromptSubmit", {}, codex_command(vocabulary)))
    else:
        lines.append("  codex: no .codex/ here, no Codex hook")
    for rel, event, head, command in targets:
        settings, data = read_json_object(root, rel)
        entry = {**head, "hooks": [{"type": "command", "command": command, "timeout": HOOK_TIMEOUT}]}
        updated = register(settings, event, entry)
        if settings is not None and updated == settings:
            lines.append("  hook: %s unchanged (%s)" % (rel, event))
            continue
        path = os.path.join(root, rel)
        mode = (os.stat(path).st_mode & 0o777) if data is not None else 0o644
        writes.append((rel, json_bytes(updated), mode))
        lines.append("  hook: %s %s (%s, /build and /architect)" % (rel, "updated" if data else "written", event))
    return lines, writes


def _options(items: "Sequence[bytes]") -> "Tuple[bool, Optional[str]]":
    dry_run, vocabulary = False, None
    rest = list(items)
    while rest:
        item = rest.pop(0)
        if item == b"--dry-run":
            dry_run = True
        elif item == b"--vocabulary" or item.startswith(b"--vocabulary="):
            value = item.partition(b"=")[2] if b"=" in item else (rest.pop(0) if rest else None)
            if value is None:
                raise UsageError("--vocabulary needs a value")
            name = value.decode("utf-8", "replace")
            if name not in VOCABULARIES:
                raise UsageError("unknown vocabulary %r (known: %s)" % (name, ", ".join(VOCABULARIES)))
            vocabulary = name
        else:
            raise UsageError("adopt takes only --dry-run and --vocabulary NAME")
    return dry_run, vocabulary


def run_adopt(items: "Sequence[bytes]", _name: str = "") -> int:  # its own --vocabulary or the release decides
    dry_run, vocabulary = _options(items)
    root = os.getcwd()
    try:
        lines, writes = plan(root, vocabulary)
    except Refusal as refusal:
        sys.stderr.write("sage-flags: adopt: %s\n" % refusal)
        return REFUSED
    if dry_run:
        lines = [line.replace(" written", " to write").replace(" updated", " to update") for line in lines]
        lines.append("  (dry run: nothing written)")
    else:
        try:
            for rel, data, mode in writes:
                write_atomically(os.path.join(root, rel), data, mode)
        except OSError as error:
            sys.stderr.write("sage-flags: adopt: cannot write %s (%s)\n" % (error.filename or "", error.strerror))
            return REFUSED
        if not writes:
            lines.append("  nothing to do: already adopted")
    _write(("\n".join(lines) + "\n").encode("utf-8"))
    return OK
