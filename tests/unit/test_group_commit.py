"""Group commit (services/common/store/group_commit.py): the appends started in one
turn of the loop travel as one pipeline, and each is still answered on its own: its
versions, its conflict, its duplicate; a forgotten script, a dropped connection and a
caller that gave up change nothing for the others."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

from services.common.redis.internals import Pipeline
from services.common.store import group_commit
from services.common.store.event_store import NewEvent, VersionConflict
from services.common.store.redis_store import RedisEventStore


@pytest.fixture(params=["own connections", "the pool's pipeline"])
async def store(
    redis_url: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[RedisEventStore]:
    """Every case on both of a batch's ways: the group commit's own connections, and
    the pool's pipeline that a batch takes when those are all busy."""
    if request.param == "the pool's pipeline":
        monkeypatch.setattr(group_commit, "MOST_OWNED", 0)
    backend = RedisEventStore.from_url(redis_url)
    yield backend
    await backend.close()


@pytest.fixture
def batches(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The size of every batch the store sends, in order."""
    sizes: list[int] = []
    send = group_commit.GroupCommit._send

    async def counted(self: group_commit.GroupCommit, calls: list[group_commit._Call]) -> None:
        sizes.append(len(calls))
        await send(self, calls)

    monkeypatch.setattr(group_commit.GroupCommit, "_send", counted)
    return sizes


def streams(n: int) -> list[str]:
    run = uuid.uuid4().hex
    return [f"group:{run}:{i}" for i in range(n)]


def event(name: str) -> list[NewEvent]:
    return [NewEvent(type="t", data=name.encode())]


async def test_appends_of_one_turn_travel_together_and_each_gets_its_own_answer(
    store: RedisEventStore, batches: list[int]
) -> None:
    names = streams(8)
    for name in names:
        await store.append(name, 0, event("first"))
    batches.clear()
    results = await asyncio.gather(*(store.append(name, 1, event(name)) for name in names))
    assert batches == [8]
    assert [(r.first_version, r.last_version, r.duplicate) for r in results] == [(2, 2, False)] * 8
    for name in names:
        assert [e.data for e in await store.read(name)] == [b"first", name.encode()]


async def test_a_conflict_in_a_batch_is_its_own_and_the_others_land(store: RedisEventStore, batches: list[int]) -> None:
    stale, fresh = streams(2)
    await store.append(stale, 0, event("a"))
    batches.clear()
    outcomes = await asyncio.gather(
        store.append(stale, 0, event("late")), store.append(fresh, 0, event("b")), return_exceptions=True
    )
    assert batches == [2]
    assert isinstance(outcomes[0], VersionConflict) and outcomes[0].actual == 1
    assert not isinstance(outcomes[1], BaseException) and outcomes[1].last_version == 1
    assert [e.data for e in await store.read(stale)] == [b"a"]


async def test_a_retried_command_in_a_batch_is_answered_as_the_duplicate_it_is(store: RedisEventStore) -> None:
    (name,) = streams(1)
    first = await store.append(name, 0, event("a"), command_id="cmd-1", fingerprint="f")
    again, other = await asyncio.gather(
        store.append(name, 0, event("a"), command_id="cmd-1", fingerprint="f"),
        store.append(streams(1)[0], 0, event("b")),
    )
    assert again.duplicate and (again.first_version, again.last_version) == (first.first_version, first.last_version)
    assert not other.duplicate
    assert await store.version(name) == 1


async def test_a_script_the_server_forgot_is_loaded_again_and_every_append_lands(
    store: RedisEventStore, redis_url: str, batches: list[int]
) -> None:
    names = streams(4)
    await store.append(names[0], 0, event("loads the script"))
    admin = aioredis.Redis.from_url(redis_url)
    try:
        await admin.script_flush()
    finally:
        await admin.aclose()
    batches.clear()
    expected = [1, 0, 0, 0]  # the first stream holds one event already
    appends = [store.append(name, at, event("x")) for name, at in zip(names, expected, strict=True)]
    results = await asyncio.gather(*appends)
    assert batches == [4]
    assert [r.last_version for r in results] == [2, 1, 1, 1]
    assert [await store.version(name) for name in names] == [2, 1, 1, 1]


async def test_a_dropped_connection_between_batches_loses_and_repeats_nothing(
    store: RedisEventStore, redis_url: str
) -> None:
    names = streams(4)
    await asyncio.gather(*(store.append(name, 0, event("a")) for name in names))
    admin = aioredis.Redis.from_url(redis_url)
    try:
        assert await admin.client_kill_filter(_type="normal", skipme=True) >= 1
    finally:
        await admin.aclose()
    results = await asyncio.gather(*(store.append(name, 1, event("b")) for name in names))
    assert [r.last_version for r in results] == [2] * 4
    assert [await store.version(name) for name in names] == [2] * 4


async def test_a_caller_that_gives_up_leaves_the_others_answered(store: RedisEventStore) -> None:
    gone, kept = streams(2)
    given_up = asyncio.ensure_future(store.append(gone, 0, event("maybe")))
    waited = asyncio.ensure_future(store.append(kept, 0, event("sure")))
    await asyncio.sleep(0)  # both are queued for the same batch
    given_up.cancel()
    assert (await waited).last_version == 1
    with pytest.raises(asyncio.CancelledError):
        await given_up
    # What was sent was sent: the given-up append may have landed, once at most.
    assert await store.version(gone) in (0, 1)


async def test_more_than_a_batch_holds_goes_in_several(store: RedisEventStore, batches: list[int]) -> None:
    names = streams(group_commit.MOST_PER_BATCH + 3)
    results = await asyncio.gather(*(store.append(name, 0, event("a")) for name in names))
    assert batches == [group_commit.MOST_PER_BATCH, 3]
    assert all(r.last_version == 1 for r in results)


async def test_appends_started_while_a_batch_is_on_its_way_go_together_in_the_next(
    store: RedisEventStore, batches: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    held = asyncio.Event()
    exchange = group_commit.GroupCommit._exchange

    async def first_held(self: group_commit.GroupCommit, calls: list[group_commit._Call]) -> list[object]:
        if len(batches) == 1:  # the first batch waits on its way until the test lets it go
            await held.wait()
        return await exchange(self, calls)

    monkeypatch.setattr(group_commit.GroupCommit, "_exchange", first_held)
    first, *later = streams(5)
    appends = [asyncio.ensure_future(store.append(first, 0, event("a")))]
    for name in later:  # each started in a turn of its own, while the first batch is out
        await asyncio.sleep(0)
        appends.append(asyncio.ensure_future(store.append(name, 0, event("b"))))
    await asyncio.sleep(0)
    held.set()
    results = await asyncio.gather(*appends)
    assert batches == [1, len(later)]
    assert [r.last_version for r in results] == [1] * 5


async def test_a_batch_goes_on_an_own_connection_and_through_the_pool_when_those_are_busy(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(group_commit, "MOST_OWNED", 1)
    pipelines: list[int] = []
    execute = Pipeline.execute

    async def counted(self: Pipeline, raise_on_error: bool = True) -> list[object]:
        pipelines.append(len(self.command_stack))
        return await execute(self, raise_on_error)

    monkeypatch.setattr(Pipeline, "execute", counted)
    backend = RedisEventStore.from_url(redis_url)
    commit = backend._run_append
    assert isinstance(commit, group_commit.GroupCommit)
    try:
        names = streams(2)
        await asyncio.gather(*(backend.append(name, 0, event("a")) for name in names))
        assert pipelines == []  # on the one own connection
        busy = commit._take()  # as if a batch were on its way on it
        assert busy is not None and commit._take() is None
        await asyncio.gather(*(backend.append(name, 1, event("b")) for name in names))
        assert pipelines == [2]  # the pool's pipeline
        commit._idle.append(busy)
        await asyncio.gather(*(backend.append(name, 2, event("c")) for name in names))
        assert pipelines == [2]
        assert [[e.data for e in await backend.read(name)] for name in names] == [[b"a", b"b", b"c"]] * 2
    finally:
        await backend.close()
