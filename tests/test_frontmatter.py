"""The pure front-matter editor (``sage_flags._frontmatter``: bytes in, bytes out, no I/O, no vocabulary) tested
directly against PyYAML (parity/yaml_oracle.py, SPEC P4, P8, P9, P11, R1): for any keys and value tokens, what
``edit`` writes loads as the old mapping with exactly those entries under ``flags`` and the body kept byte for
byte (or, where PyYAML cannot load the front matter, every line outside the flags block kept); what
``recorded_tokens`` reads is what PyYAML reads; reading back what ``edit`` wrote gives the tokens written."""

from __future__ import annotations

from typing import Dict, List, Optional

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sage_flags._frontmatter import UnsafeManifest, edit, recorded_tokens

from parity import yaml_oracle
from parity.strategies import VOCABULARIES, manifests

# Keys of every shape a vocabulary could name (the editor knows none of them), and the tokens persist writes.
EXTRA_KEYS = ["flags", "title", "x", "a_b", "autonomous_x", "subagents_count"]
TOKENS = st.sampled_from([b"true", b"false", b"0", b"1", b"3", b"10"])


def yaml_value(token: bytes) -> object:
    return yaml.safe_load(b"k: " + token)["k"]


def check_edit(before: Optional[bytes], keys: List[bytes], tokens: List[bytes], after: bytes) -> None:
    """The oracle of check_persist, for entries named directly rather than by a contract line."""
    entries = {key.decode(): yaml_value(token) for key, token in zip(keys, tokens)}
    try:
        old_frontmatter, old_body = yaml_oracle.split(before)
        old = yaml_oracle.load(old_frontmatter)
    except yaml_oracle.NotYaml:
        assert yaml_oracle.outside_flags(after) == yaml_oracle.outside_flags(before or b""), (before, after)
        return
    new_frontmatter, new_body = yaml_oracle.split(after)
    assert new_frontmatter is not None and new_body == old_body, (before, after)
    new = yaml_oracle.load(new_frontmatter)
    assert yaml_oracle.top_level_keys(new_frontmatter).count("flags") == 1, after
    flags = old.get("flags")
    assert flags is None or isinstance(flags, dict), "edited a flags value that is not a mapping"
    assert new == dict(old, flags={**(flags or {}), **entries}), (before, after)


def check_recorded(data: Optional[bytes], keys: List[bytes], recorded: Dict[bytes, bytes]) -> None:
    """What the scan records is what PyYAML reads: each key it names is under ``flags`` with that value (b"":
    not one plain value on the line), and each key PyYAML finds there is recorded."""
    try:
        flags = yaml_oracle.load(yaml_oracle.split(data)[0]).get("flags")
    except yaml_oracle.NotYaml:
        return
    if not isinstance(flags, dict):
        assert not recorded, (data, recorded)
        return
    assert {key for key in recorded} == {key for key in keys if key.decode() in flags}, (data, recorded)
    for key, token in recorded.items():
        if token:
            assert yaml_value(token) == flags[key.decode()], (data, key, token)


@settings(max_examples=400, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data(), v=VOCABULARIES)
def test_edit_and_read_agree_with_pyyaml(data, v) -> None:
    before = data.draw(manifests(v))
    names = [key for key, _ in v.modes] + [row.field for row in v.value_modes] + EXTRA_KEYS
    keys = [key.encode() for key in data.draw(st.lists(st.sampled_from(names), min_size=1, max_size=5, unique=True))]
    tokens = [data.draw(TOKENS) for _ in keys]
    try:
        recorded = recorded_tokens(before or b"", keys)
    except UnsafeManifest:
        with pytest.raises(UnsafeManifest):  # one scan: what resume refuses, persist refuses too
            edit(before or b"", keys, tokens)
        return
    check_recorded(before, keys, recorded)
    after = edit(before or b"", keys, tokens)
    check_edit(before, keys, tokens, after)
    assert recorded_tokens(after, keys) == dict(zip(keys, tokens))
    assert edit(after, keys, tokens) == after  # a second edit with the same tokens changes nothing


@pytest.mark.parametrize(
    "before, after",
    [
        (b"", b"---\nflags:\n  k: true\n---\n"),
        (b"body\r\n", b"---\r\nflags:\r\n  k: true\r\n---\r\nbody\r\n"),
        (b"---\ntitle: t\n---\nbody", b"---\ntitle: t\nflags:\n  k: true\n---\nbody"),
        (b"---\nflags:   # c\n    k: no  # why\n---\n", b"---\nflags:   # c\n    k: true  # why\n---\n"),
        (b"\xef\xbb\xbf---\nflags:\n  j: 1\n---\n\xff", b"\xef\xbb\xbf---\nflags:\n  j: 1\n  k: true\n---\n\xff"),
    ],
)
def test_edit_keeps_every_byte_outside_the_token(before: bytes, after: bytes) -> None:
    assert edit(before, [b"k"], [b"true"]) == after
    check_edit(before, [b"k"], [b"true"], after)


@pytest.mark.parametrize(
    "before",
    [
        b"---\nflags:\n- k\n---\n",
        b"---\nflags:\n  k: [true]\n---\n",
        b"---\nflags:\n  <<: {k: true}\n---\n",
        b"---\n...\nflags:\n  k: true\n---\n",
        b"---\nflags:\n  k: true\n",
        b"---\n\xef\xbb\xbfflags:\n  k: true\n---\n",
        b"---\nflags:\n  k: true\rflags: x\n---\n",
    ],
)
def test_what_yaml_could_read_otherwise_is_refused(before: bytes) -> None:
    """P8, P11: a front matter the scan cannot read as YAML does is refused, by the editor and the reader."""
    with pytest.raises(UnsafeManifest):
        edit(before, [b"k"], [b"true"])
    if b"k: true" in before and b"<<" not in before and b"[" not in before:
        with pytest.raises(UnsafeManifest):
            recorded_tokens(before, [b"k"])
