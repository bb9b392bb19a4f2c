"""The flag-parser skill's two shipped forms, generated from its one source (docs/SPEC.md N7, N8).

The source, sage/core/capabilities/orchestration/flag-parser/, is a valid Agent Skill (`agentskills validate`).
Sage's skill contract (its validate-skills.sh) needs top-level `version` and `modes` in the frontmatter, which the
Agent Skills validator refuses, so one file cannot meet both:

- sage_contract_skill(): SKILL.md in Sage's form, what the vendorable bundle puts at Sage's skill path
  (tools/build_bundle.py): `name`, `description`, semver `version`, `modes: [build, architect]`, the body plus
  the Sage section and a Failure Modes section;
- adopted_skill(): the Agent Skills form `sage-flags adopt` writes to .claude/skills/flag-parser/ (kept in
  python/sage_flags/_skill.py, since the wheels carry .py files only): its commands run the project's wrapper
  (.claude/skills/flag-parser/scripts/sage-flags, which names the vocabulary), its manifest is Sage's cycle
  manifest, and the vocabulary's tables give way to a sentence (the vocabulary is the project's).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Dict

import yaml

SKILL_DIR = "sage/core/capabilities/orchestration/flag-parser"
MODULE = "python/sage_flags/_skill.py"
WRAPPER = ".claude/skills/flag-parser/scripts/sage-flags"
MANIFEST = ".sage/work/<slug>/manifest.md"
GENERATED_BLOCK = re.compile(r"<!-- BEGIN GENERATED: ([a-z0-9-]+) -->\n.*?<!-- END GENERATED: \1 -->\n", re.S)

SAGE_SECTION = """
## In a Sage project: this is the workflow's own flag-parsing step

Sage's `/build` and `/architect` start by parsing their flags
(`python3 sage/runtime/tools/sage_flags.py parse` in Sage 1.3,
`python -m core.flag_parser parse` in Sage 1.1). When a `sage-flags hook
result` (section 1) came with the command, that step is done: it is the
result of that step, computed by sage-flags from the exact text the person
typed, with the vocabulary of the project's Sage release, and the
announcement has been shown to the person. Use its JSON as the step's result;
do not run the step again and do not announce again. The cycle's manifest is
Sage's, `.sage/work/<slug>/manifest.md`: `<slug>` is the folder the workflow
created under `.sage/work/` for this cycle (the one named in its manifest
step; on `/continue`, the cycle being resumed). Record the modes there once
that manifest exists.
"""

FAILURE_SECTION = """
## Failure Modes

- No hook result and no program runs (status 3, 126, 127): the workflow's own
  flag-parsing step decides, as Sage alone would; never guess the modes.
- A flag error (status 1): show `Sage: <error>` and stop; never apply a
  suggestion yourself.
- The goal differs from what the person typed: quote both and ask.
- `persist` status 3 (manifest missing or not Sage's form): the file is
  untouched; tell the person, do not write it by hand.
"""

VOCABULARY_NOTE = (
    "The keys and flags are those of this project's Sage release (the vocabulary `sage-flags adopt` chose):"
    " the JSON line holds every key, in its order.\n"
)


def source_files(root: Path, rendered: "Dict[Path, str] | None" = None) -> Dict[str, str]:
    """The source skill's files: relative path -> text (a file's text in ``rendered``, where it is there: what the
    generator is about to write, so that one run is enough)."""
    base = root / SKILL_DIR
    rendered = rendered or {}

    def text(path: Path) -> str:
        return rendered[path] if path in rendered else path.read_text(encoding="utf-8")

    files = {"SKILL.md": text(base / "SKILL.md")}
    for path in sorted((base / "references").glob("*.md")):
        files["references/" + path.name] = text(path)
    return files


def _split(text: str):
    end = text.index("\n---\n", 4)
    return yaml.safe_load(text[4:end]), text[end + len("\n---\n") :]


def _with_sections(body: str) -> str:
    """The body with the Sage section before its first numbered section and Failure Modes before References."""
    first = body.index("\n## 1.")
    body = body[:first] + "\n" + SAGE_SECTION.strip("\n") + "\n" + body[first:]
    references = body.index("\n## References")
    return body[:references] + "\n" + FAILURE_SECTION.strip("\n") + "\n" + body[references:]


def sage_contract_skill(text: str) -> str:
    """SKILL.md in Sage's skill contract (validate-skills.sh): what sits at Sage's skill path in the bundle."""
    meta, body = _split(text)
    front = [
        "name: " + meta["name"],
        "description: >",
        *("  " + line for line in _wrap(meta["description"])),
        'version: "%s"' % meta["metadata"]["version"],
        "modes: [build, architect]",
        "type: process",
    ]
    return "---\n" + "\n".join(front) + "\n---\n" + _with_sections(body)


def _wrap(text: str, width: int = 100):
    line = ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            yield line
            line = word
        else:
            line = (line + " " + word).strip()
    if line:
        yield line


def adopted_skill(files: Dict[str, str]) -> Dict[str, str]:
    """The Agent Skills form `sage-flags adopt` writes into a project's .claude/skills/flag-parser/."""
    meta, body = _split(files["SKILL.md"])
    body = GENERATED_BLOCK.sub(VOCABULARY_NOTE, _with_sections(body))
    body = body.replace("sage/bin/sage-flags", "sh " + WRAPPER).replace(".sage/cycle.md", MANIFEST)
    meta = dict(meta)
    meta["compatibility"] = (
        "A Sage project adopted with `sage-flags adopt`: sage-flags on PATH or the vendored sage/bin/sage-flags,"
        " a POSIX shell. No network."
    )
    front = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=1000)
    return {**files, "SKILL.md": "---\n" + front + "---\n" + body}


def skill_module(root: Path, rendered: "Dict[Path, str] | None" = None) -> str:
    """python/sage_flags/_skill.py: the adopted skill's files as one dict."""
    files = adopted_skill(source_files(root, rendered))
    rows = "".join("    %r: %s,\n" % (rel, _literal(text)) for rel, text in sorted(files.items()))
    return (
        "# ruff: noqa: E501\n"
        '"""The flag-parser skill as `sage-flags adopt` writes it (generated by tools/generate.py from %s via\n'
        'tools/skill_variants.py; do not edit)."""\n\nFILES = {\n%s}\n' % (SKILL_DIR, rows)
    )


def _literal(text: str) -> str:
    return "(\n" + "".join("        %r\n" % line for line in text.splitlines(keepends=True)) + "    )"
