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
import time
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


# How often the collector walks everything once more (see FreezeSurvivors).
FULL_SWEEP_EVERY_S = 600.0
# New objects between two young collections (CPython's default is 700). Each young
# collection walks what is still alive of the actions in flight, nearly all of what it
# finds (an action leaves about one object of cyclic garbage): fewer of them, each
# walking a little more, cost the in-process stack 8% less CPU per action at 16
# matches and 3% at 64 (docs/design-notes.md, "The collector").
YOUNG_THRESHOLD = 5000


class FreezeSurvivors:
    """A gc callback: what survives a full collection is frozen (gc.freeze), so the next
    one walks only what was promoted since.

    A process here keeps thousands of matches' positions and engine states in its
    caches (LRUs), hundreds of thousands of objects that live until evicted. CPython
    runs a full collection whenever a quarter as many new objects again have survived
    to the oldest generation, and each walks the whole heap: in the in-process gateway
    under make bench's load they came every few seconds and took 100-650 ms each,
    growing with the caches (the p99 and the CPU per action grew with them). An evicted
    entry is a tree without cycles, so reference counting frees it frozen or not; what
    freezing hides is only a cycle among objects that were alive at a freeze and died
    since. So every `sweep_every` seconds the next full collection walks everything
    again (gc.unfreeze), which bounds what such cycles can hold."""

    def __init__(self, sweep_every: float = FULL_SWEEP_EVERY_S, clock: Callable[[], float] = time.monotonic) -> None:
        self._sweep_every = sweep_every
        self._clock = clock
        self._swept = clock()

    def __call__(self, phase: str, info: Mapping[str, int]) -> None:
        if phase != "stop" or info["generation"] != 2:
            return
        now = self._clock()
        if now - self._swept >= self._sweep_every:
            self._swept = now
            gc.unfreeze()  # the next full collection walks the whole heap, cycles and all
            return
        gc.freeze()


def tune_collector() -> None:
    """What is alive once the imports are done lives as long as the process: moved out
    of the collector's sight (gc.freeze), so no full collection walks it again; later
    survivors of full collections likewise (FreezeSurvivors); young collections come
    every YOUNG_THRESHOLD new objects."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, *gc.get_threshold()[1:])
    if not any(isinstance(callback, FreezeSurvivors) for callback in gc.callbacks):
        gc.callbacks.append(FreezeSurvivors())


def run(main: Main) -> None:
    """Run `main()` to its end on the chosen event loop, traced when an OTLP endpoint is set
    (before `main` makes its first channel: the stock client instrumentation sees only later ones)."""
    tracing.configure(tracing.process_name())
    tune_collector()
    if event_loop() == "uvloop":
        importlib.import_module("uvloop").run(main())
    else:
        asyncio.run(main())
