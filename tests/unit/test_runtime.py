"""Every process runs on uvloop (a dependency) unless told to use asyncio's own loop."""

from __future__ import annotations

import asyncio
import gc
import importlib.util
import weakref
from collections.abc import Iterator

import pytest

from services.common import runtime


def test_uvloop_is_the_default_and_asyncio_is_one_setting_away():
    assert importlib.util.find_spec("uvloop") is not None, "uvloop is a dependency"
    assert runtime.event_loop({}) == "uvloop"
    assert runtime.event_loop({"TABLETOP_EVENT_LOOP": "uvloop"}) == "uvloop"
    assert runtime.event_loop({"TABLETOP_EVENT_LOOP": "asyncio"}) == "asyncio"


@pytest.fixture(autouse=True)
def collector_as_it_was() -> Iterator[None]:
    """`run` tunes the collector of the process it runs in (this one): undone after each test."""
    callbacks, thresholds = list(gc.callbacks), gc.get_threshold()
    yield
    gc.callbacks[:] = callbacks
    gc.set_threshold(*thresholds)
    gc.unfreeze()


@pytest.mark.parametrize("loop", ["uvloop", "asyncio"])
def test_run_drives_main_to_its_end_on_the_chosen_loop(monkeypatch: pytest.MonkeyPatch, loop: str):
    monkeypatch.setenv("TABLETOP_EVENT_LOOP", loop)
    seen: list[str] = []

    async def main() -> None:
        await asyncio.sleep(0)
        seen.append(type(asyncio.get_running_loop()).__module__.split(".")[0])

    runtime.run(main)
    assert seen == [runtime.event_loop()]


def test_young_collections_come_every_young_threshold_new_objects():
    gc.set_threshold(700, 10, 10)  # CPython's default
    runtime.tune_collector()
    assert gc.get_threshold() == (runtime.YOUNG_THRESHOLD, 10, 10)
    assert runtime.YOUNG_THRESHOLD > 700
    assert any(isinstance(callback, runtime.FreezeSurvivors) for callback in gc.callbacks)


class Node:
    """A cycle's member: reference counting alone never frees it."""

    def __init__(self) -> None:
        self.other: Node | None = None


def cycle() -> weakref.ref[Node]:
    first, second = Node(), Node()
    first.other, second.other = second, first
    return weakref.ref(first)


def test_survivors_of_a_full_collection_are_frozen_until_the_next_sweep():
    now = [0.0]
    survivors = runtime.FreezeSurvivors(sweep_every=600.0, clock=lambda: now[0])
    gc.unfreeze()
    kept = [Node() for _ in range(100)]
    survivors("stop", {"generation": 1, "collected": 0, "uncollectable": 0})
    assert gc.get_freeze_count() == 0, "a young collection freezes nothing"
    survivors("stop", {"generation": 2, "collected": 0, "uncollectable": 0})
    assert gc.get_freeze_count() >= len(kept), "what survived a full collection is frozen"

    # A cycle a freeze caught (here one dropped but not collected yet) is out of the collector's sight ...
    frozen_cycle = cycle()
    survivors("stop", {"generation": 2, "collected": 0, "uncollectable": 0})
    gc.collect()  # (runs no callback of ours: `survivors` is not installed)
    assert frozen_cycle() is not None
    # ... until the sweep: the next full collection after it walks everything again.
    now[0] = 600.0
    survivors("stop", {"generation": 2, "collected": 0, "uncollectable": 0})
    assert gc.get_freeze_count() == 0
    gc.collect()
    assert frozen_cycle() is None


def test_a_cycle_that_dies_before_a_freeze_is_collected_as_ever():
    survivors = runtime.FreezeSurvivors(sweep_every=600.0, clock=lambda: 0.0)
    gc.callbacks.append(survivors)
    dropped = cycle()
    gc.collect()  # a full collection: the dead cycle goes, the living are frozen after it
    assert dropped() is None
    assert gc.get_freeze_count() > 0
