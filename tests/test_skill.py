"""The flag-parser skill cannot drift from the code: every example in it runs against every layer.

An example is a ```console block in SKILL.md or one of its reference files, a shell session run from a fresh
project directory:
- `$ cat FILE` followed by lines creates FILE holding those lines;
- any other `$ ` line is a command that calls adopt's wrapper, `sh .claude/skills/flag-parser/scripts/sage-flags`
  (alone, or fed by `printf ... |`), with its heredoc's lines after it as `> ` continuation lines, as bash shows
  them; it is followed by its exact stdout, then `$ echo $?` and the status. bash runs the command exactly as
  written, with the wrapper being the layer under test, so the example means what it means typed in a shell.
  Stderr must be empty, unless the command's first line holds `2>/dev/null`: then (that redirection left out)
  exactly one line.
Any other command in a console block fails the test: the skill holds no unchecked example.
"""

from __future__ import annotations

import re
import shlex
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import pytest
from sage_flags import _render
from skill_files import skill_files

from parity.layers import PYTHON, ROOT, SAGE_FLAGS, available_layers, bash_interpreters, vendored_bundle

LAUNCHER = vendored_bundle() / "sage" / "bin" / "sage-flags"  # the bundle's launcher runs its own package (L1)
PROGRAM = _render.LAUNCHER  # what the examples call, as adopt's skill does
FEED = re.compile(r"printf '[^']*' \| ")  # the one way an example may feed standard input besides a heredoc
QUIET = " 2>/dev/null"
FALLBACK = (
    "Sage: Deterministic parsers unavailable (Python and Bash both failed). Using prose-rule fallback for flag parsing."
)


@dataclass
class Command:
    script: str  # the command as written, after "$ ", its continuation lines joined with LF
    stdout: bytes
    status: Optional[int] = None
    stderr_line: bool = False  # its first line holds 2>/dev/null

    @property
    def subcommands(self) -> List[str]:
        return re.findall(re.escape(PROGRAM) + r" (\S+)", self.script.split("\n", 1)[0])


@dataclass
class Example:
    name: str
    steps: List[object] = field(default_factory=list)  # ["file", name, lines] lists and Commands, in order


def parse_examples(markdown: str, source: str = "example") -> List[Example]:
    examples = []
    for number, block in enumerate(re.findall(r"^```console\n(.*?)^```$", markdown, re.S | re.M), 1):
        where = f"{source} {number}"
        example = Example(where)
        current: Optional[object] = None
        pending: Optional[Command] = None
        terminator: Optional[str] = None  # set while the command's heredoc is open
        for line in block.splitlines():
            if terminator is not None:
                assert line.startswith("> "), f"{where}: `{pending.script}`: heredoc line without `> `"
                pending.script += "\n" + line[2:]
                if line[2:] == terminator:
                    terminator = None
                continue
            if line.startswith("$ "):
                text = line[2:]
                if text == "echo $?":
                    assert pending is not None and pending.status is None, f"{where}: stray `echo $?`"
                    current = ("status", pending)
                    pending = None
                    continue
                assert pending is None, f"{where}: `{pending.script}` needs `$ echo $?` after its output"
                if text.startswith("cat ") and " " not in text[4:]:
                    current = ["file", text[4:], []]
                    example.steps.append(current)
                    continue
                fed = FEED.match(text)
                call = text[fed.end() :] if fed else text
                assert call.startswith(PROGRAM + " ") and "|" not in call.split("<<")[0].replace(
                    "| " + PROGRAM + " ", ""
                ), f"{where}: cannot check `{text}`"
                stderr_line = QUIET in text
                pending = Command(text.replace(QUIET, "", 1), b"", stderr_line=stderr_line)
                heredoc = re.search(r"<<'([A-Za-z0-9_]+)'", text)
                terminator = heredoc.group(1) if heredoc else None
                example.steps.append(pending)
                current = pending
            elif isinstance(current, list):
                current[2].append(line)
            elif isinstance(current, Command):
                current.stdout += line.encode("utf-8") + b"\n"
            elif isinstance(current, tuple):
                assert current[1].status is None and line.strip().isdigit(), f"{where}: status line"
                current[1].status = int(line)
            else:
                raise AssertionError(f"{where}: line outside a command: {line!r}")
        assert terminator is None, f"{where}: heredoc never closed"
        assert pending is None, f"{where}: `{pending.script}` needs `$ echo $?`"
        examples.append(example)
    return examples


EXAMPLES = [ex for path in skill_files() for ex in parse_examples(path.read_text(encoding="utf-8"), path.name)]
COMMANDS = [step for ex in EXAMPLES for step in ex.steps if isinstance(step, Command)]
SUBCOMMANDS = sorted({sub for command in COMMANDS for sub in command.subcommands})


Runner = Tuple[List[str], Dict[str, str]]  # the argv that runs the subcommand, extra environment


def runners(subcommand: str) -> Dict[str, Runner]:
    """Layer name -> how it runs ``subcommand``: every layer that has it, and the launcher."""
    found: Dict[str, Runner] = {}
    for layer in available_layers(subcommand):
        env = dict(layer.env)
        if layer.cwd is not None:  # python -m core.flag_parser "run from sage/": the same import path, from anywhere
            env["PYTHONPATH"] = str(layer.cwd)
        found[layer.name] = (layer.commands[subcommand], env)
    if not found:  # Python-only subcommands (config explain): both Python entries
        pure = {"SAGE_FLAGS_BACKEND": "python"}
        found = {
            "cli-pure": ([SAGE_FLAGS, subcommand], pure),
            "module-pure": ([PYTHON, "-m", "sage_flags", subcommand], pure),
        }
    found["launcher"] = ([str(LAUNCHER), subcommand], {})
    return found


def stand_in(layer_for: Dict[str, Runner]) -> str:
    """A wrapper that runs each subcommand through the layer under test (POSIX sh)."""
    cases = []
    for sub, (argv, env) in sorted(layer_for.items()):
        assignments = "".join(f"{name}={shlex.quote(value)} " for name, value in sorted(env.items()))
        cases.append(f'  {shlex.quote(sub)}) shift; {assignments}exec {shlex.join(argv)} "$@" ;;\n')
    return (
        "#!/bin/sh\ncase $1 in\n"
        + "".join(cases)
        + '  *) echo "no such subcommand in this layer" >&2; exit 99 ;;\nesac\n'
    )


def run_example(example: Example, layer_for: Dict[str, Runner], workdir: Path) -> None:
    program = workdir / _render.WRAPPER
    program.parent.mkdir(parents=True)
    program.write_text(stand_in(layer_for))
    program.chmod(0o755)
    for step in example.steps:
        if isinstance(step, list):
            path = workdir / step[1]
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes("".join(line + "\n" for line in step[2]).encode("utf-8"))
            continue
        assert isinstance(step, Command)
        result = subprocess.run(
            ["bash", "--norc", "--noprofile", "-c", step.script + "\n"],
            capture_output=True,
            stdin=subprocess.DEVNULL,
            cwd=workdir,
            timeout=30,
        )
        where = f"{example.name}: {step.script.splitlines()[0]}"
        assert result.stdout == step.stdout, where
        assert result.returncode == step.status, where
        if step.stderr_line:
            assert result.stderr.endswith(b"\n") and result.stderr.count(b"\n") == 1, where
        else:
            assert result.stderr == b"", where


def layer_names() -> List[str]:
    names: List[str] = []
    for sub in SUBCOMMANDS:
        names += [n for n in runners(sub) if n not in names]
    return names


def example_subcommands(example: Example) -> List[str]:
    return sorted({sub for step in example.steps if isinstance(step, Command) for sub in step.subcommands})


# Each example on each layer that has every subcommand it runs (the others are not paired with it).
@pytest.mark.parametrize(
    "example, layer",
    [
        pytest.param(example, layer, id=f"{example.name.replace(' ', '-')}-{layer}")
        for example in EXAMPLES
        for layer in layer_names()
        if all(layer in runners(sub) for sub in example_subcommands(example))
    ],
)
def test_example_on_layer(example: Example, layer: str, tmp_path: Path) -> None:
    layer_for = {sub: runners(sub)[layer] for sub in example_subcommands(example)}
    run_example(example, layer_for, tmp_path / "project")


def test_the_skill_has_examples_of_everything() -> None:
    assert len(COMMANDS) >= 20
    assert {c.status for c in COMMANDS} == {0, 1, 2}
    assert {"parse", "announce", "persist", "resume", "config"} <= set(SUBCOMMANDS)
    assert any(isinstance(s, list) for e in EXAMPLES for s in e.steps), "an example with a config file"
    assert sum("<<'" in c.script for c in COMMANDS) >= 15, "the examples use the heredoc form"


def test_every_example_ran_on_every_bash_layer() -> None:
    assert {bash.name for bash in bash_interpreters()} <= set(layer_names())


def test_the_skill_states_the_fallback_and_the_layer_order() -> None:
    texts = {path.name: path.read_text(encoding="utf-8") for path in skill_files()}
    assert "\n    " + FALLBACK + "\n" in texts["prose-rules.md"]
    layers = texts["layers.md"]
    order = [layers.index(word) for word in ("1. **installed**", "2. **python3**", "3. **bash**")]
    assert order == sorted(order)
    # The vocabulary's listings are the renderer's (SPEC G8), in the templates as placeholders.
    templates = ROOT / "python" / "sage_flags" / "skill"
    skill = (templates / "SKILL.md").read_text(encoding="utf-8")
    assert "\n{{json-keys}}\n" in skill and "\n{{flag-table}}\n" in skill
    prose = (templates / "references" / "prose-rules.md").read_text(encoding="utf-8")
    for block in ("value-modes", "e1-message", "e2-message", "suggestion-table"):
        assert "\n{{%s}}\n" % block in prose, block


def test_the_parser_rejects_an_unchecked_example() -> None:
    with pytest.raises(AssertionError, match="cannot check"):
        parse_examples("```console\n$ rm -rf /\n```\n")
    with pytest.raises(AssertionError, match="cannot check"):
        parse_examples("```console\n$ " + PROGRAM + " parse x | sh\n```\n")
    with pytest.raises(AssertionError, match="echo"):
        parse_examples("```console\n$ " + PROGRAM + " parse x\n{}\n```\n")
    with pytest.raises(AssertionError, match="never closed"):
        parse_examples("```console\n$ " + PROGRAM + " parse --stdin <<'T'\n> x\n```\n")
    block = "```console\n$ " + PROGRAM + " parse --stdin 2>/dev/null <<'T'\n> a\tb\n> T\nout\n$ echo $?\n1\n```\n"
    (example,) = parse_examples(block)
    (command,) = example.steps
    assert isinstance(command, Command)
    assert (command.script, command.stdout, command.status) == (
        PROGRAM + " parse --stdin <<'T'\na\tb\nT",
        b"out\n",
        1,
    )
    assert command.stderr_line and command.subcommands == ["parse"]


def test_a_wrong_example_fails(tmp_path: Path) -> None:
    """The runner is not a rubber stamp: a wrong stdout, status or stray stderr line is caught."""
    layer_for = {"parse": runners("parse")["launcher"]}
    good = "```console\n$ " + PROGRAM + " parse --stdin <<'T'\n> -- x\n> T\n%s\n$ echo $?\n%s\n```\n"
    line = (
        '{"quality_locked": false, "autonomous": false, "goal": "x", "error": null, '
        '"quality_locked_source": null, "autonomous_source": null}'
    )
    run_example(parse_examples(good % (line, 0))[0], layer_for, tmp_path / "ok")
    for n, wrong in enumerate([good % (line.replace('"x"', '"y"'), 0), good % (line, 1)]):
        with pytest.raises(AssertionError):
            run_example(parse_examples(wrong)[0], layer_for, tmp_path / f"wrong-{n}")
    with pytest.raises(AssertionError):  # status 2 writes one stderr line; without 2>/dev/null that fails
        run_example(
            parse_examples("```console\n$ " + PROGRAM + " parse --config-path\n$ echo $?\n2\n```\n")[0],
            layer_for,
            tmp_path / "noisy",
        )
