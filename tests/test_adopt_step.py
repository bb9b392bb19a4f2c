"""adopt's runner of the project's step (SPEC H12): the time and output bounds, on POSIX and in Windows' form."""

from __future__ import annotations

import subprocess
import sys

import pytest
from sage_flags import _adopt_step

COLLECTORS = {"posix": _adopt_step._collect, "windows": _adopt_step._collect_windows}


def started(code: str) -> subprocess.Popen:
    argv = [sys.executable, "-c", code]
    return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


@pytest.mark.parametrize("form", COLLECTORS)
def test_an_answer_within_the_bounds_is_taken_whole(form: str) -> None:
    process = started("import sys; sys.stdout.write('{\"goal\": \"x\"}'); sys.stderr.write('e'); sys.exit(1)")
    with process.stdout, process.stderr:
        assert COLLECTORS[form](process, 20) == (1, b'{"goal": "x"}', b"e", "")


@pytest.mark.parametrize("form", COLLECTORS)
def test_a_step_over_its_time_or_output_is_refused(form: str) -> None:
    slow = started("import time; time.sleep(30)")
    with slow.stdout, slow.stderr:
        status, _, _, why = COLLECTORS[form](slow, 0.5)
    slow.kill()
    slow.wait()
    assert (status, why) == (None, "ran over 0.5 s")
    loud = started("import sys; sys.stdout.write('x' * %d)" % (_adopt_step.OUTPUT_LIMIT + 1))
    with loud.stdout, loud.stderr:
        status, _, _, why = COLLECTORS[form](loud, 20)
    loud.kill()
    loud.wait()
    assert (status, why) == (None, "wrote over %d bytes" % _adopt_step.OUTPUT_LIMIT)
