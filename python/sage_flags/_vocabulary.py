"""A vocabulary as a value (docs/SPEC.md B1-B5): ``vocabulary(name)`` makes the generated table of ``name``
(sage_flags._vocab, data only) a ``Vocabulary`` once per process, and every layer is handed one. Nothing here
reads the environment: the command line (and the drop-in, the launcher) name the vocabulary, the library takes it
as an argument.
"""

from sage_flags._vocab import DEFAULT, NAMES, RELEASES, TABLES, UNKNOWN_VOCABULARY

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs start-up time: annotations are strings
    from typing import Dict, Optional, Tuple

__all__ = ["DEFAULT", "NAMES", "UNKNOWN_VOCABULARY", "ValueMode", "Vocabulary", "vocabulary"]


class ValueMode:
    """A mode's value (docs/SPEC.md V1): `--<name>=N`."""

    __slots__ = ("cap", "default", "field", "metavar", "minimum", "mode", "name", "note_field")

    def __init__(
        self, mode: int, field: str, note_field: str, name: str, metavar: str, default: int, minimum: int, cap: int
    ) -> None:
        self.mode = mode  # the index of its mode in Vocabulary.modes
        self.field = field  # the JSON key of the number
        self.note_field = note_field  # the JSON key of the note
        self.name = name  # the words for E5 (what a number of this mode counts)
        self.metavar = metavar  # the placeholder in the flag lists (N)
        self.default = default  # the number when the mode is on and no token gave one (V4)
        self.minimum = minimum  # the smallest number a token may give (V2)
        self.cap = cap  # the largest number; above it, clamped with a note (V5)


class Vocabulary:
    """One vocabulary's rules as data (its table in sage_flags._vocab), with its result fields (C16, V7)."""

    __slots__ = ("e2_value_hint", "fields", "index", "modes", "name", "suggest_limit", "supported_flags")
    __slots__ += ("value_modes", "workflows")

    def __init__(
        self,
        name: str,
        modes: "Tuple[Tuple[str, str], ...]",
        value_modes: "Tuple[Tuple[int, str, str, str, str, int, int, int], ...]",
        supported_flags: str,
        e2_value_hint: str,
        suggest_limit: int,
        workflows: "Tuple[str, ...]",
    ) -> None:
        self.name = name
        self.modes = modes  # (mode key, dashed flag name), in contract order
        self.value_modes = tuple(ValueMode(*row) for row in value_modes)  # V1-V8
        self.supported_flags = supported_flags  # E1's list
        self.e2_value_hint = e2_value_hint  # E2's last sentence (empty when no mode takes a value)
        self.suggest_limit = suggest_limit  # S7
        self.workflows = workflows  # K3
        # C16 and V7: every field's name, in the order of the JSON line; and field name -> its place.
        self.fields = (
            *(key for key, _ in modes),
            "goal",
            "error",
            *(key + "_source" for key, _ in modes),
            *(name for spec in self.value_modes for name in (spec.field, spec.note_field)),
        )
        self.index = {field: place for place, field in enumerate(self.fields)}

    def __repr__(self) -> str:
        return "Vocabulary(%r)" % self.name


_MADE: "Dict[str, Vocabulary]" = {}


def vocabulary(name: "Optional[str]" = None) -> Vocabulary:
    """The vocabulary called ``name`` (None: DEFAULT); ValueError with B3's line for a name this build does not
    carry, TypeError for what is no name."""
    made = _MADE.get(name) if type(name) is str else None  # type: ignore[arg-type]
    if made is not None:
        return made
    if name is None:
        return vocabulary(DEFAULT)
    if not isinstance(name, str):
        raise TypeError("vocabulary must be a str (one of %s), not %s" % (", ".join(NAMES), type(name).__name__))
    table = TABLES.get(str.__str__(name))
    if table is None:
        raise ValueError(UNKNOWN_VOCABULARY)
    made = _MADE[name] = Vocabulary(str.__str__(name), **table)
    return made


def vocabulary_for_release(version: str) -> "Optional[str]":
    """B5: the vocabulary of Sage release ``version`` ("1.3.21", "v1.3.18", "1.2"), or None for a release
    outside the table (a newer Sage may add flags we would refuse) or text that is no release."""
    import re

    match = re.match(r"v?([0-9]+)\.([0-9]+)(?:\.([0-9]+))?(?![0-9.])", version.strip())
    if match is None:
        return None
    release = tuple(int(part or 0) for part in match.groups())
    for first, last, name in RELEASES:
        if first <= release[: len(first)] and (last is None or release[: len(last)] <= last):
            return name
    return None
