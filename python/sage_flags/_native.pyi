# Type stub of the compiled core (crates/sage-flags-py); the same API as sage_flags.reference.
from __future__ import annotations

import os
from typing import Dict, Mapping, Optional, Union

__version__: str

_PathLike = Union[str, bytes, os.PathLike[str], os.PathLike[bytes], None]

class ParseResult:
    # The mode fields (one `<key>` bool and one `<key>_source` per mode, and a number and a note per mode that
    # takes a value) come from the vocabulary.
    goal: str
    error: Optional[str]
    ok: bool
    def __init__(
        self,
        modes: Mapping[str, bool],
        sources: Mapping[str, Optional[str]],
        goal: str = "",
        error: Optional[str] = None,
        values: Optional[Mapping[str, Union[int, str, None]]] = None,
    ) -> None: ...
    def __getattr__(self, name: str) -> Union[str, bool, int, None]: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...
    def to_dict(self) -> Dict[str, Union[str, bool, int, None]]: ...
    def to_json(self) -> str: ...

def parse(arguments: Optional[str], defaults: Optional[Mapping[str, bool]] = None) -> ParseResult: ...
def load_defaults(path: _PathLike) -> Dict[str, bool]: ...
