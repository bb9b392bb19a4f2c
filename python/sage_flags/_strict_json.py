"""A strict JSON scanner that keeps where everything is (docs/SPEC.md N4, N5): bytes in, a tree of spans out.

Pure: no I/O. ``scan`` reads RFC 8259 JSON exactly (no NaN or Infinity, no lone surrogate escape, no key given
twice, no BOM, valid UTF-8, at most MAX_DEPTH containers deep) and records each value's byte span, so that an
editor can change one value and keep every other byte as it was. Anything else raises NotStrictJson with one
line saying what and where. ``json`` (Python's) accepts NaN, Infinity and lone surrogates and loses the
spans, so it cannot be that editor's reader.
"""

import json
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Dict, List, Optional, Tuple

MAX_DEPTH = 128  # containers inside containers; a deeper file is refused, never a RecursionError
BOM = b"\xef\xbb\xbf"

_BLANKS = re.compile(rb"[ \t\n\r]*")
_STRING = re.compile(rb'"((?:[^"\\\x00-\x1f]|\\[^\x00-\x1f])*)"')
_NUMBER = re.compile(rb"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_NOT_JSON_NUMBER = re.compile(rb"-?(?:NaN|Infinity)")
_ESCAPE = re.compile(
    r"\\u([dD][89abAB][0-9a-fA-F]{2})\\u([dD][c-fC-F][0-9a-fA-F]{2})"  # a surrogate pair: one character
    r"|\\u([0-9a-fA-F]{4})|\\([\"\\/bfnrt])|\\(.)",
    re.S,
)
_SIMPLE = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_LITERALS = ((b"true", True), (b"false", False), (b"null", None))


class NotStrictJson(ValueError):
    """The bytes are not strict JSON (or too deep): one line saying what and where."""


class Node:
    """One JSON value at ``data[start:end]``. ``kind``: object, array, string, number or literal. ``value``:
    a scalar's value (a number's text as it is written); ``items``: an array's nodes; ``members``: an object's
    (key, key's start, key's end, node) in order."""

    __slots__ = ("end", "items", "kind", "members", "start", "value")

    def __init__(self, kind: str, start: int) -> None:
        self.kind = kind
        self.start = start
        self.end = start
        self.value: object = None
        self.items: "List[Node]" = []
        self.members: "List[Tuple[str, int, int, Node]]" = []

    def member(self, key: str) -> "Optional[Node]":
        for name, _, _, node in self.members:
            if name == key:
                return node
        return None

    def spans(self) -> "List[Tuple[int, int]]":
        """Each item's span in order (an object's member: from its key to its value's end)."""
        if self.kind == "array":
            return [(node.start, node.end) for node in self.items]
        return [(key_start, node.end) for _, key_start, _, node in self.members]


def scan(data: bytes) -> Node:
    """The tree of the one JSON value ``data`` holds; NotStrictJson when it is not strict JSON."""
    if data.startswith(BOM):
        raise NotStrictJson("starts with a byte order mark (U+FEFF), which JSON does not allow")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise NotStrictJson("is not UTF-8 (byte %d)" % error.start) from None
    scanner = _Scanner(data)
    node = scanner.value(scanner.blanks(0), 1)
    end = scanner.blanks(node.end)
    if end != len(data):
        scanner.fail("something after the JSON value", end)
    return node


def to_python(node: Node) -> object:
    """The node's value as ``json`` gives it (numbers as int or float: for comparing, never for writing)."""
    if node.kind == "object":
        return {key: to_python(child) for key, _, _, child in node.members}
    if node.kind == "array":
        return [to_python(child) for child in node.items]
    if node.kind == "number":
        text = str(node.value)
        return float(text) if any(mark in text for mark in ".eE") else int(text)
    return node.value


def decode_string(body: str, where: int) -> str:
    """A string token's text between its quotes, its escapes read; a lone surrogate escape is refused."""
    if "\\" not in body:
        return body

    def one(match: "re.Match[str]") -> str:
        high, low, unit, simple, other = match.groups()
        if high is not None:
            return chr(0x10000 + ((int(high, 16) - 0xD800) << 10) + (int(low, 16) - 0xDC00))
        if unit is not None:
            code = int(unit, 16)
            if 0xD800 <= code < 0xE000:
                raise NotStrictJson("has a lone surrogate escape \\u%s (string at byte %d)" % (unit, where))
            return chr(code)
        if simple is not None:
            return _SIMPLE[simple]
        raise NotStrictJson("has an invalid escape \\%s (string at byte %d)" % (other, where))

    return _ESCAPE.sub(one, body)


class _Scanner:
    def __init__(self, data: bytes) -> None:
        self.data = data

    def fail(self, what: str, at: int) -> None:
        raise NotStrictJson("is not valid JSON: %s at byte %d" % (what, at))

    def blanks(self, at: int) -> int:
        match = _BLANKS.match(self.data, at)
        return match.end() if match else at

    def value(self, at: int, depth: int) -> Node:
        data = self.data
        if at >= len(data):
            self.fail("the end of the file where a value should be", at)
        first = data[at : at + 1]
        if first in (b"{", b"["):
            if depth > MAX_DEPTH:
                raise NotStrictJson("is nested deeper than %d containers (byte %d)" % (MAX_DEPTH, at))
            return self.object(at, depth) if first == b"{" else self.array(at, depth)
        if first == b'"':
            return self.string(at)
        if _NOT_JSON_NUMBER.match(data, at):
            raise NotStrictJson("holds NaN, Infinity or -Infinity at byte %d, which JSON does not allow" % at)
        number = _NUMBER.match(data, at)
        if number:
            node = Node("number", at)
            node.value, node.end = number.group().decode("ascii"), number.end()
            return node
        for text, literal in _LITERALS:
            if data.startswith(text, at):
                node = Node("literal", at)
                node.value, node.end = literal, at + len(text)
                return node
        self.fail("unexpected %r" % data[at : at + 1], at)
        raise AssertionError  # fail raised

    def string(self, at: int) -> Node:
        match = _STRING.match(self.data, at)
        if not match:
            self.fail("an unterminated string, a control character or a bad escape in the string", at)
            raise AssertionError
        node = Node("string", at)
        node.value = decode_string(match.group(1).decode("utf-8"), at)
        node.end = match.end()
        return node

    def array(self, at: int, depth: int) -> Node:
        node = Node("array", at)
        at = self.blanks(at + 1)
        if self.data.startswith(b"]", at):
            node.end = at + 1
            return node
        while True:
            child = self.value(at, depth + 1)
            node.items.append(child)
            at = self.blanks(child.end)
            if self.data.startswith(b"]", at):
                node.end = at + 1
                return node
            if not self.data.startswith(b",", at):
                self.fail("expected , or ] in the array", at)
            at = self.blanks(at + 1)

    def object(self, at: int, depth: int) -> Node:
        node = Node("object", at)
        seen: "Dict[str, int]" = {}
        at = self.blanks(at + 1)
        if self.data.startswith(b"}", at):
            node.end = at + 1
            return node
        while True:
            if not self.data.startswith(b'"', at):
                self.fail("expected a key in the object", at)
            key = self.string(at)
            name = str(key.value)
            if name in seen:
                raise NotStrictJson("has the key %s twice (bytes %d and %d)" % (_quoted(name), seen[name], at))
            seen[name] = at
            colon = self.blanks(key.end)
            if not self.data.startswith(b":", colon):
                self.fail("expected : after the key", colon)
            child = self.value(self.blanks(colon + 1), depth + 1)
            node.members.append((name, key.start, key.end, child))
            at = self.blanks(child.end)
            if self.data.startswith(b"}", at):
                node.end = at + 1
                return node
            if not self.data.startswith(b",", at):
                self.fail("expected , or } in the object", at)
            at = self.blanks(at + 1)


def _quoted(name: str) -> str:
    """A key for the one stderr line: as JSON writes it in ASCII (no line break, no control character), short."""
    return json.dumps(name if len(name) <= 40 else name[:40] + "...")
