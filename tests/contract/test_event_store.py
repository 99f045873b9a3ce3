"""One contract suite for the event store, run against every backend."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator

import pytest
from tabletop.common.v1 import common_pb2, log_pb2

from services.common.audience import Audience
from services.common.store.event_store import (
    CommandReused,
    MemoryEventStore,
    NewEvent,
    Snapshot,
    StoredEvent,
    VersionConflict,
)
from services.common.store.redis_store import RedisEventStore


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


async def test_redis_keeps_each_event_as_one_log_entry_and_reads_older_logs(redis_url):
    backend = RedisEventStore.from_url(redis_url)
    try:
        s = stream()
        await backend.append(
            s, 0, [NewEvent("x.Y", b"\x01", Audience.SEAT, 1, "x.Z", b"\x02"), NewEvent("x.Y", b"")], "c1"
        )
        entries = await backend.client.xrange("{" + s + "}:log")
        assert [list(fields) for _, fields in entries] == [[b"e"], [b"e"]]
        first = log_pb2.LogEntry.FromString(entries[0][1][b"e"])
        assert (first.type, first.data, first.audience, first.seat) == ("x.Y", b"\x01", common_pb2.AUDIENCE_SEAT, 1)
        assert (first.redacted_type, first.redacted, first.command_id) == ("x.Z", b"\x02", "c1")
        # Entries written by an older release (one field per attribute) read back the same,
        # and an audience nobody knows (old words or a new number) never reaches a player.
        await backend.client.xadd(
            "{" + s + "}:log",
            {"t": "x.Y", "d": b"o", "a": "seat", "s": 0, "rt": "x.Z", "rd": b"r", "c": "c0"},
            id="3-0",
        )
        await backend.client.xadd(
            "{" + s + "}:log",
            {"t": "x.Y", "d": b"", "a": "nobody", "s": -1, "rt": "", "rd": b"", "c": ""},
            id="4-0",
        )
        await backend.client.xadd(
            "{" + s + "}:log", {"e": log_pb2.LogEntry(type="x.Y", audience=9).SerializeToString()}, id="5-0"
        )
        read = await backend.read(s)
        assert [e.audience for e in read] == [
            Audience.SEAT,
            Audience.PUBLIC,
            Audience.SEAT,
            Audience.SERVER,
            Audience.SERVER,
        ]
        assert read[2] == StoredEvent(3, "x.Y", b"o", Audience.SEAT, 0, "x.Z", b"r", "c0")
        assert read[0] == StoredEvent(1, "x.Y", b"\x01", Audience.SEAT, 1, "x.Z", b"\x02", "c1")
        assert await backend.version(s) == 5
        # A fold reads the same types and payloads, old entries and new alike.
        assert await backend.read_payloads(s) == [(e.type, e.data) for e in read]
        assert await backend.read_payloads(s, after_version=2, limit=2) == [("x.Y", b"o"), ("x.Y", b"")]
    finally:
        await backend.close()


async def test_a_fold_reads_each_events_type_and_payload_in_order(store):
    s = stream()
    await store.append(s, 0, [NewEvent("x.A", b"1"), NewEvent("x.B", b"2", Audience.SEAT, 0, "x.C", b"-")])
    await store.append(s, 2, [NewEvent("x.A", b"3")])
    assert await store.read_payloads(s) == [("x.A", b"1"), ("x.B", b"2"), ("x.A", b"3")]
    assert await store.read_payloads(s, after_version=1) == [("x.B", b"2"), ("x.A", b"3")]
    assert await store.read_payloads(s, after_version=0, limit=2) == [("x.A", b"1"), ("x.B", b"2")]
    assert await store.read_payloads(s, after_version=3) == []
    assert await store.read_payloads(stream()) == []


@pytest.mark.parametrize("cluster", [False, True], ids=["redis", "redis-cluster"])
async def test_a_fold_refuses_a_log_with_a_gap(request: pytest.FixtureRequest, redis_url: str, cluster: bool):
    """A fold numbers events by their place in the log: a missing version must not shift them."""
    url = request.getfixturevalue("redis_cluster_url") if cluster else redis_url
    backend = RedisEventStore.from_url(url, cluster=cluster)
    try:
        s = stream()
        await backend.append(s, 0, events("a"))
        await backend.client.xadd("{" + s + "}:log", {"e": log_pb2.LogEntry(type="t").SerializeToString()}, id="3-0")
        with pytest.raises(RuntimeError, match="gap"):
            await backend.read_payloads(s)
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
    from services.common.store.event_store import MAX_EVENT_BYTES

    s = stream()
    huge = [NewEvent(type="t", data=b"a"), NewEvent(type="t", data=b"x" * (MAX_EVENT_BYTES + 1))]
    with pytest.raises(ResourceExhausted):
        await store.append(s, 0, huge)
    assert await store.version(s) == 0


# ------------------------------------------------------------ write leases

LEASE_MS = 300


@pytest.fixture(params=["memory", "redis"])
async def leasing(request: pytest.FixtureRequest, redis_url: str) -> AsyncIterator[object]:
    """A backend whose leases last LEASE_MS, so a test can wait one out."""
    if request.param == "memory":
        yield MemoryEventStore(lease_ms=LEASE_MS)
        return
    backend = RedisEventStore.from_url(redis_url, lease_ms=LEASE_MS)
    yield backend
    await backend.close()


async def test_an_owner_takes_the_lease_and_each_of_its_appends_renews_it(leasing):
    s = stream()
    assert (await leasing.append(s, 0, events("a"), owner="ana")).lease_ms == LEASE_MS
    assert (await leasing.append(s, 1, events("b"), owner="ana")).lease_ms == LEASE_MS
    assert (await leasing.append(s, 2, events("c"))).lease_ms == 0, "an append without an owner holds nothing"


async def test_another_writer_waits_out_the_lease_which_its_holder_then_stops_renewing(leasing):
    s = stream()
    await leasing.append(s, 0, events("a"), owner="ana")
    started = time.monotonic()
    ben = asyncio.create_task(leasing.append(s, 1, events("b"), owner="ben"))
    await asyncio.sleep(LEASE_MS / 4000)
    assert not ben.done(), "nobody appends under another's lease"
    kept = await leasing.append(s, 1, events("a2"), owner="ana")
    assert 0 < kept.lease_ms < LEASE_MS, "a holder that is waited for lets its lease run out"
    with pytest.raises(VersionConflict):
        await ben
    assert time.monotonic() - started >= LEASE_MS / 1000 * 0.9
    taken = await leasing.append(s, 2, events("b"), owner="ben")
    assert taken.lease_ms == LEASE_MS
    assert [e.data for e in await leasing.read(s)] == [b"a", b"a2", b"b"]


async def test_a_retried_command_is_answered_at_once_under_another_writers_lease(leasing):
    s = stream()
    await leasing.append(s, 0, events("a"), command_id="cmd-1", fingerprint="f", owner="ana")
    started = time.monotonic()
    again = await leasing.append(s, 0, events("a"), command_id="cmd-1", fingerprint="f", owner="ben")
    assert again.duplicate and again.last_version == 1 and again.lease_ms == 0
    assert time.monotonic() - started < LEASE_MS / 1000 / 2
    with pytest.raises(CommandReused):
        await leasing.append(s, 1, events("x"), command_id="cmd-1", fingerprint="other", owner="ben")


async def test_a_writer_that_takes_no_leases_still_waits_out_anothers(redis_url):
    holder = RedisEventStore.from_url(redis_url, lease_ms=LEASE_MS)
    unleased = RedisEventStore.from_url(redis_url, lease_ms=0)
    try:
        s = stream()
        await holder.append(s, 0, events("a"), owner="ana")
        started = time.monotonic()
        result = await unleased.append(s, 1, events("b"), owner="ben")
        assert result.lease_ms == 0 and time.monotonic() - started >= LEASE_MS / 1000 * 0.5
        assert (await holder.append(s, 2, events("c"), owner="ana")).lease_ms == LEASE_MS, "nobody held it"
    finally:
        await holder.close()
        await unleased.close()


@pytest.mark.parametrize("command_id", ["", "c1"])
async def test_a_re_sent_append_script_appends_once_and_answers_the_same_versions(redis_url, command_id):
    """redis-py re-sends a command whose reply was lost: the script then runs twice. The
    second run must append nothing and answer the versions the first appended (by the
    call's `once` key without a command id, by the command's entry with one)."""
    backend = RedisEventStore.from_url(redis_url)
    script = backend._append

    async def twice(keys, args):
        await script(keys=keys, args=args)  # its reply lost on the way
        return await script(keys=keys, args=args)

    backend._append = twice
    s = stream()
    try:
        result = await backend.append(s, 0, events("a", "b"), command_id=command_id, fingerprint="f")
        assert (result.first_version, result.last_version) == (1, 2)
        assert [e.data for e in await backend.read(s)] == [b"a", b"b"]
        assert await backend.version(s) == 2
    finally:
        await backend.close()
