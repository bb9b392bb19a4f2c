"""The flag-parser skill for every vocabulary, from its one renderer (issue 42, docs/SPEC.md G8, N7, N8).

What an agent reads states the flags of its own vocabulary, each thing once: in a Sage 1.3.21 project, `sage-flags
adopt` (vocabulary sage-1.3.18) writes prose rules and examples that name `--subagents` and `--parallel[=N]`; no
sentence is said twice across a skill's files; persist's status 3 is one instruction. Every vocabulary's examples
print what they show, on every layer, in that vocabulary; every rendering is a valid skill in its contract.
"""

from __future__ import annotations

import collections
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Dict, List

import pytest
from sage_flags import _render, _vocab
from sage_step import lay_own_step
from skill_files import SKILL_DIR
from skills_ref.validator import validate
from test_skill import example_subcommands, layer_names, parse_examples, run_example, runners

from parity.layers import PYTHON, ROOT

SAGE_FLAGS = Path(sys.executable).parent / "sage-flags"
AGENTSKILLS = str(Path(PYTHON).parent / "agentskills")
ADOPTED = ".claude/skills/flag-parser"
SAGE_1_3_18_FLAGS = "Supported flags: --quality-locked, --autonomous, --subagents, --parallel[=N]."


def adopt_in_sage_project(tmp_path: Path, release: str = "1.3.21") -> Dict[str, str]:
    """`sage-flags adopt` (the installed command) in a project whose sage/VERSION is ``release``: the skill's
    files it wrote, relative path -> text."""
    root = tmp_path / "project"
    (root / "sage").mkdir(parents=True)
    (root / "sage" / "VERSION").write_text(release + "\n")
    lay_own_step(root)  # nothing to verify against (N2): the release's vocabulary is the table's
    env = {k: v for k, v in os.environ.items() if k != "SAGE_FLAGS_VOCABULARY"}
    done = subprocess.run([str(SAGE_FLAGS), "adopt"], cwd=root, capture_output=True, text=True, env=env, timeout=60)
    assert (done.returncode, done.stderr) == (0, ""), done
    skill = root / ADOPTED
    found = {p.relative_to(skill).as_posix(): p for p in skill.rglob("*.md")}
    # scripts/sage_flags/ is the runtime copy (N6): the package's templates, not the skill an agent reads.
    return {rel: p.read_text(encoding="utf-8") for rel, p in found.items() if not rel.startswith("scripts/")}


def sentences(markdown: str) -> List[str]:
    """The prose of a Markdown file, sentence by sentence (whitespace collapsed): no frontmatter, code blocks or
    comments; a table cell is a sentence of its own. Sentences of fewer than five words are left out (`Status 0`,
    a table's `| 0 |`)."""
    text = re.sub(r"\A---\n.*?\n---\n", "", markdown, flags=re.S)
    text = re.sub(r"^```.*?^```$", "", text, flags=re.S | re.M)
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    found = []
    for paragraph in re.split(r"\n\s*\n", text):
        for cell in paragraph.split("|"):
            flat = " ".join(cell.split())
            found += [s for s in re.split(r"(?<=[.!?:;])\s+(?=[A-Z`(])", flat) if len(s.split()) >= 5]
    return found


def repeated_sentences(files: Dict[str, str]) -> List[str]:
    counts = collections.Counter(sentence for text in files.values() for sentence in sentences(text))
    return sorted(sentence for sentence, count in counts.items() if count > 1)


def test_the_adopted_skill_of_a_sage_1_3_21_project_names_its_flags(tmp_path: Path) -> None:
    """The issue's defect: adopt chose sage-1.3.18 and wrote the default vocabulary's prose rules and examples."""
    files = adopt_in_sage_project(tmp_path)
    prose, examples = files["references/prose-rules.md"], files["references/examples.md"]
    for text in (prose, examples):
        assert SAGE_1_3_18_FLAGS in text
        assert "Supported flags: --quality-locked, --autonomous." not in text
    # The prose rules give --parallel=N's bound and default (V2, V4, V5), as the program applies them.
    assert "`--parallel=N`" in prose and "at least 1" in prose and "or 2 when no token" in prose
    assert "clamped to 4." in prose and "Only --parallel=N takes a value." in prose
    # The examples use the flags, and the JSON lines carry the vocabulary's keys.
    assert "> --subagents --parallel=5 Ship dark mode\n" in examples
    assert '"parallel_lanes": 4, "parallel_note": "--parallel=5 exceeds the hard cap; clamped to 4."' in examples
    assert "Sage → build workflow. Modes: --subagents, --parallel=2\n" in examples
    assert '"quality_locked_source": null}' not in examples, "a JSON line of the default vocabulary"
    assert "`parallel_lanes`" in files["SKILL.md"] and "`--subagents`" in files["SKILL.md"]


def test_the_adopted_skill_says_no_sentence_twice(tmp_path: Path) -> None:
    files = adopt_in_sage_project(tmp_path)
    assert len(files) == 5
    assert repeated_sentences(files) == []


@pytest.mark.parametrize("name", _vocab.NAMES)
def test_no_rendering_says_a_sentence_twice(name: str) -> None:
    files = _render.render(_render.load(name))
    assert repeated_sentences(files) == []


def test_the_repetition_check_can_fail() -> None:
    said = "The keys and flags are those of this project's Sage release."
    assert repeated_sentences({"a.md": said + " Other words here, five of them.", "b.md": "| x | %s |\n" % said})
    assert repeated_sentences({"a.md": "```sh\n%s\n```\n%s\n" % (said, said)}) == []


def test_persists_status_3_is_one_instruction(tmp_path: Path) -> None:
    """SPEC P12: without python3 the workflow writes `flags:` itself; P8: a manifest persist will not edit is left
    as it is (writing it by hand would defeat the refusal: a link, a front matter it cannot read)."""
    files = adopt_in_sage_project(tmp_path)
    flat = " ".join(" ".join(files.values()).split())
    assert "do not write it by hand" not in flat and "`persist` status 3" not in flat
    assert flat.count("write the `flags:` block yourself") == 1
    skill = " ".join(files["SKILL.md"].split())
    said = skill[skill.index("`persist` echoes the line") : skill.index("**Resume**")]
    assert "When that line says python3 is needed or missing, write the `flags:` block yourself" in said
    assert "On any other status 3, leave the file as it is and tell the person" in said
    assert "`parallel_lanes: <N>` (0 while `parallel` is off)" in said


@pytest.mark.parametrize("name", _vocab.NAMES)
def test_every_rendering_is_a_valid_skill_in_its_contract(name: str, tmp_path: Path) -> None:
    """Each vocabulary's rendering passes `agentskills validate`, and holds the Sage sections (N8)."""
    skill = tmp_path / "flag-parser"
    files = _render.render(_render.load(name))
    for rel, text in files.items():
        (skill / rel).parent.mkdir(parents=True, exist_ok=True)
        (skill / rel).write_text(text, encoding="utf-8")
    assert validate(skill) == []
    done = subprocess.run([AGENTSKILLS, "validate", str(skill)], capture_output=True, text=True)
    assert done.returncode == 0, (done.stdout, done.stderr)
    assert "\n## In a Sage project: " in files["SKILL.md"] and ".sage/work/<slug>/manifest.md" in files["SKILL.md"]


def test_the_one_form_is_adopts() -> None:
    """The renderer has one form, adopt's (N6): the vendored and Sage-contract forms that nothing shipped are gone."""
    assert _render.FORMS == ("adopted",)
    with pytest.raises(ValueError):
        _render.render(_render.load(_vocab.DEFAULT), "vendored")


@pytest.mark.parametrize("name", _vocab.NAMES)
def test_the_layers_reference_names_the_wrapper_and_the_vocabulary(name: str) -> None:
    """references/layers.md describes the adopted wrapper's order and the layers by hand from the project root,
    each naming the rendering's vocabulary; nothing of the vendored launcher (sage/bin/, --which, `sage/`)."""
    layers = _render.render(_render.load(name))["references/layers.md"]
    assert "sage/bin/" not in layers and "--which" not in layers and "_vendor" not in layers
    assert "sage-flags --vocabulary %s parse --config-path" % name in layers
    assert ".claude/skills/flag-parser/scripts --vocabulary %s parse --config-path" % name in layers
    assert "SAGE_FLAGS_VOCABULARY=%s bash .claude/skills/flag-parser/scripts/sage_flags/bash/parse.sh" % name in layers
    assert _render.LAUNCHER + ' parse "$ARGUMENTS" --config-path' in layers


def test_the_tests_copy_is_the_default_vocabularys_rendering() -> None:
    """The skill the skill tests read (tests/skill_files.py) is what the renderer writes; nothing of it is kept
    rendered under sage/ (issue 43: the skill ships only as package data)."""
    rendered = _render.render(_render.load(_vocab.DEFAULT))
    copy = {p.relative_to(SKILL_DIR).as_posix(): p.read_text(encoding="utf-8") for p in SKILL_DIR.rglob("*.md")}
    assert copy == rendered
    assert "Supported flags: --quality-locked, --autonomous." in rendered["references/prose-rules.md"]
    assert not (ROOT / "sage" / "core" / "capabilities").exists()
    assert not (ROOT / "sage" / "core" / "flag_parser" / "SKILL.md").exists()


def examples_of(name: str):
    files = _render.render(_render.load(name))
    return [ex for rel in sorted(files) for ex in parse_examples(files[rel], "%s %s" % (name, rel))]


OTHER_VOCABULARIES = [name for name in _vocab.NAMES if name != _vocab.DEFAULT]
EXAMPLES = [(name, example) for name in OTHER_VOCABULARIES for example in examples_of(name)]
LAYERS = layer_names()  # test_skill.py's: every layer, and the launcher


# Each example on each layer that has every subcommand it runs (the others are not paired with it: issue 41).
@pytest.mark.parametrize(
    "name, example, layer",
    [
        pytest.param(name, example, layer, id=f"{example.name.replace(' ', '-')}-{layer}")
        for name, example in EXAMPLES
        for layer in LAYERS
        if all(layer in runners(sub) for sub in example_subcommands(example))
    ],
)
def test_a_vocabularys_examples_print_what_they_show(name: str, example, layer: str, tmp_path: Path) -> None:
    """SPEC G6 for every vocabulary: each command of the rendering, run on each layer with that vocabulary named
    (SAGE_FLAGS_VOCABULARY, B2), prints exactly its output and status (test_skill.py runs the default's)."""
    layer_for = {}
    for sub in example_subcommands(example):
        argv, env = runners(sub)[layer]
        layer_for[sub] = (argv, {**env, "SAGE_FLAGS_VOCABULARY": name})
    run_example(example, layer_for, tmp_path / "project")


def test_the_examples_differ_between_vocabularies() -> None:
    """Not the default's text under another name: the JSON lines carry each vocabulary's keys."""
    texts = {name: _render.render(_render.load(name))["references/examples.md"] for name in _vocab.NAMES}
    assert len(set(texts.values())) == len(_vocab.NAMES)
    assert '"subagents_source": null' in texts["sage-1.3"] and "parallel" not in texts["sage-1.3"]
    assert "subagents" not in texts[_vocab.DEFAULT]
