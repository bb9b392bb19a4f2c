"""The inputs adopt tries on the project's own flag-parsing step and on each vocabulary (docs/SPEC.md N2.1), and
the deliberate differences it never tries (N12.1). Data only: no I/O (the configs are bytes, which
``_adopt_verify`` writes into a temporary folder outside the project).

The corpus comes from the vocabulary values (``sage_flags._vocabulary``): each flag and its negation, alone, with a
goal, repeated and in conflict; every pair of modes; a value mode's numbers at and around its minimum, default and
cap, and texts that are no number; unknown and misspelt flags; goals with odd ASCII spacing and Unicode; config
defaults (the one line that sets each, and lines that look like it but do not) with the flags that override them.
The flags Sage's own unknown-flag error lists (``listed``) join it, so that a flag a newer Sage added is tried.
"""

from sage_flags._vocabulary import Vocabulary

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Dict, Iterable, List, Optional, Sequence, Tuple

    Case = Tuple[str, str]  # (ARGUMENTS, the name of its config: a key of configs(), ABSENT for none)

ABSENT = "absent"  # a config path naming no file (the step's `--config-path` is always given, as /build gives it)
GOAL = "Ship it"
C5 = " \t\n\x0b\x0c\r"  # the contract's whitespace (docs/SPEC.md C5): nothing else separates or is trimmed

# N12.1: Sage's step and sage-flags differ here by design; adopt never tries these (SPEC lists them, with why).
# Each is (name, the steps it concerns: "python" Sage 1.3's sage_flags.py, "bash" Sage 1.1's parse.sh).
DELIBERATE = (
    ("`--` among the flags (Sage: an unknown flag; ours: the end of the flags)", ("python", "bash")),
    (
        "`--config-path`, `--config-path=...`, `-h`, `--help` as the whole text (read by Sage's command line)",
        ("python", "bash"),
    ),
    (
        "whitespace beyond C5's six at the ends or among the flags (Sage 1.3's str.split and strip take NBSP,"
        " U+3000...; Sage 1.1's parse.sh trims the locale's [[:space:]])",
        ("python", "bash"),
    ),
    ("a separator other than a space after a flag (Sage 1.1's parse.sh splits at spaces only)", ("bash",)),
    ("a non-ASCII digit in a number (Sage 1.3's isdigit takes `=٣` as 3, fails on `²`)", ("python",)),
    ("a config with CRLF line ends, a BOM, a NUL, over 64 KiB, or not UTF-8 (C12, C13, H1)", ("python", "bash")),
)


def deliberate(text: str, step: str) -> "Optional[str]":
    """The deliberate difference (DELIBERATE's name) that ``text`` meets on ``step``'s kind, None for none."""
    names = [name for name, steps in DELIBERATE if step in steps]
    tokens, separators = _flag_tokens(text)
    if "--" in tokens:
        return DELIBERATE[0][0]
    if text in ("--config-path", "-h", "--help") or text.startswith("--config-path="):
        return DELIBERATE[1][0]
    unicode_space = [c for c in text.strip(C5)[:1] + text.strip(C5)[-1:] if c.isspace()]
    if DELIBERATE[2][0] in names and (unicode_space or any(c.isspace() for t in tokens for c in t)):
        return DELIBERATE[2][0]
    if DELIBERATE[3][0] in names and any(separator.strip(" ") for separator in separators):
        return DELIBERATE[3][0]
    if DELIBERATE[4][0] in names and any("=" in t and not t.partition("=")[2].isascii() for t in tokens):
        return DELIBERATE[4][0]
    return None


def deliberate_config(data: bytes) -> bool:
    """DELIBERATE's config entry: bytes Sage's step reads otherwise by design."""
    if b"\r" in data or data.startswith(b"\xef\xbb\xbf") or b"\0" in data or len(data) > 65536:
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def _flag_tokens(text: str) -> "Tuple[List[str], List[str]]":
    """The leading tokens that start with `--` (C5's split) and the whitespace after each."""
    tokens: "List[str]" = []
    separators: "List[str]" = []
    rest = text.lstrip(C5)
    while rest.startswith("--"):
        end = next((i for i, c in enumerate(rest) if c in C5), len(rest))
        tokens.append(rest[:end])
        after = rest[end:]
        rest = after.lstrip(C5)
        separators.append(after[: len(after) - len(rest)] if rest else "")
    return tokens, separators


# ---------------------------------------------------------------------------------------------------------
# The configs


def configs(vocabularies: "Sequence[Vocabulary]") -> "Dict[str, bytes]":
    """Name -> bytes of each config tried: per mode its one default-on line (C14) alone, at the end without a
    newline, inside Sage's own template, and lines that look like it but set nothing."""
    found: "Dict[str, bytes]" = {"empty": b""}
    keys = _unique(key for vocabulary in vocabularies for key, _ in vocabulary.modes)
    template = b'sage-version: "1.3.21"\nproject-name: "p"\nauto_review: true\nreview_loop:\n  mode: v2\n'
    for key in keys:
        line = key.encode("ascii") + b": true"
        found[key] = line + b"\n"
        found[key + " (no newline)"] = line
        found[key + " (in a template)"] = template + line + b"\n# a comment\nisolation: branch\n"
        variants = (
            b": True",
            b": 'true'",
            b":true",
            b":  true",
            b": true # on",
            b": true ",
            b": yes",
            b": false",
            b": 3",
        )
        found[key + " (look-alikes)"] = b"".join(key.encode("ascii") + v + b"\n" for v in variants)
        found[key + " (indented)"] = b"review_loop:\n  " + line + b"\n"
    found["every mode"] = b"".join(key.encode("ascii") + b": true\n" for key in keys)
    assert not any(deliberate_config(data) for data in found.values())
    return found


def _unique(items: "Iterable[str]") -> "List[str]":
    seen: "List[str]" = []
    for item in items:
        if item not in seen:
            seen.append(item)
    return seen


# ---------------------------------------------------------------------------------------------------------
# The texts


def corpus(vocabularies: "Sequence[Vocabulary]", listed: "Sequence[str]", step: str) -> "List[Case]":
    """Every case for these vocabularies and the flags Sage lists, in a fixed order, each once, none that meets
    a deliberate difference of ``step``'s kind. A mode whose flag Sage does not list (when it lists any) is tried
    in a few cases only (enough to tell a vocabulary that has it from Sage's step, which refuses it)."""
    flags = _unique(flag for vocabulary in vocabularies for _, flag in vocabulary.modes)
    full = [flag for flag in flags if not listed or "--" + flag in listed]
    cases: "List[Case]" = [(text, ABSENT) for text in _plain_texts(vocabularies, listed, full)]
    found = configs(vocabularies)
    for name in found:
        cases += [("", name), (GOAL, name)]
        for flag in full:
            if name.split(" ")[0] in (flag.replace("-", "_"), "every"):
                cases += [("--%s %s" % (flag, GOAL), name), ("--no-%s %s" % (flag, GOAL), name)]
                cases += [("--%s=3 %s" % (flag, GOAL), name)]  # a value over the config's default
    kept: "List[Case]" = []
    seen = set()
    for case in cases:
        if case not in seen and deliberate(case[0], step) is None:
            seen.add(case)
            kept.append(case)
    return kept


def _plain_texts(vocabularies: "Sequence[Vocabulary]", listed: "Sequence[str]", full: "Sequence[str]") -> "List[str]":
    texts = ["", "   ", GOAL, "  %s\t " % GOAL, "Ship --autonomous later", "-x goal", "---autonomous x", "-- x"]
    texts += ["--unknown %s" % GOAL, "--x", "--no-x y", "--autonomous --bogus x", "--аutonomous x"]  # Cyrillic а
    modes = _unique(flag for vocabulary in vocabularies for _, flag in vocabulary.modes)
    for flag in modes:
        on, off = "--" + flag, "--no-" + flag
        if flag not in full:
            texts += [on, off, "%s %s" % (on, GOAL), "%s %s" % (off, GOAL), "%s=3 %s" % (on, GOAL)]
            texts += ["--%s %s %s" % (full[0] if full else "x", on, GOAL)]
            continue
        texts += [on, off, "%s %s" % (on, GOAL), "%s %s" % (off, GOAL), "%s %s %s" % (on, off, GOAL)]
        texts += ["%s %s %s" % (off, on, GOAL), "%s %s %s" % (on, on, GOAL), "%s %s %s" % (off, off, GOAL)]
        texts += ["%s=1 %s" % (on, GOAL), "%s= %s" % (on, GOAL), "%s=true" % on, "%s=1 %s" % (off, GOAL)]
        texts += [on[:-1] + " x", on + "s x", on.upper() + " x", on.replace("-", "_") + " x", "-" + on[2:] + " x"]
        texts += ["\u2014" + on[2:] + " x", "%s\t%s" % (on, GOAL), "%s\n%s" % (on, GOAL), "  %s   %s  " % (on, GOAL)]
        texts += ["%s \t\n%s" % (on, GOAL), "%s %s" % (GOAL, on), "%s caf\u00e9 \u2615 \u65e5\u672c\u8a9e" % on]
        texts += ["%s na\u00efve\u00a0space e\u0301 \U0001f469\u200d\U0001f4bb \u05e9\u05dc\u05d5\u05dd" % on]
        texts += ["%s 'quoted' \"double\" \\back $(x) %%s *" % on, "%s fix -- that" % on, "%s %s" % (on, "y" * 300)]
        texts += [" ".join([on] * 40) + " x"]
    for first in full:
        for second in full:
            if first < second:
                texts += ["--%s --%s %s" % (first, second, GOAL), "--%s --no-%s %s" % (first, second, GOAL)]
    for vocabulary in vocabularies:
        texts += [" ".join("--" + flag for _, flag in vocabulary.modes) + " " + GOAL]
        texts += [" ".join("--no-" + flag for _, flag in vocabulary.modes) + " " + GOAL]
        for spec in (spec for spec in vocabulary.value_modes if vocabulary.modes[spec.mode][1] in full):
            texts += _value_texts(vocabulary.modes[spec.mode][1], spec.minimum, spec.default, spec.cap)
    known = {form for flag in modes for form in ("--" + flag, "--no-" + flag)}
    for flag in listed:
        if flag not in known:  # a flag Sage lists and no vocabulary here has: tried alone, with a goal, a value
            texts += [flag, "%s %s" % (flag, GOAL), "%s=1 %s" % (flag, GOAL), "--autonomous %s %s" % (flag, GOAL)]
    return texts


def _value_texts(flag: str, minimum: int, default: int, cap: int) -> "List[str]":
    """V1-V8 at and around every bound: the numbers, texts that are no number, first-wins, notes, conflicts."""
    on, off = "--" + flag, "--no-" + flag
    numbers = sorted({n for base in (0, minimum, default, cap) for n in (base - 1, base, base + 1) if n >= 0})
    numbers += [cap * 2 + 1, 10**20]
    values = [str(n) for n in numbers] + ["-1", "+1", "0%d" % (cap + 1), "00", "", "x", "1.5", "3x", "1e3", "0x3"]
    texts = ["%s=%s %s" % (on, value, GOAL) for value in values] + ["%s=%d" % (on, default), "%s= %d" % (on, cap)]
    texts += ["%s %s" % (on, GOAL), "%s=%d %s=1 %s" % (on, cap - 1, on, GOAL)]
    texts += ["%s=%d %s=%d %s" % (on, cap + 1, on, minimum, GOAL), "%s=%d %s=%d %s" % (on, minimum, on, cap + 1, GOAL)]
    texts += ["%s %s=%d %s" % (on, on, cap + 1, GOAL), "%s=%d %s %s" % (on, cap + 1, on, GOAL)]
    texts += ["%s=%d %s %s" % (on, default, off, GOAL), "%s %s=%d %s" % (off, on, default, GOAL)]
    texts += ["%s=%d %s" % (off, default, GOAL), "%s=%d --autonomous %s" % (on, cap, GOAL)]
    return texts
