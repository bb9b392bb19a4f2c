"""``ParseResult``, the one result class of both backends (docs/IMPLEMENTATION.md D23), and its JSON line
(C16, C17). A module of its own so that the pure reference imports it without importing the package's
``__init__``, which imports the reference back.
"""

from sage_flags._vocabulary import vocabulary as _vocabulary

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs start-up time: annotations are strings
    from typing import Dict, List, Mapping, Optional, Tuple, Union

    from sage_flags._vocabulary import Vocabulary


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


class ParseResult:
    """The outcome of one parse: modes, their sources, the goal, or an error, in one vocabulary.

    Immutable. Fields follow C16 for the result's vocabulary (``vocabulary`` names it): one ``<key>`` and one
    ``<key>_source`` per mode, ``goal`` and ``error``; then, for each mode that takes a value (V7), its number and
    its note (``values`` maps those field names to them). Each is an attribute; another vocabulary's mode is not.
    Both backends return this class (docs/IMPLEMENTATION.md D23).
    """

    __slots__ = ("_fields", "_line", "_vocabulary")
    _fields: "Tuple[Union[str, bool, int, None], ...]"  # the values, in the vocabulary's field order
    _line: "Optional[str]"  # the JSON line the compiled core wrote; None: to_json writes it
    _vocabulary: "Vocabulary"

    def __init__(
        self,
        modes: "Mapping[str, bool]",
        sources: "Mapping[str, Optional[str]]",
        goal: str = "",
        error: "Optional[str]" = None,
        values: "Optional[Mapping[str, Union[int, str, None]]]" = None,
        *,
        vocabulary: "Optional[str]" = None,
    ) -> None:
        rules = _vocabulary(vocabulary)
        fields: "List[Union[str, bool, int, None]]" = [bool(modes.get(key, False)) for key, _ in rules.modes]
        fields += (goal, error)
        fields += (sources.get(key) for key, _ in rules.modes)
        for spec in rules.value_modes:
            fields += (int((values or {}).get(spec.field) or 0), (values or {}).get(spec.note_field))
        self._fields = tuple(fields)
        self._line = None
        self._vocabulary = rules

    def __getattr__(self, name: str) -> "Union[str, bool, int, None]":
        # C16, V7: the fields of the result's vocabulary (a slot not yet set starts with "_": no recursion).
        if not name.startswith("_"):
            place = self._vocabulary.index.get(name)
            if place is not None:
                return self._fields[place]
        raise AttributeError("%r object has no attribute %r" % (type(self).__name__, name))

    def __dir__(self) -> "List[str]":
        return sorted({*object.__dir__(self), *self._vocabulary.fields})

    def __eq__(self, other: object) -> bool:
        to_dict = getattr(other, "to_dict", None)
        if to_dict is None:
            return NotImplemented
        return self.to_dict() == to_dict()

    def __hash__(self) -> int:
        return hash(self._fields)

    def __repr__(self) -> str:
        inner = ", ".join("%s=%r" % kv for kv in zip(self._vocabulary.fields, self._fields))
        return "ParseResult(%s)" % inner

    @property
    def vocabulary(self) -> str:
        """The name of the vocabulary this result was parsed in (docs/SPEC.md B1)."""
        return self._vocabulary.name

    @property
    def ok(self) -> bool:
        return self._fields[len(self._vocabulary.modes) + 1] is None  # C16: the error follows the modes and goal

    def to_dict(self) -> "Dict[str, Union[str, bool, int, None]]":
        """The six (or more) fields, keys in C16 order."""
        return dict(zip(self._vocabulary.fields, self._fields))

    def to_json(self) -> str:
        """The exact C16/C17 line, without the trailing newline."""
        if self._line is not None:
            return self._line
        if not _JSON_ESCAPES:
            _escapes()
        pairs = zip(self._vocabulary.fields, self._fields)
        return "{" + ", ".join(_json_string(k) + ": " + _json_value(v) for k, v in pairs) + "}"


_new = object.__new__


def _from_core(fields: "Tuple[Union[str, bool, int, None], ...]", line: str, name: str) -> ParseResult:
    """The compiled core's result (sage_flags._native): its field values in the field order of vocabulary
    ``name`` and the JSON line it wrote, taken as they are (no check, no copy), so that equality, hashing, repr
    and to_json are this class's."""
    result = _new(ParseResult)
    result._fields = fields
    result._line = line
    result._vocabulary = _vocabulary(name)
    return result
