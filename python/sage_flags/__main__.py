"""``python -m sage_flags``: the same command line as ``sage-flags``."""

import sys

from sage_flags.cli import main

sys.exit(main())
