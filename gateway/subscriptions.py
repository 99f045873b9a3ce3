"""Live match streams on a bounded number of Redis connections.

Every append publishes "<stream> <version>" (redis_store.APPENDED_CHANNEL).
The gateway holds ONE subscription to that channel for all matches; when it
hears of an append to a match someone watches, one read (XRANGE, from the
bounded pool, a few at a time) fetches the new events into that
match's feed, and every watcher of the match is served from there. So a
gateway uses at most its pool size (+1 on a cluster) connections, whether 10 or 100,000
watchers follow 10 or 100,000 matches; nobody blocks a connection per match.
A submit through this gateway brings back the events it appended: those go
into the match's feed at once (`offer`), and its notification reads nothing.
The notification and the submit's answer come back on two connections, in
either order: one heard while a submit to that match is under way here waits
for the submit (`submitting`), at most OFFER_WAIT, before it reads the store.

Pub/sub keeps nothing for an absent subscriber, so after every
(re)subscription every feed re-reads the store from its version: an append
made while the subscription was down is found then. A watcher whose wait (10 s
at most) ends with nothing new while the subscription is down is ended
UNAVAILABLE (it resumes from its last version); a shorter loss is invisible.
A watcher that asks for older events than a feed holds reads the store. A
feed nobody has watched for IDLE_SECONDS is dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator, Sequence
from dataclasses import dataclass, field

from tabletop.common.v1 import log_pb2

from services.common import logging as tlog
from services.common.errors import Unavailable
from services.common.redis.changes import SUBSCRIBED
from services.common.redis.faults import FAULTS, FAULTS_AND_TIMEOUTS
from services.common.redis.keys import match_stream
from services.common.store import log_entry
from services.common.store.event_store import EventStore, StoredEvent

log = tlog.get("subscriptions")
# Recent events a feed keeps in memory (watchers that are further behind read
# the store): small, as a gateway may follow tens of thousands of matches.
BUFFER = 64
# Most events one store read returns; a watcher that is further behind loops.
PAGE = 512
IDLE_SECONDS = 30.0
# Store reads at once, each holding one pooled connection: feeds catching up
# with an append, and watchers catching up with a feed, bounded apart so that
# watchers far behind never delay live updates.
READS = 8
RESUBSCRIBE_SECONDS = 0.5
# How long a notification heard during a submit through this gateway waits for that
# submit's own events before the feed reads the store anyway (a submit that hangs
# after its append must not hold up the other watchers).
OFFER_WAIT = 0.05
# How often the ticker wakes watchers whose wait ran out (see `next_batch`): the
# precision of every watcher's timeout.
TICK_SECONDS = 0.1

Listen = Callable[[], AsyncIterator[tuple[str, int]]]
"""Opens a subscription: yields SUBSCRIBED, then (stream, last version) per append."""


@dataclass
class _Feed:
    stream: str
    events: list[StoredEvent] = field(default_factory=list)
    version: int = -1  # -1: not read yet
    changed: asyncio.Condition = field(default_factory=asyncio.Condition)
    watchers: int = 0
    last_seen: float = field(default_factory=time.monotonic)
    pulling: bool = False
    again: bool = False
    submits: int = 0  # submits through this gateway under way (`submitting`)
    heard: int = -1  # the newest version a notification named while they were
    wake_at: float = float("inf")  # the earliest deadline of a watcher waiting on it


class Subscriptions:
    def __init__(self, store: EventStore, listen: Listen, reads: int = READS) -> None:
        self._store = store
        self._listen = listen
        self._pulls = asyncio.Semaphore(reads)
        self._catch_ups = asyncio.Semaphore(reads)
        self._feeds: dict[str, _Feed] = {}
        self._subscribed = False
        self._down = False
        self._tasks: set[asyncio.Task[None]] = set()
        self._running = False

    @property
    def following(self) -> int:
        """Matches followed right now."""
        return len(self._feeds)

    async def next_batch(self, match_id: str, after: int, timeout: float) -> list[StoredEvent]:
        """Events after `after`, waiting up to `timeout` s for some; [] if none came."""
        self._start()
        feed = self._feed(match_stream(match_id))
        feed.watchers += 1
        feed.last_seen = time.monotonic()
        try:
            deadline = time.monotonic() + timeout

            def ready() -> bool:
                # No timer of its own for every wait (each is a heap entry and, on Python
                # 3.11, a getpid() per get_running_loop): the one ticker wakes the feed once
                # its earliest deadline has passed, and each watcher asks its own clock.
                if feed.version > after or time.monotonic() >= deadline:
                    return True
                feed.wake_at = min(feed.wake_at, deadline)
                return False

            async with feed.changed:
                await feed.changed.wait_for(ready)
            if feed.version <= after:
                # Still nothing: if that is because the subscription is down, say so
                # (a short loss of the subscription is invisible: it re-reads on return).
                if self._down:
                    raise Unavailable("live updates are unavailable; resume from your last version", "updates.down")
                return []
            if feed.events and feed.events[0].version <= after + 1:
                return [e for e in feed.events if e.version > after]
            async with self._catch_ups:
                return await self._store.read(feed.stream, after, PAGE)
        finally:
            feed.watchers -= 1
            feed.last_seen = time.monotonic()

    @contextlib.contextmanager
    def submitting(self, match_id: str) -> Iterator[None]:
        """A submit to `match_id` through this gateway is under way: the notification of
        its append, if heard before its answer, waits for the events the answer brings
        (`offer`) instead of reading them from the store. What the submit did not bring
        (it failed, or another writer appended first) is read once it is over."""
        feed = self._feeds.get(match_stream(match_id))
        if feed is None:
            yield
            return
        feed.submits += 1
        try:
            yield
        finally:
            feed.submits -= 1
            if not feed.submits:
                self._pull_heard(feed)

    async def offer(self, match_id: str, last_version: int, appended: Sequence[log_pb2.LogEntry]) -> None:
        """Events an append just made, at versions up to `last_version` (the match
        service's answer to a submit through this gateway): a feed that holds every
        event before them takes them without reading the store, and the notification
        of that append then finds nothing new. Any other feed ignores them."""
        feed = self._feeds.get(match_stream(match_id))
        first = last_version - len(appended) + 1
        if feed is None or not appended or feed.version != first - 1:
            return
        async with feed.changed:
            if feed.version != first - 1:  # a pull got there first
                return
            events = [log_entry.stored(first + offset, logged) for offset, logged in enumerate(appended)]
            feed.events = (feed.events + events)[-BUFFER:]
            feed.version = last_version
            feed.changed.notify_all()

    def _start(self) -> None:
        if not self._running:
            self._running = True
            self._spawn(self._subscription())
            self._spawn(self._janitor())
            self._spawn(self._ticker())

    # Coroutine[object, None, None]: asyncio sends it None, and what it yields is the loop's business.
    def _spawn(self, work: Coroutine[object, None, None]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _feed(self, stream: str) -> _Feed:
        feed = self._feeds.get(stream)
        if feed is None:
            feed = self._feeds[stream] = _Feed(stream)
            if self._subscribed:
                self._pull(feed)
            # else: the subscription, once made, pulls every feed.
        return feed

    def _pull(self, feed: _Feed) -> None:
        """Bring `feed` up to date with the store; one read at a time per feed."""
        if feed.pulling:
            feed.again = True
            return
        feed.pulling = True
        self._spawn(self._pulling(feed))

    async def _pulling(self, feed: _Feed) -> None:
        try:
            more = True
            while more:
                feed.again = False
                async with self._pulls:
                    if feed.version < 0:
                        version, batch = await self._store.version(feed.stream), []
                    else:
                        version, batch = feed.version, await self._store.read(feed.stream, feed.version, PAGE)
                async with feed.changed:
                    # Events offered by a submit's answer meanwhile are there already.
                    fresh = [e for e in batch if e.version > feed.version]
                    feed.version = max(feed.version, version)
                    if fresh:
                        feed.events = (feed.events + fresh)[-BUFFER:]
                        feed.version = fresh[-1].version
                    feed.changed.notify_all()
                more = feed.again or len(batch) == PAGE
        except FAULTS as fault:
            # The next notification or resubscription pulls again.
            log.warning("feed_read_failed", stream=feed.stream, fault=type(fault).__name__)
        finally:
            feed.pulling = False

    async def _subscription(self) -> None:
        """Hold the subscription for ever, reopening it after a failure."""
        while True:
            try:
                async for stream, version in self._listen():
                    self._heard(stream, version)
            except FAULTS_AND_TIMEOUTS as fault:
                log.warning("subscription_lost", fault=type(fault).__name__)
            self._set_down()
            await asyncio.sleep(RESUBSCRIBE_SECONDS)  # back off before subscribing again

    def _heard(self, stream: str, version: int) -> None:
        if (stream, version) == SUBSCRIBED:
            self._subscribed, self._down = True, False
            log.info("subscribed", following=len(self._feeds))
            for feed in list(self._feeds.values()):
                self._pull(feed)
            return
        followed = self._feeds.get(stream)
        if followed is None or version <= followed.version:
            return
        if not followed.submits:
            self._pull(followed)
            return
        # A submit here may be about to offer these very events: wait for it, a while.
        if followed.heard <= followed.version:
            asyncio.get_running_loop().call_later(OFFER_WAIT, self._pull_heard, followed)
        followed.heard = max(followed.heard, version)

    def _pull_heard(self, feed: _Feed) -> None:
        """Read what a notification named that no submit's answer has brought."""
        if feed.heard > feed.version:
            self._pull(feed)

    def _set_down(self) -> None:
        """Watchers whose wait ends with nothing new while this lasts end UNAVAILABLE."""
        self._subscribed, self._down = False, True

    async def _ticker(self) -> None:
        """Wake the watchers of every feed whose earliest deadline has passed."""
        while True:
            await asyncio.sleep(TICK_SECONDS)  # a period, not a wait for an event
            now = time.monotonic()
            for feed in list(self._feeds.values()):
                if feed.wake_at <= now:
                    feed.wake_at = float("inf")
                    async with feed.changed:
                        feed.changed.notify_all()

    async def _janitor(self) -> None:
        while True:
            await asyncio.sleep(IDLE_SECONDS / 2)  # a sweep period, not a wait for an event
            cutoff = time.monotonic() - IDLE_SECONDS
            for stream, feed in list(self._feeds.items()):
                if not feed.watchers and not feed.pulling and feed.last_seen < cutoff:
                    del self._feeds[stream]

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
