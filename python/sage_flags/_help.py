"""``sage-flags help [SUBCOMMAND]``, ``--help``, ``-h``, and ``SUBCOMMAND --help`` of the subcommands that take it
(the dispatcher, ``sage_flags.cli``, decides which: docs/SPEC.md D4.1-D4.4).

The text is package data, ``help/*.txt`` beside this module (read through ``__file__``: Python 3.8 has no
``importlib.resources.files``), the one source of every layer's help: the native executable hands help to this
module (docs/IMPLEMENTATION.md D27), the bundle's ``_vendor/`` and both wheels carry the folder. A topic's file
opens with its usage lines, which the overview gathers, so each usage line is written once.
"""

import os

from sage_flags._io import OK, UsageError, _write

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import List, Sequence

HELP_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "help")
# Every subcommand, in the overview's order: each has help/NAME.txt.
TOPICS = ("parse", "batch", "announce", "hook", "config", "persist", "resume", "adopt")
MORE = "more.txt"


class HelpMissing(ImportError):
    """The package's help folder is not there (a broken install): status 3 like any part missing."""


def _read(name: str) -> str:
    try:
        with open(os.path.join(HELP_DIR, name), "rb") as file:
            return file.read().decode("utf-8")
    except OSError as error:
        raise HelpMissing("the help text %s is missing (%s)" % (name, error.strerror)) from error


def _more() -> str:
    import sage_flags

    return _read(MORE).replace("{version}", sage_flags.__version__)


def usage_lines(topic: str) -> "List[str]":
    """The topic's usage lines: its file's lines up to the first blank one, without their ``usage: `` indent."""
    lines = _read(topic + ".txt").split("\n")
    return [line[len("usage: ") :] for line in lines[: lines.index("")]]


def overview() -> str:
    lines = [line for topic in TOPICS for line in usage_lines(topic)]
    head = "usage: " + "\n       ".join(lines) + "\n"
    return head + _read("overview.txt") + _more()


def topic_text(topic: str) -> str:
    return _read(topic + ".txt") + _more()


def run_help(items: "Sequence[bytes]", _vocabulary: object = None) -> int:
    """D4.1: no item, the overview; one subcommand's name (``config explain`` for config), its text."""
    words = [os.fsdecode(item) for item in items]
    if words == ["config", "explain"]:
        words = ["config"]
    if not words or words == ["help"]:
        text = overview()
    elif len(words) == 1 and words[0] in TOPICS:
        text = topic_text(words[0])
    else:
        raise UsageError("help takes one subcommand's name, one of: %s" % ", ".join(TOPICS))
    _write(text.encode("utf-8"))
    return OK
