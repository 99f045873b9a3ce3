"""How every process runs its main coroutine: on uvloop, or on asyncio's own loop
when TABLETOP_EVENT_LOOP=asyncio asks for it (or uvloop is not installed).

An action is mostly the loop's own work between short steps of ours (tasks,
futures, callbacks, timers); uvloop does that work in C. `make bench` measured the
stack's CPU per action 12-20% lower on it (pyproject.toml and the design notes
have the figures). grpc.aio polls its completion queue on its own thread and
serves and calls on either loop (the unit tests run `run` on both).
"""

from __future__ import annotations

import asyncio
import gc
import importlib
import os
from collections.abc import Callable, Coroutine, Mapping

from services.common import tracing

# A main coroutine as asyncio runs it: it is sent None, and what it yields is the loop's business.
Main = Callable[[], Coroutine[object, None, None]]


def event_loop(env: Mapping[str, str] | None = None) -> str:
    """"uvloop" or "asyncio": what `run` will use here."""
    if (os.environ if env is None else env).get("TABLETOP_EVENT_LOOP", "uvloop") == "asyncio":
        return "asyncio"
    try:
        importlib.import_module("uvloop")
    except ImportError:
        return "asyncio"
    return "uvloop"


def tune_collector() -> None:
    """What is alive once the imports are done lives as long as the process: moved out
    of the collector's sight (gc.freeze), so no full collection walks it again."""
    gc.collect()
    gc.freeze()


def run(main: Main) -> None:
    """Run `main()` to its end on the chosen event loop, traced when an OTLP endpoint is set
    (before `main` makes its first channel: the stock client instrumentation sees only later ones)."""
    tracing.configure(tracing.process_name())
    tune_collector()
    if event_loop() == "uvloop":
        importlib.import_module("uvloop").run(main())
    else:
        asyncio.run(main())
