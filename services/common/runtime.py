"""How every process runs its main coroutine: on uvloop when it is installed,
unless TABLETOP_EVENT_LOOP=asyncio asks for the standard loop.

uvloop's loop does the same work as asyncio's with less CPU per call (see
pyproject.toml for the figures); grpc.aio polls its completion queue on its own
thread and hands results to whichever loop runs, so servers and clients work
on either.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Coroutine
from typing import Any

# Coroutine[Any, Any, None]: a main's yield and send types are asyncio's business.
Main = Callable[[], Coroutine[Any, Any, None]]


def event_loop(env: dict[str, str] | None = None) -> str:
    """"uvloop" or "asyncio": what `run` will use here."""
    asked = (os.environ if env is None else env).get("TABLETOP_EVENT_LOOP", "uvloop")
    if asked == "asyncio":
        return "asyncio"
    try:
        import uvloop  # noqa: F401
    except ImportError:
        return "asyncio"
    return "uvloop"


def run(main: Main) -> None:
    """Run `main()` to its end on the chosen event loop."""
    if event_loop() == "uvloop":
        import uvloop

        uvloop.run(main())
    else:
        asyncio.run(main())
