"""The predecessor's ``parse(arguments, defaults=None)``, now sage_flags.parse."""

from . import import_sage_flags, in_vocabulary

_sage_flags = import_sage_flags()
parse = in_vocabulary(_sage_flags.parse)
ParseResult = _sage_flags.ParseResult
__all__ = ["ParseResult", "parse"]
