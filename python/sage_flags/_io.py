"""Plumbing every subcommand shares, and nothing else: exit statuses, how a command reads its input (C1's argv
scan, I1-I6's standard input, ONE bounded read) and writes its output, and the files a command reads or
replaces (one look-before-reading read, one atomic write: persist's and adopt's). A leaf: it imports nothing of the
package, so a subcommand takes it without taking the dispatcher (``sage_flags.cli``), which imports the
subcommands.
"""

import errno
import os
import stat
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, List, Optional, Sequence, Tuple, Union

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


def read_one_line(limit: int) -> bytes:
    """P1: all of stdin, or enough of it to know it is not one line (no hang on endless input): never more
    than ``limit`` + 1 bytes; a closed stdin is no bytes."""
    chunks: "List[bytes]" = []
    seen_newline = False
    total = 0
    while total <= limit:
        try:
            chunk = os.read(0, 1 << 16)
        except OSError:  # stdin closed: no line
            break
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
        newline = chunk.find(b"\n")
        if b"\0" in chunk or (newline >= 0 and (seen_newline or newline != len(chunk) - 1)):
            break
        seen_newline = seen_newline or newline >= 0
    return b"".join(chunks)


def read_arguments(items: "Sequence[bytes]") -> "Tuple[bytes, Optional[bytes]]":
    """C1-C3 and I1: ARGUMENTS as bytes (operands joined, or standard input), and the config path."""
    operands, config_path, from_stdin = _scan(items, True)
    if not from_stdin:
        return b" ".join(operands), config_path  # C2
    if operands:
        raise UsageError("--stdin takes ARGUMENTS from standard input only: no operand beside it")
    return read_stdin_arguments(), config_path


# ---------------------------------------------------------------------------------------------------------
# Files: one bounded, non-blocking read of a regular file, and one atomic replace (docs/SPEC.md P6, N9)


class UnsafeFile(Exception):
    """A file this command will not read or replace: a link, not a regular file, too large, unreadable."""


# Never blocks on a FIFO; never follows a link in the last component; Windows: O_BINARY keeps CRLF as it is.
_READ_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_BINARY", 0)
    | getattr(os, "O_CLOEXEC", 0)
)


def open_regular(path: "Union[str, bytes]", name: str, follow: bool = False) -> "Optional[Tuple[int, os.stat_result]]":
    """(an open fd, its fstat) of the regular file at ``path``, None when nothing is there. Looks before opening:
    a FIFO, a device or a directory is never read (the open does not block, fstat decides); a link in the
    last component is refused unless ``follow``. Raises UnsafeFile (naming ``name``) otherwise."""
    try:  # look first: a device is never opened (opening some has effects); fstat below closes the race
        seen = os.stat(path) if follow else os.lstat(path)
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        seen = None  # the open below says why
    if seen is not None and stat.S_ISLNK(seen.st_mode):
        raise UnsafeFile("%s is a symbolic link; not following it" % name)
    if seen is not None and not stat.S_ISREG(seen.st_mode):
        raise UnsafeFile("%s is not a regular file" % name)
    try:
        fd = os.open(path, _READ_FLAGS & ~(0 if not follow else getattr(os, "O_NOFOLLOW", 0)))
    except FileNotFoundError:
        return None
    except OSError as error:
        if error.errno == errno.ELOOP or (not follow and os.path.islink(path)):
            raise UnsafeFile("%s is a symbolic link; not following it" % name) from None
        raise UnsafeFile("cannot read %s (%s)" % (name, error.strerror)) from None
    except ValueError:  # a NUL in the path
        raise UnsafeFile("cannot read %s (a NUL in its path)" % name) from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise UnsafeFile("%s is not a regular file" % name)
    return fd, info


def read_regular_file(
    path: "Union[str, bytes]", limit: "Optional[int]", name: str
) -> "Optional[Tuple[bytes, os.stat_result]]":
    """(bytes, stat) of the regular file at ``path`` itself (``open_regular``), None when nothing is there,
    never more than ``limit`` + 1 bytes read (None: the size fstat gave; a file that grows meanwhile is
    refused, so even a file someone appends to without end is read to a bound). Raises UnsafeFile."""
    opened = open_regular(path, name)
    if opened is None:
        return None
    fd, info = opened
    try:
        if limit is not None and info.st_size > limit:
            raise UnsafeFile("%s is larger than %d bytes" % (name, limit))
        try:
            data = read_bounded(fd, info.st_size if limit is None else limit)
        except OSError as error:
            raise UnsafeFile("cannot read %s (%s)" % (name, error.strerror)) from None
        if limit is None and len(data) > info.st_size:
            raise UnsafeFile("%s changed while it was read" % name)
        if limit is not None and len(data) > limit:  # it grew after fstat, or fstat's size lied
            raise UnsafeFile("%s is larger than %d bytes" % (name, limit))
        return data, info
    finally:
        os.close(fd)


def read_regular_prefix(
    path: "Union[str, bytes]", limit: int, name: str, end_of: "Callable[[bytes], Optional[int]]"
) -> "Optional[bytes]":
    """The first bytes of the regular file at ``path`` (a link followed), read in chunks until ``end_of(data)``
    says where what is wanted ends, or the end of the file, never more than ``limit`` + 1 bytes; None when
    nothing regular is there. Raises UnsafeFile."""
    opened = open_regular(path, name, follow=True)
    if opened is None:
        return None
    fd = opened[0]
    data = b""
    try:
        while len(data) <= limit:
            try:
                chunk = os.read(fd, min(1 << 16, limit + 1 - len(data)))
            except OSError as error:
                raise UnsafeFile("cannot read %s (%s)" % (name, error.strerror)) from None
            data += chunk
            end = end_of(data)
            if end is not None:
                return data[:end]
            if not chunk:
                break
        return data
    finally:
        os.close(fd)


TEMP_MARKER = b".sage-flags-tmp."  # temp files: .<target's name>.sage-flags-tmp.<writer's pid>
STALE_TEMP_SECONDS = 600  # where a writer's pid cannot be tested (Windows), its temp file's age decides
# Windows: no O_CLOEXEC (handles are not inherited anyway), O_BINARY or LF would be written as CRLF.
_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)


def current_umask() -> int:
    """The process's umask (read by setting it, then set back: one thread, nothing created in between)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


# Adopt's temp files before issue 42: tempfile.mkstemp(prefix=".sage-flags-"), 8 random characters, no pid.
_OLD_TEMP_PREFIX = b".sage-flags-"
_OLD_TEMP_LETTERS = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789_")


def temp_writer_pid(name: bytes) -> "Optional[bytes]":
    """The writer's pid in a temp file's name ``.<target>.sage-flags-tmp.<pid>``; None for any other name."""
    base, marker, pid_text = name.rpartition(TEMP_MARKER)
    return pid_text if marker and base.startswith(b".") and len(base) > 1 and pid_text.isdigit() else None


def is_temp_name(name: bytes) -> bool:
    """Whether ``name`` is one of our temp files' names, in either naming (P6, P6.1)."""
    rest = name[len(_OLD_TEMP_PREFIX) :]
    old = name.startswith(_OLD_TEMP_PREFIX) and len(rest) == 8 and set(rest) <= _OLD_TEMP_LETTERS
    return old or temp_writer_pid(name) is not None


def temp_writer_is_live(path: bytes) -> bool:
    """Whether the temp file at ``path`` may still be written by a live writer (then it is kept: P6, P6.1)."""
    try:
        return not _writer_is_gone(path)
    except OSError:
        return False  # gone meanwhile


def _writer_is_gone(path: bytes) -> bool:
    """Whether the writer that left the temp file at ``path`` is gone, never touching another process (P6,
    P6.1): a regular file of ours (as root, also one carrying its target's owner: given back) whose writer's pid
    is not alive (signal 0 tests, sends nothing); an old-named one: STALE_TEMP_SECONDS old and open in no
    process (/proc; elsewhere kept). Windows (W5): signal 0 is CTRL_C_EVENT and files have no owner uid: stale
    once STALE_TEMP_SECONDS old (a writer holds its temp file for milliseconds)."""
    info = os.lstat(path)
    pid_text = temp_writer_pid(os.path.basename(path))
    geteuid = getattr(os, "geteuid", None)
    if not stat.S_ISREG(info.st_mode) or not is_temp_name(os.path.basename(path)):
        return False  # never ours to remove (a planted link, a folder, another name)
    if os.name != "posix" or geteuid is None:
        return pid_text is not None and time.time() - info.st_mtime > STALE_TEMP_SECONDS
    if info.st_uid != geteuid() and not (geteuid() == 0 and pid_text and _given_back(path, info)):
        return False
    if pid_text is None:
        return time.time() - info.st_mtime > STALE_TEMP_SECONDS and not _open_in_a_process(info)
    try:
        os.kill(int(pid_text), 0)
    except PermissionError:  # someone else's live process
        return False
    except (OSError, OverflowError, ValueError):
        return True
    return False


def _given_back(path: bytes, info: os.stat_result) -> bool:
    """Whether a temp file carries its target's owner: root gave a person's file back to them (P6)."""
    directory, name = os.path.split(path)
    try:
        return os.lstat(os.path.join(directory, name[1:].rpartition(TEMP_MARKER)[0])).st_uid == info.st_uid
    except OSError:
        return False


def _open_in_a_process(info: os.stat_result) -> bool:
    """Whether a process we can see holds this file open (/proc); True where that cannot be known. A process
    we cannot see is another user's, and cannot open our 0600 temp file."""
    if not os.path.isdir(b"/proc/self/fd"):
        return True
    for fd_dir in (b"/proc/%s/fd" % pid for pid in os.listdir(b"/proc") if pid.isdigit()):
        try:
            fds = os.listdir(fd_dir)
        except OSError:  # gone, or not ours to see
            continue
        for fd in fds:
            try:
                held = os.stat(os.path.join(fd_dir, fd))
            except OSError:
                continue
            if (held.st_dev, held.st_ino) == (info.st_dev, info.st_ino):
                return True
    return False


def remove_stale_temp_files_in(directory: bytes, recursive: bool = False, target: "Optional[bytes]" = None) -> None:
    """P6, P6.1: every dead writer's temp file in ``directory`` (only ``target``'s when given; also below it when
    ``recursive``, never through a link), whatever file it was for. A live writer's are kept."""
    try:
        names = [] if stat.S_ISLNK(os.lstat(directory).st_mode) else os.listdir(directory)
    except OSError:
        return
    for name in names:
        path = os.path.join(directory, name)
        try:
            if target is not None and not name.startswith(b"." + target + TEMP_MARKER):
                continue
            if is_temp_name(name) and _writer_is_gone(path):
                os.unlink(path)
            elif recursive and stat.S_ISDIR(os.lstat(path).st_mode):
                remove_stale_temp_files_in(path, recursive)
        except OSError:  # gone meanwhile, or (Windows) still open in its writer
            pass


def write_atomically(
    path: bytes,
    data: bytes,
    mode: "Optional[int]" = None,
    owner: "Optional[Tuple[int, int]]" = None,
    new_mode: int = 0o666,
) -> None:
    """Replace ``path`` by a complete file holding ``data`` (P6, N9): temp file, fsync, rename, fsync dir.

    The temp file ``.<name>.sage-flags-tmp.<pid>`` is created exclusively beside ``path`` (a planted link is
    never followed). ``mode`` None: a new file, ``new_mode`` less the umask; otherwise these permission bits
    (the old file's). ``owner``: the old file's (uid, gid), given back where the caller may (root; a group
    the caller is in). Raises OSError; the temp file is gone then.
    """
    directory = os.path.dirname(path) or b"."
    remove_stale_temp_files_in(directory, target=os.path.basename(path))  # a killed writer's, P6
    temp = os.path.join(directory, b"." + os.path.basename(path) + TEMP_MARKER + str(os.getpid()).encode("ascii"))
    fchmod = getattr(os, "fchmod", None)  # not on Windows before Python 3.13
    fchown = getattr(os, "fchown", None)  # POSIX only
    try:
        try:
            os.unlink(temp)  # ours by name, so a leftover of a dead process that had our pid
        except FileNotFoundError:
            pass
        fd = os.open(temp, _WRITE_FLAGS, new_mode if mode is None else 0o600)
        try:
            if owner is not None and fchown is not None:
                _give_back_owner(fd, owner, fchown)
            if mode is not None and fchmod is not None:
                fchmod(fd, mode)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        if mode is not None and fchmod is None:
            os.chmod(temp, mode)  # Windows: only the read-only attribute exists
        os.replace(temp, path)  # os.rename would refuse an existing target on Windows
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise
    if os.name != "posix":  # a directory cannot be opened for fsync on Windows; NTFS journals the rename
        return
    try:  # make the rename itself durable; a directory that cannot be fsynced is not an error
        dir_fd = os.open(directory, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    except OSError:
        pass


def _give_back_owner(fd: int, owner: "Tuple[int, int]", fchown: "Callable[[int, int, int], None]") -> None:
    """The old file's owner and group on the temp file, as far as the caller may set them (before the
    permission bits: chown clears set-id bits)."""
    info = os.fstat(fd)
    if (info.st_uid, info.st_gid) == owner:
        return
    for uid, gid in (owner, (-1, owner[1])):
        try:
            fchown(fd, uid, gid)
            return
        except OSError:  # not root: the owner cannot be given away; the group only to one of ours
            continue
