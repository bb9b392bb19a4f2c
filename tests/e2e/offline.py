"""What both CLIs' end-to-end tests run their turns in: no request can leave the machine."""

from __future__ import annotations

import functools
import shutil
import subprocess
import warnings
from typing import Tuple


@functools.lru_cache(maxsize=None)
def network_isolation() -> Tuple[str, ...]:
    """`unshare -rn` where it works (a network namespace of its own: only the stand-in on its loopback)."""
    unshare = shutil.which("unshare")
    if unshare and subprocess.run([unshare, "-rn", "true"], capture_output=True).returncode == 0:
        return (unshare, "-rn", "--")
    warnings.warn("unshare -rn is not available: the CLI runs offline by its settings alone", stacklevel=2)
    return ()
