"""The flag vocabulary: generated from spec/flags.toml by tools/generate.py (make generate); do not edit."""

# (mode key, dashed flag name), in contract order.
MODES = (
    ("quality_locked", "quality-locked"),
    ("autonomous", "autonomous"),
)


class ValueMode:
    """A mode's value (docs/SPEC.md V1): `--<name>=N`."""

    __slots__ = ("cap", "default", "field", "metavar", "minimum", "mode", "name", "note_field")

    def __init__(
        self, mode: int, field: str, note_field: str, name: str, metavar: str, default: int, minimum: int, cap: int
    ) -> None:
        self.mode = mode  # the index of its mode in MODES
        self.field = field  # the JSON key of the number
        self.note_field = note_field  # the JSON key of the note
        self.name = name  # the words for E5 (what a number of this mode counts)
        self.metavar = metavar  # the placeholder in the flag lists (N)
        self.default = default  # the number when the mode is on and no token gave one (V4)
        self.minimum = minimum  # the smallest number a token may give (V2)
        self.cap = cap  # the largest number; above it, clamped with a note (V5)


# Modes that take a value (docs/SPEC.md V1-V8), in vocabulary order.
VALUE_MODES: "tuple[ValueMode, ...]" = ()
SUPPORTED_FLAGS = "--quality-locked, --autonomous"
# E2's last sentence: the flags that take a value (empty when none does).
E2_VALUE_HINT = ""
# docs/SPEC.md S7: a token part longer than this (code points) is near no flag form.
SUGGEST_LIMIT = 22
# docs/SPEC.md K3, K5: the workflows `sage-flags hook` answers, and the words its context starts with.
WORKFLOWS = ("build", "architect")
HOOK_LABEL = "sage-flags hook result"
