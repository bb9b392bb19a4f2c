"""The command lint of the flag-parser skill (issue 29, SPEC K4): every call it shows is a safe form.

Every command is extracted from SKILL.md, its reference files and the old path's redirect: the lines of each
fenced code block but a ```text one, a program's output (a console block's `$ ` lines; in any block, heredoc
bodies are the user's text, not command lines), each indented code line, and each inline code span of the
prose. A call of ours that takes the user's text (`parse`, `announce`, `resume`, through any entry: the
wrapper or launcher, `sage-flags`, `python3 -m core.flag_parser`, `python -m sage_flags`, python3 with the adopted
copy (`-c '... sage_flags.cli ...' FOLDER`), the bash scripts, or a span that starts with the subcommand; after
`--vocabulary NAME`) fails the lint when

- an option of ours (`--config-path`, `--config-path=...`, `--stdin`) comes after the user's text;
- the user's text is in the command line at all (an operand, literal or `$ARGUMENTS`), instead of on standard
  input;
- or any command line holds `$ARGUMENTS` (a line or span that is exactly `$ARGUMENTS` is the placeholder of a
  heredoc body, not a command line).

Only the one region labelled `<!-- hazard: BEGIN ... -->` / `<!-- hazard: END ... -->` (references/layers.md,
which explains the double-quoted form's hazard) is exempt. The lint must fail on a copy of the skill's section 7
as it was before issue 29 (tests/fixtures/), which taught the seed's form by example.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

import pytest
from sage_flags._render import LAUNCHER
from skill_files import skill_files

from parity.layers import ROOT

FIXTURE = ROOT / "tests" / "fixtures" / "skill-section-7-before-issue-29.md"
HAZARD = re.compile(r"<!-- hazard: (BEGIN|END) ([^>]*?) -->")
TEXT_TAKERS = {"parse": 0, "announce": 1, "resume": 1}  # subcommand -> operands of ours before the user's text
OPTIONS = ("--config-path", "--stdin")
SCRIPTS = re.compile(r"(?:^|/)(parse|announce|resume|persist|batch)\.sh$")


@dataclass(frozen=True)
class Line:
    source: str  # file:line
    text: str
    hazard: bool  # inside the labelled hazard region


@dataclass(frozen=True)
class Finding:
    source: str
    text: str
    problem: str


def command_lines(markdown: str, name: str) -> List[Line]:
    """Every command line of a Markdown document (see the module docstring)."""
    found: List[Line] = []
    hazard: Optional[str] = None
    fence: Optional[str] = None  # the open fence's info string
    terminator: Optional[str] = None  # the open heredoc's terminator
    for number, line in enumerate(markdown.splitlines(), 1):
        where = f"{name}:{number}"
        marker = HAZARD.search(line)
        if marker and fence is None:
            hazard = marker.group(2) if marker.group(1) == "BEGIN" else None
            continue
        inside = hazard is not None
        if line.startswith("```"):
            fence = None if fence is not None else line[3:].strip()
            terminator = None
            continue
        if fence == "text":
            continue  # a program's output shown as it is (examples.md: the hook's context), not a command line
        if fence is not None:
            text = line
            if fence == "console":
                if terminator is not None:
                    text = line[2:] if line.startswith("> ") else line
                elif not line.startswith("$ "):
                    continue  # output
                else:
                    text = line[2:]
            if terminator is not None:
                if text == terminator:
                    terminator = None
                continue  # the user's text (or a JSON line): standard input, not a command line
            found.append(Line(where, text, inside))
            heredoc = re.search(r"<<-?\s*'?\"?([A-Za-z0-9_]+)", text)
            terminator = heredoc.group(1) if heredoc else None
        elif line.startswith("    ") and line.strip():
            found.append(Line(where, line.strip(), inside))
        else:
            found += [Line(where, span, inside) for span in re.findall(r"`([^`]+)`", line)]
    assert fence is None, f"{name}: a code block is never closed"
    assert hazard is None, f"{name}: the hazard region is never closed"
    return found


def words(segment: str) -> List[str]:
    try:
        return shlex.split(segment, posix=True)
    except ValueError:  # an unbalanced quote in a prose span
        return segment.split()


def calls(text: str) -> List[List[str]]:
    """Each call of ours in a command line: [subcommand, its arguments...], redirections left out."""
    found = []
    for segment in re.split(r"\|\||&&|[|;]", text):
        tokens = words(segment.strip())
        for i, token in enumerate(tokens):
            rest: Optional[List[str]] = None
            script = SCRIPTS.search(token)
            if token.endswith("sage-flags") and not token.startswith("-"):
                rest = tokens[i + 1 :]
            elif token == "-m" and i + 1 < len(tokens) and tokens[i + 1] in ("core.flag_parser", "sage_flags"):
                rest = tokens[i + 2 :]
            elif token == "-c" and i + 1 < len(tokens) and "sage_flags.cli" in tokens[i + 1]:
                rest = tokens[i + 3 :]  # after the program and the copy's folder
            elif script:
                rest = [script.group(1), *tokens[i + 1 :]]
            elif i == 0 and token in TEXT_TAKERS:  # a prose span such as `parse "$ARGUMENTS" --config-path ...`
                rest = tokens
            if rest is not None:
                if rest[:1] == ["--vocabulary"]:
                    rest = rest[2:]
                elif rest[:1] and rest[0].startswith("--vocabulary="):
                    rest = rest[1:]
                end = next((k for k, t in enumerate(rest) if re.match(r"\d*[<>]", t)), len(rest))
                found.append(rest[:end])
                break
    return found


def problems_of(call: List[str]) -> List[str]:
    if not call or call[0] not in TEXT_TAKERS:
        return []
    args, ours, text_seen, problems = call[1:], TEXT_TAKERS[call[0]], False, []
    i, after_dashes = 0, False
    while i < len(args):
        arg = args[i]
        if not after_dashes and (arg in OPTIONS or arg.startswith("--config-path=")):
            if text_seen:
                problems.append(f"option {arg} after the user's text")
            i += 2 if arg == "--config-path" else 1
            continue
        if not after_dashes and arg == "--":
            after_dashes = True
        elif ours:
            ours -= 1
        else:
            text_seen = True
            problems.append(f"the user's text {arg!r} in the command line, not on standard input")
        i += 1
    return problems


def lint(lines: List[Line]) -> List[Finding]:
    findings = []
    for line in lines:
        if line.hazard:
            continue
        problems = []
        if "$ARGUMENTS" in line.text and line.text.strip() != "$ARGUMENTS":
            problems.append("$ARGUMENTS substituted into a command line")
        for call in calls(line.text):
            problems += problems_of(call)
        findings += [Finding(line.source, line.text, problem) for problem in problems]
    return findings


def lint_file(path: Path) -> List[Finding]:
    return lint(command_lines(path.read_text(encoding="utf-8"), path.name))


@pytest.mark.parametrize("path", skill_files(), ids=lambda p: p.name)
def test_every_call_of_the_skill_is_a_safe_form(path: Path) -> None:
    findings = lint_file(path)
    assert findings == [], "\n".join(f"{f.source}: {f.problem}: {f.text}" for f in findings)


def test_the_skill_shows_calls_to_lint() -> None:
    """The extraction finds the skill's calls (an extractor that finds nothing would pass everything)."""
    lines = [line for path in skill_files() for line in command_lines(path.read_text(encoding="utf-8"), path.name)]
    found = [call for line in lines for call in calls(line.text)]
    assert sum(call[:1] == ["parse"] for call in found) >= 10
    assert {"parse", "announce", "resume", "persist", "config"} <= {call[0] for call in found if call}
    hazardous = [line for line in lines if line.hazard]
    assert len(lint(hazardous)) == 0 and len(lint([Line(x.source, x.text, False) for x in hazardous])) >= 3


def test_the_lint_fails_on_the_old_section_7() -> None:
    findings = lint_file(FIXTURE)
    problems = {f.problem.split(" ", 1)[0] + " " + f.problem.split(" ")[-1] for f in findings}
    after = [f for f in findings if f.problem.startswith("option --config-path after")]
    assert len(after) >= 5, findings  # issue 29: five calls put --config-path after the text
    assert any("not on standard input" in f.problem for f in findings), problems
    assert any('parse "ship it" --config-path' in f.text for f in after)


def test_one_labelled_hazard_region() -> None:
    regions = []
    for path in skill_files():
        text = path.read_text(encoding="utf-8")
        regions += [(path.name, m.group(2)) for m in HAZARD.finditer(text) if m.group(1) == "BEGIN"]
    assert regions == [("layers.md", "the double-quoted form")]
    text = (skill_files()[0].parent / "references" / "layers.md").read_text(encoding="utf-8")
    region = text[text.index("<!-- hazard: BEGIN") : text.index("<!-- hazard: END")]
    assert "## Hazard:" in region
    assert LAUNCHER + ' parse "$ARGUMENTS" --config-path .sage/config.yaml' in region  # the seed's form
    assert 'parse --config-path .sage/config.yaml -- "$ARGUMENTS"' in region  # the compatible form


@pytest.mark.parametrize(
    ("markdown", "problem"),
    [
        ('Never `parse "$ARGUMENTS" --config-path x`.\n', "option --config-path after"),
        ("```sh\nsage-flags parse --stdin ship --config-path=p\n```\n", "option --config-path=p after"),
        ("```sh\npython3 -B -m core.flag_parser announce build go --stdin\n```\n", "option --stdin after"),
        ("```sh\nbash sage/core/flag_parser/resume.sh m.md go --config-path c\n```\n", "option --config-path after"),
        ("```console\n$ sage/bin/sage-flags parse -h\n```\n", "the user's text '-h'"),
        ("```\nsage-flags parse go\n```\n", "the user's text 'go'"),  # a fence without "text" is linted
        ("```sh\nsage-flags --vocabulary v parse go --stdin\n```\n", "option --stdin after"),
        ("```sh\npython3 -B -c 'from sage_flags.cli import main' d --vocabulary=v parse go\n```\n", "the user's text"),
        ('```sh\nsage/bin/sage-flags parse --config-path c -- "$ARGUMENTS"\n```\n', "$ARGUMENTS substituted"),
        ('    sage-flags parse "$ARGUMENTS"\n', "$ARGUMENTS substituted"),
        ('```sh\nx=$ARGUMENTS; echo "$x"\n```\n', "$ARGUMENTS substituted"),
    ],
)
def test_the_lint_catches(markdown: str, problem: str) -> None:
    assert any(f.problem.startswith(problem) for f in lint(command_lines(markdown, "t.md"))), problem


@pytest.mark.parametrize(
    "markdown",
    [
        "```sh\nsage/bin/sage-flags parse --config-path c --stdin <<'T'\n$ARGUMENTS\n--config-path x\nT\n```\n",
        "```console\n$ sage-flags announce build --stdin <<'T'\n> go --stdin\n> T\nout\n```\n",
        "```sh\nprintf 'x' | sage/bin/sage-flags announce build --stdin\n```\n",
        "Put the text where `$ARGUMENTS` stands; `sage/bin/sage-flags --which`.\n",
        '<!-- hazard: BEGIN x -->\n```sh\nsage-flags parse "$ARGUMENTS" --config-path c\n```\n<!-- hazard: END x -->\n',
        '```sh\nsage/bin/sage-flags persist .sage/cycle.md <<\'R\'\n{"goal": "--stdin"}\nR\n```\n',
        "```text\nsage-flags hook result for /build (...); sage-flags parse printed:\n```\n",
    ],
)
def test_the_lint_passes(markdown: str) -> None:
    assert lint(command_lines(markdown, "t.md")) == []
