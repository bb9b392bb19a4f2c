"""The compiled core (sage_flags._native) in-process, against the pure reference.

Its results are the reference's own ParseResult (docs/IMPLEMENTATION.md D23), built from
the core's fields and JSON line: what is checked here is that those values and
bytes are the reference's, whatever the input, and that the module's functions
take their arguments as the reference's do.

`make setup` builds it (maturin develop), so it must be importable here: a
missing native core is a failure, not a skip. Its command lines are covered by
parity/test_vectors.py (the *-native layers) and tests/test_wheels.py.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Dict, Iterator, Optional

import pytest
import sage_flags
import tomllib
from hypothesis import given, settings
from hypothesis import strategies as st
from sage_flags import _native as native
from sage_flags import reference
from sage_flags._vocabulary import vocabulary

from parity import vectors

MODES = vocabulary().modes  # the default's (B1): what parse gives without a vocabulary

ROOT = Path(__file__).resolve().parent.parent
KEYS = [key for key, _ in MODES]
FIELDS = [*KEYS, "goal", "error", *(key + "_source" for key in KEYS)]


def both(arguments: Optional[str], defaults: object = None):
    return native.parse(arguments, defaults), reference.parse(arguments, defaults)  # type: ignore[arg-type]


def assert_same(arguments: Optional[str], defaults: object = None) -> None:
    ours, theirs = both(arguments, defaults)
    assert ours.to_json() == theirs.to_json(), repr(arguments)
    assert ours.to_dict() == theirs.to_dict()
    assert list(ours.to_dict()) == FIELDS
    assert ours == theirs and theirs == ours
    assert hash(ours) == hash(theirs)
    assert repr(ours) == repr(theirs)
    assert ours.ok == theirs.ok and ours.goal == theirs.goal and ours.error == theirs.error
    for field in FIELDS:
        assert getattr(ours, field) == getattr(theirs, field), field


def test_versions_agree() -> None:
    cargo = tomllib.loads((ROOT / "Cargo.toml").read_text(encoding="utf-8"))["workspace"]["package"]["version"]
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    assert cargo == pyproject == sage_flags.__version__ == native.__version__


def test_native_is_the_default_backend() -> None:
    env = {k: v for k, v in os.environ.items() if k != "SAGE_FLAGS_BACKEND"}
    code = "import sage_flags; print(sage_flags.BACKEND, sage_flags.parse.__module__)"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.split() == ["native", "sage_flags._native"]
    forced = subprocess.run(
        [sys.executable, "-c", code], env={**env, "SAGE_FLAGS_BACKEND": "python"}, capture_output=True, text=True
    )
    assert forced.stdout.split() == ["python", "sage_flags.reference"]


# Not the usage errors (decided by argv handling, before the core) nor ARGUMENTS on standard input (I1-I6, read by
# the command line): the CLI layers run those.
IN_PROCESS = [v for v in vectors.load_all("parse") if v.status != 2 and not v.stdin and b"--stdin" not in v.argv]


@pytest.mark.parametrize("vector", IN_PROCESS, ids=lambda v: v.name)
def test_parse_vector_in_process(vector: vectors.Vector, tmp_path: Path) -> None:
    """What cli.py does, with the native functions: every vector's line, byte for byte."""
    operands, config, _ = vectors.split_argv(vector.materialise(tmp_path))
    defaults = native.load_defaults(config)
    assert defaults == reference.load_defaults(config)
    result = native.parse(b" ".join(operands).decode("utf-8", "surrogateescape"), defaults)
    assert (result.to_json() + "\n").encode("utf-8") == vector.stdout
    assert (result.error is None) == (vector.status == 0)


WORDS = [
    *("--" + name for _, name in MODES),
    *("--no-" + name for _, name in MODES),
    *("--%s=%s" % (name, v) for _, name in MODES for v in ("", "1", "a=b")),
    "--",
    "---",
    "-",
    "--x",
    "=",
    "go",
    "Ship",
    " ",
    "\t",
    "\n",
    "\x0b",
    "\x0c",
    "\r",
    "\xa0",
    "\u2028",
    "\u3000",
    "\x85",
    "\x00",
    "\x1f",
    "\x7f",
    '"',
    "\\",
    "\ud800",
    "\udfff",
    "\U0001f600",
    "é",
]


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(WORDS) | st.text(max_size=4), max_size=12).map("".join),
    st.dictionaries(st.sampled_from([*KEYS, "goal", "other"]), st.sampled_from([True, False, 1, 0, "", "x", None])),
)
def test_same_as_reference_on_generated_input(arguments: str, defaults: Dict[str, object]) -> None:
    assert_same(arguments, defaults)
    assert_same(arguments, None)


@pytest.mark.parametrize("arguments", [None, "", "\ud800", "go \udcff", "--autonomous \udfff x", "a\0b", "-h"])
def test_library_level_text(arguments: Optional[str]) -> None:  # C10
    assert_same(arguments)
    if arguments and any("\ud800" <= c <= "\udfff" for c in arguments):
        assert native.parse(arguments).error == reference.E4


def test_non_text_arguments_are_rejected_alike() -> None:  # D23
    for bad in (b"go", 3, ["go"], bytearray(b"go")):
        for backend in (native, reference):
            with pytest.raises(TypeError, match=r"^arguments must be str or None$"):
                backend.parse(bad)  # type: ignore[arg-type]


class LoudStr(str):
    """A str whose methods lie: both backends read its characters, never its methods."""

    def strip(self, *args: object) -> str:  # type: ignore[override]
        return "--autonomous lied"

    def encode(self, *args: object, **kwargs: object) -> bytes:  # type: ignore[override]
        raise UnicodeEncodeError("utf-8", "", 0, 1, "lied")

    def __str__(self) -> str:
        return "--quality-locked lied"


def test_a_str_subclass_is_read_as_its_characters() -> None:  # D23
    for text in ("--autonomous go", "  go  ", "--nope"):
        assert_same(LoudStr(text))
        assert native.parse(LoudStr(text)) == reference.parse(text)


class CountingMapping(Mapping):
    """A Mapping that records which keys were asked with .get()."""

    def __init__(self, data: Dict[str, object]) -> None:
        self.data = data
        self.asked: list = []

    def __getitem__(self, key: str) -> object:
        return self.data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.data)

    def __len__(self) -> int:
        return len(self.data)

    def get(self, key: str, default: object = None) -> object:
        self.asked.append(key)
        return self.data.get(key, default)


class UpperDict(dict):
    """A dict subclass whose .get() differs from item access: .get() must be what counts."""

    def get(self, key, default=None):  # type: ignore[override]
        return dict.get(self, key.upper(), default)


class Falsy:
    """Falsy, and any .get() is a failure: the reference never calls it."""

    def __bool__(self) -> bool:
        return False

    def get(self, key: str) -> object:
        raise AssertionError("get() on a falsy defaults object")


class Broken(dict):
    def get(self, key, default=None):  # type: ignore[override]
        raise KeyError("boom")


def test_defaults_are_read_like_the_reference() -> None:  # C15
    for arguments in ("go", "--quality-locked go", "--bad", "--autonomous --no-quality-locked"):
        mapping = {"quality_locked": 1, "autonomous": "yes"}
        ours, theirs = CountingMapping(mapping), CountingMapping(mapping)
        native.parse(arguments, ours)
        reference.parse(arguments, theirs)
        assert ours.asked == theirs.asked, arguments
        assert_same(arguments, CountingMapping(mapping))
        assert_same(arguments, UpperDict(QUALITY_LOCKED=True))
        assert_same(arguments, Falsy())
        assert_same(arguments, {"quality_locked": 0, "autonomous": []})
    with pytest.raises(KeyError):
        native.parse("go", Broken(x=1))
    with pytest.raises(KeyError):
        reference.parse("go", Broken(x=1))


def test_result_is_immutable_hashable_and_constructible() -> None:
    result = native.parse("--autonomous go", {"quality_locked": True})
    for name in ("goal", "error", "ok", *FIELDS, "new_field"):
        with pytest.raises(AttributeError):
            setattr(result, name, "x")
    with pytest.raises(AttributeError):
        del result.goal
    with pytest.raises(AttributeError):
        result.no_such_field  # noqa: B018
    assert {result, native.parse("--autonomous go", {"quality_locked": True})} == {result}
    assert result != native.parse("--autonomous go")
    assert result != "not a result" and result.__eq__(3) is NotImplemented
    modes = {"quality_locked": True, "autonomous": True}
    sources = {"quality_locked": "config", "autonomous": "flag"}
    assert native.ParseResult(modes, sources, "go") == result == reference.ParseResult(modes, sources, "go")


def test_the_result_is_the_reference_class() -> None:  # D23: one class, so one __eq__, __hash__, repr, constructor
    assert native.ParseResult is reference.ParseResult is sage_flags.ParseResult
    for arguments in ("--autonomous go", "--nope", "\ud800", ""):
        assert type(native.parse(arguments)) is reference.ParseResult


def test_to_json_gives_the_line_the_core_wrote() -> None:
    """The private path keeps the core's line as it is (no second rendering): a wrong line would show."""
    fields = reference.parse("--autonomous go").to_dict()
    carried = sage_flags._from_core(tuple(fields.values()), "the core's line", "sage-1.1")
    assert carried.to_json() == "the core's line"
    assert carried == reference.parse("--autonomous go") and carried.goal == "go"
    assert hash(carried) == hash(reference.parse("--autonomous go"))


def test_load_defaults_path_types(tmp_path: Path) -> None:  # C11-C14
    config = tmp_path / "c\udcff.yaml" if sys.getfilesystemencoding() == "utf-8" else tmp_path / "c.yaml"
    config.write_bytes(b"\xef\xbb\xbfautonomous: true\r\nquality_locked: true\n")

    class BytesPath:
        def __fspath__(self) -> bytes:
            return os.fsencode(config)

    wanted = {"quality_locked": True, "autonomous": True}
    for path in (config, str(config), os.fsencode(config), BytesPath()):
        assert native.load_defaults(path) == reference.load_defaults(path) == wanted
    assert list(native.load_defaults(config)) == KEYS  # vocabulary order
    for nothing in (None, "", b"", 3, "a\0b", str(tmp_path), "/dev/zero", str(tmp_path / "missing")):
        assert native.load_defaults(nothing) == reference.load_defaults(nothing) == {}  # type: ignore[arg-type]


def test_load_defaults_never_blocks_on_a_fifo(tmp_path: Path) -> None:  # C12
    fifo = tmp_path / "config.yaml"
    os.mkfifo(fifo)
    code = "import sys; from sage_flags import _native; print(_native.load_defaults(sys.argv[1]))"
    done = subprocess.run([sys.executable, "-c", code, str(fifo)], capture_output=True, text=True, timeout=10)
    assert done.stdout == "{}\n"


def test_10000_flags_in_128_kib() -> None:  # C21: the size only; how time grows with it is make bench's
    text = "--autonomous " * 10_000 + "go"
    assert len(text.encode()) > 128_000
    assert native.parse(text).goal == "go"
    assert native.parse("--autonomous " * 10_000 + "--no-autonomous").error is not None


def test_stub_lists_the_module_api() -> None:
    stub = (ROOT / "python" / "sage_flags" / "_native.pyi").read_text(encoding="utf-8")
    public = {name for name in dir(native) if not name.startswith("_")}
    assert public == {"ParseResult", "load_defaults", "parse"}
    assert re.search(r"^from sage_flags\.reference import ParseResult as ParseResult$", stub, re.M)
    for name in public - {"ParseResult"}:
        assert re.search(r"^def %s\b" % name, stub, re.M), name
