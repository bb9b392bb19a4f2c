"""Size follows (issue 42): no hand-written module of the package over MAX_LINES lines, and no module carrying more
than MAX_STRING_DATA_LINES lines of string data (text an agent or a person reads ships as files beside the
modules, rendered by one renderer, not as Python strings)."""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path
from typing import Set

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "python" / "sage_flags"
MAX_LINES = 450
MAX_STRING_DATA_LINES = 150
# Generated modules (`make generate` writes them from spec/flags.toml; their size follows the data; the string-data
# bound holds for them too). A module is in this list only when its first line says it is generated.
GENERATED = {"_vocab.py"}
MODULES = sorted(PACKAGE.rglob("*.py"))


def docstring_lines(tree: ast.AST) -> Set[int]:
    """The lines of every module, class and function docstring (documentation, not data)."""
    lines: Set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                if isinstance(first.value.value, str):
                    lines.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return lines


def string_data_lines(source: str) -> int:
    """How many lines hold part of a string literal (f-strings included), docstrings left out."""
    kinds = {tokenize.STRING} | {
        getattr(tokenize, name)
        for name in ("FSTRING_START", "FSTRING_MIDDLE", "FSTRING_END")
        if hasattr(tokenize, name)
    }
    lines: Set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in kinds:
            lines.update(range(token.start[0], token.end[0] + 1))
    return len(lines - docstring_lines(ast.parse(source)))


def test_the_generated_modules_say_so():
    for name in GENERATED:
        assert "generated" in (PACKAGE / name).read_text(encoding="utf-8").splitlines()[0], name


def test_the_measure_counts_string_data_and_leaves_docstrings_out():
    source = '"""Doc\nstring."""\nA = """one\ntwo\nthree"""\nB = ("x"\n     "y")\n'
    source += '\n\ndef f():\n    """Doc."""\n    return f"{A}"\n'
    assert string_data_lines(source) == 6


@pytest.mark.parametrize("module", MODULES, ids=lambda path: path.relative_to(PACKAGE).as_posix())
def test_no_hand_written_module_is_over_the_bound(module: Path):
    name = module.relative_to(PACKAGE).as_posix()
    lines = len(module.read_text(encoding="utf-8").splitlines())
    assert name in GENERATED or lines <= MAX_LINES, "%s has %d lines (at most %d)" % (name, lines, MAX_LINES)


@pytest.mark.parametrize("module", MODULES, ids=lambda path: path.relative_to(PACKAGE).as_posix())
def test_no_module_carries_more_than_the_bound_of_string_data(module: Path):
    name = module.relative_to(PACKAGE).as_posix()
    data = string_data_lines(module.read_text(encoding="utf-8"))
    assert data <= MAX_STRING_DATA_LINES, "%s holds %d lines of string data" % (
        name,
        data,
    )
