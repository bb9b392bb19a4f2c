"""Sage 1.1.5's ``core.flag_parser.parser``, now sage_flags: every name it had (docs/SPEC.md N8.1).

``parse(arguments, defaults=None)`` and ``ParseResult`` are sage_flags's. The flag sets are the vocabulary's
(its flags are listed once, in spec/), with the types of Sage's: ``SUPPORTED_FOR_ERROR`` is the list E1 names,
in its order (N12: our wording), so that ``", ".join(SUPPORTED_FOR_ERROR)`` is what follows "Supported flags: ".
"""

from . import import_sage_flags, in_vocabulary, vocabulary

_sage_flags = import_sage_flags()
try:  # a package that takes the vocabulary as an argument (SPEC B2): the drop-in's vocabulary (B6)
    from sage_flags._vocabulary import vocabulary as _vocabulary

    _chosen = _vocabulary(vocabulary() or None)
    MODES, SUPPORTED_FLAGS = _chosen.modes, _chosen.supported_flags
except ImportError:  # an older one chose it at import, from the environment vocabulary() sets
    from sage_flags._vocab import MODES, SUPPORTED_FLAGS

parse = in_vocabulary(_sage_flags.parse)
ParseResult = _sage_flags.ParseResult
POSITIVE_FLAGS = {"--" + name for _, name in MODES}
NEGATIVE_FLAGS = {"--no-" + name for _, name in MODES}
FLAG_TO_KEY = {flag: key for key, name in MODES for flag in ("--" + name, "--no-" + name)}
ALL_FLAGS = POSITIVE_FLAGS | NEGATIVE_FLAGS
SUPPORTED_FOR_ERROR = SUPPORTED_FLAGS.split(", ")
__all__ = [
    "ALL_FLAGS",
    "FLAG_TO_KEY",
    "NEGATIVE_FLAGS",
    "POSITIVE_FLAGS",
    "SUPPORTED_FOR_ERROR",
    "ParseResult",
    "parse",
]
