"""``python -m core.flag_parser ...``: the sage-flags command line.

When sage_flags cannot be imported, or this Python is older than 3.8, one line
on stderr and status 3, so that the workflow falls through to the bash layer
(parse.sh). Python 2 syntax on purpose: 2.7 must reach that line too (D28).
"""

import sys

from . import import_sage_flags

# No .pyc of the package written into the project's tree (SPEC H10). The import system has already written
# this entry's own before its first line runs: hence `python3 -B -m core.flag_parser` (SPEC D25).
sys.dont_write_bytecode = True
try:
    import_sage_flags()
    from sage_flags.cli import main
except ImportError as error:
    if sys.argv[1:2] == ["hook"]:  # docs/SPEC.md K8: the hook's own failure has its one line (status 3 either way)
        sys.stderr.write("sage-flags: hook: cannot run: %s; not answering (the prompt goes on without it)\n" % error)
    else:
        sys.stderr.write("core.flag_parser: cannot run: %s\n" % error)
    sys.exit(3)
# docs/SPEC.md B2: the drop-in takes its vocabulary from the environment only (no --vocabulary item).
sys.exit(main(vocabulary_option=False) if "vocabulary_option" in main.__code__.co_varnames else main())
