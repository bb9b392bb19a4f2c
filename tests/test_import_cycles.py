"""No module imports one that imports it back (the developers' guide): the import graph of the files in
python/, parity/ and crates/ has no cycle.

Python: the import statements are grimp's (PyPI, requirements-dev.txt): ``import x``, ``from x import y`` (``y``
a module: an edge to it; else to ``x``), relative imports, at module level and inside functions; ``if
TYPE_CHECKING:`` blocks never run and are left out. Importing ``a.b`` runs ``a``'s ``__init__`` first, which every
submodule does: that implicit edge is not counted (an ``__init__`` that imports its submodules would otherwise
always be a cycle); an explicit ``import a``/``from a import name`` is. What no import reader sees is read here
(``ast``): ``importlib.import_module("x")``/``__import__("x")`` with a literal, and a string that is exactly a
module's name or ``module:function`` (the dispatcher's table names its subcommands so).

Rust: ``mod m;`` says which file a module is (it is a declaration, not a use); ``use crate::``, ``super::``,
``self::`` and such paths in code are edges to the file of the deepest module they name, through the crate
root's ``pub use`` re-exports (the crate's public surface, not a use of the root's code); in a crate root, a
path through a child module (``suggest::suggestion``) is an edge to it. ``#[cfg(test)]`` modules are skipped.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Set, Tuple

ROOT = Path(__file__).resolve().parent.parent
Graph = Dict[str, Set[str]]


def find_cycle(graph: Graph) -> Optional[List[str]]:
    """One cycle of ``graph`` as its nodes (first == last), or None."""
    state: Dict[str, int] = {}  # 1: on the current path, 2: done
    path: List[str] = []

    def visit(node: str) -> Optional[List[str]]:
        state[node] = 1
        path.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return [*path[path.index(target) :], target]
            if target not in state:
                found = visit(target)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


# ---------------------------------------------------------------- Python


def python_modules(top: Path, packages: Iterable[str]) -> Dict[str, Path]:
    """Module name -> file, for the packages directly under ``top``."""
    modules = {}
    for package in packages:
        for path in sorted((top / package).rglob("*.py")):
            parts = list(path.relative_to(top).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


# grimp reads the packages found under sys.path[0] = the top given: in a child, so that neither this process's
# imports nor the venv's editable install stand in for them.
GRIMP = """
import json, sys
import grimp
graph = grimp.build_graph(*sys.argv[2:], exclude_type_checking_imports=True, cache_dir=None)
print(json.dumps({m: sorted(graph.find_modules_directly_imported_by(m)) for m in graph.modules}))
"""


def grimp_imports(top: Path, packages: Iterable[str]) -> Graph:
    """grimp's import graph (https://github.com/python-grimp/grimp) of ``packages`` under ``top``: every import
    statement, in functions too, ``if TYPE_CHECKING:`` blocks left out, self-imports dropped."""
    done = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, sys.argv[1]); exec({GRIMP!r})", str(top),
         *packages],
        capture_output=True,
        text=True,
        timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return {module: set(found) - {module} for module, found in json.loads(done.stdout).items()}


def named_modules(name: str, path: Path, modules: Dict[str, Path]) -> Set[str]:
    """What no import statement shows: a string that is exactly a module's name, or ``module:function`` (the
    dispatcher's table names its subcommands so; ``importlib.import_module("x")`` and ``__import__("x")`` too)."""
    found: Set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            target = node.value.partition(":")[0]
            if re.fullmatch(r"[A-Za-z_][\w.]*(:\w+)?", node.value) and target in modules and target != name:
                found.add(target)
    return found


def python_graph(top: Path, packages: Iterable[str]) -> Graph:
    packages = list(packages)
    modules = python_modules(top, packages)
    graph = grimp_imports(top, packages)
    return {name: graph.get(name, set()) | named_modules(name, path, modules) for name, path in modules.items()}


# ---------------------------------------------------------------- Rust

_RUST_NOISE = re.compile(
    r'//[^\n]*|/\*.*?\*/|b?r(#*)".*?"\1|b?"(?:\\.|[^"\\])*"|b?\'(?:\\.|[^\\\'\n])\'',
    re.S,
)


def _strip_tests(code: str) -> str:
    """The code without ``#[cfg(test)]`` modules (brace-matched)."""
    while True:
        match = re.search(r"#\[cfg\(test\)\]\s*(pub\s+)?mod\s+\w+\s*\{", code)
        if not match:
            return code
        depth, at = 1, match.end()
        while depth and at < len(code):
            depth += {"{": 1, "}": -1}.get(code[at], 0)
            at += 1
        code = code[: match.start()] + code[at:]


def _use_paths(tree: str) -> List[List[str]]:
    """``a::{b, c::d}`` -> [[a, b], [a, c, d]]."""
    tree = re.sub(r"\s+", "", tree)
    brace = tree.find("{")
    if brace < 0:
        return [[part for part in re.sub(r"as\w+$", "", tree).split("::") if part]]
    head = [part for part in tree[:brace].split("::") if part]
    inner, depth, start, items = tree[brace + 1 : tree.rindex("}")], 0, 0, []
    for at, char in enumerate(inner + ","):
        depth += {"{": 1, "}": -1}.get(char, 0)
        if char == "," and depth == 0:
            if inner[start:at]:
                items.append(inner[start:at])
            start = at + 1
    return [head + rest for item in items for rest in _use_paths(item)]


def rust_graph(crate: Path) -> Graph:
    """File (relative to ROOT) -> the files it uses, for one crate's src/."""
    src = crate / "src"
    files: Dict[Tuple[str, ...], Path] = {}  # module path -> file
    code: Dict[Path, str] = {}
    roots = [src / name for name in ("lib.rs", "main.rs") if (src / name).is_file()]

    def load(module: Tuple[str, ...], path: Path) -> None:
        files[module] = path
        text = _strip_tests(_RUST_NOISE.sub(" ", path.read_text(encoding="utf-8")))
        code[path] = text
        here = path.parent if path.name in ("lib.rs", "main.rs", "mod.rs") else path.with_suffix("")
        for child in re.findall(r"(?:pub(?:\([\w:]+\))?\s+)?mod\s+(\w+)\s*;", text):
            for candidate in (here / f"{child}.rs", here / child / "mod.rs"):
                if candidate.is_file():
                    load((*module, child), candidate)

    graph: Graph = {}
    for root in roots:
        files.clear()
        load((), root)
        reexports: Dict[str, Tuple[str, ...]] = {}
        for tree in re.findall(r"pub\s+use\s+([^;]+);", code[root]):
            for path in _use_paths(tree):
                reexports[path[-1]] = tuple(part for part in path[:-1] if part not in ("crate", "self"))
        for module, path in files.items():
            uses: Set[Path] = set()
            text = code[path]
            if path == root:
                text = re.sub(r"pub\s+use\s+[^;]+;", " ", text)
            paths = [p for tree in re.findall(r"\buse\s+([^;]+);", text) for p in _use_paths(tree)]
            text = re.sub(r"\buse\s+[^;]+;", " ", text)
            paths += [m.group(0).split("::") for m in re.finditer(r"\b(?:crate|super|self)(?:::\w+)+", text)]
            if path == root:
                children = "|".join(name for (name,) in (key for key in files if len(key) == 1))
                if children:
                    paths += [[m.group(1)] for m in re.finditer(rf"\b({children})::", text)]
            for segments in paths:
                if segments[0] == "crate":
                    at, rest = (), segments[1:]
                elif segments[0] == "super":
                    at, rest = module[:-1], segments[1:]
                elif segments[0] == "self":
                    at, rest = module, segments[1:]
                elif path == root and (segments[0],) in files:
                    at, rest = (), segments
                else:
                    continue  # std, another crate
                for segment in rest:
                    if (*at, segment) not in files:
                        if at == () and segment in reexports and reexports[segment] in files:
                            at = reexports[segment]
                        break
                    at = (*at, segment)
                if files[at] != path:
                    uses.add(files[at])
            graph[str(path.relative_to(ROOT))] = {str(used.relative_to(ROOT)) for used in uses}
    return graph


# ---------------------------------------------------------------- the tests


def project_graphs(root: Path) -> Dict[str, Graph]:
    graphs = {"python": python_graph(root / "python", ["sage_flags"]), "parity": python_graph(root, ["parity"])}
    for crate in sorted((root / "crates").iterdir()):
        if (crate / "src").is_dir():
            graphs[crate.name] = rust_graph(crate)
    return graphs


def test_the_project_has_no_import_cycle() -> None:
    graphs = project_graphs(ROOT)
    assert set(graphs) >= {"python", "parity", "sage-flags-core", "sage-flags-cli", "sage-flags-py"}
    assert "sage_flags._io" in graphs["python"]["sage_flags.cli"]  # the reader sees what is there
    assert "crates/sage-flags-cli/src/hook.rs" in graphs["sage-flags-cli"]["crates/sage-flags-cli/src/lib.rs"]
    cycles = {name: find_cycle(graph) for name, graph in graphs.items()}
    assert cycles == {name: None for name in graphs}, cycles


def test_the_leaf_modules_import_nothing_of_their_own() -> None:
    """The plumbing every subcommand takes: Python's _io and the core's io.rs import nothing of the project."""
    assert python_graph(ROOT / "python", ["sage_flags"])["sage_flags._io"] == set()
    assert rust_graph(ROOT / "crates" / "sage-flags-core")["crates/sage-flags-core/src/io.rs"] == set()


def write(root: Path, files: Dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


def test_each_kind_of_import_closes_a_cycle(tmp_path: Path) -> None:
    """The reader finds a cycle through every form it reads (a reader that saw none would pass anything)."""
    forms = {
        "import": "import pkg.b\n",
        "from": "from pkg.b import thing\n",
        "from-package": "from pkg import b\n",
        "relative": "from . import b\n",
        "in-function": "def f():\n    from .b import thing\n",
        "importlib": "import importlib\nimportlib.import_module('pkg.b')\n",
        "table": "COMMANDS = {'x': 'pkg.b:run'}\n",
    }
    for form, text in forms.items():
        top = tmp_path / form
        write(top, {"pkg/__init__.py": "", "pkg/a.py": text, "pkg/b.py": "from pkg.a import x\n"})
        assert find_cycle(python_graph(top, ["pkg"])) == ["pkg.a", "pkg.b", "pkg.a"], form
    top = tmp_path / "type-checking"
    guarded = "if TYPE_CHECKING:\n    import pkg.b\n"
    write(top, {"pkg/__init__.py": "", "pkg/a.py": guarded, "pkg/b.py": "import pkg.a\n"})
    assert find_cycle(python_graph(top, ["pkg"])) is None
    top = tmp_path / "package"  # the package's __init__ imports a module that imports the package back
    write(top, {"pkg/__init__.py": "from pkg.a import x\n", "pkg/a.py": "from pkg import y\n"})
    assert find_cycle(python_graph(top, ["pkg"])) == ["pkg", "pkg.a", "pkg"]


def test_rust_uses_close_a_cycle(tmp_path: Path) -> None:
    lib = "mod a;\nmod b;\npub use b::Thing;\npub struct Root;\n"
    cases = {
        "use": ("use crate::b::Thing;\n", "use crate::a::f;\n"),
        "grouped": ("use crate::{b::Thing, Root};\n", "use super::a;\n"),
        "reexport": ("use crate::Thing;\n", "pub fn g() { crate::a::f() }\n"),
    }
    for name, (a, b) in cases.items():
        crate = tmp_path / name
        write(crate, {"src/lib.rs": lib, "src/a.rs": a, "src/b.rs": b})
        cycle = find_cycle(rust_graph_at(crate, tmp_path))
        assert cycle and {Path(p).name for p in cycle} == {"a.rs", "b.rs"}, (name, cycle)
    crate = tmp_path / "tests-only"
    write(crate, {"src/lib.rs": lib, "src/a.rs": "", "src/b.rs": "#[cfg(test)]\nmod tests {\n use crate::a;\n}\n"})
    assert find_cycle(rust_graph_at(crate, tmp_path)) is None


def rust_graph_at(crate: Path, root: Path) -> Graph:
    global ROOT
    saved, ROOT = ROOT, root
    try:
        return rust_graph(crate)
    finally:
        ROOT = saved


def test_the_tree_before_the_fix_had_cycles(tmp_path: Path) -> None:
    """At be03ca9 (before issue 34) the reader finds the circles the issue names, where that commit is here."""
    import subprocess

    old = "be03ca9"
    if subprocess.run(["git", "cat-file", "-e", old], cwd=ROOT, capture_output=True).returncode != 0:
        import pytest

        pytest.skip(f"commit {old} is not in this clone")
    archive = subprocess.run(["git", "archive", old, "python", "parity", "crates"], cwd=ROOT, capture_output=True)
    subprocess.run(["tar", "-x", "-C", str(tmp_path)], input=archive.stdout, check=True)
    graphs = {
        "python": python_graph(tmp_path / "python", ["sage_flags"]),
        "parity": python_graph(tmp_path, ["parity"]),
        "core": rust_graph_at(tmp_path / "crates" / "sage-flags-core", tmp_path),
    }
    assert {name: bool(find_cycle(graph)) for name, graph in graphs.items()} == dict.fromkeys(graphs, True)
