# Type stub of the compiled core (crates/sage-flags-py); the same API as sage_flags.reference, whose ParseResult
# class its results are (docs/SPEC.md D23).
from __future__ import annotations

import os
from typing import Dict, Mapping, Optional, Union

from sage_flags.reference import ParseResult as ParseResult

__version__: str

_PathLike = Union[str, bytes, os.PathLike[str], os.PathLike[bytes], None]

def parse(
    arguments: Optional[str], defaults: Optional[Mapping[str, bool]] = None, *, vocabulary: Optional[str] = "sage-1.1"
) -> ParseResult: ...
def load_defaults(path: _PathLike, vocabulary: Optional[str] = "sage-1.1") -> Dict[str, bool]: ...
