"""adopt proves agreement with the project's own flag parser (docs/SPEC.md N2, N2.1, H12).

It runs the step the project's `/build` runs to read its flags (``_adopt_step``) on the corpus of
``_adopt_corpus``, and compares each vocabulary's answers (``sage_flags.parse``, in this process) where the two
contracts overlap. Nothing here writes into the project: the configs go into a temporary folder outside it.
Also the fingerprint of the project's parser file(s) (N6) that adopt records and `adopt --check` (N2.2).
"""

import json
import os
import re
import tempfile

from sage_flags import _adopt_corpus, _vocabulary
from sage_flags._adopt_corpus import ABSENT
from sage_flags._adopt_step import BASH_STEP, SHOWN, NoStep, Runner, Step, find_step

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import List, Optional, Sequence, Tuple

    Answer = Tuple[int, Optional[dict], str]  # (exit status, its JSON object or None, what it printed, bounded)

PROBE = "--sage-flags-probe"  # an unknown flag: Sage's error lists the flags it knows


def parser_files(root: str) -> "List[str]":
    """The project's parser file(s), relative to ROOT: [] where there is none or it is our own drop-in."""
    try:
        step = find_step(root)
    except (NoStep, OSError):
        return []
    return [] if step.own else [step.path]


def fingerprint(root: str) -> "Optional[str]":
    """POSIX `cksum`'s "CRC SIZE" of the parser file(s) (one line each, joined by "; "); None for none."""
    files = parser_files(root)
    if not files:
        return None
    sums = []
    for rel in files:
        with open(os.path.join(root, rel), "rb") as handle:
            sums.append(cksum(handle.read()))
    return "; ".join(sums)


def _crc_table() -> "List[int]":
    table = []
    for byte in range(256):
        crc = byte << 24
        for _ in range(8):
            crc = ((crc << 1) ^ 0x04C11DB7) & 0xFFFFFFFF if crc & 0x80000000 else (crc << 1) & 0xFFFFFFFF
        table.append(crc)
    return table


_TABLE: "List[int]" = []


def cksum(data: bytes) -> str:
    """POSIX cksum: the CRC (polynomial 0x04C11DB7, the length appended low byte first, complemented), a space,
    the size."""
    if not _TABLE:
        _TABLE.extend(_crc_table())
    crc = 0
    for byte in data:
        crc = ((crc << 8) & 0xFFFFFFFF) ^ _TABLE[(crc >> 24) ^ byte]
    size = len(data)
    while size:
        crc = ((crc << 8) & 0xFFFFFFFF) ^ _TABLE[(crc >> 24) ^ (size & 0xFF)]
        size >>= 8
    return "%d %d" % (crc ^ 0xFFFFFFFF, len(data))


# ---------------------------------------------------------------------------------------------------------
# Comparing


def ours(text: str, config_path: str, name: str) -> "Answer":
    import sage_flags

    result = sage_flags.parse(text, sage_flags.load_defaults(config_path, name), vocabulary=name)
    return (0 if result.ok else 1), result.to_dict(), result.to_json()[:SHOWN]


def overlap(answer: "Answer") -> tuple:
    """What both contracts say (N2.1): the status; whether there is an error; else the goal, each mode that is on
    or has a source (with both), each number that is not 0 and each note given (not its words)."""
    status, value, _ = answer
    if value is None:
        return status, "no JSON object"
    if value.get("error") is not None:
        return status, "error"
    modes = sorted((k, v, value.get(k + "_source")) for k, v in value.items() if k + "_source" in value)
    modes = [mode for mode in modes if mode[1] is not False or mode[2] is not None]
    numbers = sorted((k, v) for k, v in value.items() if type(v) is int and v)
    notes = sorted(k for k, v in value.items() if k.endswith("_note") and v is not None)
    return status, value.get("goal"), modes, numbers, notes


class Outcome:
    """What verification found: the step, the number of inputs, the first agreeing vocabulary (or None), and
    the nearest (name, how many differ, the smallest differing text, its config's bytes or None, the step's
    answer, ours) when none agrees."""

    def __init__(self, step: Step, count: int, agreed: "Optional[str]", nearest: "Optional[tuple]") -> None:
        self.step, self.count, self.agreed, self.nearest = step, count, agreed, nearest


def verify(root: str, names: "Sequence[str]") -> Outcome:
    """Try NAMES in order on the project's step; the first that agrees on every input is ``agreed``. NoStep
    when the step cannot be found or run; an Outcome with ``step.own`` and nothing tried for our drop-in."""
    step = find_step(root)
    if step.own:
        return Outcome(step, 0, None, None)
    vocabularies = [_vocabulary.vocabulary(name) for name in _vocabulary.NAMES]
    configs = _adopt_corpus.configs(vocabularies)
    base = tempfile.gettempdir()
    if not os.path.relpath(os.path.realpath(base), os.path.realpath(root)).startswith(".."):
        raise NoStep("the temporary folder %s is inside the project; set TMPDIR to a folder outside it" % base)
    with tempfile.TemporaryDirectory(prefix="sage-flags-verify-", dir=base) as folder:
        runner = Runner(root, step, folder)
        runner.write_configs(configs)
        probe = runner.one(PROBE, ABSENT)
        if probe[1] is None:  # no flag parser of any release (a layout none had, a file that fails to run)
            said = probe[2].splitlines()[0][:200] if probe[2] else ""
            raise NoStep(
                "the project's flag-parsing step %s gives no JSON answer (status %d: %s)" % (step.shown, probe[0], said)
            )
        listed = _listed(probe)
        cases = _adopt_corpus.corpus(vocabularies, listed, step.kind)
        theirs = runner.all(cases)
        nearest = None
        for name in names:
            differ = [
                i
                for i, case in enumerate(cases)
                if overlap(ours(case[0], runner.config_path(case[1]), name)) != overlap(theirs[i])
            ]
            if not differ:
                return Outcome(step, len(cases), name, None)
            smallest = min(differ, key=lambda i: (len(cases[i][0]) + len(configs.get(cases[i][1], b"")), i))
            text, config = cases[smallest]
            if nearest is None or len(differ) < nearest[1]:
                real = runner.one(text, config)  # the message shows what the step itself printed for it
                mine = ours(text, runner.config_path(config), name)
                nearest = (name, len(differ), text, configs.get(config), real, mine)
        return Outcome(step, len(cases), None, nearest)


def _listed(probe: "Answer") -> "List[str]":
    """The flags Sage's unknown-flag error lists (its `Supported flags: ...`), at most 64."""
    error = (probe[1] or {}).get("error")
    if not isinstance(error, str):
        return []
    return re.findall(r"--[A-Za-z0-9][A-Za-z0-9_-]*", error.partition("Supported flags:")[2])[:64]


def describe_difference(outcome: Outcome) -> "List[str]":
    """The lines that show the smallest differing input of the nearest vocabulary, with both answers."""
    name, count, text, config, real, mine = outcome.nearest  # type: ignore[misc]
    where = "with no config file" if config is None else "with the config %s" % json.dumps(config.decode("utf-8"))
    return [
        "  nearest: %s, which differs on %d of %d inputs; the smallest: ARGUMENTS %s %s"
        % (name, count, outcome.count, json.dumps(text, ensure_ascii=False), where),
        "    the project's step %s: status %d, %s" % (outcome.step.shown, real[0], real[2]),
        "    sage-flags (%s): status %d, %s" % (name, mine[0], mine[2]),
    ]


# ---------------------------------------------------------------------------------------------------------
# adopt's use of it (N2) and `adopt --check`


def _order(named: "Optional[str]", guess: "Optional[str]") -> "List[str]":
    """The vocabularies to try: the named one alone; else B5's guess first, then the others."""
    if named is not None:
        return [named]
    return ([guess] if guess else []) + [name for name in _vocabulary.NAMES if name != guess]


def choose(root: str, named: "Optional[str]", guess: "Optional[str]", check: bool) -> "Tuple[Optional[str], List[str]]":
    """N2: (the vocabulary to adopt, the report's lines); Refusal (nothing written) where the step cannot be found
    or run, or none agrees. CHECK False (--no-verify, a vocabulary named): NAMED, unverified. With our own drop-in
    as the step, nothing is verified: NAMED, else B5's guess (None: the caller refuses the release)."""
    from sage_flags._adopt_files import Refusal

    if not check:
        return named, ["  verify: not verified (--no-verify): the project's flag-parsing step was not run"]
    try:
        outcome = verify(root, _order(named, guess))
    except (NoStep, OSError) as error:
        raise Refusal(
            str(error) if isinstance(error, NoStep) else "cannot read %s (%s)" % (BASH_STEP, error.strerror)
        ) from None
    if outcome.step.own:
        folder = os.path.dirname(outcome.step.path)
        return named or guess, [
            "  verify: %s/ is sage-flags' own drop-in (the step /build runs is ours): nothing to verify against"
            % folder
        ]
    if outcome.agreed is not None:
        if named:
            why = "the vocabulary named"
        elif outcome.agreed == guess:
            why = "B5's table's guess for this release"
        else:
            why = "B5's table guessed %s; the step decides" % guess if guess else "a release B5's table does not name"
        return outcome.agreed, [
            "  verified: %s agrees with the project's flag-parsing step %s on all %d inputs (%s)"
            % (outcome.agreed, outcome.step.shown, outcome.count, why)
        ]
    raise Refusal("\n".join(_refusal_lines(outcome, named)))


def _refusal_lines(outcome: Outcome, named: "Optional[str]") -> "List[str]":
    tried = named or ", ".join(_vocabulary.NAMES)
    return [
        "the project's flag-parsing step %s agrees with no vocabulary tried (%s) on %d inputs; nothing written"
        % (outcome.step.shown, tried, outcome.count),
        *describe_difference(outcome),
        "  to proceed: leave the flags to Sage's own step (without adopt it parses them alone); or adopt a vocabulary"
        " anyway, knowing it answers otherwise on inputs like this one: sage-flags adopt --vocabulary NAME"
        " --no-verify; or look for a newer sage-flags that carries this parser's vocabulary",
    ]


def check(root: str) -> "List[str]":
    """N2.2, `adopt --check`: the report's lines when the adopted vocabulary (from adopt's record) still agrees
    with the project's step; Refusal (status 3) with the differing input when not, or one line where nothing
    was adopted or the step cannot be found or run. Nothing is written."""
    from sage_flags._adopt_files import RECORD, Refusal, read_record

    record = read_record(root)
    if record is None:
        raise Refusal("no %s here: this project was never adopted (run sage-flags adopt)" % RECORD)
    name = record.get("vocabulary")
    if name not in _vocabulary.NAMES:
        raise Refusal("%s names no vocabulary this sage-flags carries; run sage-flags adopt" % RECORD)
    try:
        outcome = verify(root, [name])
    except NoStep as error:
        raise Refusal(str(error)) from None
    if outcome.step.own:
        folder = os.path.dirname(outcome.step.path)
        return ["sage-flags adopt --check: %s/ is sage-flags' own drop-in: nothing to verify against" % folder]
    if outcome.agreed is None:
        raise Refusal("\n".join(_refusal_lines(outcome, name)).replace("; nothing written", ""))
    lines = [
        "sage-flags adopt --check: %s agrees with the project's flag-parsing step %s on all %d inputs"
        % (name, outcome.step.shown, outcome.count)
    ]
    if record.get("fingerprint") != fingerprint(root):
        lines.append(
            "  the parser changed since adoption (it still agrees): run sage-flags adopt to record it;"
            " until then the hook lets Sage parse alone"
        )
    return lines
