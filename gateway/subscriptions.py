"""Live match streams, one Redis reader per match however many watch it.

Each watched match has one follower task doing blocking stream reads and
keeping the recent events in memory; every watcher of that match reads from
there. A watcher that asks for older events gets them from the store first.
A follower stops once nobody has watched its match for IDLE_SECONDS.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass, field

from services.common.event_store import EventStore, StoredEvent
from services.common.keys import match_stream

BUFFER = 512
POLL_SECONDS = 5.0
IDLE_SECONDS = 30.0


@dataclass
class _Feed:
    events: list[StoredEvent] = field(default_factory=list)
    version: int = 0
    changed: asyncio.Condition = field(default_factory=asyncio.Condition)
    watchers: int = 0
    last_seen: float = field(default_factory=time.monotonic)
    closed: bool = False
    task: asyncio.Task[None] | None = None


class Subscriptions:
    def __init__(self, store: EventStore) -> None:
        self._store = store
        self._feeds: dict[str, _Feed] = {}

    async def next_batch(self, match_id: str, after: int, timeout: float) -> list[StoredEvent]:
        """Events after `after`, waiting up to `timeout` s for some; [] if none came."""
        feed = self._feed(match_id)
        feed.watchers += 1
        feed.last_seen = time.monotonic()
        try:
            async with feed.changed:
                if feed.version <= after and not feed.closed:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(
                            feed.changed.wait_for(lambda: feed.version > after or feed.closed), timeout
                        )
            if feed.events and feed.events[0].version <= after + 1:
                return [e for e in feed.events if e.version > after]
            # Older than what the feed holds, or the feed has closed: read the store.
            return await self._store.read(match_stream(match_id), after)
        finally:
            feed.watchers -= 1
            feed.last_seen = time.monotonic()

    def _feed(self, match_id: str) -> _Feed:
        feed = self._feeds.get(match_id)
        if feed is None or feed.closed:
            feed = self._feeds[match_id] = _Feed()
            feed.task = asyncio.create_task(self._follow(match_id, feed))
        return feed

    async def _follow(self, match_id: str, feed: _Feed) -> None:
        """Read the stream and publish it to the feed until nobody watches any more."""
        stream = match_stream(match_id)
        try:
            version = await self._store.version(stream)
            async with feed.changed:
                # Watchers that are behind can read the store right away.
                feed.version = version
                feed.changed.notify_all()
            while True:
                batch = await self._store.wait(stream, feed.version, POLL_SECONDS)
                async with feed.changed:
                    if batch:
                        feed.events = (feed.events + batch)[-BUFFER:]
                        feed.version = batch[-1].version
                    idle = not feed.watchers and time.monotonic() - feed.last_seen > IDLE_SECONDS
                    feed.closed = idle
                    feed.changed.notify_all()
                    if idle:
                        return
        finally:
            # Also on failure: waiters wake up and read the store instead.
            async with feed.changed:
                feed.closed = True
                feed.changed.notify_all()
            if self._feeds.get(match_id) is feed:
                del self._feeds[match_id]

    async def close(self) -> None:
        for feed in list(self._feeds.values()):
            if feed.task is not None:
                feed.task.cancel()
