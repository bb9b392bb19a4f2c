"""Generate every listing of the flag vocabulary from spec/flags.toml.

    python tools/generate.py            # rewrite generated files and blocks
    python tools/generate.py --check    # exit 1 if any is out of date
    python tools/generate.py --root DIR # work on another copy of the repo

Three kinds of output:
- whole files (WHOLE_FILES below), e.g. python/sage_flags/_vocab.py;
- the flag-parser skill's data (docs/SPEC.md G8): python/sage_flags/skill/vocabularies.json (every vocabulary's
  data, with what each of the templates' example commands prints in it, run through this checkout's reference:
  tools/skill_outputs.py); the skill itself is rendered only by the package (python/sage_flags/_render.py), when
  `sage-flags adopt` writes it;
- blocks inside hand-written files, between a line containing
  ``BEGIN GENERATED: <name>`` and one containing ``END GENERATED: <name>``
  (any comment syntax around them); every text file of the repo is scanned,
  so a new document only needs the two marker lines.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import importlib.util
import json
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, NoReturn, Optional, Tuple

import skill_outputs
import tomllib


def _load_package_module(name: str):
    """python/sage_flags/NAME.py by path: the package's __init__ imports _vocab.py, which this writes."""
    path = Path(__file__).resolve().parent.parent / "python" / "sage_flags" / (name + ".py")
    spec = importlib.util.spec_from_file_location("sage_flags_" + name.lstrip("_"), path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# The hooks' commands, in one place shared with the package (docs/SPEC.md K9).
HOOK_COMMANDS = _load_package_module("hook_commands")
codex_hook_command = HOOK_COMMANDS.codex_hook_command
# The skill's renderer, and the vocabulary's listings it shares with these files (docs/SPEC.md G8).
skill_render = _load_package_module("_render")
flag_label, supported_flags = skill_render.flag_label, skill_render.supported_flags
e1_message, e2_value_hint = skill_render.e1_message, skill_render.e2_value_hint
e2_message, suggest_limit = skill_render.e2_message, skill_render.suggest_limit

Modes = List[Tuple[str, str]]
HEADER = "generated from spec/flags.toml by tools/generate.py (make generate); do not edit"
SKIP_DIRS = {".git", ".venv", "target", "build", "dist", "__pycache__", ".hypothesis", ".pytest_cache", ".ruff_cache"}
TEXT_SUFFIXES = {".md", ".sh", ".py", ".rs", ".toml", ".yml", ".yaml", ""}
MARKER = re.compile(r"(BEGIN|END) GENERATED: ([a-z0-9-]+)")
KEY = r"[a-z][a-z0-9_]*"
RESERVED_KEYS = ("goal", "error", "notes")
ABOVE_CAP = ("clamp-with-note",)  # what may happen above a value's cap (docs/SPEC.md V5)
# docs/SPEC.md K5: the words that start every hook context; SKILL.md quotes them.
HOOK_LABEL = "sage-flags hook result"


@dataclass(frozen=True)
class Value:
    """A mode's value (docs/SPEC.md V1): `--<name>=N`."""

    mode: int  # index of its mode in the vocabulary
    name: str  # the words in E5: "lane count"
    metavar: str  # N, as in --parallel=N
    field: str  # JSON key of the number
    note_field: str  # JSON key of the note
    default: int
    minimum: int
    cap: int


@dataclass(frozen=True)
class Vocabulary:
    name: str  # docs/SPEC.md B1: how a call names it (sage-1.1, sage-1.3, sage-1.3.18)
    modes: Modes  # (key, dashed name), in vocabulary order
    values: Tuple[Value, ...] = ()
    workflows: Tuple[str, ...] = ()  # the workflow names `sage-flags hook` answers (docs/SPEC.md K3)

    def value_of(self, index: int) -> Optional[Value]:
        return next((value for value in self.values if value.mode == index), None)


def _fail(source: str, message: str) -> NoReturn:
    sys.exit(f"generate: {source}: {message}")


def _value(entry: dict, index: int, source: str) -> Value:
    known = {"name", "metavar", "field", "note_field", "default", "minimum", "cap", "above_cap"}
    if set(entry) != known:
        _fail(source, f"a mode's value needs exactly {sorted(known)} (got {sorted(entry)})")
    numbers = [entry[k] for k in ("default", "minimum", "cap")]
    if not all(type(n) is int for n in numbers):
        _fail(source, "default, minimum and cap are integers")
    default, minimum, cap = numbers
    if minimum < 1:  # docs/SPEC.md V1: --name=N turns the mode on, so N = 0 is never a value
        _fail(source, "a value's minimum is at least 1")
    if not minimum <= default <= cap <= 999_999_999:
        _fail(source, "a value needs minimum <= default <= cap <= 999999999")
    if entry["above_cap"] not in ABOVE_CAP:
        _fail(source, f"above_cap must be one of {ABOVE_CAP}")
    if not re.fullmatch(r"[a-z]+( [a-z]+)*", entry["name"]) or not re.fullmatch(r"[A-Z]+", entry["metavar"]):
        _fail(source, "a value's name is lowercase words, its metavar uppercase letters")
    for field in ("field", "note_field"):
        if not re.fullmatch(KEY, entry[field]) or entry[field] in RESERVED_KEYS or entry[field].endswith("_source"):
            _fail(source, f"bad {field} {entry[field]!r}")
    return Value(index, entry["name"], entry["metavar"], entry["field"], entry["note_field"], default, minimum, cap)


def load_vocabulary(vocab_path: Path) -> Vocabulary:
    source = vocab_path.name
    data = tomllib.loads(vocab_path.read_text(encoding="utf-8"))
    modes: Modes = []
    values: List[Value] = []
    for index, entry in enumerate(data.get("mode", [])):
        key, name = entry["key"], entry["name"]
        if not re.fullmatch(KEY, key) or key in RESERVED_KEYS or key.endswith("_source"):
            _fail(source, f"bad mode key {key!r}")
        if not re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)*", name) or name.startswith("no-"):
            _fail(source, f"bad flag name {name!r}")
        if set(entry) - {"key", "name", "value"}:
            _fail(source, f"unknown setting of mode {key!r}: {sorted(set(entry) - {'key', 'name', 'value'})}")
        modes.append((key, name))
        if "value" in entry:
            values.append(_value(entry["value"], index, source))
    if not modes:
        _fail(source, "lists no mode")
    for i, column in enumerate(("key", "name")):
        column_values = [m[i] for m in modes]
        if len(set(column_values)) != len(column_values):
            _fail(source, f"duplicate mode {column}")
    keys = [key for key, _ in modes] + [key + "_source" for key, _ in modes]
    keys += [field for value in values for field in (value.field, value.note_field)]
    if len(set(keys)) != len(keys):
        _fail(source, "a value's field or note_field repeats another JSON key")
    name = data.get("name", "own-" + vocab_path.stem)  # a vocabulary of one's own needs no name
    if not isinstance(name, str) or not re.fullmatch(VOCABULARY_NAME, name):
        _fail(source, f"bad vocabulary name {name!r}")
    return Vocabulary(name, modes, tuple(values), _workflows(data, source))


# docs/SPEC.md B1: a vocabulary's name (it reaches a shell's `case` and an error line unquoted).
VOCABULARY_NAME = r"[a-z][a-z0-9]*(-[a-z0-9]+|\.[0-9]+)*"
NOT_VOCABULARIES = ("releases.toml",)  # spec/ files that are not a vocabulary


def load_vocabularies(root: Path) -> List[Vocabulary]:
    """Every vocabulary a build carries: spec/flags.toml's first (the default), then the others by name."""
    default = load_vocabulary(root / "spec" / "flags.toml")
    others = [
        load_vocabulary(path)
        for path in sorted((root / "spec").glob("*.toml"))
        if path.name != "flags.toml" and path.name not in NOT_VOCABULARIES
    ]
    vocabularies = [default, *sorted(others, key=lambda vocab: _version_key(vocab.name))]
    names = [vocab.name for vocab in vocabularies]
    if len(set(names)) != len(names):
        _fail("spec/", f"two vocabularies share a name: {names}")
    return vocabularies


def _version_key(name: str) -> Tuple:
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"[-.]", name))


def _release(text: str, source: str) -> Tuple[int, ...]:
    if not isinstance(text, str) or not re.fullmatch(r"[0-9]+(\.[0-9]+){1,2}", text):
        _fail(source, f"bad release {text!r}")
    return tuple(int(part) for part in text.split("."))


def load_releases(root: Path, names: List[str]) -> List[Tuple[Tuple[int, ...], str, str]]:
    """spec/releases.toml: (first release, through (text, may be empty), vocabulary), ascending; [] without it."""
    path = root / "spec" / "releases.toml"
    if not path.exists():
        return []
    rows = []
    for entry in tomllib.loads(path.read_text(encoding="utf-8")).get("release", []):
        if set(entry) - {"from", "through", "vocabulary"} or entry.get("vocabulary") not in names:
            _fail(path.name, f"bad row {entry!r} (vocabularies: {names})")
        rows.append((_release(entry["from"], path.name), entry.get("through", ""), entry["vocabulary"]))
    if [row[0] for row in rows] != sorted({row[0] for row in rows}):
        _fail(path.name, "rows must ascend by `from`")
    return rows


def _workflows(data: dict, source: str) -> Tuple[str, ...]:
    """The top-level `workflows` list: names as A1 allows them, at least one, no repeat."""
    names = data.get("workflows")
    if not isinstance(names, list) or not names or not all(isinstance(name, str) for name in names):
        _fail(source, "needs a top-level `workflows` list of workflow names (docs/SPEC.md K3)")
    for name in names:
        if not re.fullmatch(r"[a-z][a-z0-9-]*", name):  # A1's workflow name
            _fail(source, f"bad workflow name {name!r}")
    if len(set(names)) != len(names):
        _fail(source, "duplicate workflow name")
    return tuple(names)


# The Python twin of the Rust core's ValueMode (crates/sage-flags-core/src/lib.rs): a row read by name, whose
# class costs one type at import and whose instances are as small as tuples.
@dataclass(frozen=True)
class Build:
    """What one build carries: its vocabularies (the default first) and Sage's release table."""

    vocabularies: Tuple[Vocabulary, ...]
    releases: Tuple[Tuple[Tuple[int, ...], str, str], ...] = ()

    @property
    def default(self) -> Vocabulary:
        return self.vocabularies[0]

    def with_default(self, name: str) -> "Build":
        """The same build with ``name`` as its default (a bundle's own vocabulary)."""
        chosen = [vocab for vocab in self.vocabularies if vocab.name == name]
        if not chosen:
            _fail("spec/", f"no vocabulary {name!r}")
        rest = tuple(vocab for vocab in self.vocabularies if vocab.name != name)
        return Build((chosen[0], *rest), self.releases)


def known_names(build: Build) -> str:
    return ", ".join(vocab.name for vocab in build.vocabularies)


def unknown_vocabulary(build: Build) -> str:
    """docs/SPEC.md B3: the one stderr line of every layer for a name it does not carry."""
    return f"sage-flags: unknown vocabulary (known: {known_names(build)})"


def _python_table(vocab: Vocabulary) -> str:
    """One vocabulary's row of TABLES, as ruff formats it: keyword names of sage_flags._vocabulary.Vocabulary."""
    modes = "".join(f"            ({json.dumps(key)}, {json.dumps(name)}),\n" for key, name in vocab.modes)
    values = "".join(
        f"            ({v.mode}, {json.dumps(v.field)}, {json.dumps(v.note_field)}, {json.dumps(v.name)}, "
        f"{json.dumps(v.metavar)}, {v.default}, {v.minimum}, {v.cap}),\n"
        for v in vocab.values
    )
    workflows = ", ".join(map(json.dumps, vocab.workflows)) + ("," if len(vocab.workflows) == 1 else "")
    return (
        f"    {json.dumps(vocab.name)}: {{\n"
        f'        "modes": {_python_rows(modes)},\n'
        f'        "value_modes": {_python_rows(values)},\n'
        f'        "supported_flags": "{supported_flags(vocab)}",\n'
        f'        "e2_value_hint": "{e2_value_hint(vocab)}",\n'
        f'        "suggest_limit": {suggest_limit(vocab)},\n'
        f'        "workflows": ({workflows}),\n'
        "    },\n"
    )


def _python_rows(rows: str) -> str:
    """A tuple of rows as ruff formats it: one row on the tuple's line (its comma is syntax), more one a line."""
    if rows.count("\n") == 1:
        return "(" + rows.strip() + ")"
    return "(\n" + rows + "        )" if rows else "()"


def python_vocab(build: Build) -> str:
    """_vocab.py: every vocabulary's table, data only (sage_flags._vocabulary makes a table a Vocabulary)."""
    releases = "".join(
        f"    ({row[0]!r}, {_release(row[1], 'releases.toml') if row[1] else None!r}, {json.dumps(row[2])}),\n"
        for row in build.releases
    )
    return (
        f'"""The flag vocabularies: {HEADER}.\n\n'
        "Data only (docs/SPEC.md B1-B5): sage_flags._vocabulary makes a name's table a Vocabulary, the value every\n"
        "layer passes along; nothing here reads the environment.\n"
        '"""\n\n'
        f'DEFAULT = "{build.default.name}"\n'
        "# Every vocabulary this build carries (`sage-flags --version` lists them).\n"
        f"NAMES = ({', '.join(json.dumps(v.name) for v in build.vocabularies)}{',' * (len(build.vocabularies) == 1)})\n"
        f'UNKNOWN_VOCABULARY = "{unknown_vocabulary(build)}"\n'
        "# Each vocabulary's table. modes: (mode key, dashed flag name), in contract order. value_modes: the modes\n"
        "# that take a value (V1-V8), each (mode index, number field, note field, E5's words, metavar, default,\n"
        "# minimum, cap). supported_flags: E1's list. e2_value_hint: E2's last sentence (empty when no mode takes a\n"
        "# value). suggest_limit: S7, a token part longer than this (code points) is near no flag form. workflows:\n"
        "# K3, the workflows `sage-flags hook` answers.\n"
        f"TABLES = {{\n{''.join(_python_table(vocab) for vocab in build.vocabularies)}}}\n"
        "# docs/SPEC.md K5: the words every hook context starts with.\n"
        f'HOOK_LABEL = "{HOOK_LABEL}"\n'
        "# docs/SPEC.md B5: Sage's releases (first, last or None, vocabulary), ascending (spec/releases.toml).\n"
        f"RELEASES = ({chr(10) + releases if releases else ''})\n"
    )


def _rust_vocabulary(vocab: Vocabulary) -> str:
    rows = "".join(f'("{key}", "{name}"), ' for key, name in vocab.modes)
    value_rows = "".join(
        f'\n        ValueMode {{ mode: {v.mode}, field: "{v.field}", note_field: "{v.note_field}", name: "{v.name}", '
        f'metavar: "{v.metavar}", default: {v.default}, minimum: {v.minimum}, cap: {v.cap} }},'
        for v in vocab.values
    )
    return (
        "    Vocabulary {\n"
        f'        name: "{vocab.name}",\n'
        f"        modes: &[{rows.rstrip(', ')}],\n"
        f"        value_modes: &[{value_rows + chr(10) + '    ' if value_rows else ''}],\n"
        f'        supported_flags: "{supported_flags(vocab)}",\n'
        f'        e2_value_hint: "{e2_value_hint(vocab)}",\n'
        f"        suggest_limit: {suggest_limit(vocab)},\n"
        f"        workflows: &[{', '.join(map(json.dumps, vocab.workflows))}],\n"
        "    },\n"
    )


def rust_vocab(build: Build) -> str:
    count = len(build.vocabularies)
    return (
        f"// The flag vocabularies: {HEADER}.\n"
        "#![cfg_attr(rustfmt, rustfmt::skip)] // generated: rustfmt's layout would differ from the generator's\n\n"
        "use crate::{ValueMode, Vocabulary};\n\n"
        "/// Every vocabulary this build carries, the default (docs/SPEC.md B1) first.\n"
        f"pub static VOCABULARIES: [Vocabulary; {count}] = [\n"
        + "".join(_rust_vocabulary(vocab) for vocab in build.vocabularies)
        + "];\n"
        "/// The most modes, and modes that take a value, of any of them (the size of a result's arrays).\n"
        f"pub const MAX_MODES: usize = {max(len(v.modes) for v in build.vocabularies)};\n"
        f"pub const MAX_VALUES: usize = {max(len(v.values) for v in build.vocabularies)};\n"
        "/// docs/SPEC.md B3: the one stderr line for a vocabulary name this build does not carry.\n"
        f'pub const UNKNOWN_VOCABULARY: &str = "{unknown_vocabulary(build)}";\n'
        "/// docs/SPEC.md K5: the words every hook context starts with.\n"
        f'pub const HOOK_LABEL: &str = "{HOOK_LABEL}";\n'
    )


def _bash_sparse(vocab: Vocabulary, column: Callable[[Value], object]) -> str:
    """A bash array with one element per mode that takes a value, at its mode's index."""
    return "(" + " ".join(f"[{v.mode}]='{column(v)}'" for v in vocab.values) + ")"


def _bash_constants(vocab: Vocabulary, indent: str) -> str:
    keys = " ".join(key for key, _ in vocab.modes)
    names = " ".join(name for _, name in vocab.modes)
    lines = [
        f"SAGE_FLAGS_MODE_KEYS=({keys})",
        f"SAGE_FLAGS_MODE_NAMES=({names})",
        f"SAGE_FLAGS_SUPPORTED='{supported_flags(vocab)}'",
        f"SAGE_FLAGS_SUGGEST_LIMIT={suggest_limit(vocab)} # docs/SPEC.md S7",
        "# Modes that take a value (docs/SPEC.md V1-V8): one element each, at the mode's index.",
        f"SAGE_FLAGS_VALUE_FIELDS={_bash_sparse(vocab, lambda v: v.field)}",
        f"SAGE_FLAGS_NOTE_FIELDS={_bash_sparse(vocab, lambda v: v.note_field)}",
        f"SAGE_FLAGS_VALUE_NAMES={_bash_sparse(vocab, lambda v: v.name)}",
        f"SAGE_FLAGS_VALUE_DEFAULTS={_bash_sparse(vocab, lambda v: v.default)}",
        f"SAGE_FLAGS_VALUE_MINIMUMS={_bash_sparse(vocab, lambda v: v.minimum)}",
        f"SAGE_FLAGS_VALUE_CAPS={_bash_sparse(vocab, lambda v: v.cap)}",
        f"SAGE_FLAGS_E2_VALUE_HINT='{e2_value_hint(vocab)}'",
    ]
    return "".join(f"{indent}{line}\n" for line in lines)


def bash_vocabulary(build: Build) -> str:
    """One branch per vocabulary, chosen by SAGE_FLAGS_VOCABULARY (docs/SPEC.md B2): only the chosen one runs."""
    out = f"# {HEADER}\n# docs/SPEC.md B1-B3: SAGE_FLAGS_VOCABULARY names the vocabulary; unset or empty, the default\n"
    out += "case ${SAGE_FLAGS_VOCABULARY-} in\n"
    for index, vocab in enumerate(build.vocabularies):
        out += ("'' | " if index == 0 else "") + f"{vocab.name})\n" + _bash_constants(vocab, "    ") + "    ;;\n"
    out += "*)\n"
    out += f"    printf '%s\\n' '{unknown_vocabulary(build)}' >&2\n"
    out += "    exit 2 # a usage error, also when sourced: no layer answers with another vocabulary's rules\n"
    out += "    ;;\nesac\n"
    return out


def _with_header(listing: Callable[[Vocabulary], str]) -> Callable[[Vocabulary], str]:
    """A table of the renderer's, as a block of a document here: under the line that says it is generated."""
    return lambda vocab: f"<!-- {HEADER} -->\n\n" + listing(vocab)


def codex_hook_block(_vocab: Vocabulary) -> str:
    """The shipped Codex command as docs/SPEC.md K9 quotes it: an indented code block inside a list item."""
    return "        " + codex_hook_command(_vocab.name) + "\n"


def release_table(build: Build) -> str:
    """docs/SPEC.md B5: Sage release -> vocabulary (spec/releases.toml)."""
    header = HEADER.replace("spec/flags.toml", "spec/releases.toml")
    lines = [f"<!-- {header} -->", "", "| Sage release | vocabulary |", "|---|---|"]
    for index, (first, through, name) in enumerate(build.releases):
        first_text = ".".join(map(str, first))
        if through:
            span = f"{first_text} to {through}.x" if through.count(".") == 1 else f"{first_text} to {through}"
        elif index == len(build.releases) - 1:
            span = f"{first_text} and every later release"  # (a row with no `through`)
        else:
            span = first_text
        lines.append(f"| {span} | `{name}` |")
    if build.releases:
        first_text = ".".join(map(str, build.releases[0][0]))
        lines += ["", f"A release outside these rows (below {first_text}, or newer than the last) takes none:"]
        lines += ["`vocabulary_for_release` returns None, and `sage-flags adopt` tries every vocabulary on the"]
        lines += ["project's own parser and adopts the one that agrees (N2)."]
    return "\n".join(lines) + "\n"


def hook_matcher(vocab: Vocabulary) -> str:
    """Claude Code's matcher on `command_name`: a workflow, or the Sage plugin's `sage:<workflow>` (K3)."""
    return "^(sage:)?(" + "|".join(vocab.workflows) + ")$"


def _hooks_file(
    event: str, handler: Callable[[Vocabulary], dict], matcher: Optional[str] = None
) -> Callable[[Vocabulary], str]:
    """A harness's hooks file with one entry: `handler` for `event` (docs/SPEC.md K9)."""

    def render(vocab: Vocabulary) -> str:
        group = {"matcher": hook_matcher(vocab)} if matcher == "workflows" else {}
        group["hooks"] = [{"type": "command", **handler(vocab), "timeout": 10}]
        return json.dumps({"hooks": {event: [group]}}, indent=2) + "\n"

    return render


def _claude_code_hook(launcher: str, vocabulary: str) -> dict:
    """Exec form (no shell between the harness and the launcher; docs/SPEC.md K9): hook_commands' forms, the
    vocabulary named (a recipe registers the hook by hand: the launcher reads no record of one, B6)."""
    return {"command": launcher, "args": ["--vocabulary", vocabulary, *HOOK_COMMANDS.CLAUDE_CODE_ARGS]}


PROJECT_LAUNCHER, PLUGIN_LAUNCHER = HOOK_COMMANDS.CLAUDE_CODE_LAUNCHERS
# The manual recipes' hook files (alternatives to adopt, SPEC.md K9): examples in the docs, for
# the default vocabulary, never in the bundle (adopt writes what is vocabulary-specific, B7).
HOOK_DIR = "docs/recipes/hooks"


def _of_default(render: Callable[[Vocabulary], str]) -> Callable[[Build], str]:
    """A listing of one vocabulary: the build's default (a bundle's own, tools/build_bundle.py)."""
    return lambda build: render(build.default)


WHOLE_FILES: Dict[str, Callable[[Build], str]] = {
    "python/sage_flags/_vocab.py": python_vocab,
    "crates/sage-flags-core/src/vocab.rs": rust_vocab,
    # The files a user installs (docs/SPEC.md K9): one event per Claude Code file, never both.
    f"{HOOK_DIR}/claude-code/hooks.json": _of_default(
        _hooks_file("UserPromptExpansion", lambda vocab: _claude_code_hook(PLUGIN_LAUNCHER, vocab.name), "workflows")
    ),
    f"{HOOK_DIR}/claude-code/settings.json": _of_default(
        _hooks_file("UserPromptExpansion", lambda vocab: _claude_code_hook(PROJECT_LAUNCHER, vocab.name), "workflows")
    ),
    f"{HOOK_DIR}/claude-code/settings-submit.json": _of_default(
        _hooks_file("UserPromptSubmit", lambda vocab: _claude_code_hook(PROJECT_LAUNCHER, vocab.name))
    ),
    f"{HOOK_DIR}/codex/hooks.json": _of_default(
        _hooks_file("UserPromptSubmit", lambda vocab: {"command": codex_hook_command(vocab.name)})
    ),
}
BLOCKS: Dict[str, Callable[[Build], str]] = {
    "flag-table": _of_default(_with_header(skill_render.flag_table)),
    "e1-message": _of_default(skill_render.e1_block),
    "e2-message": _of_default(skill_render.e2_block),
    "value-modes": _of_default(_with_header(skill_render.value_modes)),
    "suggestion-table": _of_default(_with_header(skill_render.suggestion_table)),
    "bash-vocabulary": bash_vocabulary,
    "codex-hook-command": _of_default(codex_hook_block),
    "release-table": release_table,
}


def render_blocks(text: str, build: Build, where: str) -> str:
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
                out.append(BLOCKS[open_name](build))
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


def load_build(root: Path) -> Build:
    vocabularies = load_vocabularies(root)
    return Build(tuple(vocabularies), tuple(load_releases(root, [vocab.name for vocab in vocabularies])))


SKILL_SOURCE = "python/sage_flags/skill"  # its templates and vocabularies.json, package data (G8)


_SKILL_DATA: Dict[Tuple[Path, Tuple[str, ...]], str] = {}  # one run per process


def skill_data(root: Path, build: Build) -> str:
    """python/sage_flags/skill/vocabularies.json: what the renderer needs of each vocabulary, with what each
    console command of the templates prints in it (run through this checkout's reference)."""
    names = tuple(sorted(vocab.name for vocab in build.vocabularies))
    if (root, names) not in _SKILL_DATA:
        _SKILL_DATA[root, names] = _skill_data(root, build)
    return _SKILL_DATA[root, names]


def _skill_data(root: Path, build: Build) -> str:
    keys = [key for key, _ in load_vocabulary(root / "spec" / "flags.toml").modes]  # the default's, in any build
    records = {}
    for vocab in sorted(build.vocabularies, key=lambda vocab: _version_key(vocab.name)):
        records[vocab.name] = {
            "modes": [list(mode) for mode in vocab.modes],
            "values": [{slot: getattr(v, slot) for slot in skill_render.Value.__slots__} for v in vocab.values],
            "extra": [index for index, (key, _) in enumerate(vocab.modes) if key not in keys],
            "outputs": {},
        }
    data = {"vocabularies": records}
    jobs = []  # (vocabulary, template, its text): each runs on its own, in threads (the time is the subprocesses')
    for name in records:
        vocab = skill_render.load(name, data)
        for rel in skill_render.TEMPLATES:
            jobs.append((name, rel, skill_render.expand(skill_render.template(rel, root / SKILL_SOURCE), vocab)))
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        runs = [
            pool.submit(skill_outputs.console_outputs, skill_render, text, root, name, rel) for name, rel, text in jobs
        ]
        for (name, rel, _), run in zip(jobs, runs):
            if run.result():
                records[name]["outputs"][rel] = run.result()
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def outputs(root: Path, build: Build) -> Dict[Path, str]:
    """Every generated file's wanted content."""
    wanted = {root / rel: render(build) for rel, render in WHOLE_FILES.items() if (root / rel).parent.is_dir()}
    if (root / SKILL_SOURCE).is_dir():
        wanted[root / SKILL_SOURCE / skill_render.DATA] = skill_data(root, build)
    generator = Path(__file__).resolve()
    for path in text_files(root):
        if path in wanted or path.resolve() == generator:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if "GENERATED: " in text:
            rendered = render_blocks(text, build, str(path.relative_to(root)))
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
    stale: List[Path] = []
    if not args.check:  # the package's tables first: the skill's examples (skill_data) run this checkout's package
        build = load_build(root)
        for rel, render in WHOLE_FILES.items():
            path = root / rel
            content = render(build) if path.parent.is_dir() else None
            if content is not None and (path.read_text(encoding="utf-8") if path.exists() else None) != content:
                stale.append(Path(rel))
                path.write_text(content, encoding="utf-8")
    # Twice when writing: a file a first pass wrote can change what the skill's examples print.
    for _ in range(1 if args.check else 2):
        if _ and not stale:
            break
        _SKILL_DATA.clear()
        for path, content in outputs(root, load_build(root)).items():
            current = path.read_text(encoding="utf-8") if path.exists() else None
            if current == content:
                continue
            stale.append(path.relative_to(root))
            if not args.check:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(content, encoding="utf-8")
    verb = "out of date" if args.check else "regenerated"
    for rel in dict.fromkeys(stale):
        print(f"generate: {verb}: {rel}", file=sys.stderr)
    if args.check and stale:
        print("generate: run `make generate` and commit the result", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
