"""Generate every listing of the flag vocabulary from spec/flags.toml.

    python tools/generate.py            # rewrite generated files and blocks
    python tools/generate.py --check    # exit 1 if any is out of date
    python tools/generate.py --root DIR # work on another copy of the repo

Two kinds of output:
- whole files (WHOLE_FILES below), e.g. python/sage_flags/_vocab.py;
- blocks inside hand-written files, between a line containing
  ``BEGIN GENERATED: <name>`` and one containing ``END GENERATED: <name>``
  (any comment syntax around them); every text file of the repo is scanned,
  so a new document only needs the two marker lines.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import Callable, Dict, List, Tuple

import tomllib

Modes = List[Tuple[str, str]]
HEADER = "generated from spec/flags.toml by tools/generate.py (make generate); do not edit"
SKIP_DIRS = {".git", ".venv", "target", "build", "dist", "__pycache__", ".hypothesis", ".pytest_cache", ".ruff_cache"}
TEXT_SUFFIXES = {".md", ".sh", ".py", ".rs", ".toml", ".yml", ".yaml", ""}
MARKER = re.compile(r"(BEGIN|END) GENERATED: ([a-z0-9-]+)")


def load_modes(vocab_path: Path) -> Modes:
    data = tomllib.loads(vocab_path.read_text(encoding="utf-8"))
    modes: Modes = []
    for entry in data.get("mode", []):
        key, name = entry["key"], entry["name"]
        if not re.fullmatch(r"[a-z][a-z0-9_]*", key) or key in ("goal", "error", "notes") or key.endswith("_source"):
            sys.exit(f"generate: bad mode key {key!r}")
        if not re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)*", name) or name.startswith("no-"):
            sys.exit(f"generate: bad flag name {name!r}")
        modes.append((key, name))
    if not modes:
        sys.exit("generate: spec/flags.toml lists no mode")
    if len(modes) > 26:  # parse.sh codes each mode's flags as one letter
        sys.exit("generate: at most 26 modes")
    for i, column in enumerate(("key", "name")):
        values = [m[i] for m in modes]
        if len(set(values)) != len(values):
            sys.exit(f"generate: duplicate mode {column}")
    return modes


def supported_flags(modes: Modes) -> str:
    return ", ".join("--" + name for _, name in modes)


def e1_message(modes: Modes) -> str:
    return f"Unknown flag '{{token}}'. Supported flags: {supported_flags(modes)}."


def suggestion_forms(modes: Modes) -> List[str]:
    """S1: every flag form without its leading `--`, in vocabulary order."""
    return [form for _, name in modes for form in (name, "no-" + name)]


def max_edits(form: str) -> int:
    """S4: how far a token may be from ``form`` and still be near it."""
    return len(form) // 3


def suggest_limit(modes: Modes) -> int:
    """S7: the longest token part (code points) that can be near some form."""
    return max(len(form) + max_edits(form) for form in suggestion_forms(modes))


def python_vocab(modes: Modes) -> str:
    rows = "".join(f"    ({key!r}, {name!r}),\n" for key, name in modes).replace("'", '"')
    return (
        f'"""The flag vocabulary: {HEADER}."""\n\n'
        "# (mode key, dashed flag name), in contract order.\n"
        f"MODES = (\n{rows})\n"
        f'SUPPORTED_FLAGS = "{supported_flags(modes)}"\n'
        "# docs/SPEC.md S7: a token part longer than this (code points) is near no flag form.\n"
        f"SUGGEST_LIMIT = {suggest_limit(modes)}\n"
    )


def rust_vocab(modes: Modes) -> str:
    rows = "".join(f'    ("{key}", "{name}"),\n' for key, name in modes)
    return (
        f"// The flag vocabulary: {HEADER}.\n"
        "#![cfg_attr(rustfmt, rustfmt::skip)] // generated: rustfmt's layout would differ from the generator's\n\n"
        "/// (mode key, dashed flag name), in contract order.\n"
        f"pub const MODES: [(&str, &str); {len(modes)}] = [\n{rows}];\n"
        "/// The list in the E1 message.\n"
        f'pub const SUPPORTED_FLAGS: &str = "{supported_flags(modes)}";\n'
        "/// docs/SPEC.md S7: a token part longer than this (code points) is near no flag form.\n"
        f"pub const SUGGEST_LIMIT: usize = {suggest_limit(modes)};\n"
    )


def bash_vocabulary(modes: Modes) -> str:
    keys = " ".join(key for key, _ in modes)
    names = " ".join(name for _, name in modes)
    return (
        f"# {HEADER}\n"
        f"SAGE_FLAGS_MODE_KEYS=({keys})\n"
        f"SAGE_FLAGS_MODE_NAMES=({names})\n"
        f"SAGE_FLAGS_SUPPORTED='{supported_flags(modes)}'\n"
        f"SAGE_FLAGS_SUGGEST_LIMIT={suggest_limit(modes)} # docs/SPEC.md S7\n"
    )


def flag_table(modes: Modes) -> str:
    lines = [
        f"<!-- {HEADER} -->",
        "",
        "| mode (JSON key) | turn on | turn off | config line that makes it default-on |",
        "|---|---|---|---|",
    ]
    lines += [f"| `{key}` | `--{name}` | `--no-{name}` | `{key}: true` |" for key, name in modes]
    return "\n".join(lines) + "\n"


def e1_block(modes: Modes) -> str:
    return f"  `{e1_message(modes)}`\n"


def suggestion_table(modes: Modes) -> str:
    lines = [
        f"<!-- {HEADER} -->",
        "",
        "| flag form | near a token at most this many edits away |",
        "|---|---|",
    ]
    lines += [f"| `--{form}` | {max_edits(form)} |" for form in suggestion_forms(modes)]
    lines += ["", f"A token part longer than {suggest_limit(modes)} characters is near no form."]
    return "\n".join(lines) + "\n"


WHOLE_FILES: Dict[str, Callable[[Modes], str]] = {
    "python/sage_flags/_vocab.py": python_vocab,
    "crates/sage-flags-core/src/vocab.rs": rust_vocab,
}
BLOCKS: Dict[str, Callable[[Modes], str]] = {
    "flag-table": flag_table,
    "e1-message": e1_block,
    "suggestion-table": suggestion_table,
    "bash-vocabulary": bash_vocabulary,
}


def render_blocks(text: str, modes: Modes, where: str) -> str:
    out: List[str] = []
    open_name = None
    for line in text.splitlines(keepends=True):
        match = MARKER.search(line)
        if open_name is None:
            out.append(line)
            if match and match.group(1) == "BEGIN":
                open_name = match.group(2)
                if open_name not in BLOCKS:
                    sys.exit(f"generate: {where}: unknown block {open_name!r}")
                out.append(BLOCKS[open_name](modes))
        elif match and match.group(1) == "END":
            if match.group(2) != open_name:
                sys.exit(f"generate: {where}: END {match.group(2)} closes BEGIN {open_name}")
            out.append(line)
            open_name = None
    if open_name is not None:
        sys.exit(f"generate: {where}: BEGIN GENERATED: {open_name} is never closed")
    return "".join(out)


def text_files(root: Path):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for filename in sorted(filenames):
            path = Path(dirpath, filename)
            if path.suffix in TEXT_SUFFIXES and not path.is_symlink():
                yield path


def outputs(root: Path, modes: Modes) -> Dict[Path, str]:
    """Every generated file's wanted content."""
    wanted = {root / rel: render(modes) for rel, render in WHOLE_FILES.items() if (root / rel).parent.is_dir()}
    generator = Path(__file__).resolve()
    for path in text_files(root):
        if path in wanted or path.resolve() == generator:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if "GENERATED: " in text:
            rendered = render_blocks(text, modes, str(path.relative_to(root)))
            if rendered != text:
                wanted[path] = rendered
            else:
                wanted[path] = text
    return wanted


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if any generated file is out of date")
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    args = parser.parse_args()
    root = args.root.resolve()
    modes = load_modes(root / "spec" / "flags.toml")
    stale = []
    for path, content in outputs(root, modes).items():
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == content:
            continue
        stale.append(path.relative_to(root))
        if not args.check:
            path.write_text(content, encoding="utf-8")
    verb = "out of date" if args.check else "regenerated"
    for rel in stale:
        print(f"generate: {verb}: {rel}", file=sys.stderr)
    if args.check and stale:
        print("generate: run `make generate` and commit the result", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
