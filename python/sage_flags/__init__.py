"""sage-flags: the deterministic flag parser for Sage's agent workflows.

    >>> from sage_flags import parse
    >>> parse("--quality-locked Ship dark mode").goal
    'Ship dark mode'

The compiled core (``sage_flags._native``) is used when it is installed, the
pure-Python reference (``sage_flags.reference``) otherwise; ``BACKEND`` says
which. ``SAGE_FLAGS_BACKEND=python`` forces the pure path and
``SAGE_FLAGS_BACKEND=native`` makes the first use fail with ImportError when
the compiled core is missing. The backend is chosen on first use (PEP 562), so
that importing ``sage_flags.cli`` can report a bad choice as one clean line.

``ParseResult`` is the one result class of both backends (docs/IMPLEMENTATION.md D23), defined here: the
package is imported on every path anyway, so a module of its own would cost each cold start a module load.
The pure reference builds it with the public constructor, the compiled core through ``_from_core`` with the
JSON line the core already wrote.
"""

import os

from sage_flags._vocab import MODES, VALUE_MODES

__version__ = "0.1.0"
__all__ = ["BACKEND", "ParseResult", "__version__", "load_defaults", "parse"]

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs start-up time: annotations are strings
    from typing import Dict, List, Mapping, Optional, Tuple, Union

    from sage_flags.reference import load_defaults, parse

    BACKEND: str


# C17: json.dumps(ensure_ascii=False) string escapes, without importing json; filled by _escapes() on the first
# to_json that writes its own line: the compiled core's results carry theirs, so its cold start never builds it.
_JSON_ESCAPES: "Dict[int, str]" = {}


def _escapes() -> None:
    _JSON_ESCAPES.update({i: "\\u%04x" % i for i in range(0x20)})
    _JSON_ESCAPES.update({ord('"'): '\\"', ord("\\"): "\\\\", 8: "\\b", 9: "\\t", 10: "\\n", 12: "\\f", 13: "\\r"})


def _json_string(value: str) -> str:
    return '"' + value.translate(_JSON_ESCAPES) + '"'


def _json_value(value: "Union[str, bool, int, None]") -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if type(value) is int:  # V7: a mode's number
        return str(value)
    return _json_string(value)


# C16 and V7: every field's name, in the order of the JSON line.
FIELDS = (
    *(key for key, _ in MODES),
    "goal",
    "error",
    *(key + "_source" for key, _ in MODES),
    *(name for spec in VALUE_MODES for name in (spec.field, spec.note_field)),
)
_ERROR = FIELDS.index("error")


class ParseResult:
    """The outcome of one parse: modes, their sources, the goal, or an error.

    Immutable: each field is a read-only property. Fields follow C16: one
    ``<key>`` and one ``<key>_source`` per mode, ``goal`` and ``error``; then,
    for each mode that takes a value (V7), its number and its note (``values``
    maps those field names to them). Both backends return this class
    (docs/IMPLEMENTATION.md D23).
    """

    __slots__ = ("_fields", "_line")
    _fields: "Tuple[Union[str, bool, int, None], ...]"  # the values, in FIELDS order
    _line: "Optional[str]"  # the JSON line the compiled core wrote; None: to_json writes it

    def __init__(
        self,
        modes: "Mapping[str, bool]",
        sources: "Mapping[str, Optional[str]]",
        goal: str = "",
        error: "Optional[str]" = None,
        values: "Optional[Mapping[str, Union[int, str, None]]]" = None,
    ) -> None:
        fields: "List[Union[str, bool, int, None]]" = [bool(modes.get(key, False)) for key, _ in MODES]
        fields += (goal, error)
        fields += (sources.get(key) for key, _ in MODES)
        for spec in VALUE_MODES:
            fields += (int((values or {}).get(spec.field) or 0), (values or {}).get(spec.note_field))
        self._fields = tuple(fields)
        self._line = None

    def __eq__(self, other: object) -> bool:
        to_dict = getattr(other, "to_dict", None)
        if to_dict is None:
            return NotImplemented
        return self.to_dict() == to_dict()

    def __hash__(self) -> int:
        return hash(self._fields)

    def __repr__(self) -> str:
        inner = ", ".join("%s=%r" % kv for kv in zip(FIELDS, self._fields))
        return "ParseResult(%s)" % inner

    @property
    def ok(self) -> bool:
        return self._fields[_ERROR] is None

    def to_dict(self) -> "Dict[str, Union[str, bool, int, None]]":
        """The six (or more) fields, keys in C16 order."""
        return dict(zip(FIELDS, self._fields))

    def to_json(self) -> str:
        """The exact C16/C17 line, without the trailing newline."""
        if self._line is not None:
            return self._line
        if not _JSON_ESCAPES:
            _escapes()
        return "{" + ", ".join(_json_string(k) + ": " + _json_value(v) for k, v in zip(FIELDS, self._fields)) + "}"


def _field(index: int) -> property:
    return property(lambda self: self._fields[index], doc="The field %s (C16, V7)." % FIELDS[index])


# The fields' names come from the vocabulary: one read-only property each, made once at import.
for _index, _name in enumerate(FIELDS):
    setattr(ParseResult, _name, _field(_index))
_new = object.__new__


def _from_core(fields: "Tuple[Union[str, bool, int, None], ...]", line: str) -> ParseResult:
    """The compiled core's result (sage_flags._native): its field values in FIELDS order and the JSON line it
    wrote, taken as they are (no check, no copy), so that equality, hashing, repr and to_json are this class's."""
    result = _new(ParseResult)
    result._fields = fields
    result._line = line
    return result


def _load_backend() -> None:
    from sage_flags import _vocab

    if not _vocab.KNOWN:  # docs/SPEC.md B3: never another vocabulary's rules
        raise ImportError(_vocab.UNKNOWN_VOCABULARY)
    wanted = os.environ.get("SAGE_FLAGS_BACKEND", "")
    if wanted not in ("", "auto", "native", "python"):
        raise ImportError("SAGE_FLAGS_BACKEND must be 'native', 'python' or 'auto', not %r" % wanted)
    backend = None
    if wanted != "python":
        try:
            from sage_flags import _native as backend  # type: ignore[attr-defined,no-redef]
        except ImportError:
            if wanted == "native":
                raise ImportError(
                    "SAGE_FLAGS_BACKEND=native, but the compiled core sage_flags._native is not installed"
                ) from None
    name = "native"
    if backend is None:
        from sage_flags import reference as backend

        name = "python"
    globals().update(BACKEND=name, load_defaults=backend.load_defaults, parse=backend.parse)


def __getattr__(name: str) -> object:
    if name in ("BACKEND", "load_defaults", "parse"):
        _load_backend()
        return globals()[name]
    raise AttributeError("module 'sage_flags' has no attribute %r" % name)
