"""Plumbing every subcommand shares, and nothing else: exit statuses, how a command reads its input (C1's argv
scan, I1-I6's standard input, ONE bounded read) and writes its output. A leaf: it imports nothing of the
package, so a subcommand takes it without taking the dispatcher (``sage_flags.cli``), which imports the
subcommands.
"""

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import List, Optional, Sequence, Tuple

# Exit statuses (C19), plus our own for "this layer cannot run at all" / "the hook fails open" (D19, K8) and
# "stdout took nothing" (H9).
OK, PARSE_ERROR, USAGE_ERROR, UNAVAILABLE, WRITE_FAILED = 0, 1, 2, 3, 4
# K8: the one stderr line of the hook's own failure (status UNAVAILABLE, never USAGE_ERROR, which blocks a prompt).
FAIL_OPEN_LINE = "sage-flags: hook: %s; not answering (the prompt goes on without it)\n"
# H9: the same line in every layer.
WRITE_FAILED_MESSAGE = "sage-flags: cannot write the output to stdout (closed, full or a broken pipe)\n"
# I1-I6: ARGUMENTS on standard input instead of operands, at most this many bytes.
STDIN_SWITCH = b"--stdin"
STDIN_LIMIT = 262144


class UsageError(Exception):
    """A command line this layer refuses: status 2, one line on stderr."""


class WriteFailed(Exception):
    """stdout is closed, full or a broken pipe (H9): status 4, one line on stderr."""


def _write(data: bytes) -> None:
    """``data`` to stdout, flushed; WriteFailed when it cannot be written (H9)."""
    if sys.stdout is None:  # started with stdout closed
        raise WriteFailed()
    try:
        out = sys.stdout.buffer
        out.write(data)
        out.flush()
    except (OSError, ValueError) as error:  # ENOSPC, EPIPE (SIGPIPE is ignored), EBADF; ValueError: closed
        raise WriteFailed() from error


def say(line: str) -> None:
    """One line to stderr when there is one: a closed or broken stderr loses the line, never the status."""
    try:
        sys.stderr.write(line)  # type: ignore[union-attr]
        sys.stderr.flush()  # type: ignore[union-attr]
    except (AttributeError, OSError, ValueError):  # sys.stderr is None (started closed), EBADF, EPIPE, closed
        pass


def read_bounded(fd: int, limit: int) -> bytes:
    """What is left to read from ``fd``, but never more than ``limit + 1`` bytes: one byte past the bound says
    "over it" without reading on (an endless input ends here). A failed read raises OSError."""
    chunks: "List[bytes]" = []
    size = 0
    while size <= limit:
        chunk = os.read(fd, min(1 << 20, limit + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _scan(items: "Sequence[bytes]", stdin_switch: bool) -> "Tuple[List[bytes], Optional[bytes], bool]":
    """C1 (and I1 when ``stdin_switch``): operands, config path, whether --stdin was given."""
    operands: "List[bytes]" = []
    config_path = None
    from_stdin = False
    i = 0
    while i < len(items):
        item = items[i]
        if item == b"--":
            operands.extend(items[i + 1 :])
            break
        if item == b"--config-path":
            if i + 1 == len(items):  # C3
                raise UsageError("--config-path needs a value")
            config_path = items[i + 1]
            i += 2
            continue
        if item.startswith(b"--config-path="):
            config_path = item[len(b"--config-path=") :]
        elif stdin_switch and item == STDIN_SWITCH:
            from_stdin = True
        else:
            operands.append(item)
        i += 1
    return operands, config_path, from_stdin


def split_argv(items: "Sequence[bytes]") -> "Tuple[List[bytes], Optional[bytes]]":
    """C1: the operands, and the config path (None when not given). batch has no --stdin."""
    operands, config_path, _ = _scan(items, False)
    return operands, config_path


def read_stdin_arguments() -> bytes:
    """I2-I5: standard input's bytes as ARGUMENTS (read to its end, at most STDIN_LIMIT bytes)."""
    if os.isatty(0):  # I5: never wait for someone to type
        raise UsageError("--stdin: standard input is a terminal")
    try:
        data = read_bounded(0, STDIN_LIMIT)
    except OSError:  # no stdin at all: no bytes (I2)
        data = b""
    if b"\0" in data:
        return b"\xff"  # I3: a NUL is E4, exactly as invalid UTF-8 (checked before the size: bash stops there)
    if len(data) > STDIN_LIMIT:
        raise UsageError("--stdin: ARGUMENTS on standard input exceed %d bytes" % STDIN_LIMIT)
    return data


def read_arguments(items: "Sequence[bytes]") -> "Tuple[bytes, Optional[bytes]]":
    """C1-C3 and I1: ARGUMENTS as bytes (operands joined, or standard input), and the config path."""
    operands, config_path, from_stdin = _scan(items, True)
    if not from_stdin:
        return b" ".join(operands), config_path  # C2
    if operands:
        raise UsageError("--stdin takes ARGUMENTS from standard input only: no operand beside it")
    return read_stdin_arguments(), config_path
