"""What persist and resume carry, as values: the contract line persist reads (P1, C15-C18, V4-V6), the value
tokens it writes for a vocabulary's modes (P4), the values resume reads back as YAML 1.1 reads them (R1), and
the resume line's members (R1-R3). No I/O; the front matter itself is ``_frontmatter``'s.
"""

from __future__ import annotations

import json
import re

from sage_flags._frontmatter import UnsafeManifest, edit, recorded_tokens
from sage_flags._vocab import DEFAULT
from sage_flags._vocabulary import vocabulary as _vocabulary

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Dict, List, Optional, Sequence, Tuple, Union

    from sage_flags._vocabulary import ValueMode
    from sage_flags.reference import ParseResult

SOURCES = (None, "flag", "config")
RESUME_SOURCES = (*SOURCES, "manifest")
NOTE = "{flag} overrides {key}: {recorded} recorded in the manifest."


def _value_of(vocabulary: str) -> "Dict[int, ValueMode]":
    """Mode index -> its value_modes row, in vocabulary ``vocabulary``."""
    return {row.mode: row for row in _vocabulary(vocabulary).value_modes}


def vocabulary_keys(vocabulary: str = DEFAULT) -> "List[bytes]":
    """The entries persist writes, in vocabulary order: each mode, then its number (P4)."""
    keys = []
    value_of = _value_of(vocabulary)
    for index, (key, _) in enumerate(_vocabulary(vocabulary).modes):
        keys.append(key.encode("ascii"))
        row = value_of.get(index)
        if row is not None:
            keys.append(row.field.encode("ascii"))
    return keys


def recorded_values(data: bytes, vocabulary: str = DEFAULT) -> "Dict[str, Union[bool, int]]":
    """What MANIFEST records (resume): each mode's value, and the number of each mode that takes a value and
    records one its vocabulary allows (a plain decimal from the minimum to the cap). Anything unclear records
    nothing."""
    try:
        recorded = recorded_tokens(data, vocabulary_keys(vocabulary))
    except UnsafeManifest:
        return {}
    values: Dict[str, Union[bool, int]] = {}
    value_of = _value_of(vocabulary)
    for index, (key, _) in enumerate(_vocabulary(vocabulary).modes):
        token = recorded.get(key.encode("ascii"), b"")
        if _YAML_BOOL.fullmatch(token):
            values[key] = token.lower() in (b"true", b"yes", b"on")
        row = value_of.get(index)
        if row is not None:
            number = _yaml_int(recorded.get(row.field.encode("ascii"), b""))
            if number is not None and row.minimum <= number <= row.cap:
                values[row.field] = number
    return values


# R1: a plain token as YAML 1.1 (PyYAML's resolver) reads it: a bool, an int, or neither (a string, a null ...).
_YAML_BOOL = re.compile(rb"yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF")
_YAML_INT = re.compile(rb"[-+]?(0b[01_]+|0x[0-9a-fA-F_]+|0[0-7_]+|0|[1-9][0-9_]*(:[0-5]?[0-9])*)")


def _yaml_int(token: bytes) -> "Optional[int]":
    """The int YAML 1.1 reads in a plain token (`2`, `0x2`, `0b10`, `02`, `1_0`, `1:30` = 90), else None."""
    if not _YAML_INT.fullmatch(token) or len(token) > 64:
        return None
    sign = -1 if token[:1] == b"-" else 1
    digits = token.lstrip(b"+-").replace(b"_", b"")
    if digits[:2] in (b"0b", b"0x"):
        return sign * int(digits[2:], 2 if digits[1:2] == b"b" else 16) if digits[2:] else None
    if b":" in digits:
        number = 0
        for part in digits.split(b":"):
            number = number * 60 + int(part)
        return sign * number
    return sign * int(digits, 8 if digits[:1] == b"0" and len(digits) > 1 else 10) if digits else None


def value_tokens(values: "Dict[str, Union[bool, int]]", vocabulary: str = DEFAULT) -> "List[bytes]":
    """P4: the value tokens persist writes, parallel to vocabulary_keys()."""
    tokens = []
    value_of = _value_of(vocabulary)
    for index, (key, _) in enumerate(_vocabulary(vocabulary).modes):
        tokens.append(b"true" if values[key] else b"false")
        row = value_of.get(index)
        if row is not None:
            tokens.append(str(values[row.field]).encode("ascii"))
    return tokens


def updated_manifest(
    data: "Optional[bytes]", values: "Dict[str, Union[bool, int]]", vocabulary: str = DEFAULT
) -> bytes:
    """MANIFEST's bytes with ``values`` recorded; ``data`` None means no file yet."""
    return edit(data or b"", vocabulary_keys(vocabulary), value_tokens(values, vocabulary))


# --------------------------------------------------------------- the contract line


class _Pairs(list):
    """A JSON object as its (key, value) pairs, so that key order and repeats can be checked."""


def _render(pairs: "Sequence[Tuple[str, object]]") -> str:
    """The canonical line (C16, C17) for these members; a list is written `["a", "b"]`."""
    return "{" + ", ".join(json.dumps(k) + ": " + json.dumps(v, ensure_ascii=False) for k, v in pairs) + "}"


def contract_values(data: bytes, vocabulary: str = DEFAULT) -> "Optional[Tuple[Dict[str, Union[bool, int]], bool]]":
    """(mode values and numbers, whether it carries an error) if ``data`` is exactly one contract line, else None.

    A contract line (P1) is what a layer prints in ``vocabulary``: a ``parse`` line (C16, V7) or a
    ``resume`` line (the same plus ``"notes"``), in canonical form byte for
    byte (C17), UTF-8, then one LF; its values agree with C15, C18 and V4-V6.
    """
    if not data.endswith(b"\n") or b"\n" in data[:-1]:
        return None
    try:
        text = data[:-1].decode("utf-8")
        pairs = json.loads(text, object_pairs_hook=_Pairs)
    except ValueError:  # invalid UTF-8 or not JSON
        return None
    if type(pairs) is not _Pairs:
        return None
    keys = [key for key, _ in pairs]
    chosen = _vocabulary(vocabulary)
    base = list(chosen.fields)
    is_resume_line = keys == [*base, "notes"]
    if keys != base and not is_resume_line:
        return None
    fields = dict(pairs)
    sources = RESUME_SOURCES if is_resume_line else SOURCES
    values: Dict[str, Union[bool, int]] = {}
    for key, _ in chosen.modes:
        value, source = fields[key], fields[key + "_source"]
        if type(value) is not bool or not any(source is s or source == s for s in sources):
            return None
        if (source is None and value) or (source == "config" and not value):  # C15
            return None
        values[key] = value
    for row in chosen.value_modes:  # V4-V6: 0 and no note while off; minimum..cap while on; a note only at the cap
        number, note = fields[row.field], fields[row.note_field]
        if type(number) is not int or not (note is None or type(note) is str):
            return None
        mode_key, _ = chosen.modes[row.mode]
        on = values[mode_key]
        if (not on and (number != 0 or note is not None)) or (on and not row.minimum <= number <= row.cap):
            return None
        if note is not None and number != row.cap:
            return None
        values[row.field] = number
    error, notes = fields["error"], fields.get("notes", [])
    if type(fields["goal"]) is not str or not (error is None or type(error) is str):
        return None
    if type(notes) is not list or any(type(note) is not str for note in notes):
        return None
    sourced = any(fields[key + "_source"] is not None for key, _ in chosen.modes)
    if error is not None and (any(values.values()) or fields["goal"] or notes or sourced):
        return None  # C18: an error line holds nothing else
    if _render(pairs) != text:  # canonical form only (C16, C17)
        return None
    return values, error is not None


def resume_fields(result: "ParseResult", recorded: "Dict[str, Union[bool, int]]") -> "List[Tuple[str, object]]":
    """The members of a resume line: the parse result with recorded modes filled in, then the notes (R1-R3), in
    the result's vocabulary."""
    value_of = _value_of(result.vocabulary)
    modes: List[Tuple[str, object]] = []
    sources: List[Tuple[str, object]] = []
    numbers: List[Tuple[str, object]] = []
    notes = []
    failed = result.error is not None
    for index, (key, name) in enumerate(_vocabulary(result.vocabulary).modes):
        value, source = getattr(result, key), getattr(result, key + "_source")
        row = value_of.get(index)
        number, note = (getattr(result, row.field), getattr(result, row.note_field)) if row else (0, None)
        if not failed and key in recorded:
            if source == "flag":
                if value != recorded[key]:  # R3: a note only when the flag changes the recorded value
                    flag = "--" + name if value else "--no-" + name
                    notes.append(NOTE.format(flag=flag, key=key, recorded="true" if recorded[key] else "false"))
                elif row and value and row.field in recorded and number != recorded[row.field]:  # R3 for the number
                    flag = "--%s=%d" % (name, number)
                    notes.append(NOTE.format(flag=flag, key=row.field, recorded=recorded[row.field]))
            else:
                value, source = recorded[key], "manifest"
                if row:  # R1: the number follows its mode
                    number, note = (recorded.get(row.field, row.default) if value else 0), None
        modes.append((key, value))
        sources.append((key + "_source", source))
        if row:
            numbers += [(row.field, number), (row.note_field, note)]
    return [*modes, ("goal", result.goal), ("error", result.error), *sources, *numbers, ("notes", notes)]
