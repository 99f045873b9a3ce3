"""Ticket claims in Redis: a ticket is placed once; work of a dead replica is taken over."""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping

import pytest
import redis.asyncio as aioredis

from services.common.errors import Aborted, Unavailable
from services.matchmaker import store as mm
from services.matchmaker.claims import DEAD_LETTERS, WorkQueue, dead_letters
from services.matchmaker.pool import Group, Ticket
from services.matchmaker.store import Job, TicketStore


@pytest.fixture
async def client(redis_url: str) -> AsyncIterator[aioredis.Redis]:
    # A logical database of its own, emptied first: these tests read the matchmaker's global keys.
    url = redis_url.rsplit("/", 1)[0] + "/11"
    redis = aioredis.from_url(url, decode_responses=False)
    await redis.flushdb()
    yield redis
    await redis.aclose()


async def _queue(store: TicketStore, game: str, players: int, count: int) -> list[Ticket]:
    for i in range(count):
        await store.add(uuid.uuid4().hex, f"p{i}", game, {}, (players, players), 25.0)
    return await store.waiting(mm.pool_name(game, {}), 100)


async def test_two_claims_on_one_ticket_place_it_once(client: aioredis.Redis) -> None:
    store = TicketStore(client)
    a, b, c = await _queue(store, "g1", 2, 3)
    pool = mm.pool_name("g1", {})
    results = await asyncio.gather(store.claim(pool, "m1", Group((a, b))), store.claim(pool, "m2", Group((b, c))))
    assert sorted(results) == [False, True]
    jobs = [Job.from_fields(f) for _, f in await client.xrange(mm.JOBS)]
    assert len(jobs) == 1 and len([t for t in await store.waiting(pool, 10)]) == 1


async def test_a_claim_is_all_or_nothing(client: aioredis.Redis) -> None:
    store = TicketStore(client)
    a, b = await _queue(store, "g2", 2, 2)
    assert await store.cancel(b.ticket_id) == 1
    assert not await store.claim(mm.pool_name("g2", {}), "m", Group((a, b)))
    assert (await store.get(a.ticket_id)).state == "waiting"  # type: ignore[union-attr]
    assert await client.xlen(mm.JOBS) == 0


async def test_a_failed_formation_returns_the_tickets_and_assigns_nothing(client: aioredis.Redis) -> None:
    store = TicketStore(client)
    a, b = await _queue(store, "g3", 2, 2)
    pool = mm.pool_name("g3", {})
    assert await store.claim(pool, "m3", Group((a, b), bots=1))
    job = Job.from_fields((await client.xrange(mm.JOBS))[0][1])
    assert set(job.players[:2]) == {"p0", "p1"} and job.players[2].startswith("bot-") and job.bot_seats == (2,)
    assert await store.cancel(a.ticket_id) == 0  # being placed: too late to cancel
    epoch = await store.own(job)
    assert await store.give_back(job, epoch) == 2
    assert {t.ticket_id for t in await store.waiting(pool, 10)} == {a.ticket_id, b.ticket_id}
    assert await store.assign(job, epoch) == 0  # a late finisher of the same job cannot assign them now


async def test_assigning_twice_is_harmless(client: aioredis.Redis) -> None:
    store = TicketStore(client)
    a, b = await _queue(store, "g4", 2, 2)
    assert await store.claim(mm.pool_name("g4", {}), "m4", Group((a, b)))
    job = Job.from_fields((await client.xrange(mm.JOBS))[0][1])
    epoch = await store.own(job)
    assert await store.assign(job, epoch) == 1
    assert await store.assign(job, epoch) == 2
    states = [await store.get(t) for t in job.tickets]
    assert [(s.state, s.match_id, s.seat) for s in states if s] == [("assigned", "m4", 0), ("assigned", "m4", 1)]
    assert await store.give_back(job, epoch) == 0


async def test_a_job_held_by_a_dead_consumer_is_claimed_back(client: aioredis.Redis) -> None:
    stream = f"test:{uuid.uuid4().hex}"
    handled: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
    never: asyncio.Event = asyncio.Event()

    def handler(name: str):  # type: ignore[no-untyped-def]
        async def handle(entry_id: str, fields: Mapping[bytes, bytes]) -> None:
            if name == "dead":
                await never.wait()  # holds the entry and never finishes, like a killed replica
            await handled.put((name, fields[b"job"].decode()))
        return handle

    dead = WorkQueue(client, stream, "g", "dead", handler("dead"), idle_ms=300)
    await dead.ensure_group()
    await client.xadd(stream, {"job": "j1"})
    dead_task = asyncio.create_task(dead.run())
    while not (await client.xpending(stream, "g"))["pending"]:
        await client.xread({stream: "0-0"}, block=100)  # until the dead consumer has taken it
    dead_task.cancel()  # no heartbeat any more: it went away without acknowledging
    alive = asyncio.create_task(WorkQueue(client, stream, "g", "alive", handler("alive"), idle_ms=300).run())
    try:
        assert await asyncio.wait_for(handled.get(), 10) == ("alive", "j1")
    finally:
        alive.cancel()
    assert (await client.xpending(stream, "g"))["pending"] == 0


async def test_a_superseded_epoch_can_neither_assign_nor_return(client: aioredis.Redis) -> None:
    store = TicketStore(client)
    a, b = await _queue(store, "g5", 2, 2)
    assert await store.claim(mm.pool_name("g5", {}), "m5", Group((a, b)))
    job = Job.from_fields((await client.xrange(mm.JOBS))[0][1])
    stale = await store.own(job)
    current = await store.own(job)  # another replica took the job over
    for write in (store.assign(job, stale), store.give_back(job, stale), store.give_back(job, stale, "failed")):
        with pytest.raises(Aborted):
            await write
    assert {(await store.get(t)).state for t in job.tickets} == {"forming"}  # type: ignore[union-attr]
    assert await store.assign(job, current) == 1


async def test_an_aborted_handler_leaves_its_entry_pending(client: aioredis.Redis) -> None:
    # A handler that lost its entry to another replica must not acknowledge it for that replica.
    stream = f"test:{uuid.uuid4().hex}"
    done: asyncio.Queue[str] = asyncio.Queue()

    async def superseded(entry_id: str, fields: Mapping[bytes, bytes]) -> None:
        await done.put(entry_id)
        raise Aborted("taken over", mm.SUPERSEDED)

    queue = WorkQueue(client, stream, "g", "stale", superseded, idle_ms=60_000)
    await queue.ensure_group()
    await client.xadd(stream, {"job": "j"})
    task = asyncio.create_task(queue.run())
    try:
        await asyncio.wait_for(done.get(), 10)
    finally:
        task.cancel()
    assert (await client.xpending(stream, "g"))["pending"] == 1


async def test_expiry_takes_only_old_waiting_tickets_and_races_claims_cleanly(client: aioredis.Redis) -> None:
    store = TicketStore(client)
    a, b, c = await _queue(store, "g6", 2, 3)
    pool = mm.pool_name("g6", {})
    assert await store.expire(pool, a.queued_at - 1, 10) == []  # nobody is that old
    assert await store.claim(pool, "m6", Group((a, b)))
    # Every ticket is old enough now: the claimed ones are being placed and stay so.
    assert await store.expire(pool, c.queued_at + 1, 10) == [c.ticket_id]
    assert [(await store.get(t.ticket_id)).state for t in (a, b, c)] == \
        ["forming", "forming", "expired"]  # type: ignore[union-attr]
    assert await store.waiting(pool, 10) == []
    assert not await store.claim(pool, "m7", Group((c,), bots=1))  # an expired ticket is never claimed
    assert await store.cancel(c.ticket_id) == -1  # like a cancelled ticket
    kinds = [f[b"k"] for _, f in await client.xrange(mm.EVENTS)]
    assert kinds.count(b"expired") == 1


async def test_a_consumer_whose_entry_was_taken_over_stops_and_does_not_take_it_back(client: aioredis.Redis) -> None:
    stream = f"test:{uuid.uuid4().hex}"
    started, cancelled = asyncio.Event(), asyncio.Event()

    async def stalled(entry_id: str, fields: Mapping[bytes, bytes]) -> None:
        started.set()
        try:
            await asyncio.Event().wait()  # still working when the entry is taken over
        except asyncio.CancelledError:
            cancelled.set()
            raise

    queue = WorkQueue(client, stream, "g", "stale", stalled, idle_ms=1500)
    await queue.ensure_group()
    await client.xadd(stream, {"job": "j"})
    task = asyncio.create_task(queue.run())
    try:
        await asyncio.wait_for(started.wait(), 5)
        entry = (await client.xpending_range(stream, "g", "-", "+", 1))[0]["message_id"]
        await client.xclaim(stream, "g", "other", 0, [entry], justid=True)  # another replica took it over
        await asyncio.wait_for(cancelled.wait(), 5)  # the next heartbeat notices and stops the work
        held = await client.xpending_range(stream, "g", "-", "+", 1)
        assert [h["consumer"] for h in held] == [b"other"]  # and the heartbeat did not claim it back
    finally:
        task.cancel()


async def test_a_ticket_nobody_watches_for_the_grace_period_is_abandoned_and_never_placed(
    client: aioredis.Redis,
) -> None:
    store = TicketStore(client)
    a, b, c = await _queue(store, "g8", 2, 3)
    pool = mm.pool_name("g8", {})
    await asyncio.sleep(0.01)
    cutoff = time.time()
    await asyncio.sleep(0.01)
    await store.heard([a.ticket_id, b.ticket_id])  # their watchers are there; c's is not
    assert await store.abandon(cutoff, 10) == [c.ticket_id]
    assert [(await store.get(t.ticket_id)).state for t in (a, b, c)] == \
        ["waiting", "waiting", "abandoned"]  # type: ignore[union-attr]
    assert {t.ticket_id for t in await store.waiting(pool, 10)} == {a.ticket_id, b.ticket_id}
    assert not await store.claim(pool, "m8", Group((b, c)))  # an abandoned ticket is never placed
    assert await store.cancel(c.ticket_id) == -1
    assert await store.abandon(time.time() - 60, 10) == []  # heard of since: nothing to do
    kinds = [f[b"k"] for _, f in await client.xrange(mm.EVENTS)]
    assert kinds.count(b"abandoned") == 1


async def test_tickets_that_left_the_pool_are_no_longer_followed_for_their_watchers(client: aioredis.Redis) -> None:
    store = TicketStore(client)
    a, b, c = await _queue(store, "g9", 2, 3)
    pool = mm.pool_name("g9", {})
    assert await store.claim(pool, "m9", Group((a, b)))
    assert await store.cancel(c.ticket_id) == 1
    # The cancelled one is no longer followed; the claimed ones are while they are being
    # placed (the formation's take-up checks that their players are still there).
    assert {m.decode() for m in await client.zrange(mm.HEARD, 0, -1)} == {a.ticket_id, b.ticket_id}
    # A formation that fails hands them back with a fresh grace period.
    job = Job.from_fields((await client.xrange(mm.JOBS))[-1][1])
    epoch = await store.own(job)
    assert await store.give_back(job, epoch) == 2
    assert await client.zcard(mm.HEARD) == 2
    assert await store.abandon(time.time() - 5, 10) == []


async def test_a_player_has_one_ticket_per_game_while_it_may_be_placed(client: aioredis.Redis) -> None:
    store = TicketStore(client)
    assert await store.enqueue("t1", "ana", "g10", {}, (2, 2), 25.0) == ("t1", "new")
    # Another request for the same game answers the first ticket, untouched.
    assert await store.enqueue("t2", "ana", "g10", {"deck": "full"}, (3, 4), 25.0) == ("t1", "live")
    assert await store.get("t2") is None
    assert (await store.enqueue("t3", "ana", "g11", {}, (2, 2), 25.0))[1] == "new"  # another game
    assert (await store.enqueue("t4", "ben", "g10", {}, (2, 2), 25.0))[1] == "new"  # another player
    pool = mm.pool_name("g10", {})
    tickets = {t.ticket_id: t for t in await store.waiting(pool, 10)}
    assert await store.claim(pool, "m10", Group((tickets["t1"], tickets["t4"])))
    assert await store.enqueue("t5", "ana", "g10", {}, (2, 2), 25.0) == ("t1", "live")  # being placed
    job = Job.from_fields((await client.xrange(mm.JOBS))[-1][1])
    assert await store.assign(job, await store.own(job)) == 1
    assert await store.enqueue("t6", "ana", "g10", {}, (2, 2), 25.0) == ("t6", "new")  # placed: queue again
    assert await store.cancel("t6") == 1
    assert await store.enqueue("t7", "ana", "g10", {}, (2, 2), 25.0) == ("t7", "new")


async def test_two_find_matches_at_once_give_a_player_one_ticket(client: aioredis.Redis) -> None:
    store = TicketStore(client)
    found = await asyncio.gather(*(store.enqueue(f"r{i}", "cara", "g12", {}, (2, 2), 25.0) for i in range(8)))
    assert len({ticket for ticket, _ in found}) == 1
    assert sorted(how for _, how in found) == ["live"] * 7 + ["new"]
    assert len(await store.waiting(mm.pool_name("g12", {}), 10)) == 1


async def _run_until(queue: WorkQueue, done: Callable[[], Awaitable[bool]], seconds: float = 20) -> None:
    task = asyncio.create_task(queue.run())
    try:
        async with asyncio.timeout(seconds):
            while not await done():
                await asyncio.sleep(0.05)  # polling the stream the queue works on, from outside
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def test_an_entry_that_keeps_failing_moves_to_the_dead_letter_stream_once(client: aioredis.Redis) -> None:
    stream = f"test:{{mm}}:{uuid.uuid4().hex}"
    tries: list[str] = []
    buried: list[tuple[str, str]] = []

    async def broken(entry_id: str, fields: Mapping[bytes, bytes]) -> None:
        tries.append(entry_id)
        raise ValueError("no such table")

    async def settle(entry_id: str, fields: Mapping[bytes, bytes], error: str) -> None:
        buried.append((entry_id, error))

    before = DEAD_LETTERS.labels(stream)._value.get()
    queue = WorkQueue(client, stream, "g", "c1", broken, idle_ms=150, max_failures=3, on_dead=settle)
    await queue.ensure_group()
    entry = (await client.xadd(stream, {"job": "j1"})).decode()
    await _run_until(queue, lambda: _exists(client, dead_letters(stream)))
    assert len(tries) == 3 and set(tries) == {entry}
    assert buried == [(entry, "ValueError: no such table")]
    ((_, fields),) = await client.xrange(dead_letters(stream))
    assert fields == {b"entry": entry.encode(), b"error": b"ValueError: no such table", b"failures": b"3",
                      b"job": b"j1"}
    assert (await client.xpending(stream, "g"))["pending"] == 0
    assert DEAD_LETTERS.labels(stream)._value.get() == before + 1


async def test_an_entry_whose_service_is_away_is_retried_not_buried(client: aioredis.Redis) -> None:
    stream = f"test:{{mm}}:{uuid.uuid4().hex}"
    tries: list[str] = []

    async def away(entry_id: str, fields: Mapping[bytes, bytes]) -> None:
        tries.append(entry_id)
        if len(tries) < 6:
            raise Unavailable("the match service is away")

    queue = WorkQueue(client, stream, "g", "c1", away, idle_ms=150, max_failures=2)
    await queue.ensure_group()
    await client.xadd(stream, {"job": "j1"})

    async def settled() -> bool:
        return bool(len(tries) >= 6 and (await client.xpending(stream, "g"))["pending"] == 0)

    await _run_until(queue, settled)
    assert not await client.exists(dead_letters(stream))


async def test_a_settling_hook_that_fails_keeps_the_entry_pending(client: aioredis.Redis) -> None:
    stream = f"test:{{mm}}:{uuid.uuid4().hex}"
    hooks: list[str] = []

    async def broken(entry_id: str, fields: Mapping[bytes, bytes]) -> None:
        raise ValueError("broken")

    async def flaky(entry_id: str, fields: Mapping[bytes, bytes], error: str) -> None:
        hooks.append(entry_id)
        if len(hooks) == 1:
            raise RuntimeError("could not settle the tickets yet")

    queue = WorkQueue(client, stream, "g", "c1", broken, idle_ms=150, max_failures=1, on_dead=flaky)
    await queue.ensure_group()
    await client.xadd(stream, {"job": "j1"})
    await _run_until(queue, lambda: _exists(client, dead_letters(stream)))
    assert len(hooks) == 2  # buried only once the hook had settled what the entry held
    assert await client.xlen(dead_letters(stream)) == 1


async def _exists(client: aioredis.Redis, key: str) -> bool:
    return bool(await client.exists(key))


async def test_live_replicas_are_those_that_announced_themselves_within_the_ttl(client: aioredis.Redis) -> None:
    store = TicketStore(client)
    assert await store.live_replicas("mm-a", 10_000, 3_000) == ["mm-a"]
    assert sorted(await store.live_replicas("mm-b", 12_000, 3_000)) == ["mm-a", "mm-b"]
    # mm-a last announced at 10 s: at 14 s it is gone, and forgotten.
    assert await store.live_replicas("mm-b", 14_000, 3_000) == ["mm-b"]
    assert await client.zscore(mm.REPLICAS, "mm-a") is None


async def test_many_groups_of_a_pass_are_claimed_in_one_call_each_whole_or_not_at_all(
    client: aioredis.Redis,
) -> None:
    store = TicketStore(client)
    a, b, c, d = await _queue(store, "gm", 2, 4)
    pool = mm.pool_name("gm", {})
    assert await store.cancel(d.ticket_id) == 1
    assert await store.lease_waiting(pool, "r1", 5000, 10) is not None
    assert await store.lease_waiting(pool, "r2", 5000, 10) is None  # leased by r1
    done = await store.claim_and_unlease(pool, [("m1", Group((a, b))), ("m2", Group((c, d)))])
    assert done == [True, False]
    assert [t.ticket_id for t in await store.waiting(pool, 10)] == [c.ticket_id]
    assert await store.lease_waiting(pool, "r2", 5000, 10) is not None  # the claim ended r1's lease
    jobs = [Job.from_fields(f) for _, f in await client.xrange(mm.JOBS)]
    assert [(j.match_id, set(j.tickets)) for j in jobs] == [("m1", {a.ticket_id, b.ticket_id})]


async def test_a_batch_of_entries_is_handled_together_and_what_it_leaves_goes_one_by_one(
    client: aioredis.Redis,
) -> None:
    stream = "tabletop:{mm}:test-batch"
    for i in range(5):
        await client.xadd(stream, {"n": str(i)})
    batches: list[list[str]] = []
    singles: list[str] = []

    async def many(entries: list[tuple[str, Mapping[bytes, bytes]]]) -> dict[str, bool]:
        batches.append([f[b"n"].decode() for _, f in entries])
        # Finish the even ones, leave "1" to another replica, say nothing of "3".
        return {i: True for i, f in entries if int(f[b"n"]) % 2 == 0} | {
            i: False for i, f in entries if f[b"n"] == b"1"}

    async def one(entry_id: str, fields: Mapping[bytes, bytes]) -> None:
        singles.append(fields[b"n"].decode())

    queue = WorkQueue(client, stream, "g", "c1", one, handle_many=many)
    task = asyncio.create_task(queue.run())
    try:
        for _ in range(100):
            if singles:
                break
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.05)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    assert batches == [["0", "1", "2", "3", "4"]]
    assert singles == ["3"]
    pending = await client.xpending_range(stream, "g", "-", "+", 10)
    assert len(pending) == 1  # "1": left pending for the replica that holds it now


async def test_a_consumer_not_taking_work_leaves_new_entries_and_still_claims_idle_ones(
    client: aioredis.Redis,
) -> None:
    """Formation follows the pools: a replica that owns none takes no new job (its owner
    does), yet it claims back a job another consumer took and left, and takes new ones
    once it says it does."""
    stream = f"test-taking-{uuid.uuid4().hex}"
    handled: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
    never = asyncio.Event()

    def handler(name: str) -> Callable[[str, Mapping[bytes, bytes]], Awaitable[None]]:
        async def handle(entry_id: str, fields: Mapping[bytes, bytes]) -> None:
            if name == "dead":
                await never.wait()
            await handled.put((name, fields[b"job"].decode()))
        return handle

    taking = False
    idle = WorkQueue(client, stream, "g", "idle", handler("idle"), idle_ms=300, taking=lambda: taking)
    await idle.ensure_group()
    idle_task = asyncio.create_task(idle.run())
    try:
        await client.xadd(stream, {"job": "j1"})
        await asyncio.sleep(0.5)
        assert handled.empty() and (await client.xpending(stream, "g"))["pending"] == 0, "left undelivered"
        dead = WorkQueue(client, stream, "g", "dead", handler("dead"), idle_ms=300)
        dead_task = asyncio.create_task(dead.run())
        while not (await client.xpending(stream, "g"))["pending"]:
            await client.xread({stream: "0-0"}, block=100)
        dead_task.cancel()
        assert await asyncio.wait_for(handled.get(), 10) == ("idle", "j1"), "claimed back once idle"
        await client.xadd(stream, {"job": "j2"})
        await asyncio.sleep(0.3)
        assert handled.empty()
        taking = True
        assert await asyncio.wait_for(handled.get(), 5) == ("idle", "j2")
    finally:
        idle_task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await idle_task
