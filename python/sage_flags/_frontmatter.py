"""The front matter of a cycle manifest, as bytes in and bytes out: no file, no stream, no vocabulary.

``Frontmatter`` is one pass over the lines between the fences (P3, P4, P8, P10, P11): the scanner that reads
what YAML would read, or refuses (UnsafeManifest) what it cannot read the same way, and the editor that puts
value tokens into the ``flags:`` block keeping every other byte. ``edit`` and ``recorded_tokens`` are what
persist and resume take of it (``sage_flags.manifest`` holds the commands and their I/O, ``_flag_values``
the mapping between a vocabulary's values and these tokens). Nothing is decoded: a BOM, CRLF line ends,
invalid UTF-8 or a missing final newline outside the changed tokens survive as they were. PyYAML is its
oracle (parity/yaml_oracle.py, tests/test_frontmatter.py).
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Dict, List, Optional, Sequence, Tuple

BOM = b"\xef\xbb\xbf"
DELIMITER = b"---"
FLAGS_KEY = b"flags"
BLANKS = b" \t"  # what YAML lets stand between tokens on a line
NEW_BLOCK_INDENT = b"  "
# P4: a plain value token may not start with these YAML indicators (a quoted, flow, block, anchored,
# aliased, tagged or reserved value); "-", "?" and ":" only when alone.
_INDICATORS = b"[]{}#&*!|>'\"%@`,"


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


def edit(data: bytes, keys: "Sequence[bytes]", tokens: "Sequence[bytes]") -> bytes:
    """P4: ``data`` with each of ``keys`` holding its value token (``tokens``, parallel) in the front matter's
    ``flags:`` block: entries replaced in place, missing ones added, the block or the front matter added where
    there is none; every other byte kept. UnsafeManifest (P8, P11): not in the subset this edits."""
    manifest = Frontmatter(data, keys, tokens)
    if manifest.present:
        return manifest.bom + b"".join(manifest.lines) + manifest.body()
    eol = manifest.eol
    block = [DELIMITER + eol, FLAGS_KEY + b":" + eol]
    block += [NEW_BLOCK_INDENT + key + b": " + token + eol for key, token in zip(keys, tokens)]
    return manifest.bom + b"".join(block) + DELIMITER + eol + manifest.body()


def recorded_tokens(data: bytes, keys: "Sequence[bytes]") -> "Dict[bytes, bytes]":
    """R1: each of ``keys`` that has an entry in the ``flags:`` block -> its last entry's value token (b"" when
    that is not one plain value). UnsafeManifest as for ``edit``: resume then restores nothing (R2)."""
    return Frontmatter(data, keys).recorded


def frontmatter_end(data: bytes) -> "Optional[int]":
    """P10: where what resume reads of a manifest ends in ``data``, its first bytes: after the front matter's
    closing fence line, or after the first line when there is no front matter; None while that line is not
    in ``data``."""
    start = 0
    newline = data.find(b"\n")
    while newline >= 0:
        line = data[start : newline + 1]
        if start == 0 and line.startswith(BOM):
            line = line[len(BOM) :]
        if (start == 0) != _is_fence(_content(line)):  # no frontmatter, or its closing line
            return newline + 1
        start = newline + 1
        newline = data.find(b"\n", start)
    return None
