"""The pure-Python reference implementation of the flag-parser contract.

One readable module, stdlib only, importing nothing beyond ``os`` and ``stat``
(both loaded by every interpreter at start-up) so a cold ``sage-flags parse``
stays cheap; its result class, ``ParseResult``, lives in ``sage_flags._result``,
which the compiled core uses without this module (docs/IMPLEMENTATION.md D23).
docs/SPEC.md is the rule book; the comments cite its rule numbers (C1..C22, E1..E5,
the suggestion's S1..S7, the values' V1..V8).
"""

import os
import stat

from sage_flags._result import ParseResult
from sage_flags._vocabulary import DEFAULT
from sage_flags._vocabulary import vocabulary as _vocabulary

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing (and __future__) cost start-up time: annotations are strings
    from typing import Dict, List, Mapping, Optional, Tuple, Union

    from sage_flags._vocabulary import ValueMode, Vocabulary

    _PathLike = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]", None]

__all__ = ["ParseResult", "load_defaults", "parse"]

# C5: exactly these six characters are whitespace, nothing else.
WHITESPACE = " \t\n\x0b\x0c\r"
# Maps the five non-space whitespace characters to a space, so that one
# str.find(" ") locates the end of a token (C7) in time linear in the token.
_WS_TO_SPACE = {ord(c): " " for c in WHITESPACE[1:]}

E1 = "Unknown flag '{token}'. Supported flags: {supported}."
E1_SUGGESTION = " Did you mean '--{form}'?"
E2 = "Flag '{flag}' takes no value (got '{token}').{hint}"
E3 = "Conflicting flags for {key}: both --{name} and --no-{name} passed."
E4 = "Arguments are not valid UTF-8."
E5 = "--{name} takes a {value_name} of {minimum} or more (got '{value}')."
NOTE = "--{name}={number} exceeds the hard cap; clamped to {cap}."
_ASCII_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}


class Rules:
    """The reference's lookup tables for one vocabulary (docs/SPEC.md B1), made on its first use (``rules``)."""

    __slots__ = ("default_lines", "flags", "forms", "name_of", "value_flags", "vocabulary")

    def __init__(self, vocabulary: "Vocabulary") -> None:
        self.vocabulary = vocabulary
        # token -> (mode key, value); "--quality-locked" -> ("quality_locked", True)
        self.flags: "Dict[str, Tuple[str, bool]]" = {}
        for key, name in vocabulary.modes:
            self.flags["--" + name] = (key, True)
            self.flags["--no-" + name] = (key, False)
        self.name_of = dict(vocabulary.modes)
        # V2: "--name" of a mode that takes a value -> (mode key, its ValueMode)
        self.value_flags: "Dict[str, Tuple[str, ValueMode]]" = {}
        for spec in vocabulary.value_modes:
            key, name = vocabulary.modes[spec.mode]
            self.value_flags["--" + name] = (key, spec)
        self.forms = tuple(form for _, name in vocabulary.modes for form in (name, "no-" + name))  # S1-S7
        # C14: the one line that makes each mode default-on (config explain matches the same bytes).
        self.default_lines = {key: (key + ": true").encode("ascii") for key, _ in vocabulary.modes}


_RULES: "Dict[str, Rules]" = {}


def rules(vocabulary: "Optional[str]" = DEFAULT) -> Rules:
    """The tables of vocabulary ``vocabulary`` (None: the default); ValueError for a name this build lacks (B3)."""
    made = _RULES.get(vocabulary) if type(vocabulary) is str else None  # type: ignore[arg-type]
    if made is None:
        chosen = _vocabulary(vocabulary)
        made = _RULES.setdefault(chosen.name, Rules(chosen))
    return made


def osa_distance(a: str, b: str, most: int) -> int:
    """S3: the optimal string alignment distance of ``a`` and ``b``, or ``most + 1`` when it exceeds ``most``."""
    if abs(len(a) - len(b)) > most:  # S7: each length difference costs an edit
        return most + 1
    before = None
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i]
        for j in range(1, len(b) + 1):
            value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                value = min(value, before[j - 2] + 1)  # type: ignore[index]
            current.append(value)
        if min(current) > most:  # a row's minimum never decreases: no way back under the bound
            return most + 1
        before, previous = previous, current
    return min(previous[-1], most + 1)


def nearest(word: str, candidates: "Tuple[str, ...]") -> "Optional[str]":
    """S4-S5: the candidate near ``word`` (ASCII letters lowered, S2) at the smallest distance, None on a tie."""
    word = word.translate(_ASCII_LOWER)
    best, best_distance, tied = None, 0, False
    for candidate in candidates:
        most = len(candidate) // 3  # S4
        distance = osa_distance(word, candidate, most)
        if distance > most:
            continue
        if best is None or distance < best_distance:
            best, best_distance, tied = candidate, distance, False
        elif distance == best_distance:
            tied = True
    return None if tied else best


def unknown_flag(token: str, vocabulary: "Optional[str]" = DEFAULT) -> str:
    """E1 for ``token``, with S6's suggestion when a flag form of ``vocabulary`` is near it."""
    table = rules(vocabulary)
    part = token.partition("=")[0][2:]  # S2
    form = nearest(part, table.forms) if len(part) <= table.vocabulary.suggest_limit else None  # S7
    message = E1.format(token=token, supported=table.vocabulary.supported_flags)
    return message if form is None else message + E1_SUGGESTION.format(form=form)


def _error(message: str, vocabulary: str) -> "ParseResult":
    # C18: on error every mode is false, every source null, the goal empty.
    return ParseResult({}, {}, "", message, vocabulary=vocabulary)


def parse(
    arguments: "Optional[str]",
    defaults: "Optional[Mapping[str, bool]]" = None,
    *,
    vocabulary: "Optional[str]" = DEFAULT,
) -> "ParseResult":
    """Parse ARGUMENTS (C5-C10) in ``vocabulary`` (a name, docs/SPEC.md B1; None is the default) and resolve each
    mode against ``defaults`` (C15). ValueError for a vocabulary this build does not carry (B3)."""
    table = rules(vocabulary)
    name = table.vocabulary.name
    if arguments is None:  # C10: None means the empty string
        arguments = ""
    elif type(arguments) is not str:  # D23: as the compiled core, a str subclass is read as its characters only
        if not isinstance(arguments, str):
            raise TypeError("arguments must be str or None")
        arguments = str.__str__(arguments)
    try:
        arguments.encode("utf-8")
    except UnicodeEncodeError:  # C10: a lone surrogate is not text
        return _error(E4, name)

    text = arguments.strip(WHITESPACE)  # C6
    # `scan` has every whitespace character as a space, same length as `text`.
    scan = text.translate(_WS_TO_SPACE) if not text.isprintable() else text
    length = len(text)
    pos = 0
    flags: Dict[str, bool] = {}
    given: Dict[str, str] = {}  # V4: mode key -> the digits of its first --name=N
    while scan.startswith("--", pos):  # C7
        end = scan.find(" ", pos)
        if end < 0:
            end = length
        token = text[pos:end]
        pos = end
        while pos < length and scan[pos] == " ":
            pos += 1
        if token == "--":
            break
        flag = table.flags.get(token)
        if flag is None:
            equals = token.find("=")
            before = token[:equals] if equals >= 0 else None
            if before in table.value_flags:  # V2: --name=N of a mode that takes a value
                key, spec = table.value_flags[before]
                value = token[equals + 1 :]
                digits = _number(value, spec.minimum)
                if digits is None:
                    minimum = spec.minimum
                    message = E5.format(name=table.name_of[key], value_name=spec.name, minimum=minimum, value=value)
                    return _error(message, name)
                given.setdefault(key, digits)
                flag = (key, True)
            elif before in table.flags:
                return _error(E2.format(flag=before, token=token, hint=table.vocabulary.e2_value_hint), name)
            else:
                return _error(unknown_flag(token, name), name)
        key, value = flag
        if flags.get(key, value) != value:  # C7: the opposite flag of one mode
            return _error(E3.format(key=key, name=table.name_of[key]), name)
        flags[key] = value

    modes: Dict[str, bool] = {}
    sources: Dict[str, Optional[str]] = {}
    for key, _ in table.vocabulary.modes:  # C15
        if key in flags:
            modes[key] = flags[key]
            sources[key] = "flag"
        elif defaults and defaults.get(key):
            modes[key] = True
            sources[key] = "config"
    values: Dict[str, Union[int, str, None]] = {}
    for spec in table.vocabulary.value_modes:  # V4, V5
        key, mode_name = table.vocabulary.modes[spec.mode]
        if not modes.get(key):
            continue
        digits = given.get(key)
        if digits is None:
            values[spec.field] = spec.default
        elif _below(str(spec.cap), digits):
            values[spec.field] = spec.cap
            values[spec.note_field] = NOTE.format(name=mode_name, number=digits, cap=spec.cap)
        else:
            values[spec.field] = int(digits)
    return ParseResult(modes, sources, text[pos:], None, values, vocabulary=name)


def _below(a: str, b: str) -> bool:
    """Whether the number ``a`` is less than ``b`` (digit strings without leading zeros: V2 never makes an int)."""
    return (len(a), a) < (len(b), b)


def _number(value: str, minimum: int) -> "Optional[str]":
    """V2: VALUE's digits without leading zeros, or None when it is not ASCII digits worth at least ``minimum``."""
    if not (value.isascii() and value.isdigit()):
        return None
    digits = value.lstrip("0")
    return None if _below(digits, str(minimum)) else digits


# H1 (docs/SPEC.md section 15): the largest config honored. A real `.sage/config.yaml` is a few KB; 64 KiB is
# more than ten times that, and keeps the bash floor (bash 3.2 reads a file one byte per read(2), about 1.5 us
# each) near 0.1 s for any file, however large. The bash port and the Rust core carry the same number.
CONFIG_LIMIT = 64 * 1024


class TooLarge(ValueError):
    """A file larger than the bound it was read with (H1); ``size`` is what fstat said, or the bytes seen."""

    def __init__(self, size: int, limit: int) -> None:
        super().__init__("larger than %d bytes (%d)" % (limit, size))
        self.size = size
        self.limit = limit


def read_all(fd: int, limit: "Optional[int]" = None) -> bytes:
    """Everything left to read from an open file descriptor; TooLarge past ``limit`` bytes (None: no bound)."""
    from sage_flags._io import read_bounded

    data = read_bounded(fd, (1 << 62) if limit is None else limit)
    if limit is not None and len(data) > limit:  # the file grew after fstat, or fstat's size lied (/proc)
        raise TooLarge(len(data), limit)
    return data


# Every file is read through one open: O_NONBLOCK, so that opening a FIFO returns at once (the fstat after it
# rejects anything but a regular file); O_BINARY, so that Windows does not translate CRLF or stop at Ctrl-Z.
# Windows has no O_NONBLOCK (and no FIFO to block on); POSIX has no O_BINARY.
READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)


def read_regular(path: "Union[str, bytes]", limit: "Optional[int]" = None) -> "Optional[Tuple[bytes, int]]":
    """(bytes, st_mode) of the regular file at ``path`` (symlinks followed); None when it is something else.

    Never blocks on a FIFO. Raises OSError (ValueError for a NUL in the path) when it cannot be opened or read,
    and TooLarge (a ValueError) when it holds more than ``limit`` bytes: decided by fstat before reading, and
    never more than ``limit + 1`` bytes read.
    """
    fd = os.open(path, READ_FLAGS)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None
        if limit is not None and info.st_size > limit:
            raise TooLarge(info.st_size, limit)
        return read_all(fd, limit), info.st_mode
    finally:
        os.close(fd)


def read_config(path: bytes) -> "Tuple[Optional[bytes], str, str]":
    """C11, C12, H1: (its bytes, "", "") for a regular file of at most CONFIG_LIMIT bytes, else (None, code, why):
    what ``config explain`` reports. Never blocks on a FIFO; raises OSError when the path cannot be examined."""
    if not path:
        return None, "empty-path", "empty path: no config, no defaults (C11)"
    found = None
    try:
        found = read_regular(path, CONFIG_LIMIT)
        kind = found[1] if found else os.stat(path).st_mode
    except TooLarge as error:  # decided by fstat: not a byte of a huge file is read
        why = "%d bytes, more than the %d a config may have: the whole file is ignored, no defaults (H1)"
        return None, "too-large", why % (error.size, error.limit)
    except OSError as error:
        import errno

        if error.errno in (errno.ENOENT, errno.ENOTDIR):
            what = "a dangling symlink" if os.path.islink(path) else "does not exist"
            return None, "missing", what + ": no defaults (C12)"
        if error.errno == errno.ELOOP:
            return None, "symlink-loop", "a symlink loop: no defaults (C12)"
        kind = os.stat(path).st_mode  # a socket cannot be opened; anything else that cannot be examined raises
        if stat.S_ISREG(kind):
            raise
    if found is not None:
        return found[0], "", ""
    name = next((" (%s)" % name for test, name in FILE_KINDS if test(kind)), "")
    return None, "not-regular-file", "not a regular file%s: no defaults (C12)" % name


def _read_regular_file(path: "_PathLike") -> "Optional[bytes]":
    """The bytes of a regular file of at most CONFIG_LIMIT bytes, or None (C11, C12, H1)."""
    try:
        return read_config(os.fsencode(path))[0]  # type: ignore[arg-type]
    except (OSError, ValueError, TypeError, UnicodeError):  # None, a NUL in the path
        return None


def load_defaults(path: "_PathLike", vocabulary: "Optional[str]" = DEFAULT) -> "Dict[str, bool]":
    """Modes of ``vocabulary`` (a name, B1; None is the default) that ``path`` turns on by default, e.g.
    ``{"quality_locked": True}`` (C11-C14). ValueError for a vocabulary this build does not carry (B3)."""
    default_lines = rules(vocabulary).default_lines
    data = _read_regular_file(path)
    if data is None or b"\0" in data:  # C12
        return {}
    lines = set(config_lines(data))
    return {key: True for key, line in default_lines.items() if line in lines}  # C14


def config_lines(data: bytes) -> "List[bytes]":
    """C13: a config's lines: a UTF-8 BOM dropped, split at LF, one CR at the end of a line dropped (the one split
    ``load_defaults`` and ``config explain`` share)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return [line[:-1] if line.endswith(b"\r") else line for line in data.split(b"\n")]


# C12: what a config path can be besides a regular file, as `config explain` names it.
FILE_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)
