"""The flag-parser skill, rendered for one vocabulary: the one renderer (docs/SPEC.md G8, N7, N8).

Templates: skill/SKILL.md and skill/references/*.md beside this module (package data, read through
``Path(__file__)``, which Python 3.8 reads as well). Data: skill/vocabularies.json, written by tools/generate.py
from spec/*.toml: each vocabulary's modes, the modes that take a value, and what every command of the
templates' ```console blocks prints in that vocabulary (run through the reference, checked by the tests on
every layer). In a template:

- a line ``{{NAME}}`` is one of BLOCKS, for the vocabulary (the flag table, E1's list, ...);
- ``{{launcher}}``, ``{{manifest}}`` and ``{{vocabulary}}`` are the adopted wrapper's command, Sage's cycle
  manifest and the vocabulary's name;
- each command of a ```console block is followed by what it prints and its status, from the data.

One form: what ``sage-flags adopt`` writes into .claude/skills/flag-parser/ (N6), the only skill anything ships;
the tests read that rendering too. Nothing of it is kept rendered in the repository or carried by the bundle
(docs/SPEC.md B7, G1).

Standard library only, and no import of sage_flags: tools/generate.py loads this file by its path (it writes
modules that the package imports).
"""

import json
import re
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Dict, Iterator, List, Optional, Tuple

SKILL = Path(__file__).resolve().parent / "skill"
DATA = "vocabularies.json"
TEMPLATES = ("SKILL.md", "references/examples.md", "references/layers.md", "references/prose-rules.md")
TEMPLATES += ("references/troubleshooting.md",)
QUIET = " 2>/dev/null"  # a command whose first line holds it writes one stderr line; any other writes none
WRAPPER = ".claude/skills/flag-parser/scripts/sage-flags"  # adopt's wrapper (N6), from the project root
LAUNCHER = "sh " + WRAPPER  # what every command calls; the examples' too (the tests stand a layer in for it)
MANIFEST = ".sage/work/<slug>/manifest.md"  # Sage's cycle manifest
FORMS = ("adopted",)  # adopt's argument to render(): the one form
PLACEHOLDER = re.compile(r"\{\{([a-z0-9-]+)\}\}")


class Value:
    """A mode's value (docs/SPEC.md V1): `--<name>=N`."""

    __slots__ = ("cap", "default", "field", "metavar", "minimum", "mode", "name", "note_field")

    def __init__(self, record: "Dict[str, object]") -> None:
        for slot in self.__slots__:
            setattr(self, slot, record[slot])


class Vocabulary:
    """One vocabulary as skill/vocabularies.json holds it; tools/generate.py's Vocabulary has the same fields."""

    def __init__(self, name: str, record: "Dict[str, object]") -> None:
        self.name = name
        self.modes = [tuple(mode) for mode in record["modes"]]  # (key, dashed name)
        self.values = tuple(Value(value) for value in record["values"])
        self.outputs = record["outputs"]  # template -> [[stdout, status], ...], in the order of its commands
        self.extra = record["extra"]  # indexes of its modes that spec/flags.toml's vocabulary does not have

    def value_of(self, index: int) -> "Optional[Value]":
        return next((value for value in self.values if value.mode == index), None)


def load(name: str, data: "Optional[Dict[str, object]]" = None) -> Vocabulary:
    """The vocabulary ``name`` of ``data`` (skill/vocabularies.json's content; read from the package without)."""
    if data is None:
        data = json.loads((SKILL / DATA).read_text(encoding="utf-8"))
    return Vocabulary(name, data["vocabularies"][name])


# ---------------------------------------------------------------------------------------------------------
# The vocabulary's listings (also tools/generate.py's, for docs/SPEC.md, README.md and the layers' tables)


def flag_label(vocab, index: int) -> str:
    """A mode's flag in the lists: --name, or --name[=N] for a mode with a value."""
    name = vocab.modes[index][1]
    value = vocab.value_of(index)
    return "--%s[=%s]" % (name, value.metavar) if value else "--" + name


def supported_flags(vocab) -> str:
    return ", ".join(flag_label(vocab, index) for index in range(len(vocab.modes)))


def e1_message(vocab) -> str:
    return "Unknown flag '{token}'. Supported flags: %s." % supported_flags(vocab)


def e2_value_hint(vocab) -> str:
    """E2's last sentence: which flags do take a value (docs/SPEC.md V8); empty when none does."""
    flags = ["--%s=%s" % (vocab.modes[v.mode][1], v.metavar) for v in vocab.values]
    if not flags:
        return ""
    listed = flags[0] if len(flags) == 1 else ", ".join(flags[:-1]) + " and " + flags[-1]
    return " Only %s %s a value." % (listed, "takes" if len(flags) == 1 else "take")


def e2_message(vocab) -> str:
    return "Flag '{flag}' takes no value (got '{token}')." + e2_value_hint(vocab)


def suggestion_forms(vocab) -> "List[str]":
    """S1: every flag form without its leading `--`, in vocabulary order."""
    return [form for _, name in vocab.modes for form in (name, "no-" + name)]


def max_edits(form: str) -> int:
    """S4: how far a token may be from ``form`` and still be near it."""
    return len(form) // 3


def suggest_limit(vocab) -> int:
    """S7: the longest token part (code points) that can be near some form."""
    return max(len(form) + max_edits(form) for form in suggestion_forms(vocab))


def flag_table(vocab) -> str:
    lines = ["| mode (JSON key) | turn on | turn off | config line that makes it default-on |", "|---|---|---|---|"]
    for index, (key, name) in enumerate(vocab.modes):
        value = vocab.value_of(index)
        on = "`--%s`" % name + (", `--%s=%s`" % (name, value.metavar) if value else "")
        lines.append("| `%s` | %s | `--no-%s` | `%s: true` |" % (key, on, name, key))
    return "\n".join(lines) + "\n"


def e1_block(vocab) -> str:
    return "  `%s`\n" % e1_message(vocab)


def e2_block(vocab) -> str:
    return "  `%s`\n" % e2_message(vocab)


def value_modes(vocab) -> str:
    """The modes that take a value, as a table and as the rules an agent applies by hand (docs/SPEC.md V1-V8)."""
    if not vocab.values:
        return (
            "No mode of this vocabulary takes a value: `--<flag>=<anything>` for a flag of the table"
            " is always the `takes no value` error (E2).\n"
        )
    lines = [
        "| flag | value | JSON number, note | default | minimum | cap (above it: clamped, with a note) |",
        "|---|---|---|---|---|---|",
    ]
    for v in vocab.values:
        name = vocab.modes[v.mode][1]
        numbers = "%s | %s | %s" % (v.default, v.minimum, v.cap)
        lines.append("| `--%s=%s` | %s | `%s`, `%s` | %s |" % (name, v.metavar, v.name, v.field, v.note_field, numbers))
    for v in vocab.values:
        key, name = vocab.modes[v.mode]
        m = v.metavar
        lines += [
            "",
            f"- `--{name}={m}` turns `{key}` on like `--{name}` (so `--{name}={m} --no-{name}` is E3);"
            f" {m} is one or more ASCII digits with a value of at least {v.minimum}. Anything else after the"
            f" `=` is the error `--{name} takes a {v.name} of {v.minimum} or more (got '<value>').`"
            " with <value> the text after the `=` as typed.",
            f"- `{v.field}` is 0 while `{key}` is off. When it is on (by flag or by config) it is the"
            f" {m} of the first `--{name}={m}`, without leading zeros, or {v.default} when no token"
            f" gave one. A later `--{name}={m}` is still checked but changes nothing.",
            f"- Above {v.cap}, `{v.field}` is {v.cap} and `{v.note_field}` is"
            f" `--{name}=<{m}> exceeds the hard cap; clamped to {v.cap}.` (<{m}> without leading"
            f" zeros, however many digits); otherwise `{v.note_field}` is null. On any error it is 0 and null.",
        ]
    return "\n".join(lines) + "\n"


def json_keys(vocab) -> str:
    """The skill's short list of the parse line's keys (C16, V1), and what a value mode's two keys hold."""
    keys = [key for key, _ in vocab.modes] + ["goal", "error"] + [key + "_source" for key, _ in vocab.modes]
    keys += [field for value in vocab.values for field in (value.field, value.note_field)]
    lines = ["The keys, in this order: " + ", ".join("`%s`" % key for key in keys) + "."]
    for v in vocab.values:
        lines.append(
            "`%s` is the %s while `%s` is on (0 while off); `%s` is null or a note to tell the user (a clamped"
            " number)." % (v.field, v.name, vocab.modes[v.mode][0], v.note_field)
        )
    return "\n".join(lines) + "\n"


def suggestion_table(vocab) -> str:
    lines = ["| flag form | near a token at most this many edits away |", "|---|---|"]
    lines += ["| `--%s` | %d |" % (form, max_edits(form)) for form in suggestion_forms(vocab)]
    lines += ["", "A token part longer than %d characters is near no form." % suggest_limit(vocab)]
    return "\n".join(lines) + "\n"


def persist_numbers(vocab) -> str:
    """SKILL.md section 4, writing `flags:` by hand: the numbers persist records beside the booleans (P4)."""
    line = ", and `%s: <%s>` (0 while `%s` is off)"
    return "".join(line % (v.field, v.metavar, vocab.modes[v.mode][0]) for v in vocab.values)


def vocabulary_example(vocab) -> str:
    """examples.md: the flags this vocabulary has beyond the default's, in use; nothing for the default's."""
    if not vocab.extra:
        return ""
    labels = " and ".join("`%s`" % flag_label(vocab, index) for index in vocab.extra)
    typed, bare = [], []
    notes = []
    for index in vocab.extra:
        name = vocab.modes[index][1]
        value = vocab.value_of(index)
        typed.append("--%s=%d" % (name, value.cap + 1) if value else "--" + name)
        bare.append("--" + name)
        if value:
            notes.append(
                "`--%s=%s` above %d gives %d, with a note; `--%s` alone gives %d"
                % (name, value.metavar, value.cap, value.cap, name, value.default)
            )
    said = "This project's vocabulary also has %s%s:" % (labels, " (%s)" % "; ".join(notes) if notes else "")
    heredoc = " --stdin <<'SAGE_ARGUMENTS_7Q2F'\n> %s Ship dark mode\n> SAGE_ARGUMENTS_7Q2F\n"
    return (
        "\n".join(_wrap(said, 78))
        + "\n\n```console\n"
        + "$ %s parse" % LAUNCHER
        + heredoc % " ".join(typed)
        + "$ %s announce build" % LAUNCHER
        + heredoc % " ".join(bare)
        + "```\n\n"
    )


BLOCKS = {
    "flag-table": flag_table,
    "json-keys": json_keys,
    "value-modes": value_modes,
    "e1-message": e1_block,
    "e2-message": e2_block,
    "suggestion-table": suggestion_table,
    "vocabulary-example": vocabulary_example,
}
INLINE = {"persist-numbers": persist_numbers}


# ---------------------------------------------------------------------------------------------------------
# The templates


def template(rel: str, skill: Path = SKILL) -> str:
    return (skill / rel).read_text(encoding="utf-8")


def expand(text: str, vocab) -> str:
    """A template for ``vocab``, its console blocks still without what the commands print."""
    out = []
    for line in text.splitlines(keepends=True):
        whole = PLACEHOLDER.fullmatch(line.rstrip("\n"))
        if whole and whole.group(1) in BLOCKS:
            out.append(BLOCKS[whole.group(1)](vocab))
            continue
        out.append(PLACEHOLDER.sub(lambda match: _inline(match.group(1), vocab), line))
    return "".join(out)


def _inline(name: str, vocab) -> str:
    if name == "hook-context":  # fill() writes it, from what the commands print
        return "{{hook-context}}"
    return {"launcher": LAUNCHER, "manifest": MANIFEST, "vocabulary": vocab.name}.get(name) or INLINE[name](vocab)


def console_steps(text: str) -> "Iterator[Tuple[int, str, object]]":
    """The steps of the ```console blocks of an expanded template, in order: (the index of the step's last line,
    kind, what): ("block", None) at each block's start; ("file", (path, lines)) for `$ cat FILE` and the lines
    after it, which it creates; ("run", script) for any other `$ ` line with its `> ` lines (LF-joined)."""
    lines = text.split("\n")
    inside = False
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.startswith("```"):
            inside = not inside and line == "```console"
            if inside:
                yield index, "block", None
        elif inside and line.startswith("$ ") and line[2:].startswith("cat ") and " " not in line[6:]:
            body = []
            while not lines[index + 1].startswith(("$ ", "```")):
                index += 1
                body.append(lines[index])
            yield index, "file", (line[6:], body)
        elif inside and line.startswith("$ "):
            script = [line[2:]]
            while lines[index + 1].startswith("> "):
                index += 1
                script.append(lines[index][2:])
            yield index, "run", "\n".join(script)
        elif inside:
            raise ValueError("a line of a console block that is no step: %r" % line)
        index += 1


def fill(text: str, printed: "List[List[object]]") -> str:
    """An expanded template with each console command followed by its output and `$ echo $?` with its status;
    a ```text block holding only ``{{hook-context}}``: the context of the hook's answer just before it."""
    lines = text.split("\n")
    after: "Dict[int, List[str]]" = {}
    runs = [index for index, kind, _ in console_steps(text) if kind == "run"]
    if len(runs) != len(printed):
        raise ValueError("%d commands, %d outputs: run `make generate`" % (len(runs), len(printed)))
    context = None
    for index, (stdout, status) in zip(runs, printed):
        after[index] = [*stdout.split("\n")[:-1], "$ echo $?", str(status)]
        if stdout.startswith('{"hookSpecificOutput"'):
            context = json.loads(stdout)["hookSpecificOutput"]["additionalContext"]
    out = []
    for index, line in enumerate(lines):
        if line == "{{hook-context}}":
            # A vocabulary of one's own without the example's flag (make vocabulary) gets a block, not a context.
            shown = context if context is not None else "(the example above is blocked in this vocabulary)"
            out += shown.rstrip("\n").split("\n")
            continue
        out.append(line)
        out += after.get(index, [])
    return "\n".join(out)


def _wrap(text: str, width: int = 100) -> "Iterator[str]":
    line = ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            yield line
            line = word
        else:
            line = (line + " " + word).strip()
    if line:
        yield line


def render(vocab, form: str = "adopted", skill: Path = SKILL) -> "Dict[str, str]":
    """Every file of the skill for ``vocab``: relative path -> text (``form``: FORMS' one, as adopt names it)."""
    if form not in FORMS:
        raise ValueError("no skill form %r: the one form is %r" % (form, FORMS[0]))
    return {rel: fill(expand(template(rel, skill), vocab), vocab.outputs.get(rel, [])) for rel in TEMPLATES}
