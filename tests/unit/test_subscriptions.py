"""The gateway's live-update feeds against an in-memory store and a scripted
notification channel: appends heard, appends missed while the channel was
down found again after resubscribing, watchers told when updates are down."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError
from tabletop.common.v1 import log_pb2

from gateway import subscriptions
from gateway.subscriptions import Subscriptions
from services.common.audience import Audience
from services.common.errors import Unavailable
from services.common.redis.changes import SUBSCRIBED
from services.common.redis.keys import match_stream
from services.common.store import log_entry
from services.common.store.event_store import MemoryEventStore, NewEvent


class Channel:
    """A notification channel the test drives: put (stream, version) or an exception."""

    def __init__(self) -> None:
        self.notes: asyncio.Queue[tuple[str, int] | Exception] = asyncio.Queue()
        self.subscribed = asyncio.Event()

    async def listen(self) -> AsyncIterator[tuple[str, int]]:
        yield SUBSCRIBED
        self.subscribed.set()
        while True:
            note = await self.notes.get()
            if isinstance(note, Exception):
                self.subscribed.clear()
                raise note
            yield note


async def append(store: MemoryEventStore, match_id: str, channel: Channel | None) -> int:
    stream = match_stream(match_id)
    version = await store.version(stream)
    await store.append(stream, version, [NewEvent("Test", b"x")])
    if channel is not None:
        channel.notes.put_nowait((stream, version + 1))
    return version + 1


@pytest.fixture(autouse=True)
def quick_resubscribe(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(subscriptions, "RESUBSCRIBE_SECONDS", 0.01)


async def test_a_heard_append_reaches_every_watcher() -> None:
    store, channel = MemoryEventStore(), Channel()
    feeds = Subscriptions(store, channel.listen)
    await append(store, "m1", None)
    try:
        first = await feeds.next_batch("m1", 0, 5)
        assert [e.version for e in first] == [1]
        watchers = [asyncio.ensure_future(feeds.next_batch("m1", 1, 5)) for _ in range(3)]
        await append(store, "m1", channel)
        assert [[e.version for e in await w] for w in watchers] == [[2], [2], [2]]
        assert feeds.following == 1
    finally:
        await feeds.close()


async def test_an_append_missed_while_down_is_found_after_resubscribing() -> None:
    store, channel = MemoryEventStore(), Channel()
    feeds = Subscriptions(store, channel.listen)
    await append(store, "m1", None)
    try:
        assert [e.version for e in await feeds.next_batch("m1", 0, 5)] == [1]
        await asyncio.wait_for(channel.subscribed.wait(), 5)
        channel.notes.put_nowait(RedisConnectionError("gone"))
        await append(store, "m1", None)  # appended while nobody listened: no notification
        assert [e.version for e in await feeds.next_batch("m1", 1, 5)] == [2]
    finally:
        await feeds.close()


async def test_watchers_are_told_when_updates_stay_down() -> None:
    async def never() -> AsyncIterator[tuple[str, int]]:
        raise RedisConnectionError("refused")
        yield SUBSCRIBED  # an async generator that fails at once

    feeds = Subscriptions(MemoryEventStore(), never)
    try:
        with pytest.raises(Unavailable):
            await feeds.next_batch("m1", 0, 0.2)
    finally:
        await feeds.close()


async def test_a_watcher_far_behind_reads_the_store_in_pages() -> None:
    store, channel = MemoryEventStore(), Channel()
    feeds = Subscriptions(store, channel.listen)
    for _ in range(subscriptions.PAGE + 10):
        await append(store, "m1", None)
    try:
        batch = await feeds.next_batch("m1", 0, 5)
        assert [e.version for e in batch] == list(range(1, subscriptions.PAGE + 1))
        rest = await feeds.next_batch("m1", batch[-1].version, 5)
        assert [e.version for e in rest] == list(range(subscriptions.PAGE + 1, subscriptions.PAGE + 11))
    finally:
        await feeds.close()


class CountingStore(MemoryEventStore):
    """Counts the reads feeds make."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    async def read(self, stream: str, after_version: int = 0, limit: int = 0):  # type: ignore[no-untyped-def]
        self.reads += 1
        return await super().read(stream, after_version, limit)


def logged(version_events: list[NewEvent]) -> list[log_pb2.LogEntry]:
    return [log_entry.entry(e, "c:1") for e in version_events]


async def test_an_offered_append_reaches_watchers_without_a_read_and_is_never_doubled() -> None:
    store, channel = CountingStore(), Channel()
    feeds = Subscriptions(store, channel.listen)
    stream = match_stream("m1")
    await append(store, "m1", None)
    try:
        assert [e.version for e in await feeds.next_batch("m1", 0, 5)] == [1]
        watcher = asyncio.ensure_future(feeds.next_batch("m1", 1, 5))
        made = [NewEvent("Test", b"a"), NewEvent("Secret", b"b", Audience.SEAT, 1, "Hidden", b"")]
        await store.append(stream, 1, made, "c:1")
        reads = store.reads
        await feeds.offer("m1", 3, logged(made))
        assert store.reads == reads, "offered events are not read back"
        got = await watcher
        assert [(e.version, e.type, e.seat, e.command_id) for e in got] == [
            (2, "Test", -1, "c:1"),
            (3, "Secret", 1, "c:1"),
        ]
        assert got == (await store.read(stream))[1:], "what the log holds, secrets and all (views filter later)"
        # The notification of that append finds the feed current: nothing is read.
        reads = store.reads
        channel.notes.put_nowait((stream, 3))
        await asyncio.sleep(0.05)
        assert store.reads == reads
        # An offer that would leave a gap (an append not seen) is ignored; the pull fills in.
        await append(store, "m1", None)
        later = [NewEvent("Test", b"c")]
        await store.append(stream, 4, later, "c:2")
        await feeds.offer("m1", 5, logged(later))
        channel.notes.put_nowait((stream, 5))
        assert [e.version for e in await feeds.next_batch("m1", 3, 5)] == [4, 5]
        assert [e.version for e in await feeds.next_batch("m1", 0, 5)] == [1, 2, 3, 4, 5], "no event twice"
    finally:
        await feeds.close()


async def _following(store: MemoryEventStore) -> tuple[Subscriptions, Channel]:
    """Feeds whose feed of match m1 has read its first event."""
    channel = Channel()
    feeds = Subscriptions(store, channel.listen)
    await append(store, "m1", None)
    assert [e.version for e in await feeds.next_batch("m1", 0, 5)] == [1]
    return feeds, channel


async def test_a_notification_heard_before_the_submits_answer_waits_for_its_offer() -> None:
    """The append's notification and the submit's answer race on two connections:
    heard first, the notification reads nothing while the submit that will offer
    those events is under way here."""
    store = CountingStore()
    feeds, channel = await _following(store)
    stream = match_stream("m1")
    try:
        watcher = asyncio.ensure_future(feeds.next_batch("m1", 1, 5))
        reads = store.reads
        with feeds.submitting("m1"):
            made = [NewEvent("Test", b"a")]
            await store.append(stream, 1, made, "c:1")
            channel.notes.put_nowait((stream, 2))
            await asyncio.sleep(0.01)  # the notification is heard before the answer
            await feeds.offer("m1", 2, logged(made))
        assert [e.version for e in await watcher] == [2]
        await asyncio.sleep(subscriptions.OFFER_WAIT + 0.02)
        assert store.reads == reads, "the submit's own events were not read back"
    finally:
        await feeds.close()


async def test_what_a_submit_does_not_bring_is_read_when_it_ends() -> None:
    """Another writer's append heard during a submit that then fails is read at its end."""
    store = CountingStore()
    feeds, channel = await _following(store)
    try:
        watcher = asyncio.ensure_future(feeds.next_batch("m1", 1, 5))
        with pytest.raises(RuntimeError), feeds.submitting("m1"):
            await append(store, "m1", channel)
            await asyncio.sleep(0.01)
            assert not watcher.done(), "held for the submit's offer"
            raise RuntimeError("the submit failed")
        assert [e.version for e in await asyncio.wait_for(watcher, 1)] == [2]
    finally:
        await feeds.close()


async def test_a_submit_that_hangs_holds_other_watchers_back_for_a_moment_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(subscriptions, "OFFER_WAIT", 0.05)
    store = CountingStore()
    feeds, channel = await _following(store)
    try:
        with feeds.submitting("m1"):
            await append(store, "m1", channel)
            started = asyncio.get_running_loop().time()
            got = await feeds.next_batch("m1", 1, 5)
            waited = asyncio.get_running_loop().time() - started
        assert [e.version for e in got] == [2]
        assert 0.04 <= waited < 1.0, waited
    finally:
        await feeds.close()


async def test_a_wait_with_nothing_new_ends_at_its_timeout_and_others_keep_waiting() -> None:
    # One ticker ends every wait that ran out (no timer per wait); a longer one goes on.
    store, channel = MemoryEventStore(), Channel()
    feeds = Subscriptions(store, channel.listen)
    try:
        started = time.monotonic()
        short = asyncio.ensure_future(feeds.next_batch("m1", 0, 0.3))
        long = asyncio.ensure_future(feeds.next_batch("m1", 0, 30))
        assert await short == []
        assert 0.3 <= time.monotonic() - started < 1.5
        assert not long.done()
        await append(store, "m1", channel)
        assert [e.version for e in await asyncio.wait_for(long, 5)] == [1]
    finally:
        await feeds.close()
