"""The flag vocabularies: generated from spec/flags.toml by tools/generate.py (make generate); do not edit.

Data only (docs/SPEC.md B1-B5): sage_flags._vocabulary makes a name's table a Vocabulary, the value every
layer passes along; nothing here reads the environment.
"""

DEFAULT = "sage-1.1"
# Every vocabulary this build carries (`sage-flags --version` lists them).
NAMES = ("sage-1.1", "sage-1.3", "sage-1.3.18")
UNKNOWN_VOCABULARY = "sage-flags: unknown vocabulary (known: sage-1.1, sage-1.3, sage-1.3.18)"
# Each vocabulary's table. modes: (mode key, dashed flag name), in contract order. value_modes: the modes
# that take a value (V1-V8), each (mode index, number field, note field, E5's words, metavar, default,
# minimum, cap). supported_flags: E1's list. e2_value_hint: E2's last sentence (empty when no mode takes a
# value). suggest_limit: S7, a token part longer than this (code points) is near no flag form. workflows:
# K3, the workflows `sage-flags hook` answers.
TABLES = {
    "sage-1.1": {
        "modes": (
            ("quality_locked", "quality-locked"),
            ("autonomous", "autonomous"),
        ),
        "value_modes": (),
        "supported_flags": "--quality-locked, --autonomous",
        "e2_value_hint": "",
        "suggest_limit": 22,
        "workflows": ("build", "architect"),
    },
    "sage-1.3": {
        "modes": (
            ("quality_locked", "quality-locked"),
            ("autonomous", "autonomous"),
            ("subagents", "subagents"),
        ),
        "value_modes": (),
        "supported_flags": "--quality-locked, --autonomous, --subagents",
        "e2_value_hint": "",
        "suggest_limit": 22,
        "workflows": ("build", "architect"),
    },
    "sage-1.3.18": {
        "modes": (
            ("quality_locked", "quality-locked"),
            ("autonomous", "autonomous"),
            ("subagents", "subagents"),
            ("parallel", "parallel"),
        ),
        "value_modes": ((3, "parallel_lanes", "parallel_note", "lane count", "N", 2, 1, 4),),
        "supported_flags": "--quality-locked, --autonomous, --subagents, --parallel[=N]",
        "e2_value_hint": " Only --parallel=N takes a value.",
        "suggest_limit": 22,
        "workflows": ("build", "architect"),
    },
}
# docs/SPEC.md K5: the words every hook context starts with.
HOOK_LABEL = "sage-flags hook result"
# docs/SPEC.md B5: Sage's releases (first, last or None, vocabulary), ascending (spec/releases.toml).
RELEASES = (
    ((1, 1, 0), (1, 2), "sage-1.1"),
    ((1, 3, 0), (1, 3, 17), "sage-1.3"),
    ((1, 3, 18), (1, 3), "sage-1.3.18"),
)
