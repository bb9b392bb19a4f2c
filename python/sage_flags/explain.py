"""``sage-flags config explain PATH [--json]``: why a config default did or did not apply (docs/SPEC.md section 12).

Every line that looks meant to set a mode (the key in any case, with ``-``, ``_`` or spaces, quoted or not,
indented, commented out, any value, or a near-miss of the key name) gets one verdict: ``honored`` (exactly the
C14 line in a file without NUL) or the first reason of REASONS that applies. File-level findings come first.
Status 0 whenever the path could be examined, 1 when it cannot, 2 for a usage error. Not on the parse path.
"""

import json
import os
import re
from types import SimpleNamespace

from sage_flags._io import OK, PARSE_ERROR, UsageError, _write, say
from sage_flags._vocab import DEFAULT
from sage_flags._vocabulary import Vocabulary
from sage_flags._vocabulary import vocabulary as _vocabulary
from sage_flags.announce import terminal_safe
from sage_flags.reference import config_lines, nearest, read_config

TRUE_ALIASES = ("yes", "y", "on", "1", "enable", "enabled")  # YAML 1.1 and friends; C14 wants `true`
FALSE_WORDS = ("false", "no", "n", "off", "0", "disable", "disabled")
CANDIDATE = re.compile(  # a piece of a line that looks meant to set a mode, taken apart
    r"(?s)(?P<indent>[ \t\v\f]*)(?P<comment>#[ \t]*)?(?P<item>-[ \t]+)?(?P<junk>[\ufeff\u200b\u00a0]*)"
    r"(?P<quote>[\"']?)(?P<key>[A-Za-z][A-Za-z0-9_ -]*?)(?P=quote)(?P<before>[ \t]*)(?P<sep>[:=])(?P<after>[ \t]*)"
    r"(?P<value>.*?)(?P<remark>[ \t]#.*)?(?P<trail>[ \t\v\f\r]*)"
)
NUMBER = "the config can only turn %s on, with the default %s %d; another %s comes from --%s=%s"


def _numbers(vocabulary: Vocabulary) -> "dict[str, str]":
    """V1: for each mode of ``vocabulary`` that takes a value, how its number is set."""
    numbers = {}
    for row in vocabulary.value_modes:
        key, name = vocabulary.modes[row.mode]
        numbers[key] = NUMBER % (key, row.name, row.default, row.name, name, row.metavar)
    return numbers


# (applies, code, message): a line's verdict is the first that applies; none applies only to the C14 line.
REASONS = (
    (lambda f: f.nul, "file-has-nul", "the file contains a NUL byte (C12)"),
    (lambda f: f.bare_cr, "bare-cr", "not on a line of its own: separated by a bare CR"),
    (lambda f: f.comment, "commented-out", "commented out with `#`"),
    (lambda f: f.indent, "indented", "indented, so not top level: the key must start at column 0"),
    (lambda f: f.item, "list-item", "a list item (`- `), not a top-level key"),
    (lambda f: f.junk, "invisible-character", "invisible character {names} before the key"),
    (lambda f: f.quote, "quoted-key", "quoted key: write it bare, `{mode}`"),
    (lambda f: f.key != f.mode, "key-name", "key `{key}` is not the mode's name: did you mean `{mode}`?"),
    (lambda f: f.before, "space-before-colon", "space before the `{sep}`"),
    (lambda f: f.sep == "=", "equals-sign", "`=` instead of `: `"),
    (lambda f: not f.after and f.value, "no-space-after-colon", "no space after the colon"),
    (lambda f: "\t" in f.after, "tab-after-colon", "a tab after the colon: exactly one space is needed"),
    (lambda f: len(f.after) > 1, "extra-space", "{spaces} spaces after the colon: exactly one is needed"),
    (lambda f: f.remark, "trailing-comment", "trailing comment `{remark}`"),
    (lambda f: f.trail, "trailing-space", "extra space after the value"),
    (lambda f: f.quoted, "quoted-value", "quoted value {value}: write the bare word `true`"),
    (lambda f: f.word == "true" != f.core, "value-case", "{case} value `{core}`: only lowercase `true` counts"),
    (lambda f: f.word in TRUE_ALIASES, "yaml-alias", "YAML alias `{core}` is not `true`: only the word `true` counts"),
    (lambda f: f.word in FALSE_WORDS, "false-value", "`{core}` means no default: off unless a flag turns it on"),
    (lambda f: not f.core, "no-value", "no value: write `true`"),
    (lambda f: f.digits and f.number, "number-value", "value `{core}` is not `true`: {number}"),
    (lambda f: f.core != "true", "other-value", "value `{core}` is not `true`"),
)


def _show(text: str) -> str:
    """A line as it can be shown on a terminal: TAB visible, controls escaped, stray bytes as \\xNN."""
    text = re.sub("[\udc80-\udcff]", lambda m: "\\x%02x" % (ord(m.group()) - 0xDC00), text.replace("\t", "\\t"))
    return terminal_safe(text)


def _closest_mode(key: str, keys: "tuple[str, ...]") -> "str | None":
    """The mode a key means: itself after normalising case and separators, E1's S2-S5, or the one mode it holds."""
    normal = key.lower().replace("-", "_").replace(" ", "_")
    holding = [mode for mode in keys if mode.replace("_", "") in normal.replace("_", "")]
    return normal if normal in keys else nearest(key, keys) or (holding[0] if len(holding) == 1 else None)


def _verdict(number: int, piece: str, nul: bool, bare_cr: bool, vocabulary: Vocabulary) -> "dict | None":
    """A line's verdict, or None when the piece does not look meant to set a mode of ``vocabulary``."""
    match = CANDIDATE.fullmatch(piece)
    mode = _closest_mode(match.group("key").strip(), tuple(key for key, _ in vocabulary.modes)) if match else None
    if not match or not mode:
        return None
    f = SimpleNamespace(**match.groupdict(""), mode=mode, nul=nul, bare_cr=bare_cr)
    f.quoted = len(f.value) >= 2 and f.value[0] == f.value[-1] and f.value[0] in "\"'"
    f.core = f.value[1:-1] if f.quoted else f.value
    f.word, f.remark, f.spaces = f.core.lower(), f.remark.strip(), len(f.after)
    f.number = _numbers(vocabulary).get(f.mode)
    f.case = {"True": "titlecase", "TRUE": "uppercase"}.get(f.core, "mixed-case")
    f.names, f.digits = ", ".join("U+%04X" % ord(c) for c in f.junk), f.core.isascii() and f.core.isdigit()
    why = next(({"code": c, "message": _show(m.format_map(vars(f)))} for test, c, m in REASONS if test(f)), None)
    return dict(line=number, text=_show(piece), mode=f.mode, verdict="ignored" if why else "honored", reason=why)


def _finding(code: str, message: str) -> dict:
    return {"code": code, "message": _show(message)}


def explain(path: bytes, vocabulary: str = DEFAULT) -> dict:
    """The whole report as a dict (see --json), for the modes of ``vocabulary``. Raises OSError when the path
    cannot be examined at all."""
    chosen = _vocabulary(vocabulary)
    content, code, why = read_config(path)
    findings = [_finding(code, why)] if code else []
    data = content or b""
    lines = config_lines(data) if content is not None else []
    nul = data.count(b"\n", 0, data.find(b"\0")) + 1 if b"\0" in data else 0  # its line
    stray = [str(number) for number, line in enumerate(lines, 1) if b"\r" in line]
    where, lf = "line%s %s" % ("s" if len(stray) > 1 else "", ", ".join(stray)), len(lines) > 1
    for test, code, message in (
        (nul, "nul", "contains a NUL byte (line %d): the whole file is ignored, no defaults (C12)" % nul),
        (data.startswith(b"\xef\xbb\xbf"), "bom", "starts with a UTF-8 byte-order mark: dropped, fine (C13)"),
        (b"\r\n" in data, "crlf", "CRLF line endings: fine, one CR at the end of a line is dropped (C13)"),
        (stray and not lf, "cr-only", "CR line endings without LF: to the parser the file is one line (C13)"),
        (stray and lf, "stray-cr", "a CR not at the end of %s: to the parser, part of the line (C13)" % where),
        (content == b"", "empty", "empty file: no defaults"),
    ):
        if test:
            findings.append(_finding(code, message))
    verdicts = []
    for number, line in enumerate(lines, 1):
        segments = line.decode("utf-8", "surrogateescape").split("\r")
        verdicts += filter(None, (_verdict(number, piece, bool(nul), len(segments) > 1, chosen) for piece in segments))
    defaults = {key: any(v["mode"] == key and not v["reason"] for v in verdicts) for key, _ in chosen.modes}
    return {"path": os.fsdecode(path), "findings": findings, "lines": verdicts, "defaults": defaults}


def render_text(report: dict) -> str:
    keys = list(report["defaults"])  # the vocabulary's modes, in contract order
    out = ["config: %s" % _show(report["path"])] + ["  file: " + f["message"] for f in report["findings"]]
    if not report["lines"] and not any(f["code"] in ("missing", "not-regular-file") for f in report["findings"]):
        out.append("  no line looks like it sets a mode")
    for line in report["lines"]:
        out.append("  line %d: %s" % (line["line"], line["text"]))
        why, mode = line["reason"], line["mode"]
        out.append("    " + ("not honored: " + why["message"] if why else "honored: %s is on by default" % mode))
    on = {key: [str(v["line"]) for v in report["lines"] if v["mode"] == key and not v["reason"]] for key in keys}
    summary = ["%s on (line %s)" % (key, ", ".join(on[key])) if on[key] else "%s no default" % key for key in keys]
    return "\n".join([*out, "defaults: " + "; ".join(summary)]) + "\n"


def run_config(items: "list[bytes]", vocabulary: str) -> int:
    if not items or items[0] != b"explain":
        raise UsageError("config takes the subcommand explain: sage-flags config explain PATH [--json]")
    rest = list(items[1:])
    dashes = rest.index(b"--") if b"--" in rest else len(rest)
    as_json = b"--json" in rest[:dashes]
    paths = [item for item in rest[:dashes] if item != b"--json"] + rest[dashes + 1 :]
    if len(paths) != 1:
        raise UsageError("config explain takes exactly one PATH")
    try:
        report = explain(paths[0], vocabulary)
    except OSError as error:
        reason = error.strerror or "error %d" % (error.errno or 0)
        say("sage-flags: cannot examine %s: %s\n" % (_show(os.fsdecode(paths[0])), reason))
        return PARSE_ERROR
    text = json.dumps(report, ensure_ascii=True) + "\n" if as_json else render_text(report)
    _write(text.encode("utf-8", "surrogateescape"))
    return OK
