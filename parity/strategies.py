"""Generators for the differential fuzzer: ARGUMENTS, raw argv, config files, environments.

Every generator is written once, against a small ``Chooser`` interface, and runs
under two drivers:

- ``DrawChooser`` draws each choice from hypothesis, so a failing example shrinks
  (integers shrink to 0: the first, simplest entry of each table, "no" for each
  optional part);
- ``RandomChooser`` draws from a seeded ``random.Random``: ~50x faster, used to
  stream records in bulk (hypothesis then only draws the seed).

The tables below are the pieces that matter (contract rule numbers in comments);
the flag names come from the vocabulary (sage_flags._vocab, generated from
spec/flags.toml), so adding a flag widens the fuzzer too.
"""

from __future__ import annotations

import atexit
import locale
import os
import random
import subprocess
import tempfile
from functools import lru_cache
from typing import Callable, Dict, List, Optional, Sequence, Tuple, TypeVar

from hypothesis import strategies as st
from sage_flags._vocab import MODES, VALUE_MODES

T = TypeVar("T")

# --- pieces -----------------------------------------------------------------------------------------------------

# The flags (C7), positive then negative for each mode, in vocabulary order.
FLAGS: Tuple[str, ...] = tuple("--" + prefix + name for _, name in MODES for prefix in ("", "no-"))
MODE_KEYS: Tuple[str, ...] = tuple(key for key, _ in MODES)
# VALUEs that are never a number a mode takes (V2): empty, zero, signs, dots, other scripts' digits, a second `=`.
BAD_VALUES: Tuple[str, ...] = (
    "",
    "0",
    "00",
    "x",
    "-1",
    "2.5",
    "+3",
    "3x",
    "1e3",
    "0x10",
    "=",
    "3=4",
    "\u0663",
    "\uff13",
)

# C5: exactly these six characters are whitespace.
WHITESPACE: Tuple[str, ...] = (" ", "\t", "\n", "\x0b", "\x0c", "\r")

# Characters that some runtime or locale calls whitespace, and C5 does not: each is an ordinary character.
# U+001C..U+001F are str.isspace() in Python; U+0085 is in Rust's char::is_whitespace; U+200B/U+FEFF are
# "invisible" but not whitespace anywhere.
LOOKALIKES: Tuple[str, ...] = (
    "\u00a0",
    "\u0085",
    "\u1680",
    *(chr(c) for c in range(0x2000, 0x200B)),
    "\u2028",
    "\u2029",
    "\u202f",
    "\u3000",
    "\u200b",
    "\ufeff",
    "\x1c",
    "\x1d",
    "\x1e",
    "\x1f",
)


def _near_misses() -> Tuple[str, ...]:
    """Tokens that look like a flag and are not one (C7: E1, or E2 for FLAG=VALUE)."""
    out: List[str] = ["---", "--=", "--=x", "-", "--no-", "--no", "--help", "-h", "--batch", "--version"]
    out += ["--config-path", "--config-path=x", "\u2014", "\u2013"]
    for flag in FLAGS:
        body = flag[2:]
        out += [
            flag.upper(),
            "--" + body.title(),
            "-" + body,
            "---" + body,
            flag + "-",
            flag + "s",
            flag[:-1],
            "--" + body.replace("-", "_"),
            "\u2013" + body,  # en dash
            "\u2014" + body,  # em dash
            "\u2212\u2212" + body,  # minus signs
            "\uff0d\uff0d" + body,  # fullwidth hyphens
            "--no-" + body,  # --no-no-x for the negatives
            flag + "=",
            flag + "=true",
            flag + "==",
            flag.replace("i", "\u0131"),  # dotless i: a case-folding trap
            flag.replace("s", "\u017f"),  # long s: upper() gives S
            flag + "\u0301",  # combining accent
        ]
    for key in MODE_KEYS:
        out.append("--" + key)  # --quality_locked
    return tuple(dict.fromkeys(x for x in out if x not in FLAGS))


NEAR_MISSES = _near_misses()

SHELL_PIECES: Tuple[str, ...] = (
    '"',
    "'",
    "\\",
    "\\\\",
    '\\"',
    "$(echo pwned)",
    "$(",
    ")",
    "`id`",
    "`",
    "$HOME",
    "${IFS}",
    "$IFS",
    "$0",
    "$1",
    "$@",
    "$*",
    "$?",
    "$'\\n'",
    "%s",
    "%d",
    "%n",
    "%%",
    "%b",
    "*",
    "?",
    "[a]",
    "*.py",
    "/*",
    "~",
    "{a,b}",
    "!",
    "!!",
    ";",
    "&&",
    "|",
    ">",
    "<",
    "#",
    "\\n",
    "\\t",
    "\\0",
    "\\x00",
    "\\u0000",
    "\\c",
    "-e",
    "-n",
    "-E",
    "-ne",
    "=",
)

# U+0001..U+001F except the C5 whitespace, DEL, and the C1 controls (as characters). Never U+0000: argv items and
# batch records cannot carry it.
CONTROLS: Tuple[str, ...] = tuple(
    chr(c) for c in [*range(0x01, 0x20), 0x7F, *range(0x80, 0xA0)] if chr(c) not in WHITESPACE
)

UNICODE_PIECES: Tuple[str, ...] = (
    "\u00e9",
    "caf\u00e9",
    "na\u0131ve",
    "\u00df",
    "\u0130",
    "\ufb01",
    "\u03a9",
    "\u4e2d\u6587",
    "e\u0301",
    "\u202e",
    "\ufffd",
    "\uffff",
    "\ufffe",
    "\ud7ff",
    "\ue000",
    "\U0001f680",
    "\U0001f468\u200d\U0001f469\u200d\U0001f467",
    "\U0001f1eb\U0001f1f7",
    "\U0001d54f",
    "\U00010000",
    "\U0010ffff",
    "\U000e0001",
)

WORDS: Tuple[str, ...] = ("x", "ship", "Ship dark mode", "fix typo", "a b", "now", "goal", "--", "-", "GOAL")

# Units repeated into long runs (C21 linear cost; bash and native buffer edges).
LONG_UNITS: Tuple[str, ...] = ("a", " ", "-", "--autonomous ", "\t", "\u00e9", "\U0001f680", "\\", "--x", "\u00a0")

# Invalid UTF-8 of every RFC 3629 kind (C10), then valid edge cases for contrast.
INVALID_UTF8: Tuple[Tuple[str, bytes], ...] = (
    ("stray continuation", b"\x80"),
    ("stray continuation", b"\xbf"),
    ("truncated 2-byte", b"\xc3"),
    ("truncated 3-byte", b"\xe2\x82"),
    ("truncated 4-byte", b"\xf0\x9f\x9a"),
    ("overlong 2-byte", b"\xc0\xaf"),
    ("overlong 2-byte", b"\xc1\xbf"),
    ("overlong 3-byte", b"\xe0\x80\xaf"),
    ("overlong 3-byte", b"\xe0\x9f\xbf"),
    ("overlong 4-byte", b"\xf0\x80\x80\xaf"),
    ("overlong 4-byte", b"\xf0\x8f\xbf\xbf"),
    ("encoded surrogate", b"\xed\xa0\x80"),
    ("encoded surrogate", b"\xed\xbf\xbf"),
    ("above U+10FFFF", b"\xf4\x90\x80\x80"),
    ("above U+10FFFF", b"\xf5\x80\x80\x80"),
    ("above U+10FFFF", b"\xf7\xbf\xbf\xbf"),
    ("5-byte form", b"\xf8\x88\x80\x80\x80"),
    ("6-byte form", b"\xfc\x84\x80\x80\x80\x80"),
    ("byte FE", b"\xfe"),
    ("byte FF", b"\xff"),
    ("latin-1", b"caf\xe9"),
    ("bad continuation", b"\xc3\x28"),
)
VALID_UTF8_EDGES: Tuple[bytes, ...] = (b"\xed\x9f\xbf", b"\xee\x80\x80", b"\xf4\x8f\xbf\xbf", b"\xef\xbf\xbf")
INVALID_UTF8_BYTES: Tuple[bytes, ...] = tuple(b for _, b in INVALID_UTF8)

# Free text: printable ASCII plus the interesting characters above; sometimes any scalar value.
ALPHABET: Tuple[str, ...] = tuple(
    dict.fromkeys([chr(c) for c in range(0x20, 0x7F)] + list(WHITESPACE) + list(LOOKALIKES) + list(CONTROLS[:8]))
)
# Scalar values, no surrogates (they only arrive as invalid bytes, above).
CODEPOINT_RANGES: Tuple[Tuple[int, int], ...] = ((0x01, 0x7F), (0x80, 0x7FF), (0x800, 0xD7FF), (0xE000, 0xFFFF))
CODEPOINT_RANGES += ((0x10000, 0x10FFFF),)


# --- the chooser interface --------------------------------------------------------------------------------------


class RandomChooser:
    """Choices from a seeded random.Random (bulk records): random() only, randrange is 5x slower."""

    def __init__(self, rng: random.Random) -> None:
        self._random = rng.random

    def below(self, n: int) -> int:
        return int(self._random() * n)  # 0 .. n-1

    def chance(self, percent: float) -> bool:
        return self._random() * 100 < percent

    def pick(self, seq: Sequence[T]) -> T:
        return seq[int(self._random() * len(seq))]


class DrawChooser:
    """Choices drawn from hypothesis: each shrinks to 0 (the first table entry, or "no")."""

    def __init__(self, draw: Callable) -> None:
        self._draw = draw

    def below(self, n: int) -> int:
        return self._draw(st.integers(0, n - 1)) if n > 1 else 0

    def chance(self, percent: float) -> bool:
        return self._draw(st.integers(0, 99)) >= 100 - percent

    def pick(self, seq: Sequence[T]) -> T:
        return seq[self.below(len(seq))]


def weights(*table: Tuple[int, T]) -> Tuple[T, ...]:
    """A table of (weight, value) pairs as one flat tuple to ``pick`` from (shrinks to the first value)."""
    return tuple(value for weight, value in table for _ in range(weight))


# --- ARGUMENTS --------------------------------------------------------------------------------------------------


def ws_run(c) -> str:
    """C5/C6/C7: one whitespace character, a run of one character, or a mixed run."""
    if c.chance(50):
        return c.pick(WHITESPACE)
    if c.chance(50):
        return c.pick(WHITESPACE) * (2 + c.below(c.pick((3, 3, 16, 16, 500))))
    return "".join(c.pick(WHITESPACE) for _ in range(2 + c.below(6)))


def free_text(c) -> str:
    out = []
    for _ in range(c.below(12)):
        if c.chance(90):
            out.append(c.pick(ALPHABET))
        else:
            low, high = c.pick(CODEPOINT_RANGES)
            out.append(chr(low + c.below(high - low + 1)))
    return "".join(out)


# Mostly moderate: every byte costs the bash layer a read(2), and the record rate is what the fuzzer is judged by.
_LONG_SIZES = (16, 16, 64, 64, 300, 300, 4000)


def _long_run(c) -> str:
    return c.pick(LONG_UNITS) * (2 + c.below(c.pick(_LONG_SIZES)))


def _raw(c) -> bytes:
    return c.pick(INVALID_UTF8_BYTES) if c.chance(85) else c.pick(VALID_UTF8_EDGES)


_GOAL_KINDS = weights(
    (6, "word"),
    (6, "free"),
    (5, "ws"),
    (3, "flag"),
    (2, "near"),
    (4, "shell"),
    (2, "control"),
    (3, "lookalike"),
    (3, "unicode"),
    (1, "long"),
    (1, "raw"),
)
_GOAL_TABLES = {
    "word": WORDS,
    "flag": FLAGS,
    "near": NEAR_MISSES,
    "shell": SHELL_PIECES,
    "control": CONTROLS,
    "lookalike": LOOKALIKES,
    "unicode": UNICODE_PIECES,
}


def goal_piece(c) -> bytes:
    """Anything that can follow the flags: the goal's building blocks (C9), E4 bytes, long runs."""
    kind = c.pick(_GOAL_KINDS)
    if kind == "raw":
        return _raw(c)
    if kind == "free":
        return free_text(c).encode("utf-8")
    if kind == "ws":
        return ws_run(c).encode()
    if kind == "long":
        return _long_run(c).encode("utf-8")
    return c.pick(_GOAL_TABLES[kind]).encode("utf-8")


# Characters a typo inserts or substitutes: letters of either case, the separators people confuse, a digit, and
# non-ASCII code points of 2, 3 and 4 bytes (E1's suggestion counts code points, docs/SPEC.md S2).
TYPO_CHARACTERS: Tuple[str, ...] = (
    *"abcdefghijklmnopqrstuvwxyzAQLU",
    "-",
    "_",
    "=",
    "1",
    "\u00e4",
    "\u0131",
    "\u2013",
    "\U0001f680",
)
_EDITS = weights((3, "insert"), (3, "delete"), (3, "substitute"), (3, "swap"), (2, "case"))


def typo(c) -> str:
    """A near miss of a flag form made on purpose (E1's suggestion, S1-S7): 1 to 6 random edits of one
    form (insert, delete, substitute, swap neighbours, change case), sometimes with `=VALUE` after it. Few edits
    give a suggestion, more give none, some land on a tie or on another flag."""
    text = list(c.pick(FLAGS)[2:])
    for _ in range(1 + c.below(c.pick((1, 2, 3, 6)))):
        at = c.below(len(text) + 1)
        edit = c.pick(_EDITS)
        if edit == "insert" or not text:
            text.insert(at, c.pick(TYPO_CHARACTERS))
            continue
        at = min(at, len(text) - 1)
        if edit == "delete":
            del text[at]
        elif edit == "substitute":
            text[at] = c.pick(TYPO_CHARACTERS)
        elif edit == "swap" and at + 1 < len(text):
            text[at], text[at + 1] = text[at + 1], text[at]
        else:
            text[at] = text[at].swapcase()
    token = "--" + "".join(text)
    if c.chance(15):
        token += "=" + (c.pick(WORDS) if c.chance(50) else free_text(c))
    return token


def number_flag(c) -> str:
    """`--name=VALUE` for a mode that takes a value (V2-V5): a number in range, the minimum, the cap, just above it
    (clamped, with a note), far above, leading zeros, dozens of digits, or a VALUE that is no number (E5)."""
    row = c.pick(VALUE_MODES)
    minimum, cap = row.minimum, row.cap
    kind = c.pick(_NUMBER_KINDS)
    if kind == "in-range":
        value = str(minimum + c.below(cap - minimum + 1))
    elif kind == "edge":
        value = str(c.pick((minimum, cap, cap + 1, minimum - 1)))
    elif kind == "above":
        value = str(cap + 1 + c.below(10_000))
    elif kind == "zeros":
        value = "0" * (1 + c.below(5)) + str(c.below(cap + 3))
    elif kind == "digits":
        value = "".join(c.pick("0123456789") for _ in range(10 + c.below(60)))
    else:
        value = c.pick(BAD_VALUES) if c.chance(80) else free_text(c).replace(" ", "")
    return "--%s=%s" % (MODES[row.mode][1], value)


_NUMBER_KINDS = weights((4, "in-range"), (3, "edge"), (2, "above"), (2, "zeros"), (1, "digits"), (3, "bad"))
# A mode that takes a value gets its --name=N tokens (repeated, and mixed with its --no- flag by the other picks).
_TOKEN_KINDS = weights(
    (10, "flag"),
    (2, "marker"),
    (4, "near"),
    (4, "typo"),
    (6 if VALUE_MODES else 0, "number"),
    (2, "value"),
    (2, "glued"),
    (2, "dashes"),
)


def token(c) -> bytes:
    """A token at the front (C7): a flag, the marker, a near miss, a typo, FLAG=VALUE, a flag glued to a lookalike."""
    kind = c.pick(_TOKEN_KINDS)
    if kind == "flag":
        text = c.pick(FLAGS)
    elif kind == "marker":
        text = "--"
    elif kind == "near":
        text = c.pick(NEAR_MISSES)
    elif kind == "typo":
        text = typo(c)
    elif kind == "number":
        text = number_flag(c)
    elif kind == "value":
        text = c.pick(FLAGS) + "=" + (c.pick(WORDS) if c.chance(50) else free_text(c))
    elif kind == "glued":
        text = c.pick(FLAGS) + c.pick(LOOKALIKES + SHELL_PIECES) + (c.pick(WORDS) if c.chance(30) else "")
    else:
        return b"--" + goal_piece(c)
    return text.encode("utf-8")


_SEPARATOR_KINDS = weights((6, "space"), (4, "run"), (1, "lookalike"), (1, "none"))


def separator(c) -> str:
    """What follows a token: usually C5 whitespace, sometimes a lookalike or nothing (the tokens then merge)."""
    kind = c.pick(_SEPARATOR_KINDS)
    if kind == "space":
        return " "
    if kind == "run":
        return ws_run(c)
    if kind == "lookalike":
        return c.pick(LOOKALIKES)
    return ""


def argument_bytes(c) -> bytes:
    """One ARGUMENTS: optional leading WS, a few tokens with separators, goal pieces, optional trailing WS."""
    parts: List[bytes] = []
    if c.chance(20):
        parts.append(ws_run(c).encode())
    for _ in range(c.below(c.pick((2, 4, 7, 12)))):
        parts.append(token(c))
        parts.append(separator(c).encode())
    for _ in range(c.below(5)):
        parts.append(goal_piece(c))
    if c.chance(20):
        parts.append(ws_run(c).encode())
    return b"".join(parts)


def bulk_records(seed: int, count: int) -> List[bytes]:
    """``count`` records from ``seed``: the fast path for streaming (one record = one example)."""
    c = RandomChooser(random.Random(seed))
    return [argument_bytes(c) for _ in range(count)]


@st.composite
def arguments(draw) -> bytes:
    """Hypothesis strategy: one ARGUMENTS as bytes (may hold invalid UTF-8, never NUL)."""
    return argument_bytes(DrawChooser(draw))


# --- config files -----------------------------------------------------------------------------------------------

CANONICAL_LINES: Tuple[str, ...] = tuple(key + ": true" for key in MODE_KEYS)


def _rejected_variants() -> Tuple[str, ...]:
    """Every C14 variant that must NOT turn a mode on (a few, like a leading BOM, do at the start of a file)."""
    out = []
    for key in MODE_KEYS:
        out += [
            key + ": True",
            key + ": TRUE",
            key + ': "true"',
            key + ": 'true'",
            key + ": yes",
            key + ": on",
            key + ": 1",
            key + ":true",
            key + ":  true",
            key + ":\ttrue",
            key + ": true ",
            key + ": true # comment",
            key + ": true\x0b",
            key + ": true\t",
            key + ": true\r\r",
            " " + key + ": true",
            "\t" + key + ": true",
            key.upper() + ": true",
            key.title() + ": true",
            '"' + key + '": true',
            key.replace("_", "-") + ": true",
            "x" + key + ": true",
            key + "_default: true",
            key + " : true",
            key + ": false",
            "- " + key + ": true",
            key + ": tru",
            key + ": truee",
            key + ":\u00a0true",
            "\ufeff" + key + ": true",
            key + ": true\u2028",
        ]
    return tuple(out)


REJECTED_LINES = _rejected_variants()
OTHER_LINES: Tuple[str, ...] = ("", "# sage config", "goal: x", "version: 1", "modes:", "---", "...", "\ufeff")
LINE_ENDINGS: Tuple[str, ...] = ("\n", "\r\n", "\r", "\r\r\n", "\n\r")
CONFIG_TYPES: Tuple[str, ...] = weights(
    (24, "file"),
    (2, "missing"),
    (1, "directory"),
    (1, "fifo"),
    (2, "symlink"),
    (1, "dangling-symlink"),
    (1, "loop-symlink"),
    (1, "symlink-to-fifo"),
)
LARGE_PADDING = "# padding line for a large config\n"


def vector_field(data: bytes):
    """A byte field of the vector format: a string when UTF-8, else {"hex": ...}."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return {"hex": data.hex()}


_LINE_KINDS = weights((5, "canonical"), (6, "rejected"), (2, "other"), (2, "free"), (1, "raw"), (1, "nul"))


def config_line(c) -> bytes:
    kind = c.pick(_LINE_KINDS)
    if kind == "canonical":
        return c.pick(CANONICAL_LINES).encode()
    if kind == "rejected":
        return c.pick(REJECTED_LINES).encode("utf-8")
    if kind == "other":
        return c.pick(OTHER_LINES).encode("utf-8")
    if kind == "free":
        return free_text(c).encode("utf-8")
    if kind == "raw":
        return _raw(c) + (c.pick(CANONICAL_LINES).encode() if c.chance(50) else b"")
    return b"\x00" if c.chance(50) else c.pick(CANONICAL_LINES).encode() + b"\x00"


def config_content(c) -> bytes:
    """C13/C14: lines, line endings (LF, CRLF, CR-only, mixed), an optional BOM, an optional final newline."""
    ending = c.pick(LINE_ENDINGS)
    lines = [config_line(c) for _ in range(c.below(7))]
    out = b""
    for i, line in enumerate(lines):
        out += line
        if i + 1 < len(lines) or c.chance(70):
            out += (c.pick(LINE_ENDINGS) if c.chance(15) else ending).encode()
    if c.chance(15):
        out = b"\xef\xbb\xbf" * (1 + c.below(2)) + out
    return out


def config_spec(c) -> dict:
    """A config in the vector format (parity/vectors.py make_config): a file or some non-file at {config}."""
    kind = c.pick(CONFIG_TYPES)
    spec: dict = {"type": kind}
    if kind in ("file", "symlink"):
        content = config_content(c)
        if kind == "file" and c.chance(4):  # large: megabytes of padding, the real lines at the end
            spec["content"] = LARGE_PADDING
            spec["repeat"] = c.pick((1000, 30000, 120000))
            spec["append"] = vector_field(content)
        else:
            spec["content"] = vector_field(content)
    return spec


@st.composite
def configs(draw) -> dict:
    return config_spec(DrawChooser(draw))


# --- raw argv ---------------------------------------------------------------------------------------------------

# Enough ".." to reach / from any working directory, so "<UP>{config}" is a relative path that names the same
# file for every layer, whatever directory it runs in.
UP_TO_ROOT = "../" * 31 + ".."
MISSING_PATHS: Tuple[bytes, ...] = (
    b"",
    b"/nonexistent/sage/config.yaml",
    b"no-such-dir/config.yaml",
    b"/nonexistent/\xff\xfe.yaml",
    b"/dev/null",
    b"/",
    b".",
)
SPECIAL_OPERANDS: Tuple[bytes, ...] = (
    b"",
    b"--",
    b"--stdin",  # I1: before any --, parse reads standard input (an operand beside it: usage error)
    b"-h",
    b"--help",
    b"--batch",
    b"--version",
    b"parse",
    b"--config-path=",
    b"--config-pathx",
    b"--Config-path",
    b"-config-path",
    b"\xe2\x80\x94config-path",
    b"--config-path ",
)


def config_path_value(c, has_config: bool) -> bytes:
    if has_config and c.chance(80):
        return (UP_TO_ROOT + "{config}").encode() if c.chance(20) else b"{config}"
    return c.pick(MISSING_PATHS)


_PATH_FORMS = weights((4, "separate"), (3, "equals"), (1, "after-marker"), (1, "value-is-marker"))


def argv_items(c, has_config: bool) -> List[bytes]:
    """C1-C3: operands (several items, C2) with --config-path in every position and form."""
    items: List[bytes] = []
    for _ in range(c.below(5)):
        items.append(c.pick(SPECIAL_OPERANDS) if c.chance(20) else argument_bytes(c))
    for _ in range(c.below(3) if not has_config else 1 + c.below(2)):
        form = c.pick(_PATH_FORMS)
        value = config_path_value(c, has_config)
        if form == "separate":
            insert = [b"--config-path", value]
        elif form == "equals":
            insert = [b"--config-path=" + value]
        elif form == "after-marker":
            insert = [b"--", b"--config-path", value]
        else:
            insert = [b"--config-path", b"--"]
        at = c.below(len(items) + 1)
        items[at:at] = insert
    if c.chance(8):
        items.append(b"--config-path")  # C3: a usage error
    return items


# I2: what may follow ARGUMENTS on standard input: nothing, a heredoc's LF, CRLF, more whitespace (C6 trims all).
STDIN_ENDINGS: Tuple[bytes, ...] = (b"", b"\n", b"\r\n", b"\n\n", b" \t\n")


@st.composite
def stdin_forms(draw) -> Tuple[List[bytes], Optional[dict], bytes]:
    """Hypothesis strategy: (argv, config, ending) for the stdin kind: argv as ``argvs`` gives it, to be run both
    as operands and as ``--config-path P --stdin`` with the operands' bytes plus ``ending`` on standard input."""
    argv, config = draw(argvs())
    return argv, config, draw(st.sampled_from(STDIN_ENDINGS))


@st.composite
def argvs(draw) -> Tuple[List[bytes], Optional[dict]]:
    """Hypothesis strategy: (argv items after ``parse``, config spec or None). Items may name {config}."""
    c = DrawChooser(draw)
    config = config_spec(c) if c.chance(40) else None
    return argv_items(c, config is not None), config


# --- environment (C20) ------------------------------------------------------------------------------------------


# Locale names worth trying; only those this machine has are used (see usable_locales).
LOCALE_CANDIDATES: Tuple[str, ...] = (
    "C",
    "POSIX",
    "C.UTF-8",
    "en_US.ISO-8859-1",  # Linux spelling
    "en_US.ISO8859-1",  # macOS spelling
    "en_US.UTF-8",
    "tr_TR.UTF-8",  # Turkish dotless i: case-mapping traps
    "tr_TR.ISO-8859-9",
    "de_DE.ISO-8859-15",
    "ja_JP.eucJP",
    "ja_JP.SJIS",
    "zh_CN.GB18030",
)


@lru_cache(maxsize=1)
def usable_locales() -> Tuple[str, ...]:
    """The candidates the C library accepts here, plus up to 4 non-UTF-8 locales from ``locale -a``.

    A locale that is not installed is left out: with such an LC_ALL, bash itself prints "setlocale: cannot change
    locale" on stderr before any script runs (reported; the contract decides).
    """
    try:
        names = subprocess.run(["locale", "-a"], capture_output=True, timeout=10).stdout.decode("ascii", "replace")
    except (OSError, subprocess.SubprocessError):
        names = ""
    extra = sorted(n for n in names.split() if "utf8" not in n.lower().replace("-", "") and n.isprintable())
    saved = locale.setlocale(locale.LC_ALL)
    usable = []
    try:
        for name in dict.fromkeys([*LOCALE_CANDIDATES, *extra[:4]]):
            try:
                locale.setlocale(locale.LC_ALL, name)
            except locale.Error:
                continue
            usable.append(name)
    finally:
        locale.setlocale(locale.LC_ALL, saved)
    return tuple(usable)


# A BASH_ENV file of a user who customises non-interactive shells (docs/IMPLEMENTATION.md H2-H4): it prints
# nothing (what it prints, a direct bash call prints too: H4) but takes over builtins, `.`, `[` and `:`, sets
# options, traps and aliases. Options and traps first, then functions, then aliases: each takes over the
# file's own lines below it.
HIJACKED_BUILTINS = ("printf", "read", "set", "unset", "shopt", "local", "return", "test", "echo", "trap", "enable")
HOSTILE_BASH_ENV = (
    "shopt -s expand_aliases nocasematch extglob nullglob failglob dotglob xpg_echo\n"
    "shopt -u extquote\n"
    "set -e -o pipefail -C -a -k -E -T -H\n"
    "set +B\n"
    "trap 'builtin echo exit-trap' EXIT\n"
    "trap 'builtin echo err-trap' ERR\n"
    "trap 'builtin echo return-trap' RETURN\n"
    + "".join("%s() { builtin echo hijacked; }\n" % name for name in (".", "[", ":", *HIJACKED_BUILTINS))
    + "alias printf='builtin echo alias' read='builtin echo alias'\n"
)
HIJACKING_FUNCTION = "() { builtin echo hijacked; }"


@lru_cache(maxsize=1)
def hostile_bash_env_file() -> str:
    """HOSTILE_BASH_ENV in a file of this process's (for BASH_ENV and ENV)."""
    fd, path = tempfile.mkstemp(prefix="sage-flags-bash-env-", suffix=".sh")
    with os.fdopen(fd, "w") as file:
        file.write(HOSTILE_BASH_ENV)
    atexit.register(os.unlink, path)
    return path


def env_choices() -> Tuple[Tuple[str, Tuple[str, ...]], ...]:
    loc = usable_locales()
    bash_env = hostile_bash_env_file()
    return (
        ("BASH_ENV", (bash_env,)),
        ("ENV", (bash_env,)),
        ("CDPATH", (".:/tmp", "/:.")),
        ("TMOUT", ("1",)),
        ("FUNCNEST", ("1", "2")),
        ("SHELLOPTS", ("errexit:nounset:pipefail:noclobber:allexport:errtrace:functrace", "keyword:noglob")),
        ("BASHOPTS", ("nocasematch:extglob:nullglob:failglob:dotglob:xpg_echo:shift_verbose", "compat31")),
        # exported functions: bash 4.4+ spells them BASH_FUNC_name%%, bash 3.2 name=() {...}
        ("BASH_FUNC_printf%%", (HIJACKING_FUNCTION,)),
        ("BASH_FUNC_read%%", (HIJACKING_FUNCTION,)),
        ("printf", (HIJACKING_FUNCTION,)),
        ("read", (HIJACKING_FUNCTION,)),
        ("LC_ALL", loc),
        ("LANG", loc),
        ("LC_CTYPE", loc),
        ("PYTHONIOENCODING", ("ascii", "latin-1", "utf-8", "ascii:strict", "utf-16")),
        ("PYTHONUTF8", ("0", "1")),
        ("IFS", ("", "-", "x", "\t", "\n", " \t\n", "-a")),
        ("GLOBIGNORE", ("*", "*:.*", "")),
        ("POSIXLY_CORRECT", ("1", "")),
    )


def env_spec(c) -> Dict[str, str]:
    env: Dict[str, str] = {}
    choices = env_choices()
    for _ in range(1 + c.below(3)):
        name, values = c.pick(choices)
        env[name] = c.pick(values)
    return env


@st.composite
def environments(draw) -> Dict[str, str]:
    return env_spec(DrawChooser(draw))


@st.composite
def record_lists(draw, max_size: int = 25) -> List[bytes]:
    """Hypothesis strategy: a short list of records for one batch stream (shrinks to one simple record)."""
    c = DrawChooser(draw)
    return [argument_bytes(c) for _ in range(1 + c.below(max_size))]


# --- announce (sage-flags announce WORKFLOW ARGV...) -----------------------------------------------------------

WORKFLOWS: Tuple[bytes, ...] = (
    b"build",
    b"architect",
    b"a",
    b"x-1",
    b"a-",
    b"",
    b"Build",
    b"-x",
    b"1a",
    b"build\n",
    b"bu ild",
    b"b\xc3\xa9",
    b"b\xff",
    b"--quality-locked",
    b"--config-path",
)


@st.composite
def announce_argvs(draw) -> Tuple[List[bytes], Optional[dict]]:
    """Hypothesis strategy: (argv after ``announce``: WORKFLOW then parse's argv, config spec or None)."""
    c = DrawChooser(draw)
    config = config_spec(c) if c.chance(30) else None
    workflow = c.pick(WORKFLOWS) if c.chance(90) else free_text(c).encode("utf-8")
    return [workflow, *argv_items(c, config is not None)], config


# --- manifests (persist, resume: SPEC section 13) -----------------------------------------------------------------
#
# Manifests assembled from pieces that exercise every branch and the YAML shapes of issue 18: with and without
# frontmatter (fences with trailing blanks), flags blocks in every shape (indentation, comments at every
# indentation, other entries, nested and flow-style values, column-0 lists, multi-line values, quoted and
# repeated keys, anchors and aliases), CRLF, BOM, tabs, unicode, invalid UTF-8 in the body, no final newline.

MODE_KEYS_LIST = list(MODE_KEYS)
MANIFEST_WORDS = st.sampled_from(
    [
        "title: Cycle 3",
        "owner: ana",
        "# a comment",
        "",
        "  nested: 1",
        "tags: [a, b]",
        "é: ü",
        "base: &base {autonomous: true}",
        "copy: *base",
        '"quoted key": 1',
        "list:",
        "- item",
        "note: |",
        "  flags: not a key",
        "\tnot yaml: tab",
        "--- x",
        "---  ",
        "...",
    ]
)
MANIFEST_VALUES = st.sampled_from(
    [
        "true",
        "false",
        "yes",
        '"true"',
        "'no'",
        "True",
        "null",
        "x y",
        "",
        "&a true",
        "*a",
        "!!bool true",
        "[true]",
        "{x: 1}",
        "|",
        ">-",
        '"tr\\u0075e"',
        "-",
        "-1",
        "2",
        "07",
        "~",
    ]
)
MANIFEST_TAILS = st.sampled_from(["", "  ", "  # resolved value", "\t# tab", "# glued", " #"])
MANIFEST_INDENTS = st.sampled_from(["  ", "    ", "\t", " "])
# Issue 24: values YAML reads over several lines (a quoted scalar, a flow collection), whose lines look like keys
# (`flags:`, a mode entry) at the entries' column or elsewhere, their one-line forms, and keep block scalars followed
# by blank lines. persist must refuse or write what PyYAML then reads; resume must restore only what it reads.
MULTI_LINE_SHAPES = (  # (opening value, closing character): the first ones are the shapes of the issue
    ('"a', '"'),
    ("'it''s", "'"),
    ("[a,", "]"),
    ("{a: 1,", "}"),
    ('"a\\"', '"'),
    ('!!str "a', '"'),
    ("&q 'a", "'"),
    ('["x]",', "]"),
    ("{k: [v,", "]}"),
    ("|+", ""),
    (">+", ""),
    ("|2-", ""),
    ('"a \\"b\\" # c" # closed', ""),
    ("[a, 'b''s', {k: v}] # closed", ""),
    ("[[[a]]]", ""),
    ("|x", ""),
)
MULTI_LINE_WORDS = st.sampled_from(
    [MODE_KEYS_LIST[0] + ": true", "flags:", MODE_KEYS_LIST[-1] + ": false", "x: y", "", "b,", "# hash", "- item"]
)


@st.composite
def multi_line_value(draw, key: str, indent: str) -> List[str]:
    """A `key: value` line whose value may go on over the next lines, and those lines."""
    opening, closing = draw(st.sampled_from(MULTI_LINE_SHAPES))
    depths = st.sampled_from([indent or "  ", "", indent + "  ", " "])  # the entries' own column first
    lines = [indent + key + ": " + opening]
    for _ in range(draw(st.integers(1, 3))):
        lines.append(draw(depths) + draw(MULTI_LINE_WORDS))
    if draw(st.integers(0, 3)):
        lines.append(draw(depths) + draw(st.sampled_from(["x: y", MODE_KEYS_LIST[-1] + ": true", "c", ""])) + closing)
    return lines


@st.composite
def flags_block(draw) -> List[str]:
    indent = draw(MANIFEST_INDENTS)
    header = "flags" + draw(st.sampled_from(["", " "])) + ":" + draw(MANIFEST_TAILS)
    lines = [header]
    keys = [*MODE_KEYS_LIST, "subagents", "quality_locked_extra", "- item", '"autonomous"', "'quality_locked'"]
    kinds = ["entry", "entry", "entry", "blank", "comment", "nested", "deeper", "flow", "column-0", "continued"]
    kinds += ["multi-line", "multi-line"]
    for _ in range(draw(st.integers(0, 6))):
        choice = draw(st.sampled_from(kinds))
        if choice == "multi-line":
            lines += draw(multi_line_value(draw(st.sampled_from(["note", *MODE_KEYS_LIST])), indent))
        elif choice == "flow":
            lines.append(indent + draw(st.sampled_from(MODE_KEYS_LIST)) + ": {a: 1}")
        elif choice == "column-0":
            lines.append(draw(st.sampled_from(["# recorded by /build", "- autonomous", "-"])))
        elif choice == "continued":
            lines.append(indent + indent + draw(st.sampled_from(["more", "# deeper comment", "- x"])))
        elif choice == "entry":
            key = draw(st.sampled_from(keys))
            colon = draw(st.sampled_from([": ", ":", " : ", ":  "]))
            lines.append(indent + key + colon + draw(MANIFEST_VALUES) + draw(MANIFEST_TAILS))
        elif choice == "blank":
            lines.append(draw(st.sampled_from(["", "  "])))
        elif choice == "comment":
            lines.append(draw(st.sampled_from([indent + "# about flags", "# column zero", " # one space"])))
        elif choice == "nested":
            lines.append(indent + "sub:")
            lines.append(indent + indent + draw(st.sampled_from(MODE_KEYS_LIST)) + ": true")
        else:
            lines.append(indent + indent + "deeper: 1")
    return lines


@st.composite
def multi_line_frontmatter(draw) -> List[str]:
    """Issue 24: a front matter that is valid YAML but for the values over several lines (which YAML mostly reads
    too), so that the oracle applies: a top-level value and flags entries next to plain entries and blank lines."""
    indent = draw(st.sampled_from(["  ", "    "]))
    lines = ["title: Cycle 3"] if draw(st.booleans()) else []
    if draw(st.booleans()):
        lines += draw(multi_line_value(draw(st.sampled_from(["title", "tags", "meta"])), ""))
    lines.append("flags:")
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(["multi-line", "entry", "multi-line", "blank"]))
        if kind == "entry":
            value = draw(st.sampled_from(["true", "false"]))
            lines.append(indent + draw(st.sampled_from(MODE_KEYS_LIST)) + ": " + value)
        elif kind == "multi-line":
            lines += draw(multi_line_value(draw(st.sampled_from(["note", *MODE_KEYS_LIST])), indent))
        else:
            lines.append("")
    if draw(st.booleans()):
        lines.append("z: 1")
    return lines


@st.composite
def manifests(draw) -> Optional[bytes]:
    if draw(st.integers(0, 15)) == 0:
        return None  # no file yet
    body = draw(st.lists(MANIFEST_WORDS, max_size=3))
    frontmatter: Optional[List[str]] = None
    if draw(st.booleans()):
        frontmatter = draw(multi_line_frontmatter())
    elif draw(st.booleans()):
        frontmatter = draw(st.lists(MANIFEST_WORDS.filter(lambda w: not w.startswith(" ")), max_size=3))
        if draw(st.integers(0, 4)):
            block = draw(flags_block())
            at = draw(st.integers(0, len(frontmatter)))
            frontmatter[at:at] = block
        if draw(st.integers(0, 3)) == 0:  # a top-level value over several lines, before or after the block
            at = draw(st.integers(0, len(frontmatter)))
            frontmatter[at:at] = draw(multi_line_value(draw(st.sampled_from(["title", "tags", "meta"])), ""))
            if draw(st.integers(0, 8)) == 0:
                frontmatter.append(draw(st.sampled_from(["flags:", "flags: {}"])))
    lines: List[str] = []
    if frontmatter is not None:
        fences = st.sampled_from(["---", "---", "---", "--- ", "---\t", "---x"])
        lines = [draw(fences), *frontmatter]
        if draw(st.integers(0, 10)):
            lines.append(draw(fences))
    lines += body
    eol = draw(st.sampled_from(["\n", "\n", "\r\n"]))
    text = eol.join(lines)
    if lines and draw(st.integers(0, 4)):
        text += eol
    data = text.encode("utf-8")
    if draw(st.integers(0, 6)) == 0:
        data += b"\xff\xfe invalid utf-8\n"
    if draw(st.integers(0, 5)) == 0:
        data = b"\xef\xbb\xbf" + data
    return data


FLAG_ARGS = st.lists(
    st.sampled_from([f"--{n}" for _, n in MODES] + [f"--no-{n}" for _, n in MODES] + ["--", "goal", "--bogus"]),
    max_size=3,
)
# Goals whose JSON form uses every escape of C17 and raw non-ASCII (persist checks the line's canonical form).
MANIFEST_GOALS = st.text(
    st.sampled_from('ab "\\\x00\x01\x08\t\n\x0b\x0c\r\x1f\x7f\x85\u00e9\u2028\U0001f680/'), max_size=6
)


# --- hook events (sage-flags hook HARNESS: docs/SPEC.md section 17) ------------------------------------------------
#
# Events in the shapes the harnesses document (Claude Code's UserPromptExpansion and UserPromptSubmit, Codex's
# UserPromptSubmit with exactly its schema's eight fields), the user's text drawn from the ARGUMENTS generator and
# from the stdin vectors' hostile texts; sometimes with undocumented fields, shuffled keys, every non-ASCII
# character escaped, or the JSON broken in one of the ways K2 refuses (which must fail open alike everywhere).

HOOK_COMMAND_NAMES: Tuple[str, ...] = (
    "build",
    "architect",
    "sage:build",
    "sage:architect",
    "prompts:build",
    "review",
    "Build",
    "builder",
    "sage:sage:build",
    "other:build",
    "",
)
HOOK_SEPARATORS: Tuple[str, ...] = (" ", "   ", "\n", "\t", "\r\n", "", "x", "\u00a0")
HOOK_BREAKAGES: Tuple[str, ...] = ("truncate", "duplicate", "trailing-comma", "bom", "nan", "array", "wrong-type")


@lru_cache(maxsize=1)
def hostile_stdin_texts() -> Tuple[str, ...]:
    """The stdin vectors' texts (I1-I6) that JSON can carry: the hostile texts of issue 28."""
    import json
    from pathlib import Path

    texts = []
    for path in sorted((Path(__file__).resolve().parent / "vectors").glob("stdin-*.json")):
        stdin = json.loads(path.read_text(encoding="utf-8")).get("stdin", "")
        if isinstance(stdin, str):
            texts.append(stdin)
    return tuple(texts)


def _hook_text(c) -> str:
    if c.chance(30) and hostile_stdin_texts():
        text = c.pick(hostile_stdin_texts())
    else:  # invalid UTF-8 becomes lone surrogates, which JSON carries as \udcxx escapes (K2: fails open)
        text = argument_bytes(c).decode("utf-8", "surrogateescape")
    if c.chance(5):
        text += "\0"
    return text


def _hook_event(c, harness: str, text: str) -> dict:
    name = c.pick(HOOK_COMMAND_NAMES)
    expansion = harness == "claude-code" and c.chance(60)
    common = {"session_id": "s-1", "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp/p", "permission_mode": "default"}
    if expansion:
        return {
            **common,
            "hook_event_name": "UserPromptExpansion",
            "expansion_type": "slash_command",
            "command_name": name,
            "command_args": text,
            "command_source": "projectSettings",
            "prompt": "/" + name + " " + text,
        }
    prompt = "/" + name + c.pick(HOOK_SEPARATORS) + text if c.chance(85) else text
    if harness == "claude-code":
        return {**common, "hook_event_name": "UserPromptSubmit", "prompt": prompt}
    return {  # exactly the eight fields of Codex's published input schema
        **common,
        "turn_id": "t-1",
        "model": "gpt-5-codex",
        "transcript_path": None if c.chance(30) else "/tmp/t.jsonl",
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
    }


def _hook_json(c, event: dict) -> bytes:
    import json

    if c.chance(15):
        event = {**event, "prompt_id": "p-1", "future": [1, {"a": None}, -2.5e3, True]}
    if c.chance(30):
        items = list(event.items())
        items.reverse()
        event = dict(items)
    has_surrogate = any("\ud800" <= ch <= "\udfff" for v in event.values() if isinstance(v, str) for ch in v)
    text = json.dumps(event, ensure_ascii=has_surrogate or c.chance(30))
    if not c.chance(10):
        return text.encode("utf-8")
    breakage = c.pick(HOOK_BREAKAGES)
    if breakage == "truncate":
        text = text[: c.below(len(text))]
    elif breakage == "duplicate":
        text = text[:-1] + ', "hook_event_name": "UserPromptSubmit"}'
    elif breakage == "trailing-comma":
        text = text[:-1] + ",}"
    elif breakage == "bom":
        text = "\ufeff" + text
    elif breakage == "nan":
        text = text[:-1] + ', "n": NaN}'
    elif breakage == "array":
        text = "[" + text + "]"
    else:
        text = text.replace('"hook_event_name"', '"hook_event_name": 1, "was"', 1)
    return text.encode("utf-8", "surrogatepass")


@st.composite
def hook_examples(draw) -> Tuple[List[bytes], Optional[dict], bytes]:
    """Hypothesis strategy: (argv after ``hook``, config spec or None, the event on standard input)."""
    c = DrawChooser(draw)
    harness = "claude-code" if c.chance(60) else "codex"
    argv = [harness.encode()]
    config = config_spec(c) if c.chance(35) else None
    if config is not None:
        argv += [b"--config-path", b"{config}"] if c.chance(50) else [b"--config-path={config}"]
    if c.chance(10):
        argv += [b"--workflow", c.pick((b"build", b"ship", b"Build"))]
    if c.chance(3):
        argv.append(c.pick((b"--stdin", b"--", b"--config-path")))
    return argv, config, _hook_json(c, _hook_event(c, harness, _hook_text(c)))
