"""A real YAML parser (PyYAML) as the oracle of persist and resume (issue 18, SPEC P9, R1).

Written apart from manifest.py and persist.sh on purpose: it finds the frontmatter by the fence rule of P3
and lets PyYAML read it. For a manifest whose frontmatter is valid YAML (a mapping, or empty):
- persist with status 0 leaves a frontmatter that loads as the old mapping with exactly the persisted
  entries under `flags`, and the body byte-identical; any other status leaves the file byte-identical
  (checked by the callers);
- every mode resume reports with source "manifest" has that value under `flags` for PyYAML.
"""

from __future__ import annotations

import json
import re
from typing import Dict, List, Optional, Tuple

import yaml
from sage_flags._vocab import MODES, VALUE_MODES

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


def persisted_entries(line: bytes) -> Dict[str, object]:
    """What persist records for this contract line: each mode's value, and each value mode's number."""
    fields = json.loads(line)
    entries: Dict[str, object] = {key: fields[key] for key, _ in MODES}
    for row in VALUE_MODES:
        entries[row.field] = fields[row.field]
    return entries


def check_persist(before: Optional[bytes], line: bytes, status: int, after: Optional[bytes]) -> bool:
    """Assert the oracle for one persist run; False when it does not apply (the old frontmatter is not YAML)."""
    try:
        old_frontmatter, old_body = split(before)
        old = load(old_frontmatter)
    except NotYaml:
        return False
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
    flags = old.get("flags")
    assert flags is None or isinstance(flags, dict), "persist wrote into a flags value that is not a mapping"
    expected = dict(old)
    expected["flags"] = {**(flags or {}), **persisted_entries(line)}
    assert new == expected, "YAML reads %r, expected %r\nbefore: %r\nafter: %r" % (new, expected, before, after)
    return True


def check_resume(manifest: Optional[bytes], stdout: bytes) -> bool:
    """Assert the oracle for one resume run: every mode restored from the manifest is what PyYAML reads."""
    if not stdout:
        return False
    fields = json.loads(stdout)
    restored = [key for key, _ in MODES if fields[key + "_source"] == "manifest"]
    if not restored:
        return False
    try:
        flags = load(split(manifest)[0]).get("flags")
    except NotYaml:
        return False  # not YAML: nothing to agree with (resume reads line by line, P4)
    assert isinstance(flags, dict), "resume restored %s from a flags value that is not a mapping" % restored
    for key in restored:
        assert flags.get(key, _UNSET) is fields[key], "resume says %s: %r, YAML reads %r" % (
            key,
            fields[key],
            flags.get(key, "(nothing)"),
        )
    return True
