"""A matchmaker replica that no ticket event concerns (no pool of its own, no watcher)
stands by without reading the events, keeping its place near the newest one, and
reads on from that place once a watcher comes."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Mapping
from typing import Any

from services.matchmaker import app as mm_app
from services.matchmaker.app import MatchmakerApp
from services.matchmaker.config import MatchmakerConfig


class Events:
    """The part of the ticket store the events follower uses, scripted."""

    def __init__(self) -> None:
        self.newest = "5-0"
        self.reads: list[str] = []
        self.on_newest: Callable[[], None] = lambda: None

    async def last_event(self) -> str | None:
        self.on_newest()
        return self.newest

    async def ticket_events(self, after: str, block_ms: int) -> list[tuple[str, Mapping[bytes, bytes]]]:
        self.reads.append(after)
        await asyncio.sleep(0.01)
        return []


def replica(events: Events) -> MatchmakerApp:
    app = MatchmakerApp(events, None, MatchmakerConfig(), "r1")  # type: ignore[arg-type]
    app._known, app._mine = {"pig/2"}, frozenset()  # another replica owns the one pool
    return app


async def _run_for(app: MatchmakerApp, seconds: float) -> None:
    task = asyncio.create_task(app.run_notifier())
    await asyncio.sleep(seconds)
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


async def test_a_replica_nothing_concerns_reads_no_events_and_keeps_its_place(monkeypatch: Any) -> None:
    monkeypatch.setattr(mm_app, "STANDBY_SECONDS", 0.02)
    events = Events()
    app = replica(events)
    await _run_for(app, 0.15)
    assert events.reads == [], "no ticket event concerns it"
    assert app._followed == "5-0", "its place moved to the newest event"
    with app._listening("t1"):
        await _run_for(app, 0.1)
    assert events.reads and events.reads[0] == "5-0", "a watcher's events are read from the place kept"


async def test_a_watcher_that_comes_while_the_place_moves_loses_nothing(monkeypatch: Any) -> None:
    """The newest event may already be the watcher's: the older place is kept then."""
    monkeypatch.setattr(mm_app, "STANDBY_SECONDS", 0.02)
    events = Events()
    app = replica(events)
    app._followed = "3-0"
    listening = app._listening("t1")
    events.on_newest = lambda: listening.__enter__() and None
    events.newest = "7-0"
    try:
        await _run_for(app, 0.1)
    finally:
        listening.__exit__(None, None, None)
    assert events.reads and events.reads[0] == "3-0"


async def test_a_replica_that_owns_a_pool_follows_the_events(monkeypatch: Any) -> None:
    events = Events()
    app = replica(events)
    app._mine = frozenset({"pig/2"})
    await _run_for(app, 0.05)
    assert events.reads, "its pool's arrivals wake its grouping"
