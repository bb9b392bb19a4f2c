"""Load the language-neutral vectors in parity/vectors/ and materialise them.

One JSON Lines file per vocabulary, parity/vectors/<vocabulary>.jsonl, one vector per line; the format is
documented in parity/README.md. Every byte field (argv items, config content, stdin) is a JSON string (its UTF-8
bytes), ``{"hex": "..."}`` for bytes that are not UTF-8, or a description of long bytes:
``{"repeat": FIELD, "times": N}`` and ``{"join": [FIELD, ...]}``.
"""

from __future__ import annotations

import functools
import json
import os
import re
import stat
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Tuple, Union

from parity.optional import missing

if TYPE_CHECKING:
    from parity.layers import Layer

ROOT = Path(__file__).resolve().parent.parent
VECTOR_DIR = ROOT / "parity" / "vectors"
CONFIG_PLACEHOLDER = b"{config}"
MANIFEST_PLACEHOLDER = b"{manifest}"

ByteField = Union[str, Dict[str, object]]


def to_bytes(value: ByteField) -> bytes:
    if isinstance(value, str):
        return value.encode("utf-8")
    if set(value) == {"hex"}:
        return bytes.fromhex(str(value["hex"]))
    if set(value) == {"repeat", "times"} and isinstance(value["times"], int) and value["times"] >= 0:
        return to_bytes(value["repeat"]) * value["times"]  # type: ignore[arg-type]
    if set(value) == {"join"} and isinstance(value["join"], list):
        return b"".join(to_bytes(part) for part in value["join"])
    raise ValueError(f"not a byte field: {json.dumps(value)[:200]}")


def from_bytes(data: bytes) -> Union[str, Dict[str, str]]:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return {"hex": data.hex()}


def default_vocabulary(root: Path = ROOT) -> str:
    """The name of the vocabulary ``root``'s spec/flags.toml holds (docs/SPEC.md B1): its vectors are the default's.
    Its top-level ``name`` line, before the first table, read with a pattern (Python 3.8 has no tomllib); without
    one, tools/generate.py's name for it, own-<file stem>."""
    text = (root / "spec" / "flags.toml").read_text(encoding="utf-8")
    top = re.split(r"^\[", text, maxsplit=1, flags=re.MULTILINE)[0]
    found = re.search(r'^name\s*=\s*"([^"\\]+)"', top, re.MULTILINE)
    return found.group(1) if found else "own-flags"


def vector_file(vocabulary: Optional[str] = None, directory: Path = VECTOR_DIR) -> Path:
    """The file of ``vocabulary``'s vectors (the default vocabulary's when None)."""
    return directory / f"{vocabulary or default_vocabulary()}.jsonl"


# A line's keys in this order; other keys (a manifest, ...) after "stdin", in the order they were written.
HEAD_KEYS = (
    "name",
    "rules",
    "note",
    "checked_against",
    "before",
    "command",
    "argv",
    "config",
    "env",
    "stdin_from_parse",
    "stdin",
)
RESULT_KEYS = ("expect", "stderr", "stdout", "status")  # the hand-written expectation, then the results


def canonical_line(data: dict) -> str:
    """A vector's line as the files hold it: keys in HEAD_KEYS, other, RESULT_KEYS order; ASCII JSON (no
    character can end the line early, not even U+2028); one newline."""
    head = [k for k in HEAD_KEYS if k in data]
    tail = [k for k in RESULT_KEYS if k in data]
    ordered = {k: data[k] for k in head + [k for k in data if k not in head and k not in tail] + tail}
    return json.dumps(ordered, ensure_ascii=True) + "\n"


@dataclass(frozen=True)
class Vector:
    name: str
    rules: Tuple[str, ...]
    argv: Tuple[bytes, ...]
    stdout: bytes
    status: int
    command: str = "parse"
    config: Optional[dict] = None
    env: Dict[str, str] = field(default_factory=dict)
    stdin: bytes = b""
    note: str = ""
    # The items before the subcommand (B2's --vocabulary): only the layers that take them run the vector.
    before: Tuple[bytes, ...] = ()
    # The exact stderr, when the line gives it (B3's lines); else only its shape is checked (one line or none).
    stderr: Optional[bytes] = None
    # Other keys of the line, kept as they are: "manifest" (persist/resume), "expect", "checked_against", ...
    extra: Dict[str, object] = field(default_factory=dict)

    def materialise(self, workdir: Path) -> List[bytes]:
        """Create the config in ``workdir``; return argv with ``{config}`` replaced."""
        path = make_config(self.config, workdir) if self.config else None
        argv = []
        for item in self.argv:
            if CONFIG_PLACEHOLDER in item:
                assert path is not None, f"{self.name}: {{config}} used without a config"
                item = item.replace(CONFIG_PLACEHOLDER, os.fsencode(path))
            argv.append(item)
        return argv

    def to_data(self) -> dict:
        """The vector as a line's JSON object (its bytes spelled out)."""
        data: dict = {"name": self.name, "rules": list(self.rules)}
        if self.note:
            data["note"] = self.note
        if self.before:
            data["before"] = [from_bytes(a) for a in self.before]
        if self.command != "parse":
            data["command"] = self.command
        data["argv"] = [from_bytes(a) for a in self.argv]
        if self.config:
            data["config"] = self.config
        if self.env:
            data["env"] = self.env
        if self.stdin or self.command == "batch":
            data["stdin"] = from_bytes(self.stdin)
        data.update(self.extra)
        if self.stderr is not None:
            data["stderr"] = self.stderr.decode("utf-8")
        data["stdout"] = self.stdout.decode("utf-8")
        data["status"] = self.status
        return data

    def to_json(self) -> str:
        """The vector as one line of a vector file (ready to add to parity/vectors/<vocabulary>.jsonl)."""
        return canonical_line(self.to_data())


def make_config(spec: dict, workdir: Path) -> Path:
    """Create the config file (or non-file) a vector describes; return its path."""
    kind = spec["type"]
    path = workdir / "config.yaml"
    content = to_bytes(spec.get("content", "")) * spec.get("repeat", 1) + to_bytes(spec.get("append", ""))
    if kind == "file":
        path.write_bytes(content)
    elif kind == "missing":
        pass
    elif kind == "directory":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "dangling-symlink":
        path.symlink_to(workdir / "no-such-target.yaml")
    elif kind == "loop-symlink":
        path.symlink_to(workdir / "loop.yaml")
        (workdir / "loop.yaml").symlink_to(path)
    elif kind == "symlink":
        (workdir / "target.yaml").write_bytes(content)
        path.symlink_to(workdir / "target.yaml")
    elif kind == "symlink-to-fifo":
        os.mkfifo(workdir / "target.fifo")
        path.symlink_to(workdir / "target.fifo")
    else:
        raise ValueError(f"unknown config type {kind!r}")
    if "size" in spec:  # extended with a hole (sparse: a 4 GiB config costs nothing to make)
        os.truncate(path, spec["size"])
    return path


KNOWN_FIELDS = {
    *("name", "rules", "note", "before", "command", "argv", "config", "env", "stdin", "stderr", "stdout", "status"),
}


def from_data(data: dict) -> Vector:
    """A line's JSON object as a Vector (byte fields expanded)."""
    return Vector(
        name=data["name"],
        rules=tuple(data["rules"]),
        argv=tuple(to_bytes(a) for a in data["argv"]),
        stdout=data["stdout"].encode("utf-8"),
        status=data["status"],
        command=data.get("command", "parse"),
        config=data.get("config"),
        env=data.get("env", {}),
        stdin=to_bytes(data.get("stdin", "")),
        note=data.get("note", ""),
        before=tuple(to_bytes(a) for a in data.get("before", ())),
        stderr=data["stderr"].encode("utf-8") if "stderr" in data else None,
        extra={k: v for k, v in data.items() if k not in KNOWN_FIELDS},
    )


def read_lines(path: Path) -> List[dict]:
    """The JSON objects of a vector file, one per non-empty line; ValueError naming the file and line of one that
    is not a JSON object."""
    found = []
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
        if line.strip():
            try:
                data = json.loads(line)
            except ValueError as error:
                raise ValueError(f"{path.name}:{number}: not JSON: {error}") from None
            if not isinstance(data, dict):
                raise ValueError(f"{path.name}:{number}: not a JSON object")
            found.append(data)
    return found


def load_file(path: Path) -> List[Vector]:
    return [from_data(data) for data in read_lines(path)]


def load(path: Path) -> Vector:
    """The one vector of a file of one line (the fuzzer's parity/failures/fuzz-COMMAND.jsonl)."""
    (vector,) = load_file(path)
    return vector


def load_all(command: Optional[str] = None, vocabulary: Optional[str] = None, *, before: bool = False) -> List[Vector]:
    """The vectors of ``vocabulary`` (this project's default vocabulary's when None; none when this copy of the
    project carries no vectors for it, as a copy built for a new vocabulary: tools/build_vocabulary.py). Those with
    items before the subcommand (B2's option) only with ``before``: a test that runs them places the items (Layer.run's
    ``before``) and pairs them only with the layers that take them (``Layer.program``)."""
    path = vector_file(vocabulary)
    if vocabulary is None and not path.exists():
        return []
    vectors = load_file(path)
    return [v for v in vectors if (command is None or v.command == command) and (before or not v.before)]


def windows_lacks(vector: Vector) -> List[str]:
    """What a vector needs that Windows does not have: "fifo" (a FIFO as config or manifest), "non-UTF-8 argv"
    (a Windows command line is UTF-16 text), "permission bits" (a manifest's POSIX mode)."""
    lacks = []
    manifest = vector.extra.get("manifest")
    manifest = manifest if isinstance(manifest, dict) else {}
    if (vector.config or {}).get("type") in ("fifo", "symlink-to-fifo") or manifest.get("type") == "fifo":
        lacks.append("fifo")
    if any(not _is_utf8(item) for item in vector.argv):
        lacks.append("non-UTF-8 argv")
    if "mode" in manifest:
        lacks.append("permission bits")
    return lacks


def cannot_run_here(vector: Vector) -> Optional[str]:
    """Why the vector cannot be set up on this system (a reason for pytest.skip), or None.

    Windows: what ``windows_lacks`` lists. Anywhere: a locale the vector's environment names and this machine
    does not have (bash warns on stderr before any script line runs: SPEC D24), a reason of
    ``parity.optional.missing`` (.ci/run installs the locales; under CI=true such a skip fails).
    """
    lacks = windows_lacks(vector) if os.name == "nt" else []
    manifest = vector.extra.get("manifest")
    if isinstance(manifest, dict) and manifest.get("as") == "root" and getattr(os, "geteuid", lambda: -1)() != 0:
        lacks.append("root user (the vector states what persist does for root)")
    if lacks:
        return f"{vector.name}: this system has no {' or '.join(lacks)}"
    return locale_missing(vector.env, "a vector's environment")


def locale_missing(env: Dict[str, str], what_for: str) -> Optional[str]:
    """The skip reason (``parity.optional.missing``) when ``env`` names a locale this machine lacks, else None."""
    locales = sorted({name for key, name in env.items() if key in LOCALE_VARIABLES and _locale_missing(name)})
    if locales:
        return missing(f"locale {' and '.join(locales)}", f"{what_for} names it, and bash warns without it")
    return None


LOCALE_VARIABLES = ("LC_ALL", "LC_CTYPE", "LANG")


@functools.lru_cache(maxsize=None)
def _locale_missing(name: str) -> bool:
    """Whether the C library refuses locale ``name`` (asked in a child: setlocale is process-wide)."""
    probe = "import locale, sys; locale.setlocale(locale.LC_CTYPE, sys.argv[1])"
    return subprocess.run([sys.executable, "-c", probe, name], capture_output=True, timeout=60).returncode != 0


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def assert_matches(vector: Vector, result: "subprocess.CompletedProcess[bytes]", where: str) -> None:
    """stdout and status exactly as the vector says; stderr empty for 0/1, one line otherwise (C3, C19), and
    exactly the vector's when it gives it."""
    assert result.stdout == vector.stdout, f"{where}: stdout differs"
    assert result.returncode == vector.status, f"{where}: exit status {result.returncode}"
    if vector.stderr is not None:
        assert result.stderr == vector.stderr, f"{where}: stderr {result.stderr!r}"
    if vector.status in (0, 1):
        assert result.stderr == b"", f"{where}: stderr must be empty with status 0/1 (C19)"
    else:
        assert result.stderr.endswith(b"\n") and result.stderr.count(b"\n") == 1, f"{where}: one stderr line"


FILL_PLACEHOLDER = b"{fill}"


def manifest_bytes(spec: dict, key: str) -> Optional[bytes]:
    """A manifest's "before" or "after" bytes (None when absent or null). With "fill": N, `{fill}` in them
    stands for N bytes `A` (a front matter at its size bound, P10, in a short vector)."""
    value = spec.get(key)
    if value is None:
        return None
    data = to_bytes(value)
    return data.replace(FILL_PLACEHOLDER, b"A" * spec["fill"]) if "fill" in spec else data


def manifest_file(spec: dict, path: Path) -> Path:
    """The file that holds the manifest's bytes: the symlink's target for a "symlink" manifest, else ``path``."""
    return path.parent / "target.md" if spec.get("type", "file") == "symlink" else path


def materialise_manifest(spec: dict, workdir: Path) -> Path:
    """Create the manifest (or non-file) a persist/resume vector describes; return the manifest path.

    The "manifest" field is documented in tests/test_manifest.py.
    """
    path = workdir / "manifest.md"
    before = manifest_bytes(spec, "before")
    kind = spec.get("type", "file")
    if kind == "directory":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "symlink":
        target = workdir / "target.md"
        if before is not None:
            target.write_bytes(before)
        path.symlink_to("target.md")
    elif before is not None:
        path.write_bytes(before)
    if "mode" in spec:
        manifest_file(spec, path).chmod(int(spec["mode"], 8))
    return path


def placed(vector: Vector) -> Dict[str, Tuple[bytes, ...]]:
    """Layer.run's ``before`` for a vector with items before the subcommand; nothing for the others (so that a
    runner of its own, the Windows simulation's, needs no such parameter)."""
    return {"before": vector.before} if vector.before else {}


def run_manifest_vector(
    layer: "Layer", vector: Vector, workdir: Path
) -> "Tuple[subprocess.CompletedProcess[bytes], Path]":
    spec = vector.extra["manifest"]
    path = materialise_manifest(spec, workdir)
    argv = [item.replace(MANIFEST_PLACEHOLDER, os.fsencode(path)) for item in vector.materialise(workdir)]
    result = layer.run(vector.command, argv, stdin=vector.stdin, env=vector.env, cwd=workdir, **placed(vector))
    return result, path


def check_manifest_vector(layer: "Layer", vector: Vector, workdir: Path) -> None:
    """A persist/resume vector: stdout, status, stderr, and the manifest's bytes (and bits) afterwards."""
    spec = vector.extra["manifest"]
    result, path = run_manifest_vector(layer, vector, workdir)
    where = f"{layer.name} {vector.name}"
    assert result.stdout == vector.stdout, f"{where}: stdout {result.stdout!r}"
    assert result.returncode == vector.status, f"{where}: status {result.returncode}, stderr {result.stderr!r}"
    if vector.stderr is not None:
        assert result.stderr == vector.stderr, f"{where}: stderr {result.stderr!r}"
    if vector.status in (0, 1):
        assert result.stderr == b"", f"{where}: stderr must be empty"
    else:
        assert result.stderr.count(b"\n") == 1 and result.stderr.endswith(b"\n"), f"{where}: {result.stderr!r}"
    kind = spec.get("type", "file")
    target = manifest_file(spec, path)
    if kind == "symlink":
        assert path.is_symlink(), f"{where}: the symlink was replaced"
    expected = manifest_bytes(spec, "after" if "after" in spec else "before")
    if kind in ("directory", "fifo"):
        assert path.is_dir() if kind == "directory" else stat.S_ISFIFO(path.lstat().st_mode), where
    elif expected is None:
        assert not os.path.lexists(target), f"{where}: a manifest was created"
    else:
        assert target.read_bytes() == expected, f"{where}: manifest bytes differ"
        if "mode" in spec:
            assert stat.S_IMODE(target.stat().st_mode) == int(spec["mode"], 8), f"{where}: permission bits"
    leftovers = [p.name for p in workdir.iterdir() if ".sage-flags-tmp." in p.name]
    assert not leftovers, f"{where}: temp files left: {leftovers}"


def check(layer: "Layer", vector: Vector, workdir: Path) -> None:
    """Any vector through ``layer``'s real command line, every byte checked. A `config` (explain) vector runs
    in its own directory, so the path it names (e.g. `config.yaml`) is printed as typed."""
    if "manifest" in vector.extra:
        check_manifest_vector(layer, vector, workdir)
        return
    cwd = workdir if vector.command == "config" else None
    materialised = vector.materialise(workdir)
    result = layer.run(vector.command, materialised, stdin=vector.stdin, env=vector.env, cwd=cwd, **placed(vector))
    assert_matches(vector, result, f"{layer.name} {vector.name}")


def split_argv(items: Sequence[bytes], stdin_switch: bool = False) -> Tuple[List[bytes], Optional[bytes], bool]:
    """C1 (and I1 with ``stdin_switch``: parse, announce, resume): operands, config path, whether --stdin was given.

    The harness's one copy of C1, written again here on purpose: the runners must not trust the code under test.
    ValueError for C3 (--config-path without its value).
    """
    operands: List[bytes] = []
    config = None
    from_stdin = False
    i = 0
    while i < len(items):
        item = items[i]
        if item == b"--":
            operands += items[i + 1 :]
            break
        if item == b"--config-path":  # its value is never the switch
            if i + 1 == len(items):
                raise ValueError("C3")
            config = items[i + 1]
            i += 2
            continue
        if item.startswith(b"--config-path="):
            config = item[len(b"--config-path=") :]
        elif stdin_switch and item == b"--stdin":
            from_stdin = True
        else:
            operands.append(item)
        i += 1
    return operands, config, from_stdin
