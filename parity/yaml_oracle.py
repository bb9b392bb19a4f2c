"""A real YAML parser (PyYAML) as the oracle of persist and resume (issue 18, SPEC P9, R1).

Written apart from manifest.py and persist.sh on purpose: it finds the frontmatter by the fence rule of P3
and lets PyYAML read it. For a manifest whose frontmatter is valid YAML (a mapping, or empty):
- persist with status 0 leaves a frontmatter that loads as the old mapping with exactly the persisted
  entries under `flags`, one top-level `flags` key as PyYAML composes it, and the body byte-identical; any
  other status leaves the file byte-identical (checked by the callers);
- resume restores exactly the modes PyYAML reads as booleans under `flags` (those no flag of its own set), with
  those values, or nothing at all (a front matter the whitelist of P11 refuses, R2).
For one PyYAML cannot load (Sage's own writers make such front matters, SPEC P11), persist with status 0 leaves
every line outside the `flags` block byte for byte.
"""

from __future__ import annotations

import json
import re
from typing import Dict, List, Optional, Tuple

import yaml
from sage_flags._vocab import NAMES
from sage_flags._vocabulary import Vocabulary, vocabulary

BOM = b"\xef\xbb\xbf"
FENCE = re.compile(rb"---[ \t]*\r?\n?")
_UNSET = object()


class NotYaml(Exception):
    """The frontmatter is not valid YAML, or not a mapping: the oracle has nothing to say."""


def split(data: Optional[bytes]) -> Tuple[Optional[bytes], bytes]:
    """(frontmatter text, or None when there is none; body bytes after it; BOM dropped). NotYaml for an
    opening fence without a closing one."""
    data = data or b""
    if data.startswith(BOM):
        data = data[len(BOM) :]
    lines = _lf_lines(data)
    if not lines or not FENCE.fullmatch(lines[0]):
        return None, data
    for index in range(1, len(lines)):
        if FENCE.fullmatch(lines[index]):
            return b"".join(lines[1:index]), b"".join(lines[index + 1 :])
    raise NotYaml("an unclosed frontmatter")


def _lf_lines(data: bytes) -> List[bytes]:
    parts = data.split(b"\n")
    lines = [part + b"\n" for part in parts[:-1]]
    return [*lines, parts[-1]] if parts[-1] else lines


def load(frontmatter: Optional[bytes]) -> dict:
    """The frontmatter's mapping ({} for none or an empty one); NotYaml when PyYAML cannot read it as one."""
    if frontmatter is None:
        return {}
    try:
        loaded = yaml.safe_load(frontmatter.decode("utf-8"))
    except (UnicodeDecodeError, yaml.YAMLError, RecursionError) as error:
        raise NotYaml(str(error)) from None
    if loaded is None:
        return {}
    if not isinstance(loaded, dict):
        raise NotYaml("not a mapping")
    return loaded


def vocabulary_of(fields: Dict[str, object]) -> Vocabulary:
    """The vocabulary a contract line's fields are those of (C16, V7: each vocabulary has its own)."""
    keys = [key for key in fields if key != "notes"]
    return next(v for v in map(vocabulary, NAMES) if keys == list(v.fields))


def top_level_keys(frontmatter: bytes) -> List[object]:
    """The keys of the front matter's root mapping as PyYAML composes it, repeats included (a loader keeps
    only the last of them: `flags` written twice loads as one)."""
    root = yaml.compose(frontmatter.decode("utf-8"), Loader=yaml.SafeLoader)
    return [key.value for key, _ in root.value] if isinstance(root, yaml.MappingNode) else []


def persisted_entries(line: bytes) -> Dict[str, object]:
    """What persist records for this contract line: each mode's value, and each value mode's number."""
    fields = json.loads(line)
    v = vocabulary_of(fields)
    entries: Dict[str, object] = {key: fields[key] for key, _ in v.modes}
    for row in v.value_modes:
        entries[row.field] = fields[row.field]
    return entries


_FLAGS_KEY = re.compile(rb"flags[ \t]*:")


def outside_flags(data: bytes) -> bytes:
    """The bytes with the top-level `flags:` line and the indented or blank lines right under it taken out."""
    lines = _lf_lines(data)
    kept: List[bytes] = []
    in_block = False
    for line in lines:
        if _FLAGS_KEY.match(line):
            in_block = True
            continue
        if in_block and (line[:1] in (b" ", b"\t") or not line.strip()):
            continue
        in_block = False
        kept.append(line)
    return b"".join(kept)


def check_persist(before: Optional[bytes], line: bytes, status: int, after: Optional[bytes]) -> bool:
    """Assert the oracle for one persist run; False when it does not apply (no front matter PyYAML loads, and
    not written)."""
    try:
        old_frontmatter, old_body = split(before)
        old = load(old_frontmatter)
    except NotYaml:
        if status != 0:
            assert after == before, "persist changed a manifest although its status was %d" % status
            return False
        assert after is not None and outside_flags(after) == outside_flags(before or b""), (
            "persist changed a line outside the flags block of a front matter YAML does not load:\n%r\n%r"
            % (before, after)
        )
        return True
    if status != 0:
        assert after == before, "persist changed a manifest although its status was %d" % status
        return True
    new_frontmatter, new_body = split(after)
    assert new_frontmatter is not None, "persist left no closed frontmatter"
    assert new_body == old_body, "persist changed the body: %r -> %r" % (old_body, new_body)
    try:
        new = load(new_frontmatter)
    except NotYaml as error:
        raise AssertionError("persist made the frontmatter invalid YAML: %s\n%s" % (error, after)) from None
    keys = top_level_keys(new_frontmatter)
    assert keys.count("flags") == 1, "persist left %d top-level flags keys: %r" % (keys.count("flags"), after)
    flags = old.get("flags")
    assert flags is None or isinstance(flags, dict), "persist wrote into a flags value that is not a mapping"
    expected = dict(old)
    expected["flags"] = {**(flags or {}), **persisted_entries(line)}
    assert new == expected, "YAML reads %r, expected %r\nbefore: %r\nafter: %r" % (new, expected, before, after)
    return True


def check_resume(manifest: Optional[bytes], stdout: bytes) -> bool:
    """Assert the oracle for one resume run: it restores exactly the booleans PyYAML reads under `flags` for
    the modes no flag set (each value mode's number too, where YAML holds one in range), or nothing."""
    if not stdout:
        return False
    fields = json.loads(stdout)
    v = vocabulary_of(fields)
    restored = {key: fields[key] for key, _ in v.modes if fields[key + "_source"] == "manifest"}
    try:
        flags = load(split(manifest)[0]).get("flags")
    except NotYaml:
        return False  # not YAML: nothing to agree with (resume reads line by line, P11)
    if fields["error"] is not None or not restored:
        return bool(restored)  # a parse error reads no manifest (R4); nothing restored: a refusal (R2)
    assert isinstance(flags, dict), "resume restored %s from a flags value that is not a mapping" % restored
    held = {
        key: flags[key]
        for key, _ in v.modes
        if fields[key + "_source"] != "flag" and type(flags.get(key, _UNSET)) is bool
    }
    assert restored == held, "resume restored %r, YAML reads %r" % (restored, held)
    for row in v.value_modes:
        number = flags.get(row.field, _UNSET)
        if restored.get(v.modes[row.mode][0]) and type(number) is int and row.minimum <= number <= row.cap:
            assert fields[row.field] == number, "resume says %s: %r, YAML reads %r" % (
                row.field,
                fields[row.field],
                number,
            )
    return True
