"""The flag vocabulary: generated from spec/flags.toml by tools/generate.py (make generate); do not edit."""

# (mode key, dashed flag name), in contract order.
MODES = (
    ("quality_locked", "quality-locked"),
    ("autonomous", "autonomous"),
)
SUPPORTED_FLAGS = "--quality-locked, --autonomous"
# docs/SPEC.md S7: a token part longer than this (code points) is near no flag form.
SUGGEST_LIMIT = 22
