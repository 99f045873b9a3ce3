"""One contract suite for the event store, run against every backend."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import pytest

from services.common.audience import Audience
from services.common.event_store import CommandReused, MemoryEventStore, NewEvent, Snapshot, VersionConflict
from services.common.redis_store import RedisEventStore


@pytest.fixture(params=["memory", "redis", "redis-cluster"])
async def store(request: pytest.FixtureRequest, redis_url: str) -> AsyncIterator[object]:
    if request.param == "memory":
        yield MemoryEventStore()
        return
    if request.param == "redis-cluster":
        backend = RedisEventStore.from_url(request.getfixturevalue("redis_cluster_url"), cluster=True)
    else:
        backend = RedisEventStore.from_url(redis_url)
    yield backend
    await backend.close()


def stream() -> str:
    return f"test:{uuid.uuid4().hex}"


def events(*names: str) -> list[NewEvent]:
    return [NewEvent(type="t", data=n.encode()) for n in names]


async def test_append_then_read_in_order(store):
    s = stream()
    result = await store.append(s, 0, events("a", "b"))
    assert (result.first_version, result.last_version, result.duplicate) == (1, 2, False)
    await store.append(s, 2, events("c"))
    assert [e.data for e in await store.read(s)] == [b"a", b"b", b"c"]
    assert [e.version for e in await store.read(s, after_version=1)] == [2, 3]
    assert await store.version(s) == 3


async def test_append_at_stale_version_is_refused_and_changes_nothing(store):
    s = stream()
    await store.append(s, 0, events("a"))
    with pytest.raises(VersionConflict) as conflict:
        await store.append(s, 0, events("b"))
    assert conflict.value.actual == 1
    assert [e.data for e in await store.read(s)] == [b"a"]


async def test_a_command_id_reused_for_another_request_is_refused_and_changes_nothing(store):
    s = stream()
    await store.append(s, 0, events("a"), command_id="cmd-1", fingerprint="ana-rolls")
    again = await store.append(s, 1, events("a"), command_id="cmd-1", fingerprint="ana-rolls")
    assert again.duplicate and again.last_version == 1
    with pytest.raises(CommandReused):
        await store.append(s, 1, events("b"), command_id="cmd-1", fingerprint="mallory-rolls")
    with pytest.raises(CommandReused):
        await store.command(s, "cmd-1", "mallory-rolls")
    assert (await store.command(s, "cmd-1", "ana-rolls")).last_version == 1
    assert [e.data for e in await store.read(s)] == [b"a"]


async def test_retried_command_returns_first_answer_and_appends_nothing(store):
    s = stream()
    first = await store.append(s, 0, events("a", "b"), command_id="cmd-1")
    again = await store.append(s, 2, events("a", "b"), command_id="cmd-1")
    assert again.duplicate and (again.first_version, again.last_version) == (1, 2)
    assert await store.version(s) == 2
    assert not first.duplicate
    assert await store.command(s, "cmd-1") == again
    assert await store.command(s, "cmd-2") is None


async def test_event_fields_survive(store):
    s = stream()
    event = NewEvent("x.Y", b"\x00\xff", Audience.SEAT, 2, "x.Z", b"\x01")
    await store.append(s, 0, [event], command_id="c")
    (read,) = await store.read(s)
    assert (read.type, read.data, read.audience, read.seat) == ("x.Y", b"\x00\xff", Audience.SEAT, 2)
    assert read.audience is Audience.SEAT
    assert (read.redacted_type, read.redacted, read.command_id) == ("x.Z", b"\x01", "c")


@pytest.mark.parametrize("audience", list(Audience))
async def test_every_audience_survives(store, audience):
    s = stream()
    await store.append(s, 0, [NewEvent("x.Y", b"", audience)])
    (read,) = await store.read(s)
    assert read.audience is audience


async def test_redis_keeps_the_audience_in_words_that_older_logs_hold(redis_url):
    backend = RedisEventStore.from_url(redis_url)
    try:
        s = stream()
        await backend.append(s, 0, [NewEvent("x.Y", b"", Audience.SEAT, 1), NewEvent("x.Y", b"")])
        entries = await backend.client.xrange("{" + s + "}:log")
        assert [fields[b"a"] for _, fields in entries] == [b"seat", b"public"]
        # An entry written by an older release (or damaged) reads back, and an
        # audience nobody knows never reaches a player.
        await backend.client.xadd(
            "{" + s + "}:log",
            {"t": "x.Y", "d": b"", "a": "nobody", "s": -1, "rt": "", "rd": b"", "c": ""},
            id="3-0",
        )
        assert [e.audience for e in await backend.read(s)] == [Audience.SEAT, Audience.PUBLIC, Audience.SERVER]
    finally:
        await backend.close()


async def test_racing_appends_leave_one_linear_log(store):
    s = stream()

    async def writer(tag: int) -> int:
        wins = 0
        for _ in range(10):
            while True:
                version = await store.version(s)
                try:
                    await store.append(s, version, events(f"{tag}"))
                    wins += 1
                    break
                except VersionConflict:
                    continue
        return wins

    wins = await asyncio.gather(*(writer(t) for t in range(8)))
    log = await store.read(s)
    assert sum(wins) == 80 == len(log)
    assert [e.version for e in log] == list(range(1, 81))


async def test_wait_returns_new_events_as_they_land(store):
    s = stream()
    await store.append(s, 0, events("a"))
    waiter = asyncio.create_task(store.wait(s, 1, timeout=5))
    await asyncio.sleep(0)
    await store.append(s, 1, events("b"))
    got = await asyncio.wait_for(waiter, 5)
    assert [e.data for e in got] == [b"b"]


async def test_wait_times_out_empty(store):
    assert await store.wait(stream(), 0, timeout=0.05) == []


async def test_snapshot_keeps_only_the_newest(store):
    s = stream()
    assert await store.load_snapshot(s) is None
    await store.save_snapshot(s, Snapshot(10, b"ten"))
    await store.save_snapshot(s, Snapshot(5, b"five"))
    assert await store.load_snapshot(s) == Snapshot(10, b"ten")


async def test_streams_are_indexed_newest_first(store):
    a, b = stream(), stream()
    await store.append(a, 0, events("x"))
    await store.append(b, 0, events("y"))
    names = await store.streams()
    assert names.index(b) < names.index(a)


async def test_an_oversized_append_is_refused_whole(store):
    from services.common.errors import ResourceExhausted
    from services.common.event_store import MAX_EVENT_BYTES

    s = stream()
    huge = [NewEvent(type="t", data=b"a"), NewEvent(type="t", data=b"x" * (MAX_EVENT_BYTES + 1))]
    with pytest.raises(ResourceExhausted):
        await store.append(s, 0, huge)
    assert await store.version(s) == 0
