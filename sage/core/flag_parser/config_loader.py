"""The predecessor's ``load_defaults(path)``, now sage_flags.load_defaults."""

from . import import_sage_flags, in_vocabulary

load_defaults = in_vocabulary(import_sage_flags().load_defaults)
__all__ = ["load_defaults"]
