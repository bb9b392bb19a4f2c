"""sage-flags run in-process as on Windows: a child program that tests/test_windows.py drives.

Nothing here runs Windows; it removes what Windows lacks and makes the rest behave as Windows does, then
runs the real ``sage_flags.cli.main`` for each request, in this one process:

- every name of ``os`` that exists on POSIX only (UNIX_ONLY) is deleted before ``sage_flags`` is imported;
- ``os.name`` is ``"nt"`` and ``sys.platform`` ``"win32"`` (code that branches on them takes Windows' branch);
- ``os.O_BINARY`` exists, and an ``os.open`` without it is recorded (Windows' text mode would turn LF into
  CRLF on write and CRLF into LF, Ctrl-Z into end of file, on read);
- ``os.open`` of a directory fails with EACCES, as on Windows;
- ``os.rename`` refuses an existing target, as on Windows;
- ``os.kill`` is recorded and does nothing: on Windows signal 0 is CTRL_C_EVENT, so any call is a failure.

Protocol: one JSON request per line on stdin, ``{"argv": [hex], "stdin": hex, "env": {..}, "cwd": str}`` (and
``"main": "module:function"`` to run something else than ``sage_flags.cli:main``: the tests' canaries); one
JSON answer per line on stdout, ``{"stdout": hex, "stderr": hex, "status": int | null, "kills": [...],
"text_mode_opens": [...]}`` (status null: the call raised; stderr then holds the traceback). The parent's
environment picks the backend (SAGE_FLAGS_BACKEND), once for the process, as for any process.
"""

from __future__ import annotations

import errno
import importlib
import itertools
import json
import os
import sys
import tempfile
import traceback

# Names of os that exist on POSIX systems and not on Windows (Python docs: "Availability: Unix").
UNIX_ONLY = (
    "O_NONBLOCK O_NDELAY O_CLOEXEC O_NOFOLLOW O_DIRECTORY O_NOCTTY O_SYNC O_DSYNC O_RSYNC O_ASYNC O_PATH O_TMPFILE "
    "O_NOATIME O_FSYNC O_EXLOCK O_SHLOCK fchmod lchmod fchown chown lchown chroot fchdir "
    "geteuid getegid getuid getgid getgroups getresuid getresgid setuid setgid seteuid setegid getpgid getpgrp "
    "getsid setsid setpgid killpg fork forkpty wait wait3 wait4 waitid mkfifo mknod major minor makedev sync "
    "fdatasync fpathconf pathconf statvfs fstatvfs getloadavg uname nice pipe2 openpty ttyname ctermid sendfile "
    "posix_fadvise posix_fallocate pread pwrite preadv pwritev readv writev get_blocking set_blocking "
    "getpriority setpriority sysconf confstr"
).split()
O_BINARY = 0x8000  # Windows' value


class Recorder:
    def __init__(self) -> None:
        self.kills: list = []
        self.text_mode_opens: list = []


RECORD = Recorder()
_real_open = os.open
_real_rename = os.rename
_real_dup, _real_dup2, _real_close, _real_read = os.dup, os.dup2, os.close, os.read


def _windows_open(path, flags, mode=0o777, *, dir_fd=None):
    if not flags & O_BINARY:
        RECORD.text_mode_opens.append(os.fsdecode(path))
    if os.path.isdir(path):
        raise PermissionError(errno.EACCES, "Permission denied", path)
    return _real_open(path, flags & ~O_BINARY, mode, dir_fd=dir_fd)


def _windows_rename(src, dst, *, src_dir_fd=None, dst_dir_fd=None):
    if os.path.lexists(dst):
        raise FileExistsError(errno.EEXIST, "Cannot create a file when that file already exists", dst)
    _real_rename(src, dst)


def _windows_kill(pid, sig):
    RECORD.kills.append([pid, sig])


def become_windows() -> None:
    for name in UNIX_ONLY:
        if hasattr(os, name):
            delattr(os, name)
    os.O_BINARY = O_BINARY
    os.open = _windows_open
    os.rename = _windows_rename
    os.kill = _windows_kill
    os.name = "nt"
    sys.platform = "win32"


_CAPTURE_DIR = tempfile.mkdtemp(prefix="windows-sim-")
_CAPTURE_FLAGS = os.O_RDWR | os.O_CREAT | os.O_EXCL
_names = itertools.count()


def _capture_file() -> int:
    """A fresh unnamed file (opened with the real os.open: it is the harness's, not the code's)."""
    path = os.path.join(_CAPTURE_DIR, str(next(_names)))
    fd = _real_open(path, _CAPTURE_FLAGS, 0o600)
    os.unlink(path)
    return fd


def _contents(fd: int) -> bytes:
    os.lseek(fd, 0, os.SEEK_SET)
    chunks = []
    while True:
        chunk = _real_read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def call(main, request: dict) -> dict:
    """One command line through ``main``, with fds 0, 1 and 2 pointing at files of its own."""
    stdin_fd = _capture_file()
    os.write(stdin_fd, bytes.fromhex(request["stdin"]))
    os.lseek(stdin_fd, 0, os.SEEK_SET)
    out_fd, err_fd = _capture_file(), _capture_file()
    saved = [_real_dup(fd) for fd in (0, 1, 2)]
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    RECORD.kills, RECORD.text_mode_opens = [], []
    status = None
    try:
        os.environ.update(request["env"])
        os.chdir(request["cwd"])
        for fd, target in ((stdin_fd, 0), (out_fd, 1), (err_fd, 2)):
            _real_dup2(fd, target)
        try:
            status = main([bytes.fromhex(item) for item in request["argv"]])
        except BaseException:  # a traceback is the finding: it goes back as stderr
            sys.stderr.write(traceback.format_exc())
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        for fd, target in zip(saved, (0, 1, 2)):
            _real_dup2(fd, target)
            _real_close(fd)
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
    answer = {
        "stdout": _contents(out_fd).hex(),
        "stderr": _contents(err_fd).hex(),
        "status": status,
        "kills": RECORD.kills,
        "text_mode_opens": RECORD.text_mode_opens,
    }
    for fd in (stdin_fd, out_fd, err_fd):
        _real_close(fd)
    return answer


def serve() -> None:
    requests = os.fdopen(_real_dup(0), "r", encoding="utf-8")
    answers = os.fdopen(_real_dup(1), "w", encoding="utf-8")
    become_windows()
    mains = {}
    for line in requests:
        request = json.loads(line)
        name = request.get("main", "sage_flags.cli:main")
        if name not in mains:  # imported after become_windows(), as Windows would import it
            module, _, function = name.partition(":")
            mains[name] = getattr(importlib.import_module(module), function)
        answers.write(json.dumps(call(mains[name], request)) + "\n")
        answers.flush()
    os.rmdir(_CAPTURE_DIR)


if __name__ == "__main__":
    serve()
