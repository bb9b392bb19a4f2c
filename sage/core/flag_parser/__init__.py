"""Drop-in flag parser for a Sage project.

    python -m core.flag_parser parse --config-path ../.sage/config.yaml --stdin <<'SAGE_ARGUMENTS_7Q2F'
    $ARGUMENTS
    SAGE_ARGUMENTS_7Q2F

behaves exactly like ``sage-flags parse``; ``core.flag_parser.parser.parse`` and
``core.flag_parser.config_loader.load_defaults`` are the predecessor's API.
All of it delegates to the ``sage_flags`` package, the first found of: the
installed one; the repository's python/ when this directory is used from a
checkout; the copy in _vendor/ that the vendorable bundle carries (built from
python/ by ``make bundle``, never kept in git), so that a Sage project that
copied this directory needs nothing but python3 (docs/SPEC.md D25).
"""

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
PLACES = (
    os.path.normpath(os.path.join(_HERE, "..", "..", "..", "python")),  # a checkout
    os.path.join(_HERE, "_vendor"),  # the bundle
)


def import_sage_flags():  # type: ignore[no-untyped-def]
    """The sage_flags package, or ImportError when no copy is there."""
    try:
        import sage_flags
    except ImportError:
        place = next((p for p in PLACES if os.path.isfile(os.path.join(p, "sage_flags", "__init__.py"))), None)
        if place is None:
            raise ImportError("the sage_flags package is not installed (pip install sage-flags)") from None
        sys.path.insert(0, place)
        import sage_flags
    return sage_flags
