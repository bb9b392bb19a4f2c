"""Every vector through an installed `sage-flags` program (release.yml runs this on each platform's runner).

    python tools/check_installed.py PATH/TO/sage-flags

Prints one line per vector that differs and exits 1, or prints the count and exits 0. It needs pytest and
hypothesis importable (the manifest checks of persist/resume live in tests/test_manifest.py), and Python 3.11+.
The program runs in a clean environment (tests/artifacts.py clean_env), so nothing of this checkout leaks in.
"""

import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# The test helpers, the vectors, and the checkout's package for the harness's own imports.
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "python")]

from artifacts import entry, vector_failures  # noqa: E402


def main() -> int:
    if len(sys.argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    program = str(Path(sys.argv[1]).resolve())
    with tempfile.TemporaryDirectory() as workdir:
        layer = entry("installed", [program])
        try:
            failures = vector_failures(layer, Path(workdir), "every")  # a release: every vector
        except pytest.skip.Exception as skipped:  # all passed but what this machine cannot pose (a locale)
            print("left out: %s" % skipped.msg)
            failures = []
        checked = len(list(Path(workdir).iterdir()))
    for failure in failures:
        print(failure)
    print("%s: %d vectors, %d differ" % (program, checked, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
