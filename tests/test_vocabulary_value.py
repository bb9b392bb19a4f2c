"""The vocabulary is a value (docs/SPEC.md B2): every vocabulary in one process, on both backends, through the
library's argument; the command line reads the name once and passes it down, never importing anything again.

Each answer is checked against the native executable (the Rust core's own command line, which shares no code
with the Python package) run once per vocabulary on the same texts.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, List

import pytest
from sage_flags import _native, _vocab, reference
from sage_flags._result import ParseResult

from parity.layers import NATIVE_EXE

ROOT = Path(__file__).resolve().parent.parent
BACKENDS = {"reference": reference, "native": _native}
# Texts whose answers differ between the vocabularies: each one's flags, its value, a typo, an error of each kind.
TEXTS = [
    "--subagents x",
    "--parallel=9 ship it",
    "--parallel go",
    "--quality-locked --autonomous goal",
    "--subagent x",
    "--paralel=2 x",
    "--no-subagents --subagents x",
    "--subagents=3 x",
    "--parallel=0 x",
    "plain goal --subagents",
    "",
]
CONFIG = b"subagents: true\nparallel: true\nquality_locked: true\n"


def executable_answers(name: str, texts: List[str], config: "Path | None" = None) -> List[str]:
    """The native executable's batch lines for ``texts`` in vocabulary ``name`` (named as a caller names it)."""
    options = ["--config-path", str(config)] if config else []
    done = subprocess.run(
        [str(NATIVE_EXE), "batch", *options],
        input=b"".join(text.encode() + b"\0" for text in texts),
        capture_output=True,
        env={**os.environ, "SAGE_FLAGS_VOCABULARY": name},
        timeout=30,
    )
    lines = done.stdout.decode().splitlines()
    assert len(lines) == len(texts), done
    return lines


@pytest.fixture(scope="module")
def expected() -> Dict[str, List[str]]:
    return {name: executable_answers(name, TEXTS) for name in _vocab.NAMES}


@pytest.mark.parametrize("backend", BACKENDS)
def test_each_vocabulary_answers_in_one_process(backend: str, expected: Dict[str, List[str]]) -> None:
    """B2: parse(text, vocabulary=NAME) gives NAME's answer, whatever was parsed before in this process (the names
    interleaved, in a changing order); no vocabulary is the default's answer."""
    parse = BACKENDS[backend].parse
    for index, text in enumerate(TEXTS):
        names = _vocab.NAMES[index % 3 :] + _vocab.NAMES[: index % 3]
        for name in names:
            result = parse(text, vocabulary=name)
            assert (result.to_json(), result.vocabulary) == (expected[name][index], name), (backend, name, text)
        assert parse(text).to_json() == expected[_vocab.DEFAULT][index], (backend, text)
    assert parse("--subagents x", vocabulary="sage-1.3").subagents is True
    assert parse("--subagents x").error is not None  # the default (sage-1.1) has no --subagents


@pytest.mark.parametrize("backend", BACKENDS)
def test_load_defaults_takes_the_vocabulary(backend: str, tmp_path: Path) -> None:
    """C14 per vocabulary: the same file turns on the modes the named vocabulary has, in one process; parse with
    those defaults gives the executable's answer with --config-path."""
    config = tmp_path / "config.yaml"
    config.write_bytes(CONFIG)
    module = BACKENDS[backend]
    got = {name: module.load_defaults(str(config), vocabulary=name) for name in ("sage-1.3.18", "sage-1.1", "sage-1.3")}
    assert got == {
        "sage-1.1": {"quality_locked": True},
        "sage-1.3": {"quality_locked": True, "subagents": True},
        "sage-1.3.18": {"quality_locked": True, "subagents": True, "parallel": True},
    }
    assert module.load_defaults(str(config)) == got["sage-1.1"]  # positional or not, None or nothing: the default
    assert module.load_defaults(str(config), "sage-1.3") == got["sage-1.3"]
    for name in _vocab.NAMES:
        want = executable_answers(name, ["go"], config)[0]
        assert module.parse("go", got[name], vocabulary=name).to_json() == want, (backend, name)


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_result_carries_its_vocabulary(backend: str) -> None:
    """One ParseResult class: its vocabulary's name, exactly its vocabulary's fields as attributes, and the public
    constructor takes the vocabulary too."""
    parse = BACKENDS[backend].parse
    wide = parse("--parallel=3 go", vocabulary="sage-1.3.18")
    narrow = parse("--autonomous go")
    assert type(wide) is type(narrow) is ParseResult
    assert (wide.vocabulary, narrow.vocabulary) == ("sage-1.3.18", "sage-1.1")
    assert (wide.parallel, wide.parallel_lanes, wide.parallel_note, wide.subagents_source) == (True, 3, None, None)
    assert list(wide.to_dict()) == [line for line in json.loads(wide.to_json())]
    for missing in ("subagents", "parallel_lanes", "nope"):
        assert not hasattr(narrow, missing)
    with pytest.raises(AttributeError):
        narrow.goal = "x"  # type: ignore[misc]
    built = ParseResult(
        {"parallel": True}, {"parallel": "flag"}, "go", None, {"parallel_lanes": 3}, vocabulary="sage-1.3.18"
    )
    assert built == wide and hash(built) == hash(wide) and built.to_json() == wide.to_json()
    assert built != narrow


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_unknown_vocabulary_is_refused_with_b3s_line(backend: str, tmp_path: Path) -> None:
    """B3: never another vocabulary's rules: ValueError with the one line every layer prints; TypeError for what
    is no name."""
    module = BACKENDS[backend]
    for call in (lambda: module.parse("x", vocabulary="sage-9"), lambda: module.load_defaults(str(tmp_path), "")):
        with pytest.raises(ValueError, match="^" + _vocab.UNKNOWN_VOCABULARY.replace("(", r"\(").replace(")", r"\)")):
            call()
    with pytest.raises(TypeError):
        module.parse("x", vocabulary=b"sage-1.3")  # type: ignore[arg-type]
    assert module.parse("--subagents x", vocabulary=None).to_json() == module.parse("--subagents x").to_json()


def python(code: str, env: Dict[str, str]) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if k != "SAGE_FLAGS_VOCABULARY"}
    return subprocess.run(
        [sys.executable, "-c", code], stdin=subprocess.DEVNULL, capture_output=True, env={**full, **env}, timeout=60
    )


@pytest.mark.parametrize("backend", ["python", "native"])
def test_the_library_reads_no_environment(backend: str) -> None:
    """B2: SAGE_FLAGS_VOCABULARY is the command line's to read; the package parses in the vocabulary it is given."""
    code = "import sage_flags; print(sage_flags.BACKEND, sage_flags.parse('--subagents x').to_json())"
    done = python(code, {"SAGE_FLAGS_VOCABULARY": "sage-1.3", "SAGE_FLAGS_BACKEND": backend})
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode() == "%s %s\n" % (backend, reference.parse("--subagents x").to_json())


CLI_IN_ONE_PROCESS = """
import sys, sage_flags
from sage_flags.cli import main
package, backend = sys.modules["sage_flags"], sage_flags.parse
statuses = [
    main(["--vocabulary", "sage-1.3", "parse", "--subagents x"]),
    main(["--vocabulary=sage-1.3.18", "parse", "--parallel=9 x"]),
    main(["parse", "--subagents x"]),
    main(["--vocabulary", "sage-1.3", "batch"]),
]
sys.stdout.flush()
same = sys.modules["sage_flags"] is package and sage_flags.parse is backend
sys.stderr.write("%s %s\\n" % (statuses, same))
"""


@pytest.mark.parametrize("backend", ["python", "native"])
def test_the_command_line_switches_vocabulary_in_one_process(backend: str) -> None:
    """B2: --vocabulary chooses for one call of the command line, in a process that already parsed in another
    vocabulary, on the compiled core too: the same bytes as the executable, and the same package and backend
    before and after (nothing imported again)."""
    done = python(CLI_IN_ONE_PROCESS, {"SAGE_FLAGS_BACKEND": backend})
    want = [
        executable_answers("sage-1.3", ["--subagents x"])[0],
        executable_answers("sage-1.3.18", ["--parallel=9 x"])[0],
        executable_answers("sage-1.1", ["--subagents x"])[0],
    ]
    assert done.stdout.decode().splitlines() == want, done.stderr
    assert done.stderr == b"[0, 0, 1, 0] True\n"


def test_the_generated_vocabularies_are_data() -> None:
    """Generated files hold data: _vocab.py is a docstring and assignments of literals, no code (no import,
    class, function, condition, or environment read)."""
    tree = ast.parse((ROOT / "python" / "sage_flags" / "_vocab.py").read_text(encoding="utf-8"))
    docstring, *body = tree.body
    assert isinstance(docstring, ast.Expr) and isinstance(docstring.value, ast.Constant)
    assert body and all(isinstance(node, ast.Assign) for node in body)
    for node in body:
        ast.literal_eval(node.value)  # raises for anything but a literal
    assert set(_vocab.TABLES) == set(_vocab.NAMES)


DROP_IN_API = """
from core.flag_parser.parser import parse
from core.flag_parser.config_loader import load_defaults
print(parse("--subagents x").to_json())
print(sorted(load_defaults(%r)))
"""


@pytest.mark.parametrize("backend", ["python", "native"])
def test_the_drop_in_api_parses_in_its_vocabulary(backend: str, tmp_path: Path) -> None:
    """B6: the predecessor's API of the drop-in (parser.parse, config_loader.load_defaults) parses in the
    vocabulary the environment names, the package taking it as an argument (a guard: the package no longer
    reads the environment)."""
    config = tmp_path / "config.yaml"
    config.write_bytes(CONFIG)
    code = "import sys; sys.path.insert(0, %r)\n" % str(ROOT / "sage") + DROP_IN_API % str(config)
    done = python(code, {"SAGE_FLAGS_VOCABULARY": "sage-1.3", "SAGE_FLAGS_BACKEND": backend})
    want = executable_answers("sage-1.3", ["--subagents x"])[0] + "\n['quality_locked', 'subagents']\n"
    assert (done.stdout.decode(), done.stderr) == (want, b"")


EVERY_COMMAND = [  # (vocabulary, argv after the option, stdin): the consumers the command line hands the name to
    ("sage-1.3.18", ["announce", "build", "--parallel=7 x"], b""),
    ("sage-1.1", ["announce", "build", "--autonomous x"], b""),
    ("sage-1.3.18", ["config", "explain", "{config}"], b""),
    ("sage-1.1", ["config", "explain", "{config}"], b""),
    ("sage-1.3.18", ["persist", "{manifest}"], "parse:--parallel=3 --subagents go"),
    ("sage-1.3.18", ["resume", "{manifest}", "go"], b""),
    ("sage-1.3", ["resume", "{manifest}", "--subagents go"], b""),
    ("sage-1.3", ["hook", "codex"], b'{"hook_event_name": "UserPromptSubmit", "prompt": "/build --subagents go"}'),
    ("sage-1.1", ["hook", "codex"], b'{"hook_event_name": "UserPromptSubmit", "prompt": "/build --subagents go"}'),
]
IN_ONE_PROCESS = """
import io, json, os, sys
from sage_flags.cli import main
for name, argv, stdin in json.loads(sys.argv[1]):
    read, write = os.pipe()
    os.write(write, stdin.encode("latin-1"))
    os.close(write)
    os.dup2(read, 0)
    os.close(read)
    status = main(["--vocabulary", name, *argv])
    sys.stdout.flush()
    os.write(1, b"status %d\\n" % status)
"""


@pytest.mark.parametrize("backend", ["python", "native"])
def test_every_consumer_takes_the_vocabulary_in_one_process(backend: str, tmp_path: Path) -> None:
    """B2: announce, config explain, persist, resume and hook each get the vocabulary from the command line as a
    value: one process running them in alternating vocabularies prints, byte for byte, what a fresh process for
    each prints."""
    (tmp_path / "c.yaml").write_bytes(CONFIG)
    cases = []
    for name, argv, stdin in EVERY_COMMAND:
        argv = [a.format(config=tmp_path / "c.yaml", manifest=tmp_path / "m.md") for a in argv]
        if isinstance(stdin, str):  # a parse line of this vocabulary, as persist's input
            stdin = executable_answers(name, [stdin[len("parse:") :]])[0].encode() + b"\n"
        cases.append((name, argv, stdin))
    env = {"SAGE_FLAGS_BACKEND": backend}
    fresh = b""
    (tmp_path / "m.md").write_bytes(b"---\ntitle: x\n---\nbody\n")
    for name, argv, stdin in cases:
        done = subprocess.run(
            [sys.executable, "-m", "sage_flags", "--vocabulary", name, *argv],
            input=stdin,
            capture_output=True,
            env={**os.environ, **env},
            timeout=60,
        )
        fresh += done.stdout + b"status %d\n" % done.returncode
    written = (tmp_path / "m.md").read_bytes()
    assert b"parallel_lanes: 3" in written and fresh.count(b"status 0") >= 7, fresh
    (tmp_path / "m.md").write_bytes(b"---\ntitle: x\n---\nbody\n")
    payload = json.dumps([(n, a, s.decode("latin-1")) for n, a, s in cases])
    done = subprocess.run(
        [sys.executable, "-c", IN_ONE_PROCESS, payload], capture_output=True, env={**os.environ, **env}, timeout=60
    )
    assert (done.stdout, done.stderr) == (fresh, b"")
    assert (tmp_path / "m.md").read_bytes() == written
