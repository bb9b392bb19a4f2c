"""Fail on bash constructs that macOS's bash 3.2 does not have (or runs differently).

    python tools/lint_bash32.py [FILE.sh ...]    # default: every *.sh in the repository

The bash layer exists for machines without Python, macOS first, whose /bin/bash
is 3.2. Each rule below is a construct that is a syntax error there, does
something else there, or aborts there under `set -u`. A line may opt out of one
rule with a trailing comment `# bash32: ok <rule>` and a reason.

The last four rules came from running the suite under a real bash 3.2.48
(`make old-bash`; issue 11): what no static reading had shown.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Iterable, Iterator, List, Tuple

ROOT = Path(__file__).resolve().parent.parent
SKIP_DIRS = {".git", ".venv", "target", "build", "dist", "node_modules"}

# (rule name, pattern, why); the patterns run on the line with comments and
# single-quoted strings blanked out.
RULES: List[Tuple[str, "re.Pattern[str]", str]] = [
    ("assoc-array", re.compile(r"\b(declare|local|typeset)\s+(-\w*A\w*)"), "associative arrays are bash 4.0"),
    ("case-modification", re.compile(r"\$\{[#!]?\w+(\[[^]]*\])?(,,?|\^\^?)"), "${x,,} / ${x^^} are bash 4.0"),
    ("mapfile", re.compile(r"(^|[\s;&|(])(mapfile|readarray)\b"), "mapfile/readarray are bash 4.0"),
    ("nameref", re.compile(r"\b(declare|local|typeset)\s+-\w*n"), "declare -n is bash 4.3"),
    ("test-v", re.compile(r"\[\[\s+-v\b|(^|[\s;&|(])(test|\[)\s+-v\b"), "[[ -v is bash 4.2"),
    ("negative-subscript", re.compile(r"\[\s*-\s*\d+\s*\]\}"), "negative array subscripts are bash 4.3"),
    ("negative-length", re.compile(r"\$\{\w+:[^:}]*:\s*-\d"), "a negative substring length is bash 4.2"),
    ("transform", re.compile(r"\$\{[^}]*@[QEPAaKkUuL]\}"), "${x@Q} transformations are bash 4.4"),
    ("pipe-stderr", re.compile(r"\|&"), "|& is bash 4.0"),
    ("case-fallthrough", re.compile(r";;&|;&"), ";& and ;;& are bash 4.0"),
    ("coproc", re.compile(r"(^|[\s;&|(])coproc\b"), "coproc is bash 4.0"),
    ("epochrealtime", re.compile(r"\$\{?(EPOCHREALTIME|EPOCHSECONDS)\b"), "$EPOCHREALTIME is bash 5.0"),
    ("wait-n", re.compile(r"(^|[\s;&|(])wait\s+-\w*n"), "wait -n is bash 4.3"),
    ("declare-g", re.compile(r"\b(declare|typeset|local)\s+-\w*g"), "declare -g is bash 4.2"),
    ("local-dash", re.compile(r"(^|[\s;&|(])local\s+-(\s|$)"), "local - is bash 4.4"),
    ("globstar", re.compile(r"shopt\s+-s\s+[\w\s]*\b(globstar|lastpipe|inherit_errexit)\b"), "bash 4+ shell option"),
    ("printf-time", re.compile(r"%\([^)]*\)T"), "printf %(...)T is bash 4.2"),
    ("fd-variable", re.compile(r"\{\w+\}[<>]"), "{var}> redirections are bash 4.1"),
    ("append-redirect-both", re.compile(r"&>>"), "&>> is bash 4.0"),
    # Found under bash 3.2.48 itself:
    (
        "newer-variable",
        re.compile(
            r"\$(\{)?(BASHOPTS|BASHPID|BASH_XTRACEFD|BASH_COMPAT|BASH_LOADABLES_PATH|BASH_ARGV0|FUNCNEST"
            r"|CHILD_MAX|EXECIGNORE|PS0|SRANDOM|READLINE_LINE|READLINE_POINT)(?(1)(?![-+]|:[-+=]|=)|\b)"
        ),
        "a variable bash 3.2 lacks: under set -u reading it aborts (write ${NAME-})",
    ),
    (
        "array-op",
        re.compile(r"\$\{(\w+\[[@*]\]|[@*])(:|/|#|%)"),
        'bash 3.2 joins "${a[@]:i:n}", "${a[@]/p/r}", "${a[@]#p}" (and $@ alike) into one word unless IFS holds a'
        " space, and a [*] slice turns empty strings into 0x7f bytes",
    ),
    (
        "ifs-pattern",
        re.compile(r"(^|[\s;&|(])IFS=(['\"]?)[^\s;'\"]*[-*?\[\]!^]"),
        "while IFS holds a pattern byte (* ? [ ] - ! ^), bash 3.2 reads it as a literal in [[ == ]] and case patterns",
    ),
]

# Bytes 0x01 and 0x7f are bash 3.2's internal quoting bytes (CTLESC, CTLNUL): a regular expression holding one
# does not compile ([[ =~ ]] returns 2), an IFS holding one does not split. Found in the raw line's $'...' text.
QUOTING_BYTE = re.compile(r"\$'(?:[^'\\]|\\.)*?\\(?:x0?1|x7[fF]|0?01|177|c[aA?])(?![0-9a-fA-F])")
REGEX_VARIABLE = re.compile(r"=~\s*\$\{?(\w+)")
# NAME=VALUE (also after local/declare): the name and the value word as written.
ASSIGNMENT = re.compile(
    r"(?:^|[\s;])(?:local\s+|declare\s+(?:-\w+\s+)?)?(\w+)="
    r"((?:\$'(?:[^'\\]|\\.)*'|'[^']*'|\"(?:[^\"\\]|\\.)*\"|[^\s;'\"])*)"
)

# "${arr[@]}" (also [*], slices, substitutions) of a possibly empty array aborts
# under set -u on bash < 4.4 unless guarded as ${arr[@]+"${arr[@]...}"}.
ARRAY_EXPANSION = re.compile(r"\$\{(\w+)\[[@*]\]")
GUARD = re.compile(r"\$\{(\w+)\[[@*]\]\+")
# ("$@" with no arguments is fine under set -u on 3.2: only bash 4.0 aborted there.)


def _blank_quotes_and_comments(line: str) -> Tuple[str, str]:
    """The code part of a line (single-quoted text blanked) and its comment."""
    out = []
    i = 0
    in_double = False
    while i < len(line):
        ch = line[i]
        if ch == "\\" and i + 1 < len(line):
            out.append(line[i : i + 2])
            i += 2
            continue
        if not in_double and ch == "'":
            end = line.find("'", i + 1)
            if line[i - 1 : i] == "$":  # $'...' honours backslash escapes
                j = i + 1
                while j < len(line) and line[j] != "'":
                    j += 2 if line[j] == "\\" else 1
                end = j if j < len(line) else -1
            if end < 0:
                end = len(line) - 1
            out.append("'" + " " * (end - i - 1) + "'")
            i = end + 1
            continue
        if ch == '"':
            in_double = not in_double
        if ch == "#" and not in_double and (i == 0 or line[i - 1] in " \t;"):
            return "".join(out), line[i:]
        out.append(ch)
        i += 1
    return "".join(out), ""


def check_line(line: str, regex_variables: Iterable[str] = ()) -> Iterator[Tuple[str, str]]:
    code, comment = _blank_quotes_and_comments(line)
    allowed = set(re.findall(r"bash32:\s*ok\s+([\w-]+)", comment))
    for name, pattern, why in RULES:
        if name not in allowed and pattern.search(code):
            yield name, why
    raw = line[: len(line) - len(comment)]
    if "quoting-byte" not in allowed:
        regexes = set(regex_variables) | {"IFS"}
        values = [value for name, value in ASSIGNMENT.findall(raw) if name in regexes]
        values += raw.split("=~", 1)[1:]  # a regex written in place
        if any(QUOTING_BYTE.search(value) for value in values):
            yield (
                "quoting-byte",
                "0x01 and 0x7f are bash 3.2's quoting bytes: no regex compiles with one, no IFS splits",
            )
    if "empty-array" not in allowed:
        guarded = {m.start() for m in GUARD.finditer(code)}
        for match in ARRAY_EXPANSION.finditer(code):
            if match.start() in guarded:
                continue
            # Inside a guard: ${arr[@]+"${arr[@]}"} - the inner expansion follows `+"`.
            prefix = code[: match.start()]
            if re.search(r"\$\{" + re.escape(match.group(1)) + r"\[[@*]\]\+\"?$", prefix):
                continue
            yield "empty-array", f"${{{match.group(1)}[@]}} aborts under set -u when empty on bash < 4.4: guard it"


def check_file(path: Path) -> List[str]:
    problems = []
    text = path.read_text(encoding="utf-8", errors="replace")
    regex_variables = set(REGEX_VARIABLE.findall(text))  # variables used as [[ =~ $re ]]
    for number, line in enumerate(text.splitlines(), 1):
        for name, why in check_line(line, regex_variables):
            problems.append(f"{path}:{number}: [{name}] {why}\n    {line.strip()}")
    return problems


def shell_files(root: Path) -> List[Path]:
    found = []
    for path in sorted(root.rglob("*.sh")):
        if not any(part in SKIP_DIRS for part in path.relative_to(root).parts):
            found.append(path)
    return found


def main(argv: List[str]) -> int:
    paths = [Path(a) for a in argv] or shell_files(ROOT)
    problems = [p for path in paths for p in check_file(path)]
    for problem in problems:
        print(problem)
    if problems:
        print(f"lint_bash32: {len(problems)} construct(s) that bash 3.2 lacks", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
