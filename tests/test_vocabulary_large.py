"""A generated vocabulary far past the old bash port's caps (issue 25): 40 modes, 12 with values, minimums up to 250.

The vocabulary file is written here, built into a copy of the project with the documented command
(tools/build_vocabulary.py, no native core: the pure reference is the oracle), and the copy's bash layer
(batch.sh, parse.sh) is compared with the copy's pure reference byte for byte, under every bash of
$SAGE_FLAGS_BASHES, on generated arguments that use every mode's flags, values at and around each
minimum and cap, conflicts, typos near long names (suggestions), E2 and E5.
"""

from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path
from typing import List, Tuple

import pytest

from parity.layers import PYTHON, ROOT, BashInterpreter

MODES = 40
# (mode index, minimum, cap) of the 12 modes that take a value: minimums of one, two and three digits.
VALUES = [
    (i * 3 + 1, minimum, cap)
    for i, (minimum, cap) in enumerate(
        [
            (1, 4),
            (10, 99),
            (12, 1000),
            (250, 999999999),
            (2, 9),
            (99, 100),
            (10, 10),
            (3, 30),
            (1, 1),
            (47, 470),
            (100, 101),
            (5, 5000),
        ]
    )
]


def _name(i: int) -> str:
    return f"mode-{chr(97 + i % 26)}{i}-x"


def _vocabulary() -> str:
    out = ['workflows = ["build"]\n']  # K3: the generator needs one
    values = {index: (minimum, cap) for index, minimum, cap in VALUES}
    for i in range(MODES):
        out.append(f'[[mode]]\nkey = "{_name(i).replace("-", "_")}"\nname = "{_name(i)}"\n')
        if i in values:
            minimum, cap = values[i]
            out.append(
                f'[mode.value]\nname = "count {chr(97 + i % 26)}"\nmetavar = "N{chr(65 + i % 26)}"\n'
                f'field = "count_{i}"\nnote_field = "note_{i}"\n'
                f'default = {minimum}\nminimum = {minimum}\ncap = {cap}\nabove_cap = "clamp-with-note"\n'
            )
    return "\n".join(out)


@pytest.fixture(scope="module")
def copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # A folder of each xdist worker's own: two workers building one shared folder at once would race.
    where = tmp_path_factory.mktemp("vocabulary-40")
    vocab = where / "vocabulary-40.toml"
    vocab.write_text(_vocabulary())
    build = [PYTHON, "tools/build_vocabulary.py", str(vocab), str(where / "copy"), "--native", "none"]
    subprocess.run(build, cwd=ROOT, check=True, timeout=1800)
    return where / "copy"


def _tokens() -> List[str]:
    values = {index: (minimum, cap) for index, minimum, cap in VALUES}
    tokens = ["--", "--nope", "goal", "x", "--mode", '"q"', "caf\u00e9"]
    for i in range(MODES):
        name = _name(i)
        tokens += [f"--{name}", f"--no-{name}", f"--{name}=1", f"--{name.upper()}", f"--{name[:-1]}", f"--no{name}"]
        if i in values:
            minimum, cap = values[i]
            for n in (0, minimum - 1, minimum, minimum + 1, cap, cap + 1, cap * 10):
                tokens += [f"--{name}={n}", f"--{name}=00{n}"]
            tokens += [f"--{name}=", f"--{name}=x", f"--no-{name}=3"]
    return tokens


def _records(rng: random.Random, count: int) -> List[bytes]:
    tokens = _tokens()
    flags = [t for t in tokens if t.startswith("--mode") and "=" not in t and t[2:].islower()]
    records = []
    for _ in range(count):
        words = [rng.choice(flags) if rng.random() < 0.6 else rng.choice(tokens) for _ in range(rng.randrange(0, 8))]
        gaps = [rng.choice([" ", "  ", "\t", "\x0b\x0c"]) for _ in words]
        records.append("".join(g + w for g, w in zip(gaps, words)).encode())
    return records


def _reference(copy: Path, stdin: bytes, args: Tuple[str, ...] = ()) -> bytes:
    env = {**os.environ, "PYTHONPATH": str(copy / "python"), "SAGE_FLAGS_BACKEND": "python"}
    result = subprocess.run([PYTHON, "-m", "sage_flags", "batch", *args], input=stdin, env=env, capture_output=True)
    return result.stdout


def test_the_vocabulary_is_past_every_old_cap(copy: Path) -> None:
    generated = (copy / "python" / "sage_flags" / "bash" / "parse.sh").read_text()
    assert generated.count("[mode.value]") == 0 and f"--{_name(MODES - 1)}" in generated
    assert MODES > 26 and len(VALUES) > 8 and max(m for _, m, _ in VALUES) >= 10


# make test runs the first records, make test-full the rest (parity/tiers.py: a part "rest" is test-full's).
@pytest.mark.parametrize("part", ["first-40", "rest"])
def test_bash_batch_matches_the_reference(copy: Path, bash: BashInterpreter, part: str, tmp_path: Path) -> None:
    every = _records(random.Random(40), 400)
    records = every[:40] if part == "first-40" else every[40:]
    stdin = b"".join(r + b"\0" for r in records)
    config = tmp_path / "config.yaml"
    config.write_text("".join(f"{_name(i).replace('-', '_')}: true\n" for i in range(0, MODES, 3)))
    for args in ((), ("--config-path", str(config))):
        want = _reference(copy, stdin, args)
        assert want.count(b"\n") == len(records)
        got = subprocess.run(
            [bash.path, str(copy / "python" / "sage_flags" / "bash" / "batch.sh"), *args],
            input=stdin,
            capture_output=True,
            timeout=300,
        )
        assert got.stderr == b""
        for record, line, want_line in zip(records, got.stdout.splitlines(), want.splitlines()):
            assert line == want_line, record


def test_bash_parse_matches_the_reference(copy: Path, bash: BashInterpreter) -> None:
    for record in _records(random.Random(41), 15):
        got = subprocess.run(
            [bash.path, str(copy / "python" / "sage_flags" / "bash" / "parse.sh"), record], capture_output=True
        )
        assert got.stdout == _reference(copy, record + b"\0"), record
