"""``persist`` and ``resume``: the resolved modes in a cycle manifest's frontmatter, the commands and their I/O.

``sage-flags parse ... | sage-flags persist MANIFEST`` records the values of a
clean contract line in MANIFEST's YAML frontmatter ``flags:`` block;
``sage-flags resume MANIFEST ARGV...`` (the ``/continue`` entry) parses ARGV
like ``parse`` and fills every mode no flag set from that block. This module is
their one implementation (the native executable hands both to it, D27; the bash
layer's persist.sh and resume.sh only refuse, P12); docs/SPEC.md states the rules
(P*, R*). Here: reading the manifest (never through a link, never blocking), the
one atomic write (``_io.write_atomically``, P6), the statuses. The front matter
itself is edited as bytes by ``_frontmatter`` (the whitelist of P11, written there
once); the values are ``_flag_values``'.
"""

from __future__ import annotations

import os
import stat

from sage_flags import _io
from sage_flags._flag_values import _render, contract_values, recorded_values, resume_fields, updated_manifest
from sage_flags._frontmatter import MAX_FRONTMATTER_BYTES, UnsafeManifest, frontmatter_end
from sage_flags._vocab import DEFAULT

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Dict, Optional, Sequence, Tuple, Union


# Exit statuses of persist (issue 8).
WRITTEN, LINE_HAS_ERROR, NOT_A_CONTRACT_LINE, UNSAFE = 0, 1, 2, 3
# P1: persist's stdin holds one contract line. The longest line parse prints for one argv item (128 KiB on
# Linux, every byte escaped as \u00XX: 768 KiB) fits; anything longer is status 2, read no further.
MAX_LINE_BYTES = 1 << 20


# --------------------------------------------------------------- files


def _read_manifest(path: bytes) -> "Optional[Tuple[bytes, os.stat_result]]":
    """P6, P8: (bytes, stat) of the regular file at ``path`` itself (a link in its last component refused, a FIFO
    never blocks), None when nothing is there; read to the size fstat gave (the body has no bound, P10)."""
    try:
        return _io.read_regular_file(path, None, "the manifest")
    except _io.UnsafeFile as error:
        raise UnsafeManifest(str(error)) from None


def _may_write(path: bytes) -> bool:
    """P8: whether the caller could write the file in place: the kernel's answer for the effective user (so
    root may, as with any file root opens for writing)."""
    if os.access in getattr(os, "supports_effective_ids", set()):
        return os.access(path, os.W_OK, effective_ids=True)
    return os.access(path, os.W_OK)


def read_frontmatter_prefix(path: bytes) -> bytes:
    """resume: the manifest's bytes up to the end of its frontmatter's closing line (its first line when it has
    no frontmatter), read in chunks, never more than MAX_FRONTMATTER_BYTES + 1 (P10): a long body is never read.
    b"" when there is nothing regular to read (R2)."""
    try:
        found = _io.read_regular_prefix(path, MAX_FRONTMATTER_BYTES, "the manifest", frontmatter_end)
    except _io.UnsafeFile:
        return b""
    return found or b""


def write_atomically(
    path: bytes, data: bytes, mode: "Optional[int]", owner: "Optional[Tuple[int, int]]" = None
) -> None:
    """Replace ``path`` by a complete file holding ``data``: the one atomic write (P6, ``_io.write_atomically``)."""
    try:
        _io.write_atomically(path, data, mode, owner)
    except OSError as error:
        raise UnsafeManifest("cannot write the manifest: %s" % error.strerror) from None


def persist(manifest_path: bytes, values: "Dict[str, Union[bool, int]]", vocabulary: str = DEFAULT) -> None:
    """Record ``values`` in the manifest at ``manifest_path`` (raises UnsafeManifest: nothing changed)."""
    if not manifest_path or not os.path.basename(manifest_path):  # empty, or ends in a separator
        raise UnsafeManifest("the manifest path does not name a file")
    existing = _read_manifest(manifest_path)
    if existing is None:
        write_atomically(manifest_path, updated_manifest(None, values, vocabulary), None)
        return
    data, info = existing
    if not _may_write(manifest_path):
        raise UnsafeManifest("the manifest is read-only for this user")
    new = updated_manifest(data, values, vocabulary)
    write_atomically(manifest_path, new, stat.S_IMODE(info.st_mode), (info.st_uid, info.st_gid))


# --------------------------------------------------------------- commands


def run_persist(items: "Sequence[bytes]", vocabulary: str) -> int:
    """``persist MANIFEST`` < one contract line: statuses 0 written, 1 error line, 2 not a line, 3 unsafe."""
    if len(items) != 1:
        raise _io.UsageError("persist takes exactly one MANIFEST path (the contract line comes on stdin)")
    line = _io.read_one_line(MAX_LINE_BYTES)
    if len(line) > MAX_LINE_BYTES:
        _fail("stdin holds more than %d bytes: not one contract line" % MAX_LINE_BYTES)
        return NOT_A_CONTRACT_LINE
    parsed = contract_values(line, vocabulary)
    if parsed is None:
        _fail("stdin is not one contract line (the JSON line parse or resume prints)")
        return NOT_A_CONTRACT_LINE
    values, has_error = parsed
    if has_error:
        _io._write(line)
        return LINE_HAS_ERROR
    try:
        persist(items[0], values, vocabulary)
    except UnsafeManifest as error:
        _fail("cannot update the manifest: %s" % error)
        _io._write(line)
        return UNSAFE
    _io._write(line)
    return WRITTEN


def _fail(message: str) -> None:
    _io.say("sage-flags: %s\n" % message)


def run_resume(items: "Sequence[bytes]", vocabulary: str) -> int:
    """``resume MANIFEST ARGV...``: parse ARGV (C1-C3) and restore what MANIFEST records."""
    from sage_flags import parse_command_line

    if not items:
        raise _io.UsageError("resume needs MANIFEST, then the arguments as for parse")
    result = parse_command_line(items[1:], vocabulary)  # exactly as parse
    recorded: Dict[str, Union[bool, int]] = {}
    if result.error is None and items[0]:
        recorded = recorded_values(read_frontmatter_prefix(items[0]), vocabulary)  # R2: unreadable restores nothing
    _io._write(_render(resume_fields(result, recorded)).encode("utf-8") + b"\n")
    return _io.OK if result.error is None else _io.PARSE_ERROR
