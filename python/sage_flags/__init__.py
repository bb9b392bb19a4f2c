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

``ParseResult`` is the one result class of both backends (docs/IMPLEMENTATION.md D23), defined in
``sage_flags._result`` (the reference imports it from there, never this package's ``__init__``, which imports
the reference). The pure reference builds it with the public constructor, the compiled core through
``_from_core`` with the JSON line the core already wrote.

The vocabulary is an argument: ``parse(text, vocabulary="sage-1.3")``, ``load_defaults(path, "sage-1.3")``
(docs/SPEC.md B1-B2; ``NAMES`` lists them, ``DEFAULT`` is the one when none is named). Any of them, in any
order, in one process; the package never reads SAGE_FLAGS_VOCABULARY (the command line does).
"""

import os

from sage_flags._result import ParseResult, _from_core  # noqa: F401 (_from_core: the compiled core's)
from sage_flags._vocabulary import DEFAULT, NAMES  # the vocabularies this build carries (B1)

__version__ = "0.1.0"
__all__ = ["BACKEND", "DEFAULT", "NAMES", "ParseResult", "__version__", "load_defaults", "parse"]

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs start-up time: annotations are strings
    from typing import Sequence

    from sage_flags.reference import load_defaults, parse

    BACKEND: str


def parse_command_line(items: "Sequence[bytes]", vocabulary: str = DEFAULT) -> ParseResult:
    """parse's argv (C1-C3, I1-I6) to a parse result in ``vocabulary`` with the config's defaults (C11): parse,
    announce, resume."""
    from sage_flags._io import read_arguments

    arguments, config_path = read_arguments(items)
    if "parse" not in globals():
        _load_backend()
    defaults = load_defaults(config_path, vocabulary) if config_path else None  # C11
    # C10: invalid UTF-8 becomes lone surrogates, which parse() reports as E4.
    return parse(arguments.decode("utf-8", "surrogateescape"), defaults, vocabulary=vocabulary)


def _load_backend() -> None:
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
