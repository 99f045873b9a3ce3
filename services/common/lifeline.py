"""Stop a service when the launcher that started it dies.

A launcher (`make run`, the test harness) passes its pid in TABLETOP_PARENT_PID;
the service then asks the kernel for SIGTERM on the parent's death (Linux
PR_SET_PDEATHSIG), so no service outlives a killed launcher. Done at start-up
in the service itself: a pre-exec hook in a threaded launcher can deadlock.
"""

from __future__ import annotations

import ctypes
import os
import signal

PR_SET_PDEATHSIG = 1


def hold(environ: dict[str, str] | None = None) -> None:
    """Tie this process's life to its launcher's, if one asked for it."""
    parent = (environ if environ is not None else os.environ).get("TABLETOP_PARENT_PID", "")
    if not parent.isdigit():
        return
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
    except OSError:
        return
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != int(parent):
        # The launcher died before we could ask: stop now.
        os.kill(os.getpid(), signal.SIGTERM)
