"""The ``sage-flags`` command line (also ``python -m sage_flags``).

argv is handled as bytes (``os.fsencode`` undoes the interpreter's decoding
exactly), stdout is written as bytes: neither the locale nor PYTHONIOENCODING
can change a byte (C20). ``parse`` never goes near argparse: nothing in its
argv is an option except ``--config-path`` and ``--`` (C1, C4).
"""

import os
import sys

from sage_flags import _vocabulary_name
from sage_flags._io import (
    FAIL_OPEN_LINE,
    OK,
    PARSE_ERROR,
    UNAVAILABLE,
    USAGE_ERROR,
    WRITE_FAILED,
    WRITE_FAILED_MESSAGE,
    UsageError,
    WriteFailed,
    _write,
    say,
    split_argv,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, Dict, List, Optional, Sequence, Tuple, Union

# D4.2: the subcommands whose items are never a person's text, so `--help` or `-h` among them (before any `--`)
# asks for their help. parse, announce and resume read every item as the person's text (C4), hook fails open on
# an item it does not know (K1), batch takes no operands in any layer (D22.1).
TAKES_HELP_OPTION = (b"adopt", b"config", b"persist")


def _asks_for_help(items: "Sequence[bytes]") -> bool:
    if not items or items[0] not in TAKES_HELP_OPTION:
        return False
    options = list(items[1:])
    if b"--" in options:
        options = options[: options.index(b"--")]
    return b"--help" in options or b"-h" in options


def _backend() -> "Tuple[Callable, Callable]":
    import sage_flags

    return sage_flags.parse, sage_flags.load_defaults


def run_parse(items: "Sequence[bytes]", vocabulary: str) -> int:
    from sage_flags import parse_command_line

    result = parse_command_line(items, vocabulary)
    _write(result.to_json().encode("utf-8") + b"\n")
    return OK if result.error is None else PARSE_ERROR


def run_batch(items: "Sequence[bytes]", vocabulary: str) -> int:
    operands, config_path = split_argv(items)
    if operands:
        raise UsageError("batch takes no operands (records come on stdin)")
    parse, load_defaults = _backend()
    defaults = load_defaults(config_path, vocabulary) if config_path else None  # C22: read once
    status = OK
    partial: List[bytes] = []  # pieces of a record not yet terminated

    def emit(records: "List[bytes]") -> None:
        nonlocal status
        lines = []
        for record in records:
            result = parse(record.decode("utf-8", "surrogateescape"), defaults, vocabulary=vocabulary)
            if result.error is not None:
                status = PARSE_ERROR
            lines.append(result.to_json().encode("utf-8") + b"\n")
        _write(b"".join(lines))

    while True:
        try:
            chunk = os.read(0, 1 << 16)
        except OSError:  # no stdin at all: no records
            chunk = b""
        if not chunk:
            break
        if b"\0" not in chunk:
            partial.append(chunk)
            continue
        records = chunk.split(b"\0")
        partial.append(records[0])
        records[0] = b"".join(partial)
        partial = [records.pop()]
        emit(records)  # every complete record is answered before the next read
    if partial and partial != [b""]:
        emit([b"".join(partial)])  # a final unterminated record counts if non-empty
    return status


def _version(_items: "Sequence[bytes]", _vocabulary: str) -> int:
    import sage_flags
    from sage_flags._vocab import NAMES

    # docs/SPEC.md B4: the vocabularies this layer carries (the launcher reads them here).
    _write(("sage-flags %s (vocabularies: %s)\n" % (sage_flags.__version__, ", ".join(NAMES))).encode("utf-8"))
    return OK


# Subcommands: name -> "module:function", imported only when used (start-up); each is called with its items and
# the vocabulary's name (B2).
COMMANDS: "Dict[bytes, Union[str, Callable[[Sequence[bytes], str], int]]]" = {
    b"parse": run_parse,
    b"batch": run_batch,
    b"announce": "sage_flags.announce:run_announce",
    b"hook": "sage_flags.hook:run_hook",
    b"config": "sage_flags.explain:run_config",
    b"persist": "sage_flags.manifest:run_persist",
    b"resume": "sage_flags.manifest:run_resume",
    b"adopt": "sage_flags.adopt:run_adopt",
    b"help": "sage_flags._help:run_help",  # the text is package data, help/*.txt (D4.1)
    b"--help": "sage_flags._help:run_help",
    b"-h": "sage_flags._help:run_help",
    b"--version": _version,
    b"-V": _version,
}


def main(argv: "Optional[Sequence[Union[str, bytes]]]" = None, vocabulary_option: bool = True) -> int:
    """The command line; ``vocabulary_option`` False (the drop-in, SPEC B2): SAGE_FLAGS_VOCABULARY only. The
    chosen vocabulary is passed to the subcommand as a value: nothing is imported again (B2)."""
    args = sys.argv[1:] if argv is None else argv
    items = [os.fsencode(arg) for arg in args]
    # B3, K8: under `hook`, a refusal of our own (an unknown vocabulary from the option or the environment, a bad
    # command line before `hook`) fails open: status 3 and K8's line, never 2, which blocks the person's prompt.
    place = _vocabulary_name.subcommand(items) if vocabulary_option else (items[0] if items else b"")
    hook = place == b"hook"
    try:
        environment = os.environ.get("SAGE_FLAGS_VOCABULARY")
        name, items, named = _vocabulary_name.read(items, environment, vocabulary_option)
        if not items:
            raise UsageError("a subcommand is required")
        if items[0] == b"adopt" and not named:
            name = None  # N1: adopt takes the project's release's vocabulary unless the call named one (B2)
        command = COMMANDS.get(items[0])
        if command is None:
            raise UsageError("unknown subcommand %r" % os.fsdecode(items[0]))
        if _asks_for_help(items):
            command, items = "sage_flags._help:run_help", [b"help", items[0]]  # D4.2: `adopt --help`
        if isinstance(command, str):
            module_name, _, function_name = command.partition(":")
            command = getattr(__import__(module_name, fromlist=[function_name]), function_name)
        return command(items[1:], name)
    except UsageError as error:
        if hook:
            return _fail_open(str(error))
        say("sage-flags: %s (try 'sage-flags --help')\n" % error)
        return USAGE_ERROR
    except _vocabulary_name.UnknownVocabulary:
        from sage_flags._vocab import UNKNOWN_VOCABULARY

        if hook:
            return _fail_open(UNKNOWN_VOCABULARY[len("sage-flags: ") :])
        say(UNKNOWN_VOCABULARY + "\n")
        return USAGE_ERROR
    except ImportError as error:
        if hook:
            return _fail_open("cannot run: %s" % error)
        say("sage-flags: cannot run: %s\n" % error)
        return UNAVAILABLE
    except WriteFailed:
        # What is still buffered goes to the null device at exit, so no "Exception ignored" follows.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)
        say(WRITE_FAILED_MESSAGE)
        return WRITE_FAILED


def _fail_open(why: str) -> int:
    """K8: the hook's own failure: one stderr line (lost, not the status, when stderr is closed), status 3."""
    say(FAIL_OPEN_LINE % why)
    return UNAVAILABLE
