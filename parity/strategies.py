"""What the differential fuzzer generates: the domain tables as plain hypothesis strategies, each that names flags
built for one vocabulary (``vocabularies()``, the one drawn parameter). parity/README.md says what each holds."""

from __future__ import annotations

import atexit
import functools
import json
import locale
import operator
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Tuple

from hypothesis import strategies as st

from parity.vectors import LOCALE_VARIABLES, load_all
from parity.vectors import from_bytes as field  # a byte field of the vector format


@dataclass(frozen=True)
class Vocabulary:
    name: str
    env: Tuple[Tuple[str, str], ...]  # what every layer's process gets to use this vocabulary
    modes: Tuple[Tuple[str, str], ...]  # (key, dashed name), contract order
    value_modes: tuple  # sage_flags._vocabulary.ValueMode rows
    backends: Tuple[Tuple[str, Callable, Callable], ...]  # (name, parse, load_defaults): the reference first
    default_lines: Tuple[bytes, ...]  # C14's canonical line per mode


@functools.lru_cache(maxsize=None)
def vocabularies() -> List[Vocabulary]:
    """THE list of vocabularies the fuzzer draws from, one per example: every one the build of ``sage_flags``
    carries (this checkout, or the copy SAGE_FLAGS_PROJECT and PYTHONPATH name), each with the env that names it to
    every layer's process (("SAGE_FLAGS_VOCABULARY", name),) and the in-process backends bound to it (B1-B2)."""
    from sage_flags import _vocab, _vocabulary, reference

    modules = [("reference", reference)]
    try:
        from sage_flags import _native  # type: ignore[attr-defined]

        modules.append(("native", _native))
    except ImportError:
        pass
    found = []
    for name in _vocab.NAMES:
        v = _vocabulary.vocabulary(name)
        backends = tuple(
            (
                label,
                functools.partial(module.parse, vocabulary=name),
                functools.partial(module.load_defaults, vocabulary=name),
            )
            for label, module in modules
        )
        lines = tuple(reference.rules(name).default_lines[key] for key, _ in v.modes)
        found.append(Vocabulary(name, (("SAGE_FLAGS_VOCABULARY", name),), v.modes, v.value_modes, backends, lines))
    return found


def flags(v: Vocabulary) -> Tuple[str, ...]:
    """C7: each mode's flag and its negation."""
    return tuple("--" + prefix + name for _, name in v.modes for prefix in ("", "no-"))


VOCABULARIES = st.sampled_from(vocabularies())
FLAG_ARGS = st.lists(st.sampled_from([*flags(vocabularies()[0]), "--", "goal", "--bogus"]), max_size=3)
# Goals whose JSON form uses every escape of C17 and raw non-ASCII (persist checks the line's canonical form).
MANIFEST_GOALS = st.text(
    st.sampled_from('ab "\\\x00\x01\x08\t\n\x0b\x0c\r\x1f\x7f\x85\u00e9\u2028\U0001f680/'), max_size=6
)
DECODING = ("utf-8", "surrogateescape")  # C10: invalid bytes are lone surrogates (E4)
WHITESPACE = (" ", "\t", "\n", "\x0b", "\x0c", "\r")  # C5: exactly these six
# Whitespace to some runtime or locale (str.isspace, Rust's is_whitespace), not to C5: ordinary characters.
LOOKALIKES = ("\u00a0", "\u0085", "\u1680", *map(chr, range(0x2000, 0x200B)), "\u2028", "\u2029", "\u202f")
LOOKALIKES += ("\u3000", "\u200b", "\ufeff", "\x1c", "\x1d", "\x1e", "\x1f")
SHELL_PIECES = ('"', "'", "\\", '\\"', "$(echo pwned)", "`id`", "$HOME", "${IFS}", "$1", "$@", "$'\\n'", "%s")
SHELL_PIECES += ("%n", "%b", "*", "?", "[a]", "~", "{a,b}", "!!", ";", "&&", "|", "#", "\\n", "\\0", "-e", "-n")
# U+0001..U+001F but C5's, DEL, C1 controls; never U+0000 (argv items and records cannot carry it).
CONTROLS = tuple(chr(c) for c in [*range(1, 0x20), 0x7F, *range(0x80, 0xA0)] if chr(c) not in WHITESPACE)
UNICODE_PIECES = ("\u00e9", "na\u0131ve", "\u00df", "\u0130", "\ufb01", "\u4e2d\u6587", "e\u0301", "\u202e")
UNICODE_PIECES += ("\ufffd", "\uffff", "\U0001f680", "\U0001f468\u200d\U0001f469", "\U0001f1eb\U0001f1f7", "\U0010ffff")
WORDS = ("x", "ship", "Ship dark mode", "fix typo", "a b", "now", "goal", "--", "-", "GOAL")
LONG_UNITS = ("a", " ", "-", "--autonomous ", "\t", "\u00e9", "\U0001f680", "\\", "--x", "\u00a0")  # C21
# C10: invalid UTF-8 of every RFC 3629 kind, then valid edge sequences for contrast.
INVALID_UTF8 = (b"\x80", b"\xbf", b"\xc3", b"\xe2\x82", b"\xf0\x9f\x9a", b"\xc0\xaf", b"\xe0\x80\xaf", b"\xe0\x9f\xbf")
INVALID_UTF8 += (b"\xf0\x80\x80\xaf", b"\xed\xa0\x80", b"\xed\xbf\xbf", b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80")
INVALID_UTF8 += (b"\xf8\x88\x80\x80\x80", b"\xfc\x84\x80\x80\x80\x80", b"\xfe", b"\xff", b"caf\xe9", b"\xc3\x28")
VALID_UTF8_EDGES = (b"\xed\x9f\xbf", b"\xee\x80\x80", b"\xf4\x8f\xbf\xbf", b"\xef\xbf\xbf")
ALPHABET = tuple(dict.fromkeys([*map(chr, range(0x20, 0x7F)), *WHITESPACE, *LOOKALIKES, *CONTROLS[:8]]))
TYPO_CHARACTERS = (*"abcdefghijklmnopqrstuvwxyzAQLU", "-", "_", "=", "1", "\u00e4", "\u0131", "\u2013", "\U0001f680")
BAD_VALUES = ("", "0", "00", "x", "-1", "2.5", "+3", "3x", "1e3", "0x10", "=", "3=4", "\u0663", "\uff13")
REJECTED_TAILS = (": True", ': "true"', ": yes", ": 1", ":true", ":\ttrue", ": true ", ": true # c", ": true\x0b")
REJECTED_TAILS += (" : true", ": false", ": truee", ":\u00a0true", ": true\u2028", ": true\r\r", "_x: true")
OTHER_LINES = ("", "# sage config", "goal: x", "version: 1", "modes:", "---", "...", "\ufeff")
LINE_ENDINGS = (b"\n", b"\r\n", b"\r", b"\r\r\n", b"\n\r")
CONFIG_TYPES = ("file",) * 12 + ("missing", "directory", "fifo", "symlink", "dangling-symlink", "loop-symlink")
CONFIG_TYPES += ("symlink-to-fifo",)
UP_TO_ROOT = b"../" * 31 + b".."  # "<UP>{config}" names the same file from any working directory
MISSING_PATHS = (b"", b"/nonexistent/sage/config.yaml", b"no-such-dir/c.yaml", b"/nonexistent/\xff.yaml", b"/dev/null")
MISSING_PATHS += (b"/", b".")
SPECIAL_OPERANDS = (b"", b"--", b"--stdin", b"-h", b"--help", b"--batch", b"--version", b"parse", b"--config-path=")
SPECIAL_OPERANDS += (b"--config-pathx", b"--Config-path", b"-config-path", b"--config-path ", b"-")
SPECIAL_OPERANDS += (b"\xe2\x80\x94config-path",)
STDIN_ENDINGS = (b"", b"\n", b"\r\n", b"\n\n", b" \t\n")  # I2: what may follow ARGUMENTS on stdin
WORKFLOWS = (b"build", b"architect", b"a", b"x-1", b"a-", b"", b"Build", b"-x", b"1a", b"build\n", b"bu ild")
WORKFLOWS += (b"b\xc3\xa9", b"b\xff", b"--quality-locked", b"--config-path")
LOCALE_CANDIDATES = ("C", "POSIX", "C.UTF-8", "en_US.ISO-8859-1", "en_US.ISO8859-1", "en_US.UTF-8", "tr_TR.UTF-8")
LOCALE_CANDIDATES += ("tr_TR.ISO-8859-9", "de_DE.ISO-8859-15", "ja_JP.eucJP", "ja_JP.SJIS", "zh_CN.GB18030")
# A BASH_ENV file of a user who customises non-interactive shells (H2-H4): prints nothing, takes over builtins,
# `.`, `[` and `:`, sets options, traps and aliases (options and traps first: functions take over what follows).
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
# Variables that change what a shell or Python does (C20, H2-H4); exported functions: bash 4.4+ spells them
# BASH_FUNC_name%%, bash 3.2 name=() {...}. BASH_ENV, ENV and the locales are added where they are known.
ENV_CHOICES = (("CDPATH", ".:/tmp"), ("CDPATH", "/:."), ("TMOUT", "1"), ("FUNCNEST", "1"), ("FUNCNEST", "2"))
ENV_CHOICES += (("SHELLOPTS", "errexit:nounset:pipefail:noclobber:allexport:errtrace:functrace"),)
ENV_CHOICES += (("SHELLOPTS", "keyword:noglob"), ("BASHOPTS", "compat31"), ("POSIXLY_CORRECT", "1"))
ENV_CHOICES += (("BASHOPTS", "nocasematch:extglob:nullglob:failglob:dotglob:xpg_echo:shift_verbose"),)
ENV_CHOICES += tuple((name, HIJACKING_FUNCTION) for name in ("BASH_FUNC_printf%%", "BASH_FUNC_read%%", "printf"))
ENV_CHOICES += tuple(("PYTHONIOENCODING", x) for x in ("ascii", "latin-1", "utf-8", "ascii:strict", "utf-16"))
ENV_CHOICES += tuple(("IFS", x) for x in ("", "-", "x", "\t", "\n", " \t\n", "-a"))
ENV_CHOICES += (("PYTHONUTF8", "0"), ("PYTHONUTF8", "1"), ("GLOBIGNORE", "*"), ("GLOBIGNORE", "*:.*"))
ENV_CHOICES += (("GLOBIGNORE", ""), ("POSIXLY_CORRECT", ""))
# The five YAML line breaks (PyYAML breaks lines at each), and the node properties and keys YAML reads where a
# line-by-line reader might not (issue 33): anchors, tags, `?` keys, aliases; a BOM before a key (issue 40).
YAML_BREAKS = ("\n", "\r", "\x85", "\u2028", "\u2029")
YAML_PROPERTIES = ("&k ", "!!str ", "? ", "*k", "&a !!map ", "!t ", "\ufeff")
# persist and resume refuse these where they could move `flags` (issue 33, SPEC P11).
HOSTILE_YAML = True
MANIFEST_WORDS = ("title: Cycle 3", "owner: ana", "# a comment", "", "  nested: 1", "tags: [a, b]", "é: ü")
MANIFEST_WORDS += ("base: &base {autonomous: true}", "copy: *base", '"quoted key": 1', "list:", "- item", "note: |")
MANIFEST_WORDS += ("  flags: not a key", "\tnot yaml: tab", "--- x", "---  ", "...")
MANIFEST_VALUES = ("true", "false", "yes", '"true"', "'no'", "True", "null", "x y", "", "&a true", "*a", "!!bool true")
MANIFEST_VALUES += ("[true]", "{x: 1}", "|", ">-", '"tr\\u0075e"', "-", "-1", "2", "07", "~")
TAILS = st.sampled_from(("", "  ", "  # resolved value", "\t# tab", "# glued", " #"))
# Issue 24: values YAML reads over several lines (quoted scalars, flow collections) whose inner lines look like
# keys, their one-line forms, block scalars: (opening, closing). The quoted ones first: half of all draws.
QUOTED_SHAPES = (('"a', '"'), ("'it''s", "'"), ('"a\\"', '"'))
OTHER_SHAPES = (("[a,", "]"), ("{a: 1,", "}"), ('["x]",', "]"), ("{k: [v,", "]}"), ("|+", ""), (">+", ""), ("|x", ""))
OTHER_SHAPES += (("|2-", ""), ('"a \\"b\\" # c" # closed', ""), ("[a, 'b''s', {k: v}] # closed", ""))
OTHER_SHAPES += (('!!str "a', '"'), ("&q 'a", "'"))
HOOK_COMMAND_NAMES = ("build", "architect", "sage:build", "sage:architect", "prompts:build", "review", "Build")
HOOK_COMMAND_NAMES += ("builder", "sage:sage:build", "other:build", "")
HOOK_SEPARATORS = (" ", "   ", "\n", "\t", "\r\n", "", "x", "\u00a0")
# The event's JSON broken as K2 refuses (every layer must fail open alike): cut short, a duplicate key, a trailing
# comma, a BOM, NaN, an array, a key of the wrong type.
BREAKS = (lambda t, cut: t[: cut % max(len(t), 1)], lambda t, _: t[:-1] + ', "hook_event_name": "UserPromptSubmit"}')
BREAKS += (lambda t, _: t[:-1] + ",}", lambda t, _: "\ufeff" + t, lambda t, _: t[:-1] + ', "n": NaN}')
BREAKS += (lambda t, _: "[" + t + "]", lambda t, _: t.replace('"hook_event_name"', '"hook_event_name": 1, "x"', 1))
FORMS_OF_CONFIG = ([b"--config-path", b"{config}"], [b"--config-path={config}"])
text = st.text(st.sampled_from(ALPHABET) | st.characters(min_codepoint=1, exclude_categories=("Cs",)), max_size=12)
repeated_ws = st.builds(operator.mul, st.sampled_from(WHITESPACE), st.sampled_from((2, 3, 16, 500)))
ws_runs = st.sampled_from(WHITESPACE) | repeated_ws | st.text(st.sampled_from(WHITESPACE), min_size=2, max_size=7)
raw_bytes = st.sampled_from(INVALID_UTF8 + VALID_UTF8_EDGES)
long_runs = st.builds(operator.mul, st.sampled_from(LONG_UNITS), st.integers(1, 64) | st.sampled_from((300, 4000)))


def one_in(n: int) -> st.SearchStrategy:
    """True once in ``n`` draws (shrinking to False: the ordinary case)."""
    return st.sampled_from([False] * (n - 1) + [True])


def utf8(s: st.SearchStrategy) -> st.SearchStrategy:
    return s.map(lambda value: value.encode(*DECODING))


def near_misses(v: Vocabulary) -> Tuple[str, ...]:
    """Tokens that look like a flag and are none (E1, or E2 for FLAG=VALUE)."""
    out = ["---", "--=", "--=x", "-", "--no-", "--no", "--help", "-h", "--batch", "--config-path", "\u2014"]
    for flag in flags(v):
        body = flag[2:]
        out += [flag.upper(), "--" + body.title(), "-" + body, "---" + body, flag + "-", flag + "s", flag[:-1]]
        out += ["--" + body.replace("-", "_"), "\u2013" + body, "\u2212\u2212" + body, "\uff0d\uff0d" + body]
        out += ["--no-" + body, flag + "=", flag + "=true", flag.replace("i", "\u0131"), flag.replace("s", "\u017f")]
        out += [flag + "\u0301"]
    return tuple(dict.fromkeys(x for x in out if x not in flags(v)))


@st.composite
def typos(draw, v: Vocabulary) -> str:
    """1-6 edits of a flag form (insert, delete, substitute, swap, change case): near enough for E1's
    suggestion, ties, or too far (S1-S7); sometimes `=VALUE` after."""
    chars = list(draw(st.sampled_from(flags(v)))[2:])
    edit = st.tuples(st.sampled_from("idswc"), st.integers(0, 40), st.sampled_from(TYPO_CHARACTERS))
    for op, at, char in draw(st.lists(edit, min_size=1, max_size=6)):
        at %= len(chars) + (op == "i" or not chars)
        if op == "i" or not chars:
            chars.insert(at, char)
        elif op in "ds":
            chars[at : at + 1] = [char] if op == "s" else []
        elif op == "w":
            chars[at : at + 2] = chars[at : at + 2][::-1]
        else:
            chars[at] = chars[at].swapcase()
    return "--" + "".join(chars) + draw(st.just("") | st.sampled_from(WORDS).map("=".__add__))


@st.composite
def number_flags(draw, v: Vocabulary) -> str:
    """`--name=VALUE` (V2-V5): in range, the edges, above the cap, leading zeros, many digits, or no number."""
    row = draw(st.sampled_from(v.value_modes))
    low, cap = row.minimum, row.cap
    numbers = st.integers(low, cap) | st.sampled_from((low, cap, cap + 1, low - 1)) | st.integers(cap + 1, cap + 9999)
    zeros = st.builds(lambda z, n: "0" * z + str(n), st.integers(1, 5), st.integers(0, cap + 2))
    value = draw(
        numbers.map(str) | zeros | st.text("0123456789", min_size=10, max_size=70) | st.sampled_from(BAD_VALUES)
    )
    return "--%s=%s" % (v.modes[row.mode][1], value)


@functools.lru_cache(maxsize=None)
def tokens(v: Vocabulary) -> st.SearchStrategy:
    """A token at the front (C7): a flag, the marker, a near miss, a typo, --name=N, FLAG=VALUE, a glued flag."""
    flag = st.sampled_from(flags(v))
    pair = st.builds(
        "--{1}{0} --{2}{0}".format, st.sampled_from([n for _, n in v.modes]), *[st.sampled_from(["", "no-"])] * 2
    )
    kinds = [flag] * 3 + [pair] * 2 + [st.just("--"), st.sampled_from(near_misses(v)), typos(v)]  # pair: E3 half
    kinds += [st.builds("{}={}".format, flag, st.sampled_from(WORDS) | text)]
    kinds += [st.builds(str.__add__, flag, st.sampled_from(LOOKALIKES + SHELL_PIECES))]
    kinds += [number_flags(v)] * 2 if v.value_modes else []
    return utf8(st.one_of(kinds)) | goal_pieces.map(b"--".__add__)


goal_pieces = st.one_of(  # invalid UTF-8 (E4) in one piece of twelve
    *map(utf8, [st.sampled_from(WORDS)] * 3 + [text] * 3 + [ws_runs] * 2 + [long_runs]),
    *map(utf8, map(st.sampled_from, [SHELL_PIECES + CONTROLS, LOOKALIKES + UNICODE_PIECES])),
    raw_bytes,
)


separators = st.one_of(st.just(" "), ws_runs, st.sampled_from(LOOKALIKES), st.just(""))


@functools.lru_cache(maxsize=None)
def arguments(v: Vocabulary) -> st.SearchStrategy:
    """One ARGUMENTS (bytes, never a NUL): optional WS, tokens and separators, goal pieces, optional WS (C5-C9)."""
    front = st.lists(st.tuples(tokens(v), utf8(separators)), max_size=8).map(lambda ts: b"".join(a + b for a, b in ts))
    edge = st.just(b"") | utf8(ws_runs)
    return st.builds(lambda *parts: b"".join(parts), edge, front, st.lists(goal_pieces, max_size=4).map(b"".join), edge)


def rejected_lines(v: Vocabulary) -> Tuple[str, ...]:
    """C14 variants that must NOT turn a mode on."""
    keys = [key for key, _ in v.modes]
    heads = [h for k in keys for h in (k.upper(), '"%s"' % k, k.replace("_", "-"), " " + k, "\t" + k, "- " + k)]
    heads += [p + k for k in keys for p in ("x", "\ufeff")]
    return tuple([k + tail for k in keys for tail in REJECTED_TAILS] + [head + ": true" for head in heads])


@functools.lru_cache(maxsize=None)
def config_contents(v: Vocabulary) -> st.SearchStrategy:
    """C13/C14: canonical and rejected lines, other YAML, free text, invalid UTF-8, NULs; every line ending,
    mixed; BOMs; with or without a final newline."""
    line = st.one_of(
        st.sampled_from(v.default_lines),
        utf8(st.sampled_from(rejected_lines(v) + OTHER_LINES)),
        utf8(text),
        st.builds(bytes.__add__, raw_bytes, st.sampled_from(v.default_lines)),
        st.sampled_from((b"\0", v.default_lines[0] + b"\0")),
    )
    ended = st.tuples(line, st.sampled_from((*LINE_ENDINGS, b"")))
    bom = st.sampled_from((b"", b"", b"", b"\xef\xbb\xbf", b"\xef\xbb\xbf" * 2))
    return st.builds(lambda b, ls: b + b"".join(a + e for a, e in ls), bom, st.lists(ended, max_size=7))


@st.composite
def configs(draw, v: Vocabulary) -> dict:
    """A config in the vector format (parity/vectors.py make_config): a file, or a non-file at {config}."""
    spec: dict = {"type": draw(st.sampled_from(CONFIG_TYPES))}
    if spec["type"] in ("file", "symlink"):
        content = draw(config_contents(v))
        if spec["type"] == "file" and draw(one_in(25)):  # large: the real lines after megabytes
            spec.update(content="# padding line for a large config\n", repeat=draw(st.sampled_from((1000, 120000))))
            spec["append"] = field(content)
        else:
            spec["content"] = field(content)
    return spec


@st.composite
def argvs(draw, v: Vocabulary) -> Tuple[List[bytes], Optional[dict]]:
    """(argv after the subcommand, config spec or None): operands (several items, C2) with --config-path in every
    position and form (C1-C3), naming {config} where there is a config."""
    config = draw(st.none() | configs(v))
    items = draw(st.lists(st.sampled_from(SPECIAL_OPERANDS) | arguments(v), max_size=4))
    path = st.sampled_from((b"{config}", UP_TO_ROOT + b"{config}") if config else MISSING_PATHS)
    for _ in range(draw(st.integers(1 if config else 0, 2))):
        value = draw(path)
        forms = ([b"--config-path", value], [b"--config-path=" + value], [b"--config-path", b"--"])
        at = draw(st.integers(0, len(items)))
        items[at:at] = [b"--"] * draw(one_in(8)) + draw(st.sampled_from(forms))
    return items + [b"--config-path"] * draw(one_in(12)), config  # C3: a usage error


def record_lists(v: Vocabulary, max_size: int = 25) -> st.SearchStrategy:
    return st.lists(arguments(v), min_size=1, max_size=max_size)


@functools.lru_cache(maxsize=1)
def environment_choices() -> List[Tuple[str, str]]:
    """ENV_CHOICES, BASH_ENV and ENV naming a HOSTILE_BASH_ENV file, and the locales the C library accepts here:
    the candidates and up to 4 non-UTF-8 locales of `locale -a` (a locale that is not installed makes bash warn)."""
    fd, path = tempfile.mkstemp(prefix="sage-flags-bash-env-", suffix=".sh")
    os.write(fd, HOSTILE_BASH_ENV.encode())
    os.close(fd)
    atexit.register(os.unlink, path)
    listed = subprocess.run(["locale", "-a"], capture_output=True).stdout if shutil.which("locale") else b""
    extra = [n for n in listed.decode("ascii", "replace").split() if "utf8" not in n.lower().replace("-", "")]
    choices, saved = [*ENV_CHOICES, ("BASH_ENV", path), ("ENV", path)], locale.setlocale(locale.LC_ALL)
    for name in dict.fromkeys([*LOCALE_CANDIDATES, *sorted(filter(str.isprintable, extra))[:4]]):
        try:
            choices += [(variable, locale.setlocale(locale.LC_ALL, name) and name) for variable in LOCALE_VARIABLES]
        except locale.Error:
            pass
    locale.setlocale(locale.LC_ALL, saved)
    return choices


@st.composite
def environments(draw) -> Dict[str, str]:
    names = draw(st.lists(st.sampled_from(sorted(dict(environment_choices()))), min_size=1, max_size=3, unique=True))
    return {name: draw(st.sampled_from([x for n, x in environment_choices() if n == name])) for name in names}


@st.composite
def multi_line_value(draw, v: Vocabulary, indent: str) -> List[str]:
    """`key: value` whose value may go on over the next lines, most of them at the entries' column and looking
    like a mode's entry (what a line-by-line reader takes for keys: issue 24's bug)."""
    keys = [key for key, _ in v.modes]
    opening, closing = draw(st.sampled_from(QUOTED_SHAPES) | st.sampled_from(QUOTED_SHAPES + OTHER_SHAPES))
    depth = st.sampled_from([indent or "  "] * 4 + ["", indent + "  ", " "])
    words = st.sampled_from([k + ": true" for k in keys] * 2 + ["flags:", keys[-1] + ": false", "x: y", "", "b,"])
    lines = [indent + draw(st.sampled_from(["note", "title", *keys])) + ": " + opening]
    lines += [draw(depth) + draw(words) for _ in range(draw(st.integers(1, 3)))]
    return lines + [draw(depth) + "x: y" + closing] * draw(st.sampled_from([1, 1, 1, 1, 0]))  # 0: unclosed


@st.composite
def manifests(draw, v: Optional[Vocabulary] = None) -> Optional[bytes]:
    """A manifest's bytes (None: no file yet): valid YAML but for values over several lines (so that PyYAML
    applies), or a flags block in every odd shape; hostile YAML (issue 33), CRLF, a BOM, invalid UTF-8."""
    v = v or vocabularies()[0]
    keys = [key for key, _ in v.modes]
    kind = draw(st.sampled_from(["yaml", "yaml", "odd", "words", "none"]))
    if kind == "none":
        return None
    indent = draw(st.sampled_from(["  ", "    "] + ["\t", " "] * (kind == "odd")))
    plain = st.tuples(st.sampled_from(keys), st.sampled_from(["true", "false"])).map(lambda e: [indent + ": ".join(e)])
    entry = st.one_of([multi_line_value(v, indent)] * 2 + [plain, st.just([""]) | multi_line_value(v, "")])
    if kind == "odd":  # entries of every shape, nested blocks, comments, list items
        names = st.sampled_from([*keys, "subagents", keys[0] + "_x", "- item", '"%s"' % keys[-1], "'%s'" % keys[0]])
        colon = st.sampled_from([": ", ":", " : ", ":  "])
        odd = st.builds("".join, st.tuples(st.just(indent), names, colon, st.sampled_from(MANIFEST_VALUES), TAILS))
        deeper = st.sampled_from([indent + "sub:", indent * 2 + keys[0] + ": true", indent * 2 + "- x", "# c", " #"])
        entry |= st.lists(odd | deeper | st.sampled_from(["- autonomous", "-", indent + keys[0] + ": {a: 1}"]))
    words = ["title: Cycle 3", "owner: ana"] if kind == "yaml" else [w for w in MANIFEST_WORDS if w[:1] != " "]
    front = draw(st.lists(st.sampled_from(words), max_size=2))
    if kind != "words" or draw(st.booleans()):
        front.append(draw(st.sampled_from(["flags:", "flags :"])) + draw(TAILS) if kind == "odd" else "flags:")
        front += [line for e in draw(st.lists(entry, min_size=kind == "yaml", max_size=3)) for line in e]
    for _ in range(draw(st.integers(1, 3)) if front and HOSTILE_YAML and draw(one_in(3)) else 0):
        at = draw(st.integers(0, len(front) - 1))  # a node property or `?` before a key, or a YAML line break
        line, column = front[at], len(front[at]) - len(front[at].lstrip())
        cut = draw(st.integers(0, len(line)) | st.just(column))
        front[at] = line[:cut] + draw(st.sampled_from(YAML_BREAKS if cut != column else YAML_PROPERTIES)) + line[cut:]
    fences = st.sampled_from(["---"] + ["--- ", "---\t", "---x"] * (kind != "yaml"))
    lines = [draw(fences), *front, *[draw(fences)] * (not draw(one_in(11)))]
    lines += draw(st.lists(st.sampled_from(MANIFEST_WORDS), max_size=3))
    eol = draw(st.sampled_from(["\n", "\n", "\r\n"]))
    data = (eol.join(lines) + (eol if not draw(one_in(5)) else "")).encode("utf-8")
    data += b"\xff\xfe invalid utf-8\n" if draw(one_in(7)) else b""
    return (b"\xef\xbb\xbf" if draw(one_in(6)) else b"") + data


@functools.lru_cache(maxsize=1)
def hostile_stdin_texts() -> Tuple[str, ...]:
    """The stdin vectors' texts (I1-I6): the hostile texts of issue 28."""
    return tuple(x.stdin.decode(*DECODING) for x in load_all() if x.name.startswith("stdin-")) or ("",)


@st.composite
def hook_examples(draw, v: Vocabulary) -> Tuple[List[bytes], Optional[dict], bytes]:
    """(argv after `hook`, config or None, the event): Claude Code's UserPromptExpansion and UserPromptSubmit,
    Codex's UserPromptSubmit with exactly its schema's eight fields; undocumented fields, reversed keys,
    escaped non-ASCII, or broken JSON."""
    harness = draw(st.sampled_from(["claude-code", "codex"]))
    config = draw(st.none() | configs(v))
    argv = [harness.encode()] + ([] if config is None else draw(st.sampled_from(FORMS_OF_CONFIG)))  # C1
    argv += draw(st.sampled_from(([],) * 8 + ([b"--workflow", b"build"], [b"--workflow", b"Build"], [b"--stdin"])))
    said = draw(st.sampled_from(hostile_stdin_texts()) | arguments(v).map(lambda b: b.decode(*DECODING)))
    said += "\0" * draw(one_in(20))
    name = draw(st.sampled_from(HOOK_COMMAND_NAMES))
    common = {"session_id": "s-1", "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp/p", "permission_mode": "default"}
    if harness == "claude-code" and draw(st.booleans()):
        event = {**common, "hook_event_name": "UserPromptExpansion", "expansion_type": "slash_command"}
        event.update(command_name=name, command_args=said, command_source="projectSettings", prompt=f"/{name} {said}")
    else:
        prompt = draw(st.just(said) | st.sampled_from(HOOK_SEPARATORS).map(lambda sep: "/" + name + sep + said))
        event = {**common, "hook_event_name": "UserPromptSubmit", "prompt": prompt}
        if harness == "codex":
            event.update(turn_id="t-1", model="gpt-5-codex", transcript_path=draw(st.sampled_from([None, "/t.jsonl"])))
    if draw(one_in(7)):
        event.update(prompt_id="p-1", future=[1, {"a": None}, -2.5e3, True])
    if draw(st.booleans()):
        event = dict(reversed(list(event.items())))
    surrogate = any("\ud800" <= ch <= "\udfff" for value in event.values() if isinstance(value, str) for ch in value)
    data = json.dumps(event, ensure_ascii=surrogate or draw(st.booleans()))
    how = draw(st.sampled_from((None,) * 12 + BREAKS))
    data = how(data, draw(st.integers(0, 10_000))) if how else data
    return argv, config, data.encode("utf-8", "surrogatepass")
