"""Sage 1.1.5's ``core.flag_parser.parser``, now sage_flags: every name it had (docs/SPEC.md N8.1).

``parse(arguments, defaults=None)`` and ``ParseResult`` are sage_flags's. The flag sets are the vocabulary's
(its flags are listed once, in spec/), with the types of Sage's: ``SUPPORTED_FOR_ERROR`` is the list E1 names,
in its order (N12: our wording), so that ``", ".join(SUPPORTED_FOR_ERROR)`` is what follows "Supported flags: ".
"""

from . import import_sage_flags, in_vocabulary, vocabulary

_sage_flags = import_sage_flags()
from sage_flags._vocabulary import vocabulary as _vocabulary  # noqa: E402 (the copy import_sage_flags put first)

_chosen = _vocabulary(vocabulary() or None)  # the drop-in's vocabulary (B6), a value (B2)
MODES, SUPPORTED_FLAGS = _chosen.modes, _chosen.supported_flags

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
