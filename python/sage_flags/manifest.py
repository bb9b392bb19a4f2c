"""``persist`` and ``resume``: the resolved modes in a cycle manifest's frontmatter.

``sage-flags parse ... | sage-flags persist MANIFEST`` records the values of a
clean contract line in MANIFEST's YAML frontmatter ``flags:`` block;
``sage-flags resume MANIFEST ARGV...`` (the ``/continue`` entry) parses ARGV
like ``parse`` and fills every mode no flag set from that block. This module is
their one implementation (the native executable hands both to it, D27; the bash
layer's persist.sh and resume.sh only refuse, P12); docs/SPEC.md states the rules
(P*, R*). What decides where ``flags`` is and what it holds is read as YAML reads
it, or refused: the whitelist of P11 (``Frontmatter``), written here once.

Manifests are handled as bytes: nothing is decoded, so a BOM, CRLF line ends,
invalid UTF-8 or a missing final newline outside the changed tokens survive
as they were. Not on the ``parse`` path, so ``json`` may be imported here.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat

from sage_flags._vocab import DEFAULT
from sage_flags._vocabulary import vocabulary as _vocabulary
from sage_flags.reference import READ_FLAGS, read_all

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Dict, List, Optional, Sequence, Tuple, Union

    from sage_flags._vocabulary import ValueMode
    from sage_flags.reference import ParseResult

# Exit statuses of persist (issue 8).
WRITTEN, LINE_HAS_ERROR, NOT_A_CONTRACT_LINE, UNSAFE = 0, 1, 2, 3

BOM = b"\xef\xbb\xbf"
DELIMITER = b"---"
FLAGS_KEY = b"flags"
BLANKS = b" \t"  # what YAML lets stand between tokens on a line
NEW_BLOCK_INDENT = b"  "
# P1: persist's stdin holds one contract line. The longest line parse prints for one argv item (128 KiB on
# Linux, every byte escaped as \u00XX: 768 KiB) fits; anything longer is status 2, read no further.
MAX_LINE_BYTES = 1 << 20
# P4: a plain value token may not start with these YAML indicators (a quoted, flow, block, anchored,
# aliased, tagged or reserved value); "-", "?" and ":" only when alone.
_INDICATORS = b"[]{}#&*!|>'\"%@`,"
SOURCES = (None, "flag", "config")
RESUME_SOURCES = (*SOURCES, "manifest")
NOTE = "{flag} overrides {key}: {recorded} recorded in the manifest."


def _value_of(vocabulary: str) -> "Dict[int, ValueMode]":
    """Mode index -> its value_modes row, in vocabulary ``vocabulary``."""
    return {row.mode: row for row in _vocabulary(vocabulary).value_modes}


class UnsafeManifest(Exception):
    """The manifest cannot be updated safely: status 3, the file untouched."""


# --------------------------------------------------------------- lines


def _split_lines(data: bytes) -> "List[bytes]":
    """Lines with their LF kept; a final line without LF is kept as it is."""
    parts = data.split(b"\n")
    lines = [part + b"\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def _content(line: bytes) -> bytes:
    """A line without its LF and without one CR before it (CRLF files)."""
    if line.endswith(b"\n"):
        line = line[:-1]
    return line[:-1] if line.endswith(b"\r") else line


def _is_blank(content: bytes) -> bool:
    return not content.strip(BLANKS)


def _indent(content: bytes) -> bytes:
    return content[: len(content) - len(content.lstrip(BLANKS))]


def _is_fence(content: bytes) -> bool:
    """P3: a frontmatter fence: ``---`` then nothing but blanks (``--- `` as python-frontmatter reads it)."""
    return content.startswith(DELIMITER) and not content[len(DELIMITER) :].strip(BLANKS)


def _is_comment(content: bytes) -> bool:
    return content.lstrip(BLANKS).startswith(b"#")


def _key_rest(content: bytes, key: bytes) -> "Optional[bytes]":
    """What follows ``key:`` (blanks allowed before the colon; the key plain, "double" or 'single' quoted),
    or None if the line is not that key."""
    for form in (key, b'"' + key + b'"', b"'" + key + b"'"):
        if content.startswith(form):
            after = content[len(form) :].lstrip(BLANKS)
            return after[1:] if after.startswith(b":") else None
    return None


def _is_plain_token(token: bytes) -> bool:
    """P4: a value YAML reads as one scalar on this line: plain (no indicator first), or quoted without
    escapes or inner quotes."""
    first = token[:1]
    if first in (b'"', b"'"):
        inner = token[1:-1]
        escapes = b"\\" in inner and first == b'"'  # a backslash is literal only between single quotes
        return len(token) >= 2 and token.endswith(first) and first not in inner and not escapes
    if first in (b"-", b"?", b":"):
        return len(token) > 1
    return first not in _INDICATORS


def _is_comment_tail(tail: bytes) -> bool:
    """Nothing, blanks, or blanks then a ``# comment``: what may follow a value."""
    stripped = tail.lstrip(BLANKS)
    return not stripped or (tail[:1] in (b" ", b"\t") and stripped.startswith(b"#"))


def _value_token(rest: bytes) -> "Optional[Tuple[int, int]]":
    """Where the value token of ``key:<rest>`` lies in ``rest``, or None if it is not one plain token."""
    start = len(rest) - len(rest.lstrip(BLANKS))
    if start == 0 or start == len(rest) or rest[start : start + 1] == b"#":
        return None  # `key:value`, `key:` or `key:  # comment`: no single value token to replace
    end = start
    while end < len(rest) and rest[end : end + 1] not in (b" ", b"\t"):
        end += 1
    if not _is_comment_tail(rest[end:]) or not _is_plain_token(rest[start:end]):
        return None
    return start, end


# --------------------------------------------------------------- frontmatter

# P10: a front matter ends, its closing line included, within the first MAX_FRONTMATTER_BYTES of the file.
MAX_FRONTMATTER_BYTES = 1 << 16
# A plain key: no indicator first (`-`, `?`, `:` only with a non-blank after them), no `:` or `#` in it.
_PLAIN_KEY = rb"[^][{}#&*!|>'\"%@`,?: \t-][^:#]*|[-?:][^ \t:#][^:#]*"
_KEY_FORM = rb"""("[^"\\]*"|'[^']*'|""" + _PLAIN_KEY + rb")"
# P4: a line of the flags block at its entries' indentation is `key:` then blanks (or the end): the key plain
# (no indicator first, no colon or # in it) or quoted (no escapes). Any other line there: not a mapping.
_ENTRY = re.compile(_KEY_FORM + rb"[ \t]*:([ \t].*)?")
# P11: what stands in front of a line's value: `- `, `? ` or `: `, a `key: `, an anchor or a tag, then blanks.
_PREFIX = re.compile(rb"([-?:]([ \t]|$)|" + _KEY_FORM + rb"[ \t]*:([ \t]|$)|[&!][^ \t]*)[ \t]*")
# P11: a value YAML reads whole on its line: a quoted scalar or a flow collection (two levels at most, no
# comment inside), or a block scalar's header, then blanks or a comment.
_QUOTED = rb"""("([^"\\]|\\.)*"|'([^']|'')*')"""
_FLOW_ITEM = rb"""([^][{}"'#]|%s)""" % _QUOTED
_INNER_FLOW = rb"(\[%s*\]|\{%s*\})" % (_FLOW_ITEM, _FLOW_ITEM)
_TAIL = rb"([ \t]+#.*|[ \t]*)"
_ONE_LINE = re.compile(
    rb"(%s|\[(%s|%s)*\]|\{(%s|%s)*\})%s" % (_QUOTED, _FLOW_ITEM, _INNER_FLOW, _FLOW_ITEM, _INNER_FLOW, _TAIL)
)
_BLOCK_HEADER = re.compile(rb"[|>]([1-9][+-]?|[+-][1-9]?)?" + _TAIL)
NODE, TEXT, COMMENT, BLANK = "node", "text", "comment", "blank"  # what a front matter line is
# P11.1: YAML breaks lines at LF, CR, NEL, U+2028 and U+2029 (PyYAML reads all five); only LF and CRLF are
# accepted: any other break in the front matter would move lines the scan must see where it does not see them.
_OTHER_BREAKS = ((b"\r", "a CR without LF"), (b"\xc2\x85", "a NEL (U+0085)"), (b"\xe2\x80\xa8", "a U+2028"))
_OTHER_BREAKS += ((b"\xe2\x80\xa9", "a U+2029"),)
# P11.2: a line at column 0 that starts a top-level key is a plain key and `:` (a YAML merge key `<<` refused);
# an anchor, alias, tag, `?` key, quote or flow there would be a key the scan cannot name. `- ` is a sequence
# entry (a value, never a key).
_TOP_KEY = re.compile(rb"(" + _PLAIN_KEY + rb")[ \t]*:([ \t].*)?")
_SEQUENCE_ENTRY = re.compile(rb"-([ \t].*)?")
MERGE_KEY = b"<<"


def _check_breaks(content: bytes) -> None:
    """P11.1: a line (its LF and one CR before it taken off) holds no other YAML line break."""
    for character, name in _OTHER_BREAKS:
        if character in content:
            raise UnsafeManifest("%s breaks the line for YAML (only LF and CRLF line ends are read)" % name)


def _check_top_level(content: bytes) -> None:
    """P11.2: a node line at column 0 is a plain `key:` (or a `- ` sequence entry)."""
    if _SEQUENCE_ENTRY.fullmatch(content):
        return
    key = _TOP_KEY.fullmatch(content)
    if key is None:
        raise UnsafeManifest("a line at column 0 is not a plain `key:` (an anchor, alias, tag, ? key, quote or flow)")
    if key.group(1).rstrip(BLANKS) == MERGE_KEY:
        raise UnsafeManifest("a merge key << at column 0 (its keys would join the front matter's)")


def _node_value(content: bytes) -> "Tuple[int, bytes]":
    """P11: (the column of the node that owns a line's value, the value): what stands in front taken off."""
    column = owner = len(_indent(content))
    value = content[column:]
    prefix = _PREFIX.match(value)
    while prefix:
        if value[:1] not in (b"&", b"!"):  # an anchor or a tag belongs to the value, not to a new node
            owner = column
        column += prefix.end()
        value = value[prefix.end() :]
        prefix = _PREFIX.match(value)
    return owner, value


class Frontmatter:
    """One pass over a manifest's front matter, line by line (P3, P4, P8, P10, P11): what resume reads and,
    given the tokens to write, the front matter persist writes.

    ``keys`` are the entries persist writes (each mode, then its number); ``tokens`` their new value tokens,
    or None (resume: read only). ``recorded`` maps a key to its last entry's value token (b"" when that is not
    one plain value). UnsafeManifest: not in the subset persist edits (P8); resume then restores nothing.
    """

    def __init__(self, data: bytes, keys: "Sequence[bytes]", tokens: "Optional[Sequence[bytes]]" = None) -> None:
        if b"\0" in data:
            raise UnsafeManifest("the manifest holds NUL bytes: not a text file")
        self.keys, self.tokens = keys, tokens
        self.bom = BOM if data.startswith(BOM) else b""
        self.text = data[len(self.bom) :]
        self.offset = 0  # where the next line of text starts
        first = self._next_line()
        self.line_number = 1
        self.eol = b"\r\n" if first.endswith(b"\r\n") else b"\n"  # added lines follow the first line
        self.present = _is_fence(_content(first))
        self.recorded: Dict[bytes, bytes] = {}
        self.lines = [first]  # the front matter persist writes, its fences included
        if not self.present:
            self.offset = 0  # no front matter: all of the text is the body
            return
        self.first_key_seen = False
        self.header_seen = False
        self.in_block = False
        self.entry_indent: Optional[bytes] = None
        self.last_entry_key: Optional[int] = None  # the key of the block's last entry while it may continue
        self.seen: List[int] = []  # the keys that have an entry
        self.held: List[bytes] = []  # blank lines and column-0 comments after the block's last line
        self.scalar_owner = -1  # while a block scalar is open: the column its text must be deeper than
        self.scalar_keep = False
        self.keep_at_block_end = False
        while True:
            if self.offset >= len(self.text):
                raise UnsafeManifest("the frontmatter's opening --- has no closing ---")
            line = self._next_line()
            self.line_number += 1
            if len(self.bom) + self.offset > MAX_FRONTMATTER_BYTES:
                raise UnsafeManifest("the frontmatter is longer than %d bytes" % MAX_FRONTMATTER_BYTES)
            if _is_fence(_content(line)):
                break
            try:
                self._take_line(line)
            except UnsafeManifest as error:  # named by its line, as a person finds it in an editor
                raise UnsafeManifest("line %d: %s" % (self.line_number, error)) from None
        self._end_block()
        if not self.header_seen and tokens is not None:
            self.lines.append(FLAGS_KEY + b":" + self.eol)
            self.lines += self._missing_entries()
        self.lines.append(line)

    def _next_line(self) -> bytes:
        """The next line of the text, its LF kept (the last one may have none)."""
        end = self.text.find(b"\n", self.offset) + 1 or len(self.text)
        line = self.text[self.offset : end]
        self.offset = end
        return line

    def _take_line(self, line: bytes) -> None:
        """One line between the fences."""
        content = _content(line)
        _check_breaks(content)  # P11.1, block scalar text included: a break there ends the scalar for YAML
        depth = len(_indent(content))
        if _is_blank(content):
            kind = BLANK
        elif self.scalar_owner >= 0 and depth > self.scalar_owner:
            kind = TEXT  # a block scalar's text: any bytes
        else:
            self.scalar_owner = -1  # a line not deeper than its owner ends a block scalar
            kind = COMMENT if _is_comment(content) else NODE
            if kind == NODE:
                self._check_node(content)
                if depth == 0:
                    _check_top_level(content)
        if self.in_block:
            if kind == BLANK or (kind == COMMENT and depth == 0):
                self.held.append(line)  # the block's, if indented lines follow
                return
            if depth > 0:
                self.lines += self.held
                self.held = []
                self._block_line(line, content, kind)
                return
            if self.entry_indent is None and content[:1] == b"-" and content[1:2] in (b"", b" ", b"\t"):
                raise UnsafeManifest("the frontmatter's flags: block is a list, not a mapping")  # compact `- x`
            self._end_block()
        if kind == NODE and depth == 0:
            rest = _key_rest(content, FLAGS_KEY)
            if rest is not None:
                if self.header_seen:
                    raise UnsafeManifest("the frontmatter has two top-level flags: keys")
                if not _is_comment_tail(rest) or rest.startswith(b"#"):
                    raise UnsafeManifest("the frontmatter's flags: key is not a block")
                self.header_seen = self.in_block = True
        self.lines.append(line)

    def _check_node(self, content: bytes) -> None:
        """P8, P11 for a line that starts a node: one YAML document, a mapping at column 0, and a value YAML
        reads whole on this line (or a block scalar, whose text the next lines are)."""
        if content[:3] in (b"---", b"...") and content[3:4] in (b"", b" ", b"\t"):
            raise UnsafeManifest("the frontmatter holds a YAML document marker")
        if not self.first_key_seen and not _ENTRY.fullmatch(content):
            raise UnsafeManifest("the frontmatter is not a mapping with its keys at column 0")
        self.first_key_seen = True
        owner, value = _node_value(content)
        # P11.5: PyYAML drops a BOM only as the first character of what it is given, so `\ufeffflags:` first is
        # `flags` to a reader that loads the lines between the fences (python-frontmatter), another key to one
        # that loads the file or matches `^flags:` (Sage's manifest.py). In a value it is just a character.
        if BOM in content[: len(content) - len(value)]:  # a key, an indicator, an anchor or a tag
            raise UnsafeManifest("a BOM (U+FEFF) in a key: YAML readers differ on the key it makes")
        if value[:1] in (b'"', b"'", b"[", b"{") and not _ONE_LINE.fullmatch(value):
            raise UnsafeManifest("a quoted scalar or flow collection in the frontmatter goes on past its line")
        if value[:1] in (b"|", b">"):
            if not _BLOCK_HEADER.fullmatch(value):
                raise UnsafeManifest("a block scalar's header in the frontmatter is not one YAML reads")
            self.scalar_owner = owner
            self.scalar_keep = b"+" in value.split(b"#")[0]

    def _block_line(self, line: bytes, content: bytes, kind: str) -> None:
        """An indented line of the flags block."""
        indent = _indent(content)
        if kind == NODE and self.entry_indent is None:
            self.entry_indent = indent
        if kind == TEXT or (kind == NODE and len(indent) > len(self.entry_indent or b"")):
            self._entry_continues()
        elif kind == NODE:
            if indent != self.entry_indent or not _ENTRY.fullmatch(content[len(indent) :]):
                raise UnsafeManifest("the frontmatter's flags: block is not a mapping of one key per line")
            line = self._entry(line, content, indent)
        self.lines.append(line)
        self.keep_at_block_end = self.scalar_owner >= 0 and self.scalar_keep

    def _entry(self, line: bytes, content: bytes, indent: bytes) -> bytes:
        """P11.3: an entry of the flags block: recorded and, for persist, its value token replaced (P4). A mode
        entry holds one plain value on its line (else YAML might read a value the scan cannot); another key
        is kept as it is, unless it is a merge key or its value an alias (either could bring a mode in)."""
        self.last_entry_key = None
        entry = content[len(indent) :]
        if _key_rest(entry, MERGE_KEY) is not None:
            raise UnsafeManifest("a merge key << in the flags: block")
        for number, key in enumerate(self.keys):
            rest = _key_rest(entry, key)
            if rest is None:
                continue
            span = _value_token(rest)
            if span is None:
                raise UnsafeManifest("the flags: entry for %s has no single plain value" % key.decode())
            self.recorded[key] = rest[span[0] : span[1]]
            self.seen.append(number)
            self.last_entry_key = number
            if self.tokens is None:
                return line
            colon_end = len(content) - len(rest)  # `rest` is what follows the colon
            ending = line[len(content) :]
            return content[: colon_end + span[0]] + self.tokens[number] + content[colon_end + span[1] :] + ending
        if (_ENTRY.fullmatch(entry).group(2) or b"").lstrip(BLANKS).startswith(b"*"):  # type: ignore[union-attr]
            raise UnsafeManifest("an alias as a value in the flags: block")
        return line

    def _entry_continues(self) -> None:
        """P11.3: a deeper line under the block's last entry: that entry's value is not one plain value."""
        if self.last_entry_key is not None:
            key = self.keys[self.last_entry_key]
            raise UnsafeManifest("the flags: entry for %s has no single plain value" % key.decode())

    def _end_block(self) -> None:
        """The flags block ends: the missing entries go after its last line (after the blank lines that follow
        when those belong to a keep block scalar `|+`), then the held lines."""
        if not self.in_block:
            return
        self.in_block = False
        blank = 0
        while self.keep_at_block_end and blank < len(self.held) and _is_blank(_content(self.held[blank])):
            blank += 1
        missing = self._missing_entries() if self.tokens is not None else []
        self.lines += self.held[:blank] + missing + self.held[blank:]
        self.held = []

    def _missing_entries(self) -> "List[bytes]":
        """The entry lines for the keys that have none, in vocabulary order."""
        indent, tokens = self.entry_indent or NEW_BLOCK_INDENT, self.tokens or ()
        return [
            indent + key + b": " + tokens[number] + self.eol
            for number, key in enumerate(self.keys)
            if number not in self.seen
        ]

    def body(self) -> bytes:
        """The bytes after the front matter (all of them when there is none)."""
        return self.text[self.offset :]


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
        manifest = Frontmatter(data, vocabulary_keys(vocabulary))
    except UnsafeManifest:
        return {}
    values: Dict[str, Union[bool, int]] = {}
    value_of = _value_of(vocabulary)
    for index, (key, _) in enumerate(_vocabulary(vocabulary).modes):
        token = manifest.recorded.get(key.encode("ascii"), b"")
        if _YAML_BOOL.fullmatch(token):
            values[key] = token.lower() in (b"true", b"yes", b"on")
        row = value_of.get(index)
        if row is not None:
            number = _yaml_int(manifest.recorded.get(row.field.encode("ascii"), b""))
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
    keys, tokens = vocabulary_keys(vocabulary), value_tokens(values, vocabulary)
    manifest = Frontmatter(data or b"", keys, tokens)
    if manifest.present:
        return manifest.bom + b"".join(manifest.lines) + manifest.body()
    eol = manifest.eol
    block = [DELIMITER + eol, FLAGS_KEY + b":" + eol]
    block += [NEW_BLOCK_INDENT + key + b": " + token + eol for key, token in zip(keys, tokens)]
    return manifest.bom + b"".join(block) + DELIMITER + eol + manifest.body()


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


def _read_stdin() -> bytes:
    """All of stdin, or enough of it to know it is not one line (no hang on endless input): never more than
    MAX_LINE_BYTES + 1 bytes."""
    chunks: List[bytes] = []
    seen_newline = False
    total = 0
    while total <= MAX_LINE_BYTES:
        try:
            chunk = os.read(0, 1 << 16)
        except OSError:  # stdin closed: no line
            break
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
        newline = chunk.find(b"\n")
        if b"\0" in chunk or (newline >= 0 and (seen_newline or newline != len(chunk) - 1)):
            break
        seen_newline = seen_newline or newline >= 0
    return b"".join(chunks)


# --------------------------------------------------------------- files


def _refuse_symlink(path: bytes) -> None:
    """P6: persist never writes through a symbolic link (dangling or not) in the path's last component."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    except (OSError, ValueError) as error:  # ValueError: a NUL in the path
        reason = getattr(error, "strerror", None) or error
        raise UnsafeManifest("cannot inspect the manifest's path: %s" % reason) from None
    if stat.S_ISLNK(info.st_mode):
        raise UnsafeManifest("the manifest is a symbolic link; persist never writes through one")


def _open_regular(path: bytes, nofollow: bool) -> "Optional[Tuple[int, os.stat_result]]":
    """(open fd, its stat) of the regular file at ``path``; None if nothing is there; never blocks."""
    # reference's flags (a FIFO never blocks the open); the last component must not be a link (swapped in
    # since the lstat).
    flags = READ_FLAGS | (getattr(os, "O_NOFOLLOW", 0) if nofollow else 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as error:  # ValueError: a NUL in the path
        if nofollow and getattr(error, "errno", None) == errno.ELOOP:
            raise UnsafeManifest("the manifest is a symbolic link; persist never writes through one") from None
        reason = getattr(error, "strerror", None) or error
        raise UnsafeManifest("cannot read the manifest: %s" % reason) from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise UnsafeManifest("the manifest is not a regular file")
    return fd, info


def _read_regular(path: bytes) -> "Optional[Tuple[bytes, os.stat_result]]":
    """(bytes, stat) of the regular file at ``path`` itself (never through a link); None if nothing is there."""
    opened = _open_regular(path, nofollow=True)
    if opened is None:
        return None
    fd, info = opened
    try:
        return read_all(fd), info
    except OSError as error:
        raise UnsafeManifest("cannot read the manifest: %s" % error.strerror) from None
    finally:
        os.close(fd)


def _may_write(path: bytes) -> bool:
    """P8: whether the caller could write the file in place: the kernel's answer for the effective user (so
    root may, as with any file root opens for writing)."""
    if os.access in getattr(os, "supports_effective_ids", set()):
        return os.access(path, os.W_OK, effective_ids=True)
    return os.access(path, os.W_OK)


def read_frontmatter_prefix(path: bytes) -> bytes:
    """resume: the manifest's bytes up to the end of its frontmatter's closing line (its first line when it has
    no frontmatter), read in chunks, never more than MAX_FRONTMATTER_BYTES + 1 (P10): a long body is never read.
    b"" when there is nothing regular to read (R2)."""
    try:
        opened = _open_regular(path, nofollow=False)
    except UnsafeManifest:
        return b""
    if opened is None:
        return b""
    fd = opened[0]
    data = bytearray()  # P10: never more than MAX_FRONTMATTER_BYTES + 1 bytes
    scanned = 0  # where the next line to look at starts
    try:
        while True:
            try:
                chunk = os.read(fd, 1 << 16)
            except OSError:
                return b""
            data += chunk
            newline = data.find(b"\n", scanned)
            while newline >= 0:
                line = bytes(data[scanned : newline + 1])
                if scanned == 0 and line.startswith(BOM):
                    line = line[len(BOM) :]
                if (scanned == 0) != _is_fence(_content(line)):  # no frontmatter, or its closing line
                    return bytes(data[: newline + 1])
                scanned = newline + 1
                newline = data.find(b"\n", scanned)
            if not chunk or len(data) > MAX_FRONTMATTER_BYTES:
                return bytes(data[: MAX_FRONTMATTER_BYTES + 1])
    finally:
        os.close(fd)


def write_atomically(
    path: bytes, data: bytes, mode: "Optional[int]", owner: "Optional[Tuple[int, int]]" = None
) -> None:
    """Replace ``path`` by a complete file holding ``data``: the one atomic write (P6, ``_io.write_atomically``)."""
    from sage_flags import _io

    try:
        _io.write_atomically(path, data, mode, owner)
    except OSError as error:
        raise UnsafeManifest("cannot write the manifest: %s" % error.strerror) from None


def persist(manifest_path: bytes, values: "Dict[str, Union[bool, int]]", vocabulary: str = DEFAULT) -> None:
    """Record ``values`` in the manifest at ``manifest_path`` (raises UnsafeManifest: nothing changed)."""
    if not manifest_path or not os.path.basename(manifest_path):  # empty, or ends in a separator
        raise UnsafeManifest("the manifest path does not name a file")
    _refuse_symlink(manifest_path)
    existing = _read_regular(manifest_path)
    if existing is None:
        write_atomically(manifest_path, updated_manifest(None, values, vocabulary), None)
        return
    data, info = existing
    if not _may_write(manifest_path):
        raise UnsafeManifest("the manifest is read-only for this user")
    new = updated_manifest(data, values, vocabulary)
    write_atomically(manifest_path, new, stat.S_IMODE(info.st_mode), (info.st_uid, info.st_gid))


# --------------------------------------------------------------- commands


def run_persist(items: "Sequence[bytes]", vocabulary: str) -> int:
    """``persist MANIFEST`` < one contract line: statuses 0 written, 1 error line, 2 not a line, 3 unsafe."""
    from sage_flags._io import UsageError, _write

    if len(items) != 1:
        raise UsageError("persist takes exactly one MANIFEST path (the contract line comes on stdin)")
    line = _read_stdin()
    if len(line) > MAX_LINE_BYTES:
        _fail("stdin holds more than %d bytes: not one contract line" % MAX_LINE_BYTES)
        return NOT_A_CONTRACT_LINE
    parsed = contract_values(line, vocabulary)
    if parsed is None:
        _fail("stdin is not one contract line (the JSON line parse or resume prints)")
        return NOT_A_CONTRACT_LINE
    values, has_error = parsed
    if has_error:
        _write(line)
        return LINE_HAS_ERROR
    try:
        persist(items[0], values, vocabulary)
    except UnsafeManifest as error:
        _fail("cannot update the manifest: %s" % error)
        _write(line)
        return UNSAFE
    _write(line)
    return WRITTEN


def _fail(message: str) -> None:
    import sys

    sys.stderr.buffer.write(("sage-flags: %s\n" % message).encode("utf-8", "replace"))
    sys.stderr.buffer.flush()


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


def run_resume(items: "Sequence[bytes]", vocabulary: str) -> int:
    """``resume MANIFEST ARGV...``: parse ARGV (C1-C3) and restore what MANIFEST records."""
    from sage_flags import parse_command_line
    from sage_flags._io import OK, PARSE_ERROR, UsageError, _write

    if not items:
        raise UsageError("resume needs MANIFEST, then the arguments as for parse")
    result = parse_command_line(items[1:], vocabulary)  # exactly as parse
    recorded: Dict[str, Union[bool, int]] = {}
    if result.error is None and items[0]:
        recorded = recorded_values(read_frontmatter_prefix(items[0]), vocabulary)  # R2: unreadable restores nothing
    _write(_render(resume_fields(result, recorded)).encode("utf-8") + b"\n")
    return OK if result.error is None else PARSE_ERROR
