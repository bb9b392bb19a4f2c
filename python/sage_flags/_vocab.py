"""The flag vocabularies: generated from spec/flags.toml by tools/generate.py (make generate); do not edit.

The process's vocabulary is chosen once, at import (docs/SPEC.md B1-B4): SAGE_FLAGS_VOCABULARY names it,
unset or empty is DEFAULT. An unknown name binds DEFAULT's constants with KNOWN False, so that importing
never fails; every entry point refuses it (status 2, UNKNOWN_VOCABULARY) before anything parses.
"""

import os

DEFAULT = "sage-1.1"
# Every vocabulary this build carries (`sage-flags --version` lists them).
NAMES = ("sage-1.1", "sage-1.3", "sage-1.3.18")
UNKNOWN_VOCABULARY = "sage-flags: unknown vocabulary (known: sage-1.1, sage-1.3, sage-1.3.18)"
NAME = os.environ.get("SAGE_FLAGS_VOCABULARY") or DEFAULT
KNOWN = NAME in NAMES


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


# MODES: (mode key, dashed flag name), in contract order. VALUE_MODES: the modes that take a value (V1-V8).
# SUPPORTED_FLAGS: E1's list. E2_VALUE_HINT: E2's last sentence (empty when no mode takes a value).
# SUGGEST_LIMIT: S7, a token part longer than this (code points) is near no flag form.
# WORKFLOWS: K3, the workflows `sage-flags hook` answers.
MODES: "tuple[tuple[str, str], ...]"
VALUE_MODES: "tuple[ValueMode, ...]"
if NAME == "sage-1.3":
    MODES = (
        ("quality_locked", "quality-locked"),
        ("autonomous", "autonomous"),
        ("subagents", "subagents"),
    )
    VALUE_MODES = ()
    SUPPORTED_FLAGS = "--quality-locked, --autonomous, --subagents"
    E2_VALUE_HINT = ""
    SUGGEST_LIMIT = 22
    WORKFLOWS = ("build", "architect")
elif NAME == "sage-1.3.18":
    MODES = (
        ("quality_locked", "quality-locked"),
        ("autonomous", "autonomous"),
        ("subagents", "subagents"),
        ("parallel", "parallel"),
    )
    VALUE_MODES = (ValueMode(3, "parallel_lanes", "parallel_note", "lane count", "N", 2, 1, 4),)
    SUPPORTED_FLAGS = "--quality-locked, --autonomous, --subagents, --parallel[=N]"
    E2_VALUE_HINT = " Only --parallel=N takes a value."
    SUGGEST_LIMIT = 22
    WORKFLOWS = ("build", "architect")
else:  # the default, and an unknown name (KNOWN is False: every entry refuses it)
    MODES = (
        ("quality_locked", "quality-locked"),
        ("autonomous", "autonomous"),
    )
    VALUE_MODES = ()
    SUPPORTED_FLAGS = "--quality-locked, --autonomous"
    E2_VALUE_HINT = ""
    SUGGEST_LIMIT = 22
    WORKFLOWS = ("build", "architect")
# docs/SPEC.md K5: the words every hook context starts with.
HOOK_LABEL = "sage-flags hook result"
# docs/SPEC.md B5: Sage's releases (first, last or None, vocabulary), ascending (spec/releases.toml).
RELEASES = (
    ((1, 1, 0), (1, 2), "sage-1.1"),
    ((1, 3, 0), (1, 3, 17), "sage-1.3"),
    ((1, 3, 18), (1, 3), "sage-1.3.18"),
)


def vocabulary_for_release(version: str) -> "str | None":
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
