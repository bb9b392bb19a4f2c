"""The in-process differential fuzzer (issue 26): the compiled core (``sage_flags._native``) against the pure
reference (``sage_flags.reference``) in one process, guided by the coverage of the reference (atheris: libFuzzer
for Python, requirements-fuzz.txt; `make fuzz` runs it beside the whole-process fuzzer, parity/fuzz.py).

Each input's bytes are read as one case (``decode``):

- ARGUMENTS: vocabulary tokens (every flag form; near misses and typos of one, so E1's suggestion, S1-S7, meets
  hits, ties and misses; ``--name=N`` for each mode that takes a value, V1-V8, with numbers about the minimum and
  the cap, leading zeros, dozens of digits, and VALUEs that are none; a flag with a value, E2; ``--``), glued by
  whitespace runs (each C5 character, lookalikes that are not whitespace), then goal text; or the bytes as
  text, invalid UTF-8 included (C10: lone surrogates, E4). Never a NUL: exec cannot pass one, so every case
  stays one a vector can pose.
- defaults: none, a mapping of the vocabulary's keys, or ``load_defaults`` of a config file written from the
  input (canonical lines, rejected variants, raw bytes, every line ending, BOMs, a NUL: C12-C14), where each
  implementation reads the file itself.

Checked per case: ``load_defaults`` gives the same mapping; ``parse`` with and without defaults gives the same
``to_json`` bytes (every field, typed) and ``ok``; and that line is strict JSON
that ``json.dumps(..., ensure_ascii=False)`` writes back byte for byte (C17). A divergence is saved as a vector
in parity/failures/ (as the whole-process fuzzer does: expected stdout and status are the pure reference's),
printed, and stops the run (libFuzzer also keeps the input as crash-*).

    python -m parity.inprocess [--cases N] [--seconds S] [--corpus DIR]   fuzz (the corpus grows in DIR)
    python -m parity.inprocess --replay DIR ...                           every corpus file once (coverage.py)

The vocabulary is the one ``sage_flags`` imports: PYTHONPATH=build/sage-1.3.18/python fuzzes Sage 1.3's.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from parity.vectors import Vector, from_bytes

ROOT = Path(__file__).resolve().parent.parent

# Not whitespace to the contract (C5), though some look like it or are to str.isspace: part of words.
LOOKALIKES = "\u00a0\u0085\u1680\u2000\u200a\u2028\u2029\u202f\u3000\u200b\ufeff\x1c\x1f"
SEPARATORS = (" ", "  ", "\t", "\n", "\r\n", "\x0b", "\x0c", "\r", " \t\n\x0b\x0c\r", "", *LOOKALIKES[:6])
EDIT_LETTERS = "abcdefghijklmnopqrstuvwxyzQLA-_=0123456789\u00e9\u0130\u0131\u017f\u2010\u2013\u2212\uff0d\u0301"
NUMBER_WORDS = ("", "0", "00", "1", "-1", "+1", "1.5", "1e3", " 1", "x", "\u0661", "\uff11", "9" * 40)
CONFIG_ENDINGS = (b"\n", b"\r\n", b"\r", b"\r\r\n", b"\n\r", b"")


class Reader:
    """The input's bytes, consumed from the front; past the end every byte reads as 0 (the simplest choice)."""

    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0
        self.invalid = False  # whether pieces keep invalid UTF-8 (C10, E4), chosen once per case

    def text(self, n: int) -> str:
        return as_text(self.take(n), self.invalid)

    def byte(self) -> int:
        value = self.data[self.pos] if self.pos < len(self.data) else 0
        self.pos += 1
        return value

    def below(self, n: int) -> int:
        return self.byte() % n if n > 1 else 0

    def pick(self, items: Sequence):
        return items[self.below(len(items))]

    def take(self, n: int) -> bytes:
        chunk = self.data[self.pos : self.pos + n]
        self.pos += n
        return chunk

    def rest(self) -> bytes:
        return self.take(max(len(self.data) - self.pos, 0))


def as_text(data: bytes, invalid: bool = True) -> str:
    """Bytes as an argv item reaches the reference (C10: invalid bytes become lone surrogates), less NULs;
    ``invalid`` False: invalid bytes become U+FFFD instead (text that is not E4)."""
    return data.replace(b"\0", b"").decode("utf-8", "surrogateescape" if invalid else "replace")


class Vocabulary:
    """The forms the generator builds tokens from, read from the vocabulary ``sage_flags`` was built with."""

    def __init__(self, reference) -> None:
        self.keys = tuple(key for key, _ in reference.MODES)
        self.forms = tuple("--" + form for _, name in reference.MODES for form in (name, "no-" + name))
        self.lines = tuple(reference.DEFAULT_LINES[key] for key in self.keys)
        # (--name, minimum, cap) per mode that takes a value (V1-V8)
        self.values = tuple(("--" + reference.MODES[row[0]][1], row[6], row[7]) for row in reference.VALUE_MODES)


def typo(r: Reader, form: str) -> str:
    """One to four edits of a flag form: insert, delete, substitute, swap neighbours, change case (S1-S7)."""
    chars = list(form)
    for _ in range(1 + r.below(4)):
        op, at = r.below(5), r.below(len(chars) + 1)
        if op == 0:
            chars.insert(at, r.pick(EDIT_LETTERS))
        elif chars and op == 1:
            del chars[min(at, len(chars) - 1)]
        elif chars and op == 2:
            chars[min(at, len(chars) - 1)] = r.pick(EDIT_LETTERS)
        elif len(chars) > 1 and op == 3:
            at = min(at, len(chars) - 2)
            chars[at], chars[at + 1] = chars[at + 1], chars[at]
        elif chars:
            at = min(at, len(chars) - 1)
            chars[at] = chars[at].swapcase()
    return "".join(chars)


def number(r: Reader, minimum: int, cap: int) -> str:
    """A VALUE for ``--name=``: about the minimum and the cap, leading zeros, many digits, or no number (V2-V5)."""
    choice = r.below(6)
    if choice == 0:
        return str(r.pick((minimum - 1, minimum, minimum + 1, cap - 1, cap, cap + 1, cap * 10)))
    if choice == 1:
        return "0" * (1 + r.below(4)) + str(r.below(cap + 2))
    if choice == 2:
        return "".join(str(r.below(10)) for _ in range(1 + r.below(30)))
    if choice == 3:
        return r.pick(NUMBER_WORDS)
    if choice == 4:
        return str(r.byte() * 256 + r.byte())
    return r.text(r.below(6))


def token(r: Reader, vocab: Vocabulary) -> str:
    kind = r.below(9)
    form = r.pick(vocab.forms)
    if kind <= 2:
        return form
    if kind <= 4:
        return typo(r, form) + ("=" + r.text(r.below(4)) if r.below(4) == 0 else "")
    if kind == 5 and vocab.values:
        name, minimum, cap = r.pick(vocab.values)
        return (name if r.below(8) else typo(r, name)) + "=" + number(r, minimum, cap)
    if kind == 6:
        return form + "=" + r.pick(("", "true", "1", "x", r.text(r.below(8))))  # E2
    if kind == 7:
        return r.pick(("--", "---", "-", "--=", "--" + r.text(r.below(10))))
    return r.text(r.below(12))


def arguments(r: Reader, vocab: Vocabulary) -> str:
    shape = r.below(8)
    r.invalid = shape == 0 or r.below(4) == 0
    if shape <= 1:
        return as_text(r.rest(), r.invalid)  # any bytes (C10), any text
    parts = [r.pick(SEPARATORS) if r.below(3) == 0 else ""]
    for _ in range(r.below(7)):
        parts += [token(r, vocab), r.pick(SEPARATORS)]
    parts.append(r.text(r.below(24)))  # the goal
    if r.below(4) == 0:
        parts.append(r.pick(SEPARATORS))
    return "".join(parts)


def config_line(r: Reader, vocab: Vocabulary) -> bytes:
    line = r.pick(vocab.lines)
    kind = r.below(10)
    if kind <= 3:
        return line
    if kind == 4:
        return line.upper() if r.below(2) else line.replace(b"true", r.pick((b"True", b"yes", b"on", b"1")))
    if kind == 5:
        return r.pick((b" ", b"\t", b"  ", b"\xc2\xa0")) + line  # indented
    if kind == 6:
        return line + r.pick((b" ", b"\t", b" # x", b"\x0b", b"\r", b"\xe2\x80\xa8"))  # trailing
    if kind == 7:
        return line.replace(b": ", r.pick((b":", b" : ", b":  ", b": '", b'"')))
    if kind == 8:
        return line.replace(b"_", b"-") if b"_" in line else line[:-1]
    return r.take(r.below(16))  # raw bytes


def config_bytes(r: Reader, vocab: Vocabulary) -> bytes:
    head = r.pick((b"", b"", b"\xef\xbb\xbf", b"\xef\xbb\xbf\xef\xbb\xbf", b"\n"))
    ending = r.pick(CONFIG_ENDINGS)
    lines = [config_line(r, vocab) for _ in range(r.below(6))]
    if r.below(3) == 0:
        ending = b""  # each line its own ending
        lines = [line + r.pick(CONFIG_ENDINGS) for line in lines]
    body = head + ending.join(lines) + (ending if r.below(2) else b"")
    return body + b"\0" if r.below(16) == 0 else body  # C12: a NUL anywhere refuses the file


class Case:
    """One decoded input: the ARGUMENTS, and the defaults (None, a mapping, or a config file's bytes)."""

    def __init__(self, text: str, defaults: Optional[Dict[str, bool]], config: Optional[bytes]) -> None:
        self.text, self.defaults, self.config = text, defaults, config


def decode(data: bytes, vocab: Vocabulary) -> Case:
    r = Reader(data)
    source = r.below(4)
    defaults: Optional[Dict[str, bool]] = None
    config: Optional[bytes] = None
    if source == 1:
        mask = r.byte() | r.byte() << 8  # two bits per mode: given, and its value
        defaults = {key: bool(mask >> (2 * i) & 1) for i, key in enumerate(vocab.keys) if mask >> (2 * i + 1) & 1}
    elif source == 2:
        config = config_bytes(r, vocab)
    return Case(arguments(r, vocab), defaults, config)


# --- the oracle ------------------------------------------------------------------------------------------------


class Backend:
    def __init__(self, name: str, parse: Callable, load_defaults: Callable) -> None:
        self.name, self.parse, self.load_defaults = name, parse, load_defaults


def _result(backend: Backend, text: str, defaults: Optional[Dict[str, bool]]) -> Tuple:
    try:
        result = backend.parse(text, defaults)
        return (result.to_json(), result.ok)  # the line has every field (C16), typed: true is not 1
    except Exception as error:  # a crash is a divergence
        return ("%s raised %s: %s" % (backend.name, type(error).__name__, error),)


class ConfigFile:
    """The file each case's config is written to: kept open, rewritten in place (an open with O_TRUNC per case
    costs a millisecond on an overlay file system, a hundred parses)."""

    def __init__(self) -> None:
        memory = "/dev/shm" if os.path.isdir("/dev/shm") else None  # a RAM file system where there is one
        self.path = os.path.join(tempfile.mkdtemp(prefix="sage-inprocess-", dir=memory), "config.yaml")
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)

    def write(self, data: bytes) -> str:
        os.pwrite(self.fd, data, 0)
        os.ftruncate(self.fd, len(data))  # (to 0 first would free the blocks each time: milliseconds)
        return self.path


def check(case: Case, reference: Backend, native: Backend, config_file: ConfigFile) -> List[str]:
    """What differs between the two for ``case`` (empty: they agree and the line is C17's JSON)."""
    problems = []
    if case.config is None:
        loaded = {reference.name: case.defaults, native.name: case.defaults}
    else:
        config_path = config_file.write(case.config)
        loaded = {}
        for backend in (reference, native):
            try:
                loaded[backend.name] = backend.load_defaults(config_path)
            except Exception as error:
                loaded[backend.name] = "raised %s: %s" % (type(error).__name__, error)
        if loaded[reference.name] != loaded[native.name]:
            problems.append("load_defaults: reference %r, native %r" % (loaded[reference.name], loaded[native.name]))
    pairs = [(None, None)]  # parse without defaults, then with each one's own (a mapping or what it loaded)
    if isinstance(loaded[reference.name], dict) and isinstance(loaded[native.name], dict):
        pairs.append((loaded[reference.name], loaded[native.name]))
    for defaults, native_defaults in pairs:
        expected = _result(reference, case.text, defaults)
        got = _result(native, case.text, native_defaults)
        if got != expected:
            problems.append("parse with defaults %r: reference %r, native %r" % (defaults, expected[:1], got[:1]))
        line = expected[0]
        try:
            again = json.dumps(json.loads(line), ensure_ascii=False)
        except ValueError as error:
            again = "not JSON: %s" % error
        if again != line:
            problems.append("to_json is not strict JSON written back byte for byte (C17): %r" % line)
    return problems


def as_vector(case: Case, problems: List[str]) -> Vector:
    """The case as a parse vector: ``--config-path {config} -- ARGUMENTS`` (one operand), expected = reference."""
    from sage_flags import reference

    from parity import fuzz  # the whole-process fuzzer's vector naming and oracle (imported on a find only)

    argv: List[bytes] = [b"--", case.text.encode("utf-8", "surrogateescape")]
    config = case.config
    if config is None and case.defaults:  # a mapping is what a config of its true keys' lines gives (C14)
        config = b"".join(reference.DEFAULT_LINES[k] + b"\n" for k, on in case.defaults.items() if on)
    spec = None
    if config is not None:
        argv = [b"--config-path", b"{config}", *argv]
        spec = {"type": "file", "content": from_bytes(config)}
    with tempfile.TemporaryDirectory() as workdir:
        probe = Vector("", (), tuple(argv), b"", 0, config=spec)
        expected = fuzz.parse_oracle(fuzz.REFERENCE, probe.materialise(Path(workdir)), b"")
    vector = Vector(
        name="",
        rules=fuzz._rules("parse", argv, spec, {}),
        argv=tuple(argv),
        stdout=expected.stdout,
        status=expected.status or 0,
        config=spec,
        note="in-process fuzzer (parity/inprocess.py): " + "; ".join(problems)[:400],
    )
    return fuzz.diverged(vector, problems).vector


class Target:
    """The fuzz target: one call per input; counts cases and stops the run on the first divergence."""

    def __init__(self, reference, native, failures_dir: Optional[Path] = None) -> None:
        self.vocab = Vocabulary(reference)
        self.reference = Backend("reference", reference.parse, reference.load_defaults)
        self.native = Backend("native", native.parse, native.load_defaults)
        self.failures_dir = failures_dir
        self.config_file = ConfigFile()
        self.cases = 0
        self.started, self.cpu_started = time.monotonic(), time.process_time()
        self.report_every = 0
        self.stop_after = 0

    def __call__(self, data: bytes) -> None:
        case = decode(data, self.vocab)
        problems = check(case, self.reference, self.native, self.config_file)
        self.cases += 1
        if problems:
            self.found(case, problems)
        if self.report_every and self.cases % self.report_every == 0:
            self.progress()
        if self.cases == self.stop_after:
            self.progress()

    def found(self, case: Case, problems: List[str]) -> None:
        from parity import fuzz

        vector = as_vector(case, problems)
        path = fuzz.save_failure(vector, self.failures_dir)
        raise AssertionError("divergence after %d cases, saved as %s:\n%s" % (self.cases, path, vector.to_json()))

    def progress(self) -> None:
        elapsed, cpu = time.monotonic() - self.started, time.process_time() - self.cpu_started
        print(
            "inprocess: %d cases, 0 divergences, %.0f s: %.0f cases/s (%.0f per CPU second), vocabulary %s"
            % (self.cases, elapsed, self.cases / max(elapsed, 1e-9), self.cases / max(cpu, 1e-9), self.names()),
            flush=True,
        )

    def names(self) -> str:
        return " ".join(form for form in self.vocab.forms if not form.startswith("--no-"))


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m parity.inprocess", description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=0, help="stop after this many cases (libFuzzer -runs)")
    parser.add_argument("--seconds", type=int, default=0, help="stop after this long (libFuzzer -max_total_time)")
    parser.add_argument("--corpus", type=Path, help="the corpus directory (read, and grown with new inputs)")
    parser.add_argument("--replay", type=Path, nargs="+", help="run every file of these directories once; no fuzzing")
    args = parser.parse_args(argv)
    if args.replay:
        from sage_flags import _native, reference

        target = Target(reference, _native)
        files = sorted(p for d in args.replay for p in d.iterdir() if p.is_file())
        for path in files:
            target(path.read_bytes())
        print("inprocess: replayed %d corpus files, 0 divergences" % len(files))
        return
    import atheris  # requirements-fuzz.txt (make fuzz), not make test's

    with atheris.instrument_imports(include=["sage_flags"]):
        from sage_flags import _native, reference
    target = Target(reference, _native)
    target.report_every = 200_000
    target.stop_after = args.cases
    libfuzzer = [sys.argv[0], "-print_final_stats=1", "-max_len=512", "-timeout=10"]
    if args.cases:
        libfuzzer.append("-runs=%d" % args.cases)
    if args.seconds:
        libfuzzer.append("-max_total_time=%d" % args.seconds)
    if args.corpus:
        args.corpus.mkdir(parents=True, exist_ok=True)
        libfuzzer.append(str(args.corpus))
    atheris.Setup(libfuzzer, target)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
