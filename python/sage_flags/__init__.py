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
"""

import os

__version__ = "0.1.0"
__all__ = ["BACKEND", "ParseResult", "__version__", "load_defaults", "parse"]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from sage_flags.reference import ParseResult, load_defaults, parse

    BACKEND: str


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
    globals().update(
        BACKEND=name, ParseResult=backend.ParseResult, load_defaults=backend.load_defaults, parse=backend.parse
    )


def __getattr__(name: str) -> object:
    if name in ("BACKEND", "ParseResult", "load_defaults", "parse"):
        _load_backend()
        return globals()[name]
    raise AttributeError("module 'sage_flags' has no attribute %r" % name)
