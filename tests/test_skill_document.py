"""The flag-parser skill as a document (issue 29, docs/SPEC.md section 18, G1-G7).

A valid Agent Skill (the reference validator, skills-ref, and a plain YAML parser agree on its frontmatter); a
lean body, within 150 lines and 8,000 bytes for the default vocabulary and for sage-1.3.18's rendering (the
tables grow with the vocabulary); the body's order; every reference file named from the body; the hook's label
quoted; the old path a redirect; and the exposure docs/MANUAL-SETUP.md documents, done in a temporary project and
validated.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, List

import pytest
import tomllib
import yaml
from sage_flags import _render, _vocab
from skill_files import SKILL_DIR, SKILL_MD, skill_files, split_frontmatter
from skills_ref.parser import parse_frontmatter
from skills_ref.validator import validate

from parity.layers import PYTHON, ROOT, vendored_bundle
from tests.sage_step import lay_own_step

MAX_LINES, MAX_BYTES = 150, 8000
AGENTSKILLS = str(Path(PYTHON).parent / "agentskills")
HOOK_LABEL = _vocab.HOOK_LABEL  # generated from spec/flags.toml by tools/generate.py (K5)


def counts(body: str) -> Dict[str, int]:
    return {"lines": body.count("\n"), "bytes": len(body.encode("utf-8")), "words": len(body.split())}


def frontmatter() -> Dict[str, object]:
    return parse_frontmatter(SKILL_MD.read_text(encoding="utf-8"))[0]


@pytest.fixture(scope="module")
def sage_1_3_skill(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """SKILL.md of Sage 1.3.18's vocabulary, as the package's renderer writes it for adopt (G8)."""
    skill = tmp_path_factory.mktemp("sage-1.3.18") / "flag-parser"
    for rel, text in _render.render(_render.load("sage-1.3.18")).items():
        (skill / rel).parent.mkdir(parents=True, exist_ok=True)
        (skill / rel).write_text(text, encoding="utf-8")
    return skill / "SKILL.md"


def test_the_reference_validator_accepts_the_skill() -> None:
    assert validate(SKILL_DIR) == []
    done = subprocess.run([AGENTSKILLS, "validate", str(SKILL_DIR)], capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (0, f"Valid skill: {SKILL_DIR}\n"), done.stderr


def test_the_validator_is_not_a_rubber_stamp(tmp_path: Path) -> None:
    """Issue 29's finding: the old file (no frontmatter), a wrong name, a flow list all fail."""
    cases = {
        "flag_parser": "# no frontmatter\n",
        "flag-parser": "---\nname: flag_parser\ndescription: x\n---\n",
        "flag-parse": "---\nname: flag-parser\ndescription: x\n---\n",
        "upstream": "---\nname: upstream\ndescription: x\nmodes: [build, architect]\n---\n",
    }
    for name, text in cases.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "SKILL.md").write_text(text)
        assert validate(tmp_path / name) != [], name


def test_the_frontmatter() -> None:
    meta = frontmatter()
    fm_text, _ = split_frontmatter(SKILL_MD.read_text(encoding="utf-8"))
    # A plain YAML parser (as harnesses use) reads the same mapping as the validator's strict one.
    assert yaml.safe_load(fm_text) == {**meta, "metadata": dict(meta["metadata"])}
    assert set(meta) == {"name", "description", "compatibility", "metadata"}
    assert meta["name"] == SKILL_DIR.name == "flag-parser"
    description = str(meta["description"])
    assert len(description) <= 1024 and len(str(meta["compatibility"])) <= 500
    for trigger in ("/build", "/architect", "start of every", "begin with --"):
        assert trigger in description, trigger
    for need in ("sage-flags adopt", "scripts/", "python3", "bash"):
        assert need in str(meta["compatibility"]), need
    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    assert meta["metadata"] == {"version": version, "project": "sage-flags"}


def check_body(path: Path) -> Dict[str, int]:
    _, body = split_frontmatter(path.read_text(encoding="utf-8"))
    measured = counts(body)
    assert measured["lines"] <= MAX_LINES and measured["bytes"] <= MAX_BYTES, f"{path}: {measured}"
    return measured


def test_the_body_is_lean_for_the_default_vocabulary() -> None:
    check_body(SKILL_MD)


def test_the_body_is_lean_for_sage_1_3(sage_1_3_skill: Path) -> None:
    text = sage_1_3_skill.read_text(encoding="utf-8")
    assert "`--parallel`, `--parallel=N`" in text and "`parallel_lanes`" in text, "not the Sage 1.3 rendering"
    assert check_body(sage_1_3_skill)["lines"] > check_body(SKILL_MD)["lines"]
    assert validate(sage_1_3_skill.parent) == []


def test_the_body_order() -> None:
    """(1) the hook's result, (2) the one call, (3) the JSON and the statuses, (4) announce, record, resume."""
    _, body = split_frontmatter(SKILL_MD.read_text(encoding="utf-8"))
    marks = [
        f"`{HOOK_LABEL} for /build`",
        "do not call the program again",
        _render.LAUNCHER + " parse --config-path .sage/config.yaml --stdin <<'SAGE_ARGUMENTS_7Q2F'",
        "rewrite characters",
        "put before `!`",
        "compare the\n`goal` you get with what the user typed",
        "The keys, in this order: ",
        "| 0 |",
        "| 1 |",
        "| 2 |",
        "| 3 |",
        "| 4 |",
        "**Announce**",
        "unless a hook result",
        "**Record**",
        "**Resume** on `/continue`",
    ]
    where = [body.find(mark) for mark in marks]
    assert -1 not in where, [m for m, w in zip(marks, where) if w == -1]
    assert where == sorted(where), "the body's order"
    headings = re.findall(r"^## (\d)\.", body, re.M)
    assert headings == ["1", "2", "3", "4"]


def test_the_hook_label_is_the_generated_constant() -> None:
    assert HOOK_LABEL == "sage-flags hook result"
    assert SKILL_MD.read_text(encoding="utf-8").count(HOOK_LABEL) == 1


def test_the_body_describes_the_hooks_context_as_the_hook_writes_it(tmp_path: Path) -> None:
    """Section 1's reading of the context: label, /WORKFLOW, (length, SHA-256), its last words, parse's line (K5)."""
    text = "--autonomous Ship it!"
    event = {
        "hook_event_name": "UserPromptExpansion",
        "command_name": "build",
        "command_args": text,
        "command_source": "project",
        "expansion_type": "slash_command",
        "prompt": "/build " + text,
        "cwd": str(tmp_path),
        "session_id": "s",
    }
    hook = [PYTHON, "-m", "sage_flags", "hook", "claude-code"]
    done = subprocess.run(hook, input=json.dumps(event).encode(), capture_output=True, cwd=tmp_path, timeout=60)
    assert (done.returncode, done.stderr) == (0, b"")
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    first, second = context.split("\n")[:2]
    assert re.fullmatch(
        re.escape(HOOK_LABEL) + r" for /build \(ARGUMENTS: 21 bytes, SHA-256 [0-9a-f]{64}\); (.*)", first
    )
    _, body = split_frontmatter(SKILL_MD.read_text(encoding="utf-8"))
    said = " ".join(body.split())
    assert "gives in parentheses the byte length and SHA-256" in said
    assert f'and ends "{first.rsplit("; ", 1)[1]}"; the next line is the JSON line' in said
    parsed = subprocess.run([PYTHON, "-m", "sage_flags", "parse", "--stdin"], input=text.encode(), capture_output=True)
    assert (second + "\n").encode() == parsed.stdout


def test_the_worked_hook_example_is_the_hooks_context(tmp_path: Path) -> None:
    """references/examples.md's context block is the additionalContext the real hook prints for its event."""
    text = (SKILL_DIR / "references" / "examples.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```(console|text)\n(.*?)^```$", text, re.S | re.M)
    where = [n for n, (kind, body) in enumerate(blocks) if kind == "console" and " hook claude-code " in body]
    assert len(where) == 1 and blocks[where[0] + 1][0] == "text", "examples.md: the hook's block, then its context"
    console, shown = blocks[where[0]][1], blocks[where[0] + 1][1]
    call = r"\$ (%s hook claude-code [^<]*) <<'(\w+)'\n> (.*?)\n> \4\n" % re.escape(_render.LAUNCHER)
    found = re.match(r"\$ cat (\S+)\n(.*?)\n" + call, console, re.S)
    assert found, "examples.md: the hook's block starts with the config file, then the hook's call"
    config, config_text, command, _, event = found.groups()
    assert json.loads(event)["hook_event_name"] == "UserPromptExpansion" and shown.startswith(f"{HOOK_LABEL} for /")
    (tmp_path / config).parent.mkdir(parents=True)
    (tmp_path / config).write_text(config_text + "\n", encoding="utf-8")
    argv = command[len(_render.LAUNCHER) :].split()
    for entry in ([str(vendored_bundle() / "sage" / "bin" / "sage-flags")], [PYTHON, "-m", "sage_flags"]):
        done = subprocess.run(entry + argv, input=event.encode() + b"\n", capture_output=True, cwd=tmp_path, timeout=60)
        assert (done.returncode, done.stderr) == (0, b""), entry
        assert json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"] == shown, entry


def test_every_reference_is_named_from_the_body_with_when_to_read_it() -> None:
    _, body = split_frontmatter(SKILL_MD.read_text(encoding="utf-8"))
    references = [path for path in skill_files()[1:]]
    assert {p.name for p in references} == {"layers.md", "prose-rules.md", "examples.md", "troubleshooting.md"}
    listed = body[body.index("## References") :]
    for path in references:
        assert re.search(r"^- `references/%s`: when " % re.escape(path.name), listed, re.M), path.name
    assert set(re.findall(r"references/([\w.-]+)", body)) == {p.name for p in references}, "a name without a file"
    # One level: no subdirectory, and no reference file sends the agent on to another one.
    assert [p for p in (SKILL_DIR / "references").iterdir() if not p.is_file()] == []
    assert sorted(p.name for p in SKILL_DIR.iterdir()) == ["SKILL.md", "references"]
    for path in references:
        text = path.read_text(encoding="utf-8")
        assert [other.name for other in references if other.name in text] == [], path.name


def test_the_prose_rules_carry_the_programs_messages(sage_1_3_skill: Path) -> None:
    """An agent with no program gives the same JSON: E1-E4 as the reference spells them, C5's six characters."""
    from sage_flags import reference

    for prose in (SKILL_DIR / "references" / "prose-rules.md", sage_1_3_skill.parent / "references" / "prose-rules.md"):
        text = prose.read_text(encoding="utf-8")
        flags = re.search(r"Supported flags: ([^.]*)\.", text).group(1)
        expected = [
            reference.E1.replace("{supported}", flags),
            "Flag '{flag}' takes no value (got '{token}').",
            reference.E3.format(key="<key>", name="<name>"),
            reference.E4,
            "space, tab, LF, VT, FF and CR (C5)",
            "Deterministic parsers unavailable",
        ]
        assert [m for m in expected if m not in text] == [], prose
    default_e1 = reference.E1.format(token="{token}", supported=reference.rules().vocabulary.supported_flags)
    assert default_e1 in (SKILL_DIR / "references" / "prose-rules.md").read_text(encoding="utf-8")
    copy = (sage_1_3_skill.parent / "references" / "prose-rules.md").read_text(encoding="utf-8")
    assert "--parallel takes a lane count of 1 or more" in copy and "Only --parallel=N takes a value." in copy


@pytest.mark.parametrize("vocabulary", ["default", "sage-1.3"])
def test_the_bodys_key_list_is_the_parse_lines(vocabulary: str, sage_1_3_skill: Path) -> None:
    """The generated `json-keys` line names the keys parse prints, in its order (C16, V1), for each vocabulary."""
    skill, name = (SKILL_MD, "") if vocabulary == "default" else (sage_1_3_skill, "sage-1.3.18")
    code = "import json; from sage_flags import reference; print(json.dumps(list(reference.parse('x', vocabulary=%r)"
    code = code % (name or None) + ".to_dict())))"  # B2: the vocabulary is the library's argument
    env = {"PYTHONPATH": str(ROOT / "python"), "SAGE_FLAGS_BACKEND": "python"}
    done = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, env=env, check=True)
    listed = re.search(r"^The keys, in this order: (.*)\.$", skill.read_text(encoding="utf-8"), re.M).group(1)
    assert re.findall(r"`([a-z_]+)`", listed) == json.loads(done.stdout)


def manual_exposure_lines() -> List[str]:
    manual = (ROOT / "docs" / "MANUAL-SETUP.md").read_text(encoding="utf-8")
    return re.findall(r"^    (mkdir -p \.(?:claude|agents)/skills && .*)$", manual, re.M)


def test_the_documented_exposure_gives_a_valid_skill_named_flag_parser(tmp_path: Path) -> None:
    """docs/MANUAL-SETUP.md's skill by hand: the folder an adopt run wrote in a copy of the project (RENDERED),
    copied into the project (twice: the same line refreshes it), then linked for other harnesses."""
    copy, link = manual_exposure_lines()
    assert "cp -R" in copy and " ln -s " in link
    rendered = tmp_path / "rendered"
    (rendered / "sage").mkdir(parents=True)
    (rendered / "sage" / "VERSION").write_text("1.3.21\n")
    lay_own_step(rendered)  # nothing to verify against (N2)
    done = subprocess.run([PYTHON, "-m", "sage_flags", "adopt"], cwd=rendered, capture_output=True, text=True)
    assert (done.returncode, done.stderr) == (0, ""), done
    written = rendered / ".claude" / "skills" / "flag-parser"
    project = tmp_path / "project"
    (project / "sage").mkdir(parents=True)
    (project / "sage" / "VERSION").write_text("1.3.21\n")
    env = {**os.environ, "RENDERED": str(rendered)}
    for line in (copy, copy, link):
        done = subprocess.run(["sh", "-c", line], cwd=project, capture_output=True, text=True, env=env)
        assert (done.returncode, done.stderr) == (0, ""), line
    for exposed in (project / ".claude/skills/flag-parser", project / ".agents/skills/flag-parser"):
        assert validate(exposed) == [], exposed
        done = subprocess.run([AGENTSKILLS, "validate", str(exposed)], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        files = sorted(p.relative_to(written) for p in written.rglob("*") if p.is_file())
        record = Path(".adopted.json")  # adopt's record of the other folder's settings: left out (N13)
        assert record in files and not (exposed / record).exists()
        files.remove(record)
        assert files and all((exposed / rel).read_bytes() == (written / rel).read_bytes() for rel in files)
    exposed = project / ".agents/skills/flag-parser"
    assert exposed.is_symlink() and not Path(exposed.readlink()).is_absolute()
    moved = Path(shutil.move(str(project), tmp_path / "moved"))  # a relative link survives a move
    assert validate(moved / ".agents/skills/flag-parser") == []


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links")
def test_the_validator_fails_on_a_broken_exposure(tmp_path: Path) -> None:
    """The exposure check can fail: a link that names another directory, or dangles, is no skill."""
    (tmp_path / ".claude" / "skills").mkdir(parents=True)
    (tmp_path / ".claude" / "skills" / "flag-parser").symlink_to("../../sage/nowhere")
    assert validate(tmp_path / ".claude" / "skills" / "flag-parser") != []
    (tmp_path / "wrong").symlink_to(SKILL_DIR)
    assert any("must match" in error for error in validate(tmp_path / "wrong"))
