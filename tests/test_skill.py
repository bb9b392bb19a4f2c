"""sage/core/flag_parser/SKILL.md cannot drift from the code: every example in it runs against every layer.

An example is a ```console block, a shell session run from a fresh project directory:
- `$ cat FILE` followed by lines creates FILE holding those lines;
- `$ sage/bin/sage-flags SUBCOMMAND ARGS...` followed by its exact stdout, then `$ echo $?` and the status.
  ARGS are split by bash itself (quotes, $'...'), so the example means what it would mean typed in a shell.
  Stderr must be empty, unless the command ends in `2>/dev/null`: then exactly one line.
Any other command in a console block fails the test: the document holds no unchecked example.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import pytest

from parity.layers import PYTHON, ROOT, SAGE_FLAGS, available_layers, bash_interpreters

SKILL = ROOT / "sage" / "core" / "flag_parser" / "SKILL.md"
LAUNCHER = ROOT / "sage" / "bin" / "sage-flags"
PROGRAM = "sage/bin/sage-flags"
FALLBACK = (
    "Sage: Deterministic parsers unavailable (Python and Bash both failed). Using prose-rule fallback for flag parsing."
)


@dataclass
class Command:
    line: str  # the command as written, after "$ "
    args: List[bytes]
    stdout: bytes
    status: Optional[int] = None
    stderr_line: bool = False  # ends in 2>/dev/null


@dataclass
class Example:
    number: int
    steps: List[object] = field(default_factory=list)  # ["file", name, lines] lists and Commands, in order


def shell_split(text: str) -> List[bytes]:
    """The argv bash makes of ``text`` (no variables are set: examples must not rely on any)."""
    done = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", "printf '%s\\0' " + text],
        capture_output=True,
        env={"PATH": os.environ["PATH"]},
        check=True,
    )
    return done.stdout.split(b"\0")[:-1]


def parse_examples(markdown: str) -> List[Example]:
    examples = []
    for number, block in enumerate(re.findall(r"^```console\n(.*?)^```$", markdown, re.S | re.M), 1):
        example = Example(number)
        current: Optional[object] = None
        pending: Optional[Command] = None
        for line in block.splitlines():
            if line.startswith("$ "):
                text = line[2:]
                if text == "echo $?":
                    assert pending is not None and pending.status is None, f"example {number}: stray `echo $?`"
                    current = ("status", pending)
                    pending = None
                    continue
                assert pending is None, f"example {number}: `{pending.line}` needs `$ echo $?` after its output"
                if text.startswith("cat "):
                    current = ["file", text[4:], []]
                    example.steps.append(current)
                    continue
                assert text.startswith(PROGRAM + " "), f"example {number}: cannot check `{text}`"
                stderr_line = text.endswith(" 2>/dev/null")
                if stderr_line:
                    text = text[: -len(" 2>/dev/null")]
                args = shell_split(text[len(PROGRAM) + 1 :])
                pending = Command(line[2:], args, b"", stderr_line=stderr_line)
                example.steps.append(pending)
                current = pending
            elif isinstance(current, list):
                current[2].append(line)
            elif isinstance(current, Command):
                current.stdout += line.encode("utf-8") + b"\n"
            elif isinstance(current, tuple):
                assert current[1].status is None and line.strip().isdigit(), f"example {number}: status line"
                current[1].status = int(line)
            else:
                raise AssertionError(f"example {number}: line outside a command: {line!r}")
        assert pending is None, f"example {number}: `{pending.line}` needs `$ echo $?`"
        examples.append(example)
    return examples


EXAMPLES = parse_examples(SKILL.read_text(encoding="utf-8"))
SUBCOMMANDS = sorted({step.args[0].decode() for ex in EXAMPLES for step in ex.steps if isinstance(step, Command)})


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


def run_example(example: Example, layer_for: Dict[str, Runner], workdir: Path) -> None:
    workdir.mkdir(parents=True)
    for step in example.steps:
        if isinstance(step, list):
            path = workdir / step[1]
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes("".join(line + "\n" for line in step[2]).encode("utf-8"))
            continue
        assert isinstance(step, Command)
        command, env = layer_for[step.args[0].decode()]
        result = subprocess.run(
            [*command, *step.args[1:]], capture_output=True, cwd=workdir, env={**os.environ, **env}, timeout=30
        )
        where = f"example {example.number}: {step.line}"
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


@pytest.mark.parametrize("layer", layer_names())
@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: f"example-{e.number}")
def test_example_on_layer(example: Example, layer: str, tmp_path: Path) -> None:
    subs = {step.args[0].decode() for step in example.steps if isinstance(step, Command)}
    layer_for = {}
    for sub in subs:
        available = runners(sub)
        if layer not in available:
            pytest.skip(f"{layer} has no {sub}")
        layer_for[sub] = available[layer]
    run_example(example, layer_for, tmp_path / "project")


def test_the_document_has_examples_of_everything() -> None:
    commands = [s for e in EXAMPLES for s in e.steps if isinstance(s, Command)]
    assert len(commands) >= 15
    assert {c.status for c in commands} == {0, 1, 2}
    assert {"parse", "announce", "config"} <= set(SUBCOMMANDS)
    assert any(isinstance(s, list) for e in EXAMPLES for s in e.steps), "an example with a config file"


def test_every_example_ran_on_every_bash_layer() -> None:
    assert {bash.name for bash in bash_interpreters()} <= set(layer_names())


def test_the_document_states_the_fallback_and_the_layer_order() -> None:
    text = SKILL.read_text(encoding="utf-8")
    assert "\n    " + FALLBACK + "\n" in text
    order = [text.index(word) for word in ("1. **installed**", "2. **checkout**", "3. **bash**")]
    assert order == sorted(order)
    begin = "BEGIN GENERATED: "  # spelled apart: tools/generate.py scans this file for markers too
    assert begin + "flag-table" in text and begin + "e1-message" in text


def test_the_parser_rejects_an_unchecked_example() -> None:
    with pytest.raises(AssertionError, match="cannot check"):
        parse_examples("```console\n$ rm -rf /\n```\n")
    with pytest.raises(AssertionError, match="echo"):
        parse_examples("```console\n$ sage/bin/sage-flags parse x\n{}\n```\n")
    (example,) = parse_examples("```console\n$ sage/bin/sage-flags parse $'a\\tb' \"c d\"\nout\n$ echo $?\n1\n```\n")
    (command,) = example.steps
    assert isinstance(command, Command)
    assert (command.args, command.stdout, command.status) == ([b"parse", b"a\tb", b"c d"], b"out\n", 1)
