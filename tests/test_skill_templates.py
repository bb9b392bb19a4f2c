"""The agent-facing command lines of the skill, played as an agent plays them (issue 17, SPEC sections 16-17).

Each ```sh block after a `<!-- template NAME dir=root|sage -->` line in the flag-parser skill (SKILL.md and its
references/ files, as adopt renders them) is a command template. An agent
(or a slash-command file) substitutes the user's text for `$ARGUMENTS` textually and a shell runs the result. This
test does exactly that with hostile texts, under `bash -c` and `sh -c` (dash), from the directory the template names,
in a project adopt's skill folder is laid in (the wrapper and the runtime copy), with a root-relative config
(`quality_locked: true`) and manifest; and checks that

- stdout and status are those of the same subcommand given the same bytes as a direct operand (argv, no shell,
  after `--`): the goal, every mode and source, the error;
- nothing else happened: no canary file, stderr empty.

The fallback layers' `announce`, `resume` and `persist` lines are derived from their `parse` lines by the rule
references/layers.md states.
The seed's form (`parse "$ARGUMENTS" --config-path ...`) and the compatible form (`-- "$ARGUMENTS"`) are run too:
on the texts a shell reads as code they fail, and the test says so (strict xfail: should they ever pass, the
test fails and the document's hazard statement must change).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Union

import pytest
from sage_flags import _render, _vocab, adopt
from skill_files import skill_files

from parity.layers import PYTHON, SAGE_FLAGS

PLACEHOLDER = "$ARGUMENTS"
CONFIG = b"quality_locked: true\n"
MANIFEST = b"---\ntitle: x\nflags:\n  autonomous: true\n---\nbody\n"
LAUNCHER, MANIFEST_PATH = _render.LAUNCHER, _render.MANIFEST  # the adopted wrapper; Sage's manifest, with <slug>
SLUG = "cycle"  # the cycle's folder the project has (MANIFEST_PATH's <slug>)


@dataclass(frozen=True)
class Template:
    name: str
    directory: str  # "root" or "sage"
    text: str
    command: str  # parse, announce, resume, persist: what the direct run compares with

    @property
    def terminator(self) -> Optional[str]:
        found = re.search(r"<<'([A-Za-z0-9_]+)'", self.text)
        return found.group(1) if found else None

    def substitute(self, user_text: bytes) -> bytes:
        """The script an agent runs: the template with the text put in, as SKILL.md says."""
        script = self.text.encode()
        terminator = self.terminator
        if terminator is not None:  # SKILL.md: add _2, _3, ... while some line of the text is the terminator
            lines = user_text.split(b"\n")
            chosen, n = terminator, 1
            while chosen.encode() in lines:
                n += 1
                chosen = f"{terminator}_{n}"
            script = script.replace(terminator.encode(), chosen.encode())
        script = script.replace(b"<slug>", SLUG.encode())  # SKILL.md: the cycle's folder under .sage/work/
        return script.replace(PLACEHOLDER.encode(), user_text)


def skill_templates(markdown: str) -> List[Template]:
    found = re.findall(r"^<!-- template (\S+) dir=(root|sage) -->\n```sh\n(.*?)^```$", markdown, re.S | re.M)
    templates = []
    for name, directory, text in found:
        command = "persist" if name == "persist" else name.split("-")[0]
        templates.append(Template(name, directory, text, command))
    return templates


def derived(template: Template) -> List[Template]:
    """references/layers.md: the fallback layers' announce, resume and persist lines, from their parse line."""
    manifest = MANIFEST_PATH
    first, rest = template.text.split("\n", 1)
    announce = first.replace("parse.sh ", "announce.sh build ").replace(" parse ", " announce build ")
    resume = first.replace("parse.sh ", f"resume.sh {manifest} ").replace(" parse ", f" resume {manifest} ")
    if "parse.sh " in first:
        persist = first + " | " + first.split("parse.sh ")[0].split("<<")[0] + f"persist.sh {manifest}"
    else:
        persist = first + " | " + first.split(" parse ")[0] + f" persist {manifest}"
    suffix = template.name[len("parse") :]
    return [
        Template("announce" + suffix, template.directory, announce + "\n" + rest, "announce"),
        Template("resume" + suffix, template.directory, resume + "\n" + rest, "resume"),
        Template("persist" + suffix, template.directory, persist + "\n" + rest, "persist"),
    ]


TEMPLATES = skill_templates("".join(path.read_text(encoding="utf-8") for path in skill_files()))
BY_NAME: Dict[str, Template] = {t.name: t for t in TEMPLATES}
FALLBACKS = ["parse-installed", "parse-python", "parse-bash"]
SAFE = [t for t in TEMPLATES if t.terminator] + [d for name in FALLBACKS for d in derived(BY_NAME[name])]
SEED = Template("seed", "root", LAUNCHER + ' parse "$ARGUMENTS" --config-path .sage/config.yaml\n', "parse")

TERMINATOR = BY_NAME["parse"].terminator or ""
HOSTILE: Dict[str, Union[str, bytes]] = {
    "issue-example": '--autonomous Fix the "$HOME" bug $(touch canary) now',
    "backticks": "--quality-locked ship `touch canary` it",
    "dollar-home": "deploy to $HOME and ${HOME:-x} and $0 $1 $@",
    "double-quote": 'say "hi" and one more "',
    "single-quote": "it's 'quoted' and one more '",
    "backslash": "path C:\\new\\table \\ end\\",
    "bang": "--autonomous fix it now!! !! !$ !-1 !touch",
    "semicolon": "a; touch canary; b",
    "and-or-pipe": "a && touch canary || touch canary | cat > canary",
    "newlines": "--autonomous line one\nline two\n\n  line four\n",
    "crlf": "--autonomous one\r\ntwo\r\n",
    "terminator-line": f"before\n{TERMINATOR}\n$(touch canary)\nafter",
    "terminator-and-next": f"x\n{TERMINATOR}\n{TERMINATOR}_2\n`touch canary`\ny",
    "heredoc-inside": "<<EOF\n$(touch canary)\nEOF\n<<'EOF'",
    "large-100k": ("--autonomous " + 'word $(touch canary) `touch canary` "q" ' * 3000)[:100_000],
    "non-ascii": "--quality-locked caf\u00e9 \u65e5\u672c\u8a9e \u202egnp.exe \U0001f600 \u00a0x",
    "invalid-utf8": b"--autonomous caf\xe9 \xff \xed\xa0\x80",
    "opt-config-path": "--config-path",
    "opt-config-path-equals": "--config-path=prod.yaml deploy",
    "opt-config-path-value": "--config-path .sage/other.yaml ship",
    "opt-double-dash": "--",
    "opt-double-dash-text": "-- --autonomous is the goal",
    "opt-stdin": "--stdin",
    "empty": "",
}
# What a shell reads as code inside double quotes (the compatible form's hazard).
SHELL_CODE = ["issue-example", "backticks", "dollar-home", "double-quote", "backslash"]
OPTION_LIKE = ["opt-config-path", "opt-config-path-equals", "opt-stdin"]


def as_bytes(text: Union[str, bytes]) -> bytes:
    return text if isinstance(text, bytes) else text.encode("utf-8")


class Project:
    """A Sage project: adopt's skill folder (the default vocabulary's), .sage/config.yaml, the manifest;
    `sage-flags` and `python3` on PATH, or neither (bash only)."""

    def __init__(self, tmp: Path, bash_only: bool = False):
        self.root = tmp / "project"
        self.bash_only = bash_only
        skill = self.root / ".claude" / "skills" / "flag-parser"
        for rel, (data, mode) in adopt.skill_files(_vocab.DEFAULT, "1.1.5").items():  # as adopt writes it (N6)
            (skill / rel).parent.mkdir(parents=True, exist_ok=True)
            (skill / rel).write_bytes(data)
            (skill / rel).chmod(mode & 0o755)
        (self.root / ".sage").mkdir()
        (self.root / ".sage" / "config.yaml").write_bytes(CONFIG)
        self.manifest = self.root / MANIFEST_PATH.replace("<slug>", SLUG)
        self.manifest.parent.mkdir(parents=True)
        bin_dir = tmp / "bin"
        bin_dir.mkdir()
        # The shells, and touch (for the canary).
        tools = {name: shutil.which(name) for name in ("bash", "sh", "cat", "touch")}
        if not bash_only:
            tools["sage-flags"] = SAGE_FLAGS
            # A venv's python finds its packages only when run by its own path: a wrapper, not a symlink.
            (bin_dir / "python3").write_text('#!/bin/sh\nexec "%s" "$@"\n' % PYTHON)
            (bin_dir / "python3").chmod(0o755)
        for name, target in tools.items():
            assert target, name
            (bin_dir / name).symlink_to(target)
        self.env = {"PATH": str(bin_dir), "HOME": str(tmp / "home"), "LC_ALL": "C.UTF-8"}

    def reset(self) -> None:
        self.manifest.write_bytes(MANIFEST)
        for path in self.root.parent.rglob("canary*"):
            path.unlink()

    def canaries(self) -> List[str]:
        return [str(p) for p in self.root.parent.rglob("canary*")]

    def run_script(self, shell: str, template: Template, user_text: bytes) -> subprocess.CompletedProcess:
        self.reset()
        cwd = self.root / "sage" if template.directory == "sage" else self.root
        script = template.substitute(user_text)
        return subprocess.run([shell, "-c", script], cwd=cwd, env=self.env, capture_output=True, timeout=60)

    def direct(self, command: str, user_text: bytes) -> "tuple[bytes, int, bytes]":
        """The same bytes as one operand after `--`, through argv (no shell): stdout, status, manifest after."""
        self.reset()
        config = [b"--config-path", os.fsencode(self.root / ".sage" / "config.yaml")]
        manifest = os.fsencode(self.manifest)
        env = {**os.environ, "PYTHONPATH": ""}
        if command == "persist":
            parsed = subprocess.run([SAGE_FLAGS, "parse", *config, "--", user_text], capture_output=True, env=env)
            done = subprocess.run([SAGE_FLAGS, "persist", manifest], input=parsed.stdout, capture_output=True)
        else:
            head = {"parse": [b"parse"], "announce": [b"announce", b"build"], "resume": [b"resume", manifest]}
            done = subprocess.run([SAGE_FLAGS, *head[command], *config, b"--", user_text], capture_output=True)
        assert done.stderr == b"", done.stderr
        return done.stdout, done.returncode, self.manifest.read_bytes()

    def refusal(self, command: str, user_text: bytes) -> "tuple[bytes, int, bytes]":
        """What the bash layer's persist or resume gives (SPEC P12): the line, status 3 (1 for an error line),
        or the parse with nothing restored; the manifest untouched."""
        self.reset()
        config = [b"--config-path", os.fsencode(self.root / ".sage" / "config.yaml")]
        env = {**os.environ, "PYTHONPATH": ""}
        parsed = subprocess.run([SAGE_FLAGS, "parse", *config, "--", user_text], capture_output=True, env=env)
        if command == "persist":
            return parsed.stdout, parsed.returncode or 3, self.manifest.read_bytes()
        return parsed.stdout[:-2] + b', "notes": []}\n', parsed.returncode, self.manifest.read_bytes()


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Project:
    return Project(tmp_path_factory.mktemp("templates"))


@pytest.fixture(scope="module")
def bash_only_project(tmp_path_factory: pytest.TempPathFactory) -> Project:
    return Project(tmp_path_factory.mktemp("templates-bash"), bash_only=True)


def check(project: Project, shell: str, template: Template, name: str) -> None:
    user_text = as_bytes(HOSTILE[name])
    needs_python = template.command in ("persist", "resume")
    if (project.bash_only or template.name.endswith("-bash")) and needs_python:  # the bash port's refusals (P12)
        expected = project.refusal(template.command, user_text)
    else:
        expected = project.direct(template.command, user_text)
    done = project.run_script(shell, template, user_text)
    where = f"{template.name} under {shell} -c with {name}"
    assert project.canaries() == [], f"{where}: the user's text ran as a command"
    stderr = done.stderr
    stderr_lines = 1 if needs_python and expected[1] == 3 else 0
    assert stderr.count(b"\n") == stderr_lines, f"{where}: stderr {done.stderr[:300]!r}"
    assert (done.stdout, done.returncode) == expected[:2], f"{where}: {done.stdout[:300]!r}"
    assert project.manifest.read_bytes() == expected[2], f"{where}: the manifest differs"


def test_the_document_has_every_template() -> None:
    names = {t.name for t in TEMPLATES}
    assert {"parse", "parse-compatible", "announce", "persist", "resume", *FALLBACKS} <= names
    for template in TEMPLATES:
        assert PLACEHOLDER in template.text, template.name
        first = template.text.split("\n", 1)[0]
        options_end = first.find("<<") if "<<" in first else first.find(" -- ")
        assert options_end > 0, f"{template.name}: the text must come after every option (stdin or --)"
        assert "--config-path" in first[:options_end], template.name
    assert {d.name for name in FALLBACKS for d in derived(BY_NAME[name])} == {
        "announce-installed", "announce-python", "announce-bash", "resume-installed", "resume-python", "resume-bash",
        "persist-installed", "persist-python", "persist-bash",
    }  # fmt: skip
    bash_persist = next(d for d in derived(BY_NAME["parse-bash"]) if d.name == "persist-bash")
    copy = ".claude/skills/flag-parser/scripts"
    vocabulary = "SAGE_FLAGS_VOCABULARY=%s " % _vocab.DEFAULT
    assert "| %sbash %s/sage_flags/bash/persist.sh %s\n" % (vocabulary, copy, MANIFEST_PATH) in bash_persist.text
    python_resume = next(d for d in derived(BY_NAME["parse-python"]) if d.name == "resume-python")
    assert "%s --vocabulary %s resume %s --config-path" % (copy, _vocab.DEFAULT, MANIFEST_PATH) in python_resume.text


@pytest.mark.parametrize("shell", ["bash", "sh"])
@pytest.mark.parametrize("template", SAFE, ids=lambda t: t.name)
def test_safe_template(project: Project, shell: str, template: Template) -> None:
    """Every heredoc template, every hostile text: the parser sees exactly the user's bytes."""
    for name in HOSTILE:
        check(project, shell, template, name)


@pytest.mark.parametrize(
    "template", [t for t in SAFE if t.name in ("parse", "announce", "persist", "resume")], ids=lambda t: t.name
)
def test_safe_template_through_the_bash_layer(bash_only_project: Project, template: Template) -> None:
    """The wrapper's bash layer (no sage-flags, no python3 on PATH) reads the heredoc the same way; persist and
    resume, which need python3, give the bash port's refusals (P12: status 3, one stderr line, the manifest
    untouched; persist reads the pipe and echoes the line, so parse never sees its stdout break)."""
    for name in HOSTILE:
        check(bash_only_project, "bash", template, name)


@pytest.mark.parametrize("name", [*OPTION_LIKE, "non-ascii", "opt-double-dash-text", "empty"])
def test_compatible_form_never_reads_the_text_as_an_option(project: Project, name: str) -> None:
    check(project, "bash", BY_NAME["parse-compatible"], name)


@pytest.mark.parametrize("name", SHELL_CODE)
@pytest.mark.xfail(strict=True, reason="the compatible form's stated hazard: the shell reads the text as code")
def test_compatible_form_hazard(project: Project, name: str) -> None:
    check(project, "bash", BY_NAME["parse-compatible"], name)


@pytest.mark.parametrize("name", SHELL_CODE + OPTION_LIKE)
@pytest.mark.xfail(strict=True, reason="issue 17: the seed's form breaks on shell code and on option-like text")
def test_seed_form_breaks(project: Project, name: str) -> None:
    check(project, "bash", SEED, name)


def test_the_issue_example(project: Project) -> None:
    """Issue 17's example through SKILL.md's first template: the goal as typed, no canary, the config honoured."""
    done = project.run_script("bash", BY_NAME["parse"], as_bytes(HOSTILE["issue-example"]))
    assert done.stdout == (
        b'{"quality_locked": true, "autonomous": true, "goal": "Fix the \\"$HOME\\" bug $(touch canary) now", '
        b'"error": null, "quality_locked_source": "config", "autonomous_source": "flag"}\n'
    )
    assert project.canaries() == []
