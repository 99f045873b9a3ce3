"""Tickets live while their player waits: the store's watch scripts, on a real server.

A watch ending withdraws its ticket at once (out of its pool, placed with
nobody); a watch of the same player opening within the grace period puts it
back with its place; a ticket unheard of past the grace period is never
claimed; a formation's first take-up forms nobody who left and puts the
others back.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

from services.matchmaker import store as mm
from services.matchmaker.pool import Group, Ticket
from services.matchmaker.store import Job, TicketStore
from services.matchmaker.tables import matchmade_defaults, matchmade_options


@pytest.fixture
async def client(redis_url: str) -> AsyncIterator[aioredis.Redis]:
    # A logical database of its own, emptied first: these tests read the matchmaker's global keys.
    url = redis_url.rsplit("/", 1)[0] + "/12"
    redis = aioredis.from_url(url, decode_responses=False)
    await redis.flushdb()
    yield redis
    await redis.aclose()


async def _queued(store: TicketStore, game: str, players: list[str], watched: bool = False) -> list[Ticket]:
    for i, player in enumerate(players):
        await store.enqueue(f"{game}-t{i}", player, game, {}, (2, 2), 25.0, watched=watched)
    return sorted(await store.waiting(mm.pool_name(game, {}), 100), key=lambda t: t.ticket_id)


async def _state(store: TicketStore, ticket_id: str) -> str:
    found = await store.get(ticket_id)
    assert found is not None
    return found.state


async def test_the_last_watch_ending_withdraws_the_ticket_and_a_watch_within_the_grace_brings_it_back(
    client: aioredis.Redis,
) -> None:
    store = TicketStore(client)
    (ana,) = await _queued(store, "w1", ["ana"], watched=True)  # a Queue stream: watched from the start
    assert await store.get_heard(ana.ticket_id, "ana") is not None  # a second watch (another tab)
    assert not await store.unwatch(ana.ticket_id)  # one of two ends: still watched, still waiting
    assert await _state(store, ana.ticket_id) == "waiting"
    assert await store.unwatch(ana.ticket_id)  # the last: withdrawn at once
    assert await _state(store, ana.ticket_id) == "withdrawn"
    assert await store.waiting(mm.pool_name("w1", {}), 10) == []  # out of the pool: nobody meets it
    kinds = [f[b"k"] for _, f in await client.xrange(mm.EVENTS)]
    assert kinds[-1] == b"withdrawn"
    back = await store.get_heard(ana.ticket_id, "ana")  # the player reconnects within the grace
    assert back is not None and back.state == "waiting"
    (again,) = await store.waiting(mm.pool_name("w1", {}), 10)
    assert again.queued_at == ana.queued_at  # its place in the queue kept
    assert await store.get_heard(ana.ticket_id, "ben") is not None  # another player's read: no watch
    assert await client.hget(mm.ticket_key(ana.ticket_id), "w") == b"1"


async def test_a_withdrawn_ticket_not_watched_again_within_the_grace_is_abandoned(client: aioredis.Redis) -> None:
    store = TicketStore(client)
    (ana,) = await _queued(store, "w2", ["ana"], watched=True)
    assert await store.unwatch(ana.ticket_id)
    assert await store.abandon(time.time() + 1, 10) == [ana.ticket_id]
    assert await _state(store, ana.ticket_id) == "abandoned"
    late = await store.get_heard(ana.ticket_id, "ana")  # too late: it stays abandoned
    assert late is not None and late.state == "abandoned"


async def test_a_withdrawn_ticket_whose_player_queued_again_stays_out(client: aioredis.Redis) -> None:
    store = TicketStore(client)
    (old,) = await _queued(store, "w3", ["ana"], watched=True)
    assert await store.unwatch(old.ticket_id)
    assert await store.enqueue("w3-new", "ana", "w3", {}, (2, 2), 25.0) == ("w3-new", "new")
    stale = await store.get_heard(old.ticket_id, "ana")
    assert stale is not None and stale.state == "abandoned"  # one ticket per player and game
    assert [t.ticket_id for t in await store.waiting(mm.pool_name("w3", {}), 10)] == ["w3-new"]


async def test_cancel_ends_a_withdrawn_ticket(client: aioredis.Redis) -> None:
    store = TicketStore(client)
    (ana,) = await _queued(store, "w4", ["ana"], watched=True)
    assert await store.unwatch(ana.ticket_id)
    assert await store.cancel(ana.ticket_id) == 1
    assert await _state(store, ana.ticket_id) == "cancelled"


async def test_a_ticket_unheard_of_past_the_grace_is_never_claimed(client: aioredis.Redis) -> None:
    store = TicketStore(client)
    ana, ben = await _queued(store, "w5", ["ana", "ben"])
    pool = mm.pool_name("w5", {})
    await client.zadd(mm.HEARD, {ben.ticket_id: int((time.time() - 10) * 1000)})  # ben's watcher: gone 10 s
    cutoff = time.time() - 3
    assert not await store.claim(pool, "m5", Group((ana, ben)), unheard_since=cutoff)
    assert await store.claim_many(pool, [("m5", Group((ana, ben)))], unheard_since=cutoff) == [False]
    assert len(await store.waiting(pool, 10)) == 2  # both still there; the abandon pass ends ben's
    await store.heard([ben.ticket_id])
    assert await store.claim(pool, "m5", Group((ana, ben)), unheard_since=cutoff)


async def test_the_first_take_up_of_a_job_forms_nobody_who_left_and_puts_the_others_back(
    client: aioredis.Redis,
) -> None:
    store = TicketStore(client)
    ana, ben = await _queued(store, "w6", ["ana", "ben"], watched=True)
    pool = mm.pool_name("w6", {})
    assert await store.claim(pool, "m6", Group((ana, ben)))
    assert await store.unwatch(ben.ticket_id) is False  # forming: not withdrawn, but marked as gone
    (job,) = [Job.from_fields(f) for _, f in await client.xrange(mm.JOBS)]
    assert await store.take_up([job], time.time() - 3) == [0]  # void
    assert (await _state(store, ana.ticket_id), await _state(store, ben.ticket_id)) == ("waiting", "withdrawn")
    (back,) = await store.waiting(pool, 10)
    assert (back.ticket_id, back.queued_at) == (ana.ticket_id, ana.queued_at)
    assert (await store.take_up([job]))[0] < 0  # taken up again (a replica's retry): nothing to do
    assert (await store.get(ana.ticket_id)).match_id == ""  # type: ignore[union-attr]


async def test_a_job_whose_players_are_all_there_is_taken_up_as_before(client: aioredis.Redis) -> None:
    store = TicketStore(client)
    ana, ben = await _queued(store, "w7", ["ana", "ben"], watched=True)
    assert await store.claim(mm.pool_name("w7", {}), "m7", Group((ana, ben)))
    (job,) = [Job.from_fields(f) for _, f in await client.xrange(mm.JOBS)]
    assert await store.take_up([job], time.time() - 3) == [1]
    assert await store.take_up([job], time.time() - 3) == [2]  # a later take-up: not checked again
    assert await store.assign(job, 2) == 1


def test_matchmade_tables_get_a_clock_with_a_bot_for_an_absent_seat_unless_the_ticket_says_otherwise() -> None:
    assert matchmade_defaults("la_isla") == {"clock": "move", "clock_seconds": "60", "clock_timeout": "bot"}
    assert matchmade_options("la_isla", {"deck": "full"}) == {**matchmade_defaults("la_isla"), "deck": "full"}
    assert matchmade_options("la_isla", {"clock_seconds": "5"})["clock_seconds"] == "5"
    assert matchmade_options("la_isla", {"clock": "none"}) == {"clock": "none"}
    assert matchmade_options("la_isla", {"clock": "none", "clock_timeout": "pass"}) == \
        {"clock": "none", "clock_timeout": "pass"}
