"""``python -m core.flag_parser ...``: the sage-flags command line.

When sage_flags cannot be imported, one line on stderr and status 3, so that
the workflow falls through to the bash layer (parse.sh).
"""

import sys

from . import import_sage_flags

try:
    import_sage_flags()
    from sage_flags.cli import main
except ImportError as error:
    sys.stderr.write("core.flag_parser: cannot run: %s\n" % error)
    sys.exit(3)
sys.exit(main())
