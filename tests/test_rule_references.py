"""Every rule number the tree cites (C12, D19.1, E4, S3, V8, K2, ...) is defined exactly once.

The rules live in two files: docs/SPEC.md, what a caller may rely on (it restates the contract's C1-C22 and
E1-E4), and docs/IMPLEMENTATION.md, how each layer meets it (issue 27; until the split, only SPEC.md exists).
A rule is defined by the list item that starts with it in bold, `- **C19**` or `  - **D19.1** ...`; any other
mention is a citation. A citation in a comment, docstring, test, vector tag or doc that no definition answers
is a dangling reference, named by file:line, and so is one that names the wrong file (`docs/SPEC.md D24`
once D24 lives in docs/IMPLEMENTATION.md).
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from pathlib import Path
from typing import Dict, Iterator, List, Tuple

ROOT = Path(__file__).resolve().parent.parent
RULE_FILES = ("docs/SPEC.md", "docs/IMPLEMENTATION.md")
CONTRACT_FILE = "docs/SPEC.md"  # the contract's rules are defined where SPEC.md restates them, and only there
PREFIXES = "ABCDEGHIKLNPRSVW"  # announce, contract, decisions, errors, skill, hostile, stdin, hook, launcher, ...
RULE = rf"[{PREFIXES}][1-9]\d*(?:\.\d+)?"  # numbered from 1: C0 is the control set
DEFINITION = re.compile(rf"^\s*- \*\*({RULE})\b", re.MULTILINE)
# A citation: not part of a longer word or number (U+D800, 0xC2, SC2086), not ruff's `noqa: E402`, not the
# Unicode control sets "C0 controls" / "C1 controls".
CITATION = re.compile(rf"(?<![\w+/])(?<!noqa: )({RULE})(?!\w|\.\d)(?! control)")
# A range cites every rule between its ends: C1-C22, E1..E4, H2–H4 (same letter, whole numbers).
RANGE = re.compile(rf"(?<![\w+/])([{PREFIXES}])(\d+) ?(?:-|\.\.|–) ?\1(\d+)\b")
# A citation that names its file: `docs/SPEC.md D27.1`, `(docs/IMPLEMENTATION.md K3, K5)`, `SPEC.md, C1-C21`.
NAMED = re.compile(rf"\b((?:SPEC|IMPLEMENTATION)\.md)[ ,(]+((?:{RULE})(?:(?: ?(?:-|\.\.|–|,|and) ?){RULE})*)")
SKIP_DIRS = {".git", ".venv", "target", "build", "dist", "_vendor", "__pycache__", "failures", "node_modules"}
SKIP_DIRS |= {".hypothesis", ".pytest_cache", ".ruff_cache"}  # tool caches; parity/failures: the fuzzer's finds
TEXT_SUFFIXES = {".md", ".sh", ".py", ".rs", ".toml", ".yml", ".yaml", ".mk", ".json", ".jsonl", ".txt", ""}

Citation = Tuple[str, int, str]  # file, line, rule


def definitions() -> Dict[str, List[str]]:
    """rule -> the files (one entry per definition) that define it."""
    found: Dict[str, List[str]] = {}
    for name in RULE_FILES:
        path = ROOT / name
        if path.exists():
            for rule in DEFINITION.findall(path.read_text(encoding="utf-8")):
                found.setdefault(rule, []).append(name)
    return found


def tree_files() -> Iterator[Path]:
    for directory, subdirs, files in os.walk(ROOT):
        subdirs[:] = sorted(d for d in subdirs if d not in SKIP_DIRS)
        for file in sorted(files):
            path = Path(directory, file)
            # this file's own examples are not citations
            if path.suffix in TEXT_SUFFIXES and path.name != "Cargo.lock" and path != Path(__file__):
                yield path


def cited_lines(path: Path) -> Iterator[Tuple[int, str]]:
    """(line number, text) of what may cite a rule: a vector's `rules` and `note`, any other file's lines."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".jsonl":  # a vector file (parity/vectors/<vocabulary>.jsonl): one vector per line
        for number, line in enumerate(text.splitlines(), 1):
            vector = json.loads(line) if line.strip() else None
            if isinstance(vector, dict) and "rules" in vector:
                yield from ((number, cited) for cited in [vector.get("note", ""), *vector["rules"]] if cited)
        return
    if path.suffix == ".json":
        vector = json.loads(text)
        if isinstance(vector, dict) and "rules" in vector:  # argv, stdin, stdout are data, not prose
            lines = text.splitlines()
            for number, line in enumerate(lines, 1):
                if line.lstrip().startswith('"note"'):
                    yield number, vector["note"]
            start = next(n for n, line in enumerate(lines, 1) if line.lstrip().startswith('"rules"'))
            for rule in vector["rules"]:
                yield start, rule
            return
    yield from enumerate(text.splitlines(), 1)


def citations(text: str) -> Iterator[str]:
    yield from CITATION.findall(text)
    for letter, first, last in RANGE.findall(text):
        yield from (f"{letter}{n}" for n in range(int(first) + 1, int(last)))


def all_citations() -> List[Citation]:
    return [
        (path.relative_to(ROOT).as_posix(), number, rule)
        for path in tree_files()
        for number, line in cited_lines(path)
        for rule in citations(line)
    ]


def test_every_rule_is_defined_in_exactly_one_file() -> None:
    twice = {rule: files for rule, files in definitions().items() if len(files) > 1}
    assert not twice, f"defined more than once (rule: files): {twice}"


def test_the_contracts_rules_are_defined_where_spec_restates_them() -> None:
    defined = definitions()
    contract = [f"C{n}" for n in range(1, 23)] + [f"E{n}" for n in range(1, 5)]
    elsewhere = {rule: defined.get(rule) for rule in contract if defined.get(rule) != [CONTRACT_FILE]}
    assert not elsewhere, f"a contract rule must be defined once, in {CONTRACT_FILE}: {elsewhere}"


def test_every_cited_rule_is_defined() -> None:
    defined = definitions()
    dangling = [f"{file}:{line}: {rule}" for file, line, rule in all_citations() if rule not in defined]
    assert not dangling, "cited but defined in neither " + " nor ".join(RULE_FILES) + ":\n" + "\n".join(dangling)


def test_a_citation_that_names_its_file_names_the_right_one() -> None:
    defined = definitions()
    wrong = []
    for path in tree_files():
        for number, line in cited_lines(path):
            for named, rules in NAMED.findall(line):
                for rule in citations(rules):
                    files = defined.get(rule, [])
                    if files and not any(f.endswith("/" + named) for f in files):
                        wrong.append(f"{path.relative_to(ROOT).as_posix()}:{number}: {named} {rule} ({files[0]})")
    assert not wrong, "cites a rule in the wrong file (the right one in parentheses):\n" + "\n".join(wrong)


def test_the_scan_finds_what_it_must() -> None:
    """The patterns themselves: a scan that matched nothing would pass every test above."""
    cited = Counter(rule for _, _, rule in all_citations())
    assert {"C12", "D19.1", "E4", "S3", "V8", "K2", "G1", "H10", "I5", "P8", "R1", "A3", "L1", "W3"} <= set(cited)
    assert list(citations("C1-C3, E1..E4, H2–H4, D27.1.")) == "C1 C3 E1 E4 H2 H4 D27.1 C2 E2 E3 H3".split()
    not_rules = "U+D800 0xC2 SC2086 noqa: E402 C0 but TAB, C1 controls E4x D8a lib64 F5..FF"
    assert list(citations(not_rules)) == []
    assert DEFINITION.findall("- **C19** Status\n  - **D19.1** Status 4\nis **E3**, at that token") == ["C19", "D19.1"]
    assert NAMED.findall("(docs/SPEC.md K3, K5) docs/IMPLEMENTATION.md D24-D26") == [
        ("SPEC.md", "K3, K5"),
        ("IMPLEMENTATION.md", "D24-D26"),
    ]
