"""Drop-in flag parser for a Sage project.

    python3 -B -m core.flag_parser parse --config-path ../.sage/config.yaml --stdin <<'SAGE_ARGUMENTS_7Q2F'
    $ARGUMENTS
    SAGE_ARGUMENTS_7Q2F

behaves exactly like ``sage-flags parse``. The modules keep every name of Sage 1.1.5's that they replace
(docs/SPEC.md N8.1): ``__version__`` here, ``core.flag_parser.parser``'s ``parse``, ``ParseResult`` and flag
sets, ``core.flag_parser.config_loader.load_defaults``; so Sage's own ``core/flag_parser/cli.py`` and tests
still run.
All of it delegates to the ``sage_flags`` package this directory ships, never an installed one (one chooser,
issue 42): the copy in _vendor/ that the bundle carries (built from python/ by ``make dist``, never kept in git),
or the repository's python/ when this directory is used from a checkout; so a Sage project that unpacked the
bundle needs nothing but python3 (docs/IMPLEMENTATION.md D25).
The vocabulary (docs/SPEC.md B6): SAGE_FLAGS_VOCABULARY's (empty: none named), else sage-1.1, the package's
default: this step only ever runs as Sage 1.1's own. The name is taken as it is (no trimming); the package judges
it (B3).
"""

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
PLACES = (
    os.path.join(_HERE, "_vendor"),  # the bundle
    os.path.normpath(os.path.join(_HERE, "..", "..", "..", "python")),  # a checkout
)
OLDEST_PYTHON = (3, 8)  # docs/IMPLEMENTATION.md D28; this file and __main__.py parse under Python 2.7 for that check


def import_sage_flags():  # type: ignore[no-untyped-def]
    """The sage_flags package, or ImportError when no copy is there or this Python is too old for it."""
    if sys.version_info < OLDEST_PYTHON:
        raise ImportError("sage_flags needs Python 3.8 or newer; this is Python %d.%d" % sys.version_info[:2])
    place = next((p for p in PLACES if os.path.isfile(os.path.join(p, "sage_flags", "__init__.py"))), None)
    if place is None:
        raise ImportError("no copy of the sage_flags package beside this drop-in (unpack the bundle again)")
    sys.path.insert(0, place)  # before the installed packages: this drop-in runs its own copy
    import sage_flags

    return sage_flags


def vocabulary():  # type: () -> str
    """B6: SAGE_FLAGS_VOCABULARY as it is, empty when unset (the package's default, sage-1.1, then answers)."""
    return os.environ.get("SAGE_FLAGS_VOCABULARY", "")


def in_vocabulary(function):  # type: ignore[no-untyped-def]
    """B6: the package's ``function`` (parse, load_defaults) in the named vocabulary, given as the argument (B2):
    the copy this drop-in ships takes one."""
    name = vocabulary()
    if name:
        import functools

        return functools.partial(function, vocabulary=name)
    return function


def __getattr__(name):  # type: (str) -> str
    """PEP 562: ``__version__`` (Sage 1.1.5's cli.py imports it) is the version of the sage_flags that answers,
    imported on first use only: ``python -m core.flag_parser`` must reach its own line when there is none."""
    if name == "__version__":
        return import_sage_flags().__version__
    raise AttributeError("module %r has no attribute %r" % (__name__, name))
