"""Drop-in flag parser for a Sage project.

    python -m core.flag_parser parse "$ARGUMENTS" --config-path .sage/config.yaml

behaves exactly like ``sage-flags parse``; ``core.flag_parser.parser.parse`` and
``core.flag_parser.config_loader.load_defaults`` are the predecessor's API.
All of it delegates to the ``sage_flags`` package: the installed one, or the
repository's python/ when this directory is used from a checkout.
"""

import os
import sys


def import_sage_flags():  # type: ignore[no-untyped-def]
    """The sage_flags package, or ImportError when neither copy is there."""
    try:
        import sage_flags
    except ImportError:
        checkout = os.path.normpath(
            os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python")
        )
        if not os.path.isfile(os.path.join(checkout, "sage_flags", "__init__.py")):
            raise ImportError("the sage_flags package is not installed (pip install sage-flags)") from None
        sys.path.insert(0, checkout)
        import sage_flags
    return sage_flags
