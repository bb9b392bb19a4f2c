"""The flag vocabulary: generated from spec/flags.toml by tools/generate.py (make generate); do not edit."""

# (mode key, dashed flag name), in contract order.
MODES = (
    ("quality_locked", "quality-locked"),
    ("autonomous", "autonomous"),
)
# Modes that take a value (docs/SPEC.md V1-V8), in vocabulary order:
# (mode index, field, note field, value name, metavar, default, minimum, cap).
VALUE_MODES = ()
SUPPORTED_FLAGS = "--quality-locked, --autonomous"
# E2's last sentence: the flags that take a value (empty when none does).
E2_VALUE_HINT = ""
# docs/SPEC.md S7: a token part longer than this (code points) is near no flag form.
SUGGEST_LIMIT = 22
# docs/SPEC.md K3, K5: the workflows `sage-flags hook` answers, and the words its context starts with.
WORKFLOWS = ("build", "architect")
HOOK_LABEL = "sage-flags hook result"
