"""`sage-flags config explain PATH [--json]`.

Every rejected variant of C14 gets its reason (one verdict per line: the first reason that applies); the verdict
"honored" agrees with load_defaults.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import List, Tuple

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sage_flags._vocabulary import vocabulary
from sage_flags.explain import explain, render_text
from sage_flags.reference import load_defaults

from parity import vectors
from parity.layers import PYTHON, SAGE_FLAGS, Layer

CLI = [[SAGE_FLAGS], [PYTHON, "-m", "sage_flags"]]

# Every rejected variant of C14 in the vectors, and the reason code explain must give for it.
REJECTED = {
    "cfg-rejected-double-quoted": "quoted-value",
    "cfg-rejected-false": "false-value",
    "cfg-rejected-indented-space": "indented",
    "cfg-rejected-indented-tab": "indented",
    "cfg-rejected-key-dashed": "key-name",
    "cfg-rejected-key-prefixed": "key-name",
    "cfg-rejected-key-quoted": "quoted-key",
    "cfg-rejected-key-titlecase": "key-name",
    "cfg-rejected-list-item": "list-item",
    "cfg-rejected-longer-key": "key-name",
    "cfg-rejected-no-space": "no-space-after-colon",
    "cfg-rejected-on": "yaml-alias",
    "cfg-rejected-one": "yaml-alias",
    "cfg-rejected-single-quoted": "quoted-value",
    "cfg-rejected-space-before-colon": "space-before-colon",
    "cfg-rejected-tab-after-colon": "tab-after-colon",
    "cfg-rejected-titlecase": "value-case",
    "cfg-rejected-trailing-comment": "trailing-comment",
    "cfg-rejected-trailing-space": "trailing-space",
    "cfg-rejected-trailing-vt": "trailing-space",
    "cfg-rejected-two-spaces": "extra-space",
    "cfg-rejected-uppercase": "value-case",
    "cfg-rejected-value-longer": "other-value",
    "cfg-rejected-value-shorter": "other-value",
    "cfg-rejected-yes": "yaml-alias",
}
CONFIG_VECTORS = [v for v in vectors.load_all() if v.config]


def run(args: List[bytes], prefix: List[str] = CLI[0]) -> subprocess.CompletedProcess:
    env = dict(os.environ, SAGE_FLAGS_BACKEND="python")
    return subprocess.run([*prefix, "config", "explain", *args], capture_output=True, env=env, timeout=30)


def report(path: Path) -> dict:
    result = run([os.fsencode(path), b"--json"])
    assert (result.returncode, result.stderr) == (0, b""), result.stderr
    return json.loads(result.stdout)


def expected_reports(path: bytes) -> List[Tuple[List[bytes], bytes]]:
    """(config explain's arguments, its exact stdout) for both forms of the report on ``path``, made here."""
    report = explain(path)
    return [
        ([path, b"--json"], json.dumps(report, ensure_ascii=True).encode("ascii") + b"\n"),
        ([path], render_text(report).encode("utf-8", "surrogateescape")),
    ]


def check_explain(layer: Layer, vector: vectors.Vector, workdir: Path, text_too: bool = True) -> None:
    """config explain on a vector's config through a layer: the --json report (and the text one) byte for byte,
    status 0, no stderr; and every mode the vector's own output says the config turned on is a default in it."""
    path = os.fsencode(vectors.make_config(vector.config, workdir))
    for args, expected in expected_reports(path)[: 2 if text_too else 1]:
        result = layer.run("explain", args, cwd=workdir)
        where = f"{layer.name} {vector.name} config explain {b' '.join(args[1:]).decode()}"
        assert (result.stdout, result.returncode, result.stderr) == (expected, 0, b""), where
    if vector.command == "parse" and vector.status == 0:
        fields = json.loads(vector.stdout)
        on = {key for key, _ in vocabulary().modes if fields[key + "_source"] == "config"}
        assert on <= {key for key, value in json.loads(expected_reports(path)[0][1])["defaults"].items() if value}


def test_every_rejected_vector_has_a_reason() -> None:
    names = {v.name for v in vectors.load_all() if v.name.startswith("cfg-rejected-")}
    assert names == set(REJECTED), "a new cfg-rejected-* vector needs its expected reason here"


@pytest.mark.parametrize("name", sorted(REJECTED))
def test_rejected_variant(name: str, tmp_path: Path) -> None:
    (vector,) = [v for v in vectors.load_all() if v.name == name]
    path = vectors.make_config(vector.config, tmp_path)
    data = report(path)
    assert len(data["lines"]) == 1, data
    line = data["lines"][0]
    assert (line["line"], line["mode"], line["verdict"]) == (1, "quality_locked", "ignored")
    assert line["reason"]["code"] == REJECTED[name], line  # one verdict: the first reason that applies
    assert data["defaults"]["quality_locked"] is False
    text = run([os.fsencode(path)]).stdout.decode()
    assert "line 1: " in text and "not honored: " in text and "quality_locked no default" in text


@pytest.mark.parametrize("vector", CONFIG_VECTORS, ids=lambda v: v.name)
def test_honored_agrees_with_load_defaults_on_every_config_vector(vector: vectors.Vector, tmp_path: Path) -> None:
    path = vectors.make_config(vector.config, tmp_path)
    data = explain(os.fsencode(path))
    expected = load_defaults(path)
    honored = {line["mode"] for line in data["lines"] if line["verdict"] == "honored"}
    assert honored == set(expected)
    assert data["defaults"] == {key: key in expected for key, _ in vocabulary().modes}


_KEYS = ["quality_locked", "autonomous", "Quality_Locked", "autonomy", "x", "- ", "#", "\ufeff", "\xa0"]
_SEPARATORS = [":", ": ", ":  ", " ", "\t", "=", "\r", "\x00"]
_VALUES = ["true", "True", "yes", "'true'", "false"]
_LINE_PIECES = st.sampled_from([*_KEYS, *_SEPARATORS, *_VALUES])
_CONTENT = st.lists(st.lists(_LINE_PIECES, max_size=5).map("".join), max_size=6).map("\n".join)


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(content=_CONTENT, bom=st.booleans(), crlf=st.booleans())
def test_honored_agrees_with_load_defaults_on_generated_files(tmp_path_factory, content, bom, crlf) -> None:
    path = tmp_path_factory.mktemp("explain") / "config.yaml"
    data = content.replace("\n", "\r\n" if crlf else "\n").encode()
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + data)
    result = explain(os.fsencode(path))
    honored = {line["mode"] for line in result["lines"] if line["verdict"] == "honored"}
    assert honored == set(load_defaults(path))
    for line in result["lines"]:
        assert (line["verdict"] == "honored") == (line["reason"] is None), line


@pytest.mark.parametrize(
    ("content", "code"),
    [
        (b"quality_locked: true\0\n", "nul"),
        (b"\xef\xbb\xbfquality_locked: true\n", "bom"),
        (b"quality_locked: true\r\n", "crlf"),
        (b"quality_locked: true\rautonomous: true\r", "cr-only"),
        (b"", "empty"),
    ],
)
def test_file_level_findings(content: bytes, code: str, tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_bytes(content)
    data = report(path)
    assert code in [f["code"] for f in data["findings"]]
    assert data["defaults"] == {key: key in load_defaults(path) for key, _ in vocabulary().modes}


def test_nul_file_lines_are_not_honored(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_bytes(b"quality_locked: true\nx\0")
    (line,) = report(path)["lines"]
    assert (line["verdict"], line["reason"]["code"]) == ("ignored", "file-has-nul")


def test_cr_only_file_lines_explained(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_bytes(b"quality_locked: true\rautonomous: true")
    data = report(path)
    assert [line["mode"] for line in data["lines"]] == ["quality_locked", "autonomous"]
    assert all(line["reason"]["code"] == "bare-cr" for line in data["lines"])


@pytest.mark.parametrize(
    ("content", "codes", "where"),
    [
        (b"quality_locked: true\nautonomous: true\rx\n", ["stray-cr"], "line 2"),  # issue 24 item 10
        (b"a\r\nautonomous: true\rx\r\nquality_locked: true\r\n\r\r\n", ["crlf", "stray-cr"], "lines 2, 4"),
    ],
)
def test_a_stray_cr_in_a_file_with_lf_is_reported_where_it_is(
    content: bytes, codes: List[str], where: str, tmp_path: Path
) -> None:
    """SPEC section 12: a CR inside a line of an LF file is named by its line; the file is not one line (C13)."""
    path = tmp_path / "c.yaml"
    path.write_bytes(content)
    data = report(path)
    assert [f["code"] for f in data["findings"]] == codes
    assert data["findings"][-1]["message"].startswith("a CR not at the end of %s:" % where)
    (line,) = [line for line in data["lines"] if line["mode"] == "autonomous"]
    assert (line["line"], line["verdict"], line["reason"]["code"]) == (2, "ignored", "bare-cr")
    assert data["defaults"] == {key: key in load_defaults(path) for key, _ in vocabulary().modes}
    text = run([os.fsencode(path)]).stdout.decode()
    assert "without LF" not in text and "  file: a CR not at the end of %s" % where in text
    assert ("quality_locked on (line %d)" % (1 if codes == ["stray-cr"] else 3)) in text


@pytest.mark.parametrize("kind", ["missing", "directory", "fifo", "dangling-symlink", "loop-symlink"])
def test_not_a_regular_file_is_a_finding_with_status_0(kind: str, tmp_path: Path) -> None:
    path = vectors.make_config({"type": kind}, tmp_path)
    result = run([os.fsencode(path)])  # a FIFO must not block: the 30 s timeout would fail the test
    assert (result.returncode, result.stderr) == (0, b"")
    assert "no defaults (C12)" in result.stdout.decode()
    codes = [f["code"] for f in report(path)["findings"]]
    assert codes and codes[0] in ("missing", "not-regular-file", "symlink-loop")


def test_path_that_cannot_be_examined_is_status_1(tmp_path: Path) -> None:
    result = run([os.fsencode(tmp_path) + b"/" + b"x" * 300])
    assert (result.returncode, result.stdout) == (1, b"")
    assert result.stderr.count(b"\n") == 1 and b"cannot examine" in result.stderr


def test_empty_path_is_c11() -> None:
    data = json.loads(run([b"", b"--json"]).stdout)
    assert [f["code"] for f in data["findings"]] == ["empty-path"]


@pytest.mark.parametrize("args", [[], [b"a", b"b"], [b"--json"]])
def test_usage_errors(args: List[bytes]) -> None:
    result = run(args)
    assert (result.returncode, result.stdout, result.stderr.count(b"\n")) == (2, b"", 1)
    other = subprocess.run([SAGE_FLAGS, "config", "show", "x"], capture_output=True)
    assert (other.returncode, other.stdout) == (2, b"")


def test_double_dash_allows_a_path_named_json(tmp_path: Path) -> None:
    (tmp_path / "--json").write_bytes(b"autonomous: true\n")
    result = subprocess.run([SAGE_FLAGS, "config", "explain", "--", "--json"], capture_output=True, cwd=tmp_path)
    assert result.returncode == 0 and b"autonomous on (line 1)" in result.stdout


def test_output_is_terminal_safe(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_bytes(b"quality_locked: tr\x1b[2Jue\nautonomous: \xff\xfe\n")
    text = run([os.fsencode(path)]).stdout.decode("utf-8")
    assert "\x1b" not in text and "\\u001b[2J" in text and "\\xff\\xfe" in text


def test_human_output_example(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_bytes(b"quality_locked: True\r\nautonomous: true\r\n")
    for prefix in CLI:
        result = subprocess.run([*prefix, "config", "explain", "c.yaml"], capture_output=True, cwd=tmp_path)
        assert result.stdout.decode() == (
            "config: c.yaml\n"
            "  file: CRLF line endings: fine, one CR at the end of a line is dropped (C13)\n"
            "  line 1: quality_locked: True\n"
            "    not honored: titlecase value `True`: only lowercase `true` counts\n"
            "  line 2: autonomous: true\n"
            "    honored: autonomous is on by default\n"
            "defaults: quality_locked no default; autonomous on (line 2)\n"
        )


def test_explain_is_not_on_the_parse_path() -> None:
    code = "import sys, sage_flags.cli as c; c.main(['parse', 'x']); print('sage_flags.explain' in sys.modules)"
    result = subprocess.run([PYTHON, "-c", code], capture_output=True)
    assert result.stdout.endswith(b"False\n")


@pytest.mark.parametrize(
    ("content", "code", "mode"),
    [
        (b"qualitylocked: true\n", "key-name", "quality_locked"),  # S3: one insertion
        (b"Quality_Lockd: true\n", "key-name", "quality_locked"),  # S2: ASCII case, then one insertion
        (b"autonomy: true\n", "key-name", "autonomous"),  # 3 edits, as many as `autonomous` allows (S4)
        (b"quality-locked: true\n", "key-name", "quality_locked"),
        (b"quality_locked_default: true\n", "key-name", "quality_locked"),  # a longer key holding the key
    ],
)
def test_near_miss_keys_name_the_key(content: bytes, code: str, mode: str, tmp_path: Path) -> None:
    """A misspelt key is named as E1 names a misspelt flag: did you mean ...? (docs/SPEC.md section 12)."""
    path = tmp_path / "c.yaml"
    path.write_bytes(content)
    (line,) = report(path)["lines"]
    assert line["mode"] == mode
    reason = line["reason"]
    assert reason["code"] == code
    assert reason["message"].endswith("did you mean `%s`?" % mode)


@pytest.mark.parametrize("content", [b"quality: true\n", b"autono: true\n", b"x: true\n"])
def test_keys_too_far_from_every_mode_are_not_listed(content: bytes, tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_bytes(content)
    assert report(path)["lines"] == []


@pytest.mark.parametrize("size", [65537, 4 << 30])
def test_a_config_over_the_bound_is_a_finding_read_no_further(size: int, tmp_path: Path) -> None:
    """H1: decided by fstat; a sparse 4 GiB file would take seconds and gigabytes if it were read."""
    path = tmp_path / "c.yaml"
    path.write_bytes(b"quality_locked: true\n")
    os.truncate(path, size)
    result = run([os.fsencode(path), b"--json"])
    assert (result.returncode, result.stderr) == (0, b"")
    data = json.loads(result.stdout)
    assert [f["code"] for f in data["findings"]] == ["too-large"]
    assert "%d bytes, more than the 65536" % size in data["findings"][0]["message"]
    assert data["lines"] == [] and not any(data["defaults"].values())
