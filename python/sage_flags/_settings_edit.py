"""Our one hook handler in a harness's settings file, edited in place (docs/SPEC.md N5): bytes in, bytes out.

Pure: no I/O. The file is read by the strict scanner (``_strict_json``), which keeps every value's byte
span; each edit replaces one span (our handler, or a removal, or an insertion) and every other byte stays as
it was. What we insert copies the file's line ends and the indentation of its neighbours (2 spaces where
there are none). A handler is ours when its ``command`` and ``args`` are exactly one of the forms the caller
gives (N5's closed list), judged per handler: a person's handler beside ours, or naming our program in other
words, is never touched.
"""

import json

from sage_flags._strict_json import Node, NotStrictJson, scan, to_python

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Collection, List, Optional, Tuple

    Form = Tuple[str, Optional[Tuple[str, ...]]]  # (command, args; None: no "args" key)
    Edit = Tuple[int, int, bytes]  # replace data[start:end] with these bytes

DEFAULT_INDENT = "  "  # where the file shows none (Sage's own json.dump(indent=2))


def handler_form(handler: object) -> "Optional[Form]":
    """(command, args) of a handler object, None when it has no string command or its args are not strings."""
    if not isinstance(handler, dict) or not isinstance(handler.get("command"), str):
        return None
    if "args" not in handler:
        return handler["command"], None
    args = handler["args"]
    if not isinstance(args, list) or not all(isinstance(arg, str) for arg in args):
        return None  # someone else's ("args": 5): not a form we ever wrote
    return handler["command"], tuple(args)


def new_file(event: str, group: dict) -> bytes:
    """A settings file of our own: Sage's form (json.dump(indent=2)), a final newline."""
    return (json.dumps({"hooks": {event: [group]}}, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def register(data: bytes, event: str, group: dict, forms: "Collection[Form]") -> bytes:
    """DATA with exactly one handler of ours, ``group["hooks"][0]``: the first of ours under EVENT kept (made
    equal to it in place, inside whatever group holds it), every other of ours removed (its group too when it
    held nothing else, its event when that emptied), or, none under EVENT, GROUP appended to EVENT's array.
    Raises NotStrictJson (nothing to write) for a file that is not strict JSON or whose ``hooks`` is not an
    object of arrays. DATA itself when it already holds exactly that."""
    for _ in range(len(data) + 2):  # every edit removes one of ours or settles the last one: it ends
        edit = _next_edit(data, event, group, forms)
        if edit is None:
            return data
        start, end, text = edit
        data = data[:start] + text + data[end:]
    raise AssertionError("the edits did not settle")


# What register adds to a file, least to most (docs/SPEC.md N13): ours was already under the event, our group
# appended to the event's array, the event's member added to ``hooks``, ``hooks`` added to the root, the file.
ADDED = ("handler", "group", "event", "hooks", "file")


def what_register_adds(data: "Optional[bytes]", event: str, forms: "Collection[Form]") -> "Tuple[str, str]":
    """(one of ADDED, the blanks inside the container register inserts into when it holds nothing: what
    ``unregister`` puts back). DATA None: no file. NotStrictJson as register."""
    if data is None:
        return "file", ""
    root = scan(data)
    hooks = hooks_of(root)
    if hooks is None:
        container, added = root, "hooks"
    else:
        names = [name for name, _, _, _ in hooks.members]
        if any(names[m] == event for m, _, _ in ours_in(hooks, forms)):
            return "handler", ""
        groups = hooks.member(event)
        container, added = (hooks, "event") if groups is None else (groups, "group")
    inside = b"" if container.spans() else data[container.start + 1 : container.end - 1]
    return added, inside.decode("utf-8")


def unregister(
    data: bytes, event: str, forms: "Collection[Form]", added: "Optional[str]", inside: str
) -> "Optional[bytes]":
    """DATA without any handler of ours (N13): each removed with its group when that held nothing else; an
    event's array so emptied removed too, unless ADDED says register appended to it (then it is left as it was
    found, INSIDE); ``hooks`` left empty removed when register added it (ADDED ``hooks`` or ``file``). None when
    ADDED is ``file`` and nothing else is left (the caller deletes the file). ADDED None (no record): arrays
    emptied go, ``hooks`` and the file stay. NotStrictJson as register."""
    for _ in range(len(data) + 2):  # every edit removes one item: it ends
        edit = _next_removal(data, event, forms, added, inside.encode("utf-8"))
        if edit is None:
            break
        start, end, text = edit
        data = data[:start] + text + data[end:]
    if added == "file" and not scan(data).members:
        return None
    return data


def _next_removal(
    data: bytes, event: str, forms: "Collection[Form]", added: "Optional[str]", inside: bytes
) -> "Optional[Edit]":
    root = scan(data)
    hooks = hooks_of(root)
    style = _Style(data, root)
    ours = ours_in(hooks, forms)
    if ours:
        assert hooks is not None
        m, g, h = ours[0]
        name, _, _, groups = hooks.members[m]
        handlers = groups.items[g].member("hooks")
        assert handlers is not None
        if len(handlers.items) > 1:
            return style.remove(handlers, h)
        found_there = name == event and added == "group"
        if len(groups.items) > 1 or found_there:
            return style.remove(groups, g, inside if found_there else b"")
        return style.remove(hooks, m, inside if added == "event" else b"")
    if hooks is not None and not hooks.members and added in ("hooks", "file"):
        index = [name for name, _, _, _ in root.members].index("hooks")
        return style.remove(root, index, inside if added == "hooks" else b"")
    return None


def hooks_of(root: Node) -> "Optional[Node]":
    """The root's ``hooks`` object (None when absent); NotStrictJson for a root or hooks of the wrong shape."""
    if root.kind != "object":
        raise NotStrictJson("is not a JSON object")
    hooks = root.member("hooks")
    if hooks is not None and (hooks.kind != "object" or any(n.kind != "array" for _, _, _, n in hooks.members)):
        raise NotStrictJson('has a "hooks" that is not an object of arrays')
    return hooks


def ours_in(hooks: "Optional[Node]", forms: "Collection[Form]") -> "List[Tuple[int, int, int]]":
    """Where our handlers are, in file order: (event's member index, group index, handler index)."""
    found = []
    for m, (_, _, _, groups) in enumerate(hooks.members if hooks is not None else []):
        for g, group in enumerate(groups.items):
            handlers = group.member("hooks") if group.kind == "object" else None
            for h, handler in enumerate(handlers.items if handlers is not None and handlers.kind == "array" else []):
                if handler.kind == "object" and handler_form(to_python(handler)) in forms:
                    found.append((m, g, h))
    return found


def _next_edit(data: bytes, event: str, group: dict, forms: "Collection[Form]") -> "Optional[Edit]":
    root = scan(data)
    hooks = hooks_of(root)
    ours = ours_in(hooks, forms)
    style = _Style(data, root)
    if hooks is None:
        return style.insert(root, "hooks", {event: [group]})
    names = [name for name, _, _, _ in hooks.members]
    keeper = next((where for where in ours if names[where[0]] == event), None)
    for m, g, h in ours:
        if (m, g, h) == keeper:
            continue
        groups = hooks.members[m][3]
        handlers = groups.items[g].member("hooks")
        assert handlers is not None
        if len(handlers.items) > 1:
            return style.remove(handlers, h)
        if len(groups.items) > 1:
            return style.remove(groups, g)
        return style.remove(hooks, m)
    if keeper is None:
        groups = hooks.member(event)
        if groups is None:
            return style.insert(hooks, event, [group])
        return style.insert(groups, None, group)
    m, g, h = keeper
    handlers = hooks.members[m][3].items[g].member("hooks")
    assert handlers is not None
    handler = handlers.items[h]
    if to_python(handler) == group["hooks"][0]:
        return None
    one_line = b"\n" not in data[handler.start : handler.end]
    text = style.render(group["hooks"][0], style.line_indent(handler.start), inline=one_line)
    return handler.start, handler.end, text


class _Style:
    """The file's line end and indentation, and the edits that copy them."""

    def __init__(self, data: bytes, root: Node) -> None:
        self.data = data
        first = data.find(b"\n")
        self.newline = "\r\n" if first > 0 and data[first - 1 : first] == b"\r" else "\n"
        self.inline = b"\n" not in data[root.start : root.end]  # an object on one line gets what it holds: one line
        self.unit = DEFAULT_INDENT
        if root.members and self._block(root):
            self.unit = self.line_indent(root.members[0][1]) or DEFAULT_INDENT

    def line_indent(self, at: int) -> str:
        """The blanks that start the line holding byte ``at``."""
        start = self.data.rfind(b"\n", 0, at) + 1
        end = start
        while self.data[end : end + 1] in (b" ", b"\t"):
            end += 1
        return self.data[start:end].decode("ascii")

    def _block(self, container: Node) -> bool:
        """Whether the container's first item starts a line of its own."""
        spans = container.spans()
        return bool(spans) and b"\n" in self.data[container.start : spans[0][0]]

    def render(self, value: object, indent: str, key: "Optional[str]" = None, inline: bool = False) -> bytes:
        head = "" if key is None else json.dumps(key, ensure_ascii=False) + ": "
        if self.inline or inline:
            return (head + json.dumps(value, ensure_ascii=False)).encode("utf-8")
        text = json.dumps(value, indent=self.unit, ensure_ascii=False)
        return (head + text.replace("\n", self.newline + indent)).encode("utf-8")

    def insert(self, container: Node, key: "Optional[str]", value: object) -> "Edit":
        """VALUE (under KEY in an object) as the container's last item."""
        spans = container.spans()
        if not spans:
            if self.inline:
                return container.start + 1, container.end - 1, self.render(value, "", key)
            outer = self.line_indent(container.start)
            inner = outer + self.unit
            text = self.newline + inner + self.render(value, inner, key).decode("utf-8") + self.newline + outer
            return container.start + 1, container.end - 1, text.encode("utf-8")
        end = spans[-1][1]
        if self._block(container):
            indent = self.line_indent(spans[-1][0])
            return end, end, ("," + self.newline + indent).encode("ascii") + self.render(value, indent, key)
        between = self.data[spans[-2][1] : spans[-1][0]] if len(spans) > 1 else b", "
        return end, end, between + self.render(value, "", key, inline=True)  # a container on one line stays so

    def remove(self, container: Node, index: int, emptied: bytes = b"") -> "Edit":
        """The container's item INDEX, with the comma and blanks that joined it to a neighbour; the last one
        leaves EMPTIED inside the brackets."""
        spans = container.spans()
        if len(spans) == 1:
            return container.start + 1, container.end - 1, emptied
        if index > 0:
            return spans[index - 1][1], spans[index][1], b""
        return spans[0][0], spans[1][0], b""
