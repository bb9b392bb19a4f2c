"""``sage-flags config explain PATH [--json]``: why a config default did or did not apply.

Lists every line of the config that looks like it meant to set a mode (the key
in any case, with ``-``, ``_`` or spaces, quoted or not, indented, commented
out, any value, or a near-miss of the key name), with its line number and a
verdict: ``honored`` (exactly the C14 line) or every reason it is not. File-level
findings come first (not a regular file, NUL, BOM, CRLF, CR-only endings, a stray CR).

Exit status 0 whenever the path could be examined (a missing file or a
directory is a finding, not a failure), 1 when it cannot be examined at all
(e.g. permission denied, name too long), 2 for a usage error. ``re`` and
``json`` are imported here only, never on the parse path.
"""

from __future__ import annotations

import errno
import os
import stat

from sage_flags._io import OK, PARSE_ERROR, UsageError, _write
from sage_flags._vocab import MODES, VALUE_MODES
from sage_flags.announce import terminal_safe
from sage_flags.reference import CONFIG_LIMIT, DEFAULT_LINES, TooLarge, nearest, read_regular

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Dict, List, Optional, Sequence, Tuple

    Finding = Dict[str, str]

BOM = b"\xef\xbb\xbf"
TRUE_ALIASES = ("yes", "y", "on", "1", "enable", "enabled")  # YAML 1.1 and friends; C14 wants `true`
FALSE_WORDS = ("false", "no", "n", "off", "0", "disable", "disabled")


def _show(text: str) -> str:
    """A line as it can be shown on a terminal: TAB visible, controls escaped, stray bytes as \\xNN."""
    text = text.replace("\t", "\\t")
    if any("\udc80" <= c <= "\udcff" for c in text):
        text = "".join("\\x%02x" % (ord(c) - 0xDC00) if "\udc80" <= c <= "\udcff" else c for c in text)
    return terminal_safe(text)


def _finding(code: str, message: str) -> "Finding":
    return {"code": code, "message": _show(message)}  # messages quote the file's text


def _closest_mode(key: str) -> "Optional[Tuple[str, bool]]":
    """(mode key, exact after normalising case and separators) for a key that looks like a mode, else None.

    A near-miss key is one E1's suggestion rule (docs/SPEC.md S2-S5, ``reference.nearest``) finds near
    a mode key, or a longer key that holds one (``quality_locked_default``).
    """
    normal = key.strip().lower().replace("-", "_").replace(" ", "_")
    keys = tuple(mode for mode, _ in MODES)
    if normal in keys:
        return normal, True
    near = nearest(key.strip(), keys)
    if near is not None:
        return near, False
    compact = normal.replace("_", "")
    holding = [mode for mode in keys if mode.replace("_", "") in compact]
    return (holding[0], False) if len(holding) == 1 else None


class _Line:
    """One candidate line and the reasons it is not honored."""

    def __init__(self, number: int, text: str, mode: str, honored: bool, reasons: "List[Finding]") -> None:
        self.number, self.text, self.mode, self.honored, self.reasons = number, text, mode, honored, reasons

    def to_dict(self) -> "Dict[str, Any]":
        verdict = "honored" if self.honored else "ignored"
        return {"line": self.number, "text": self.text, "mode": self.mode, "verdict": verdict, "reasons": self.reasons}


def _value_reasons(value: str, mode: str) -> "List[Finding]":
    import re

    reasons = []
    comment = re.search(r"[ \t]#", value)
    if comment:
        reasons.append(_finding("trailing-comment", "trailing comment `%s`" % value[comment.start() :].strip()))
        value = value[: comment.start()]
    core = value.rstrip(" \t\v\f\r")
    if core != value:
        reasons.append(_finding("trailing-space", "extra space after the value"))
    if len(core) >= 2 and core[0] == core[-1] and core[0] in "\"'":
        reasons.append(_finding("quoted-value", "quoted value %s: write the bare word `true`" % core))
        core = core[1:-1]
    word = core.lower()
    if core == "true":
        pass
    elif word == "true":
        kind = "titlecase" if core == "True" else "uppercase" if core == "TRUE" else "mixed-case"
        reasons.append(_finding(kind + "-value", "%s value `%s`: only lowercase `true` counts" % (kind, core)))
    elif word in TRUE_ALIASES:
        reasons.append(_finding("yaml-alias", "YAML alias `%s` is not `true`: only the word `true` counts" % core))
    elif word in FALSE_WORDS:
        reasons.append(
            _finding("false-value", "`%s` means no default: the mode is off unless a flag turns it on" % core)
        )
    elif core == "":
        reasons.append(_finding("no-value", "no value: write `true`"))
    elif core.isascii() and core.isdigit() and mode in _TAKES_A_VALUE:  # V1: `parallel: 3`
        reasons.append(_finding("number-value", "value `%s` is not `true`: %s" % (core, _TAKES_A_VALUE[mode])))
    else:
        reasons.append(_finding("other-value", "value `%s` is not `true`" % core))
    return reasons


# mode key -> how its number is set, for a config line that gives the number (docs/SPEC.md V1-V4)
_TAKES_A_VALUE = {
    key: "the config can only turn %s on, with the default %s %d; another %s comes from --%s=%s"
    % (key, row.name, row.default, row.name, name, row.metavar)
    for row in VALUE_MODES
    for key, name in [MODES[row.mode]]
}


_CANDIDATE = None


def _examine_segment(segment: str) -> "Optional[Tuple[str, List[Finding]]]":
    """(mode, reasons) when this piece of a line looks like it meant to set a mode, else None."""
    global _CANDIDATE
    import re

    if _CANDIDATE is None:
        _CANDIDATE = re.compile(
            r"(?P<indent>[ \t\v\f]*)(?P<comment>#[ \t]*)?(?P<item>-[ \t]+)?(?P<junk>[\ufeff\u200b\u00a0]*)"
            r"(?P<quote>[\"']?)(?P<key>[A-Za-z][A-Za-z0-9_ -]*?)(?P=quote)(?P<before>[ \t]*)(?P<sep>[:=])"
            r"(?P<after>[ \t]*)(?P<value>.*)",
            re.DOTALL,
        )
    match = _CANDIDATE.fullmatch(segment)
    if not match:
        return None
    key = match.group("key")
    closest = _closest_mode(key)
    if closest is None:
        return None
    mode, exact = closest
    reasons = []
    if match.group("comment"):
        reasons.append(_finding("commented-out", "commented out with `#`"))
    if match.group("indent"):
        reasons.append(_finding("indented", "indented, so not top level: the key must start at column 0"))
    if match.group("item"):
        reasons.append(_finding("list-item", "a list item (`- `), not a top-level key"))
    if match.group("junk"):
        names = ", ".join("U+%04X" % ord(c) for c in match.group("junk"))
        reasons.append(_finding("invisible-character", "invisible character %s before the key" % names))
    if match.group("quote"):
        reasons.append(_finding("quoted-key", "quoted key: write it bare, `%s`" % mode))
    if not exact:
        reasons.append(_finding("near-miss-key", "near-miss key name `%s`: did you mean `%s`?" % (key, mode)))
    elif key != mode:
        if key.lower() != key:
            reasons.append(_finding("key-case", "key `%s` is not lowercase: did you mean `%s`?" % (key, mode)))
        if "-" in key or " " in key:
            reasons.append(_finding("key-separator", "key `%s` uses `-` or spaces: did you mean `%s`?" % (key, mode)))
    if match.group("before"):
        reasons.append(_finding("space-before-colon", "space before the `%s`" % match.group("sep")))
    if match.group("sep") == "=":
        reasons.append(_finding("equals-sign", "`=` instead of `: `"))
    after = match.group("after")
    if match.group("sep") == "=":
        pass  # the `=` reason says it all
    elif after == "" and match.group("value"):
        reasons.append(_finding("no-space-after-colon", "no space after the colon"))
    elif "\t" in after:
        reasons.append(_finding("tab-after-colon", "a tab after the colon: exactly one space is needed"))
    elif len(after) > 1:
        reasons.append(_finding("extra-space", "%d spaces after the colon: exactly one is needed" % len(after)))
    reasons.extend(_value_reasons(match.group("value"), mode))
    return mode, reasons


def _read(path: bytes) -> "Tuple[Optional[bytes], List[Finding]]":
    """(content, findings); content is None when the path is not a readable regular file (C12)."""
    kinds = [
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ]
    if not path:
        return None, [_finding("empty-path", "empty path: no config, no defaults (C11)")]
    try:
        info = os.stat(path)
    except OSError as error:
        if error.errno in (errno.ENOENT, errno.ENOTDIR):
            dangling = os.path.islink(path)
            what = "a dangling symlink" if dangling else "does not exist"
            return None, [_finding("missing", "%s: no defaults (C12)" % what)]
        if error.errno == errno.ELOOP:
            return None, [_finding("symlink-loop", "a symlink loop: no defaults (C12)")]
        raise
    if not stat.S_ISREG(info.st_mode):
        kind = next((name for test, name in kinds if test(info.st_mode)), "not a regular file")
        return None, [_finding("not-regular-file", "not a regular file (%s): no defaults (C12)" % kind)]
    try:  # the file could be swapped for a FIFO meanwhile: never a blocking open
        found = read_regular(path, CONFIG_LIMIT)
    except TooLarge as error:  # decided by fstat: not a byte of a huge file is read
        what = "%d bytes, more than the %d a config may have" % (error.size, error.limit)
        return None, [_finding("too-large", "%s: the whole file is ignored, no defaults (H1)" % what)]
    if found is None:
        return None, [_finding("not-regular-file", "not a regular file: no defaults (C12)")]
    return found[0], []


def explain(path: bytes) -> "Dict[str, Any]":
    """The whole report as a dict (see --json). Raises OSError when the path cannot be examined at all."""
    content, findings = _read(path)
    lines: List[_Line] = []
    defaults = {mode: False for mode, _ in MODES}
    if content is not None:
        nul = content.find(b"\0")
        if nul >= 0:
            line_number = content.count(b"\n", 0, nul) + 1
            findings.append(
                _finding(
                    "nul", "contains a NUL byte (line %d): the whole file is ignored, no defaults (C12)" % line_number
                )
            )
        if content.startswith(BOM):
            findings.append(_finding("bom", "starts with a UTF-8 byte-order mark: dropped, fine (C13)"))
            content = content[len(BOM) :]
        parsed_lines = [raw[:-1] if raw.endswith(b"\r") else raw for raw in content.split(b"\n")]  # C13
        if b"\r\n" in content:
            findings.append(_finding("crlf", "CRLF line endings: fine, one CR at the end of a line is dropped (C13)"))
        stray = [str(number) for number, line in enumerate(parsed_lines, 1) if b"\r" in line]
        if stray and b"\n" not in content:
            findings.append(_finding("cr-only", "CR line endings without LF: to the parser the file is one line (C13)"))
        elif stray:
            where = "line%s %s" % ("s" if len(stray) > 1 else "", ", ".join(stray))
            message = "a CR not at the end of %s: to the parser it is part of the line, not a line break (C13)"
            findings.append(_finding("stray-cr", message % where))
        if not content:
            findings.append(_finding("empty", "empty file: no defaults"))
        wanted = {line: mode for mode, line in DEFAULT_LINES.items()}
        for number, line in enumerate(parsed_lines, 1):
            exact_mode = wanted.get(line)
            if exact_mode is not None:  # C14: exactly the line; honored unless C12 discards the file
                reasons = [] if nul < 0 else [_finding("file-has-nul", "the file contains a NUL byte (C12)")]
                if not reasons:
                    defaults[exact_mode] = True
                lines.append(_Line(number, _show(line.decode("ascii")), exact_mode, not reasons, reasons))
                continue
            text = line.decode("utf-8", "surrogateescape")
            segments = text.split("\r")
            for segment in segments:
                examined = _examine_segment(segment)
                if examined is None:
                    continue
                mode, reasons = examined
                if len(segments) > 1:
                    reasons.insert(0, _finding("bare-cr", "not on a line of its own: separated by a bare CR"))
                if not reasons:  # cannot happen: only the exact line has no reason; say so rather than lie
                    reasons = [_finding("not-exact", "not exactly `%s: true`" % mode)]
                lines.append(_Line(number, _show(segment), mode, False, reasons))
    return {
        "path": os.fsdecode(path),
        "findings": findings,
        "lines": [line.to_dict() for line in lines],
        "defaults": defaults,
    }


def render_text(report: "Dict[str, Any]") -> str:
    out = ["config: %s" % _show(report["path"])]
    for finding in report["findings"]:
        out.append("  file: " + finding["message"])
    if not report["lines"] and not any(f["code"] in ("missing", "not-regular-file") for f in report["findings"]):
        out.append("  no line looks like it sets a mode")
    for line in report["lines"]:
        out.append("  line %d: %s" % (line["line"], line["text"]))
        if line["verdict"] == "honored":
            out.append("    honored: %s is on by default" % line["mode"])
        for reason in line["reasons"]:
            out.append("    not honored: " + reason["message"])
    summary = []
    for mode, _ in MODES:
        honored = [
            str(line["line"]) for line in report["lines"] if line["mode"] == mode and line["verdict"] == "honored"
        ]
        summary.append("%s on (line %s)" % (mode, ", ".join(honored)) if honored else "%s no default" % mode)
    out.append("defaults: " + "; ".join(summary))
    return "\n".join(out) + "\n"


def run_config(items: "Sequence[bytes]") -> int:
    if not items or items[0] != b"explain":
        raise UsageError("config takes the subcommand explain: sage-flags config explain PATH [--json]")
    as_json = False
    paths = []
    options_done = False
    for item in items[1:]:
        if not options_done and item == b"--json":
            as_json = True
        elif not options_done and item == b"--":
            options_done = True
        else:
            paths.append(item)
    if len(paths) != 1:
        raise UsageError("config explain takes exactly one PATH")
    try:
        report = explain(paths[0])
    except OSError as error:
        import sys

        reason = error.strerror or "error %d" % (error.errno or 0)
        sys.stderr.write("sage-flags: cannot examine %s: %s\n" % (_show(os.fsdecode(paths[0])), reason))
        return PARSE_ERROR
    if as_json:
        import json

        _write((json.dumps(report, ensure_ascii=True) + "\n").encode("ascii"))
    else:
        _write(render_text(report).encode("utf-8", "surrogateescape"))
    return OK
