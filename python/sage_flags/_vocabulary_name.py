"""The one reading of the vocabulary's name (docs/SPEC.md B2, B3's table): from the command line (``--vocabulary
NAME`` or ``--vocabulary=NAME`` before the subcommand; adopt's own option after it), else SAGE_FLAGS_VOCABULARY
(empty: unset), else the default. A name is a vocabulary's only when it is exactly one, byte for byte: nothing is
trimmed (a CR, blank or newline left in it makes it unknown). The native executable (crates/sage-flags-cli) and
the launcher read it by the same rule. No I/O: the caller passes the environment's value.
"""

from sage_flags._io import UsageError
from sage_flags._vocab import DEFAULT, NAMES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import List, Optional, Sequence, Tuple

# B3: the usage errors of the option itself (the command line's shape, judged before the name).
NO_NAME = "--vocabulary needs a name"
REPEATED = "--vocabulary given more than once"
OPTION = b"--vocabulary"
OPTION_EQUALS = b"--vocabulary="


class UnknownVocabulary(Exception):
    """B3: a name this layer does not carry: status 2 (3 under hook), the one line UNKNOWN_VOCABULARY."""


def is_option(item: bytes) -> bool:
    return item == OPTION or item.startswith(OPTION_EQUALS)


def judged(name: "Optional[bytes]", earlier: "Optional[str]" = None) -> str:
    """The name an option gives (None: the option was the last item), judged: UsageError for none or an empty one
    (NO_NAME) and for an option given before (``earlier`` not None: REPEATED), UnknownVocabulary for a name this
    build does not carry."""
    if not name:
        raise UsageError(NO_NAME)
    if earlier is not None:
        raise UsageError(REPEATED)
    text = name.decode("utf-8", "surrogateescape")
    if text not in NAMES:
        raise UnknownVocabulary()
    return text


def read(
    items: "Sequence[bytes]", environment: "Optional[str]", option: bool = True
) -> "Tuple[str, List[bytes], bool]":
    """B2: (the vocabulary's name, the items after the option, whether the call named one) from ``items`` (the
    command line, the option first if anywhere; with ``option`` False, as the drop-in, no option is looked for) and
    ``environment`` (SAGE_FLAGS_VOCABULARY's value or None, empty naming none). Judged in this order: the option's
    name missing or empty, an option again right after it, the name (B3). ``--vocabulary hook``: no vocabulary is
    named `hook`, so it is the name left out before `hook`."""
    first = items[0] if items and option else b""
    if first == OPTION:
        value = items[1] if len(items) > 1 and items[1] != b"hook" else None
        if value is not None and is_option(value):
            raise UsageError(REPEATED)
        rest = list(items[2:])
    elif first.startswith(OPTION_EQUALS):
        value, rest = first[len(OPTION_EQUALS) :], list(items[1:])
    else:
        name = environment or DEFAULT
        if name not in NAMES:
            raise UnknownVocabulary()
        return name, list(items), bool(environment)
    if not value:
        raise UsageError(NO_NAME)
    if rest and is_option(rest[0]):
        raise UsageError(REPEATED)
    return judged(value), rest, True


def subcommand(items: "Sequence[bytes]") -> bytes:
    """B3: the item in the subcommand's place, past every option before it (``--vocabulary=NAME``, ``--vocabulary``
    with the item after it, unless that is `hook` or nothing); b"" when there is none."""
    place = 0
    while place < len(items):
        if items[place].startswith(OPTION_EQUALS):
            place += 1
        elif items[place] == OPTION and items[place + 1 : place + 2] not in ([b"hook"], []):
            place += 2
        elif items[place] == OPTION:
            place += 1
        else:
            break
    return items[place] if place < len(items) else b""
