"""The ratings projection: finished matches counted once, in finish order, rebuildable."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as aioredis
from google.protobuf.message import Message
from openskill.models import PlackettLuce
from tabletop.common.v1 import common_pb2
from tabletop.match.v1 import events_pb2 as ev

from services.common import keys
from services.common.event_store import NewEvent
from services.common.redis_store import RedisEventStore
from services.matchmaker.projection import RatingsProjection
from services.matchmaker.ratings import SCENARIO

MODEL = PlackettLuce()


@pytest.fixture
async def client(redis_url: str) -> AsyncIterator[aioredis.Redis]:
    url = redis_url.rsplit("/", 1)[0] + "/12"
    redis = aioredis.from_url(url, decode_responses=False)
    await redis.flushdb()
    yield redis
    await redis.aclose()


def _new(message: Message) -> NewEvent:
    return NewEvent(message.DESCRIPTOR.full_name, message.SerializeToString())


async def _finish(client: aioredis.Redis, match_id: str, players: list[str], ranking: list[int],
                  coop: bool | None = None, game: str = "pig") -> None:
    """Write a finished match's log (a join that is left again included) and announce it."""
    store = RedisEventStore(client)
    outcome = common_pb2.Outcome(ranking=ranking)
    if coop is not None:
        outcome.cooperative_win = coop
    events: list[Message] = [ev.MatchCreated(game=game, seat_count=len(players)),
                             ev.PlayerJoined(seat=0, player_id="leaver"), ev.PlayerLeft(seat=0, player_id="leaver")]
    events += [ev.PlayerJoined(seat=i, player_id=p) for i, p in enumerate(players)]
    events += [ev.MatchStarted(), ev.MatchEnded(outcome=outcome)]
    await store.append(keys.match_stream(match_id), 0, [_new(e) for e in events])
    await client.xadd(keys.FINISHED_STREAM, {"match_id": match_id, "game": game})


def _expected(matches: list[tuple[list[str], list[int]]]) -> dict[str, tuple[float, float]]:
    ratings: dict[str, Any] = {}
    for players, ranking in matches:
        new = MODEL.rate([[ratings.get(p, MODEL.rating())] for p in players], ranks=ranking)
        ratings.update({p: t[0] for p, t in zip(players, new)})
    return {p: (r.mu, r.sigma) for p, r in ratings.items()}


async def _all(projection: RatingsProjection, players: set[str], game: str = "pig") -> dict[str, tuple[float, float]]:
    found = {}
    for p in players:
        rating = await projection.rating(game, p)
        if rating is not None:
            found[p] = (rating.mu, rating.sigma)
    return found


def _random_matches(n: int) -> list[tuple[list[str], list[int]]]:
    rng = random.Random(n)
    roster = [f"p{i}" for i in range(6)]
    return [(rng.sample(roster, k := rng.randint(2, 4)), [rng.randint(1, k) for _ in range(k)]) for _ in range(n)]


async def test_ratings_equal_openskill_over_matches_in_finish_order(client: aioredis.Redis) -> None:
    matches = _random_matches(12)
    for i, (players, ranking) in enumerate(matches):
        await _finish(client, f"m{i}", players, ranking)
    projection = RatingsProjection(client, RedisEventStore(client))
    assert await projection.catch_up() == 12
    expected = _expected(matches)
    assert await _all(projection, set(expected)) == expected
    assert await projection.rating("pig", "leaver") is None
    board = await projection.leaderboard("pig", 10)
    assert [r.ordinal for _, r in board] == sorted((r.ordinal for _, r in board), reverse=True)


async def test_replaying_and_rebuilding_change_nothing(client: aioredis.Redis) -> None:
    matches = _random_matches(8)
    for i, (players, ranking) in enumerate(matches):
        await _finish(client, f"m{i}", players, ranking)
    projection = RatingsProjection(client, RedisEventStore(client))
    await projection.catch_up()
    before = await _all(projection, {f"p{i}" for i in range(6)})
    for i in range(8):  # announced again: at least once delivery
        await client.xadd(keys.FINISHED_STREAM, {"match_id": f"m{i}", "game": "pig"})
    assert await projection.catch_up() == 0
    assert await _all(projection, set(before)) == before
    assert await projection.rebuild() == 8
    assert await _all(projection, set(before)) == before


async def test_replicas_racing_count_each_match_once_in_order(client: aioredis.Redis) -> None:
    matches = _random_matches(20)
    for i, (players, ranking) in enumerate(matches):
        await _finish(client, f"m{i}", players, ranking)
    store = RedisEventStore(client)
    replicas = [RatingsProjection(client, store) for _ in range(3)]
    counted = await asyncio.gather(*(r.catch_up() for r in replicas))
    assert sum(counted) == 20
    assert await _all(replicas[0], {f"p{i}" for i in range(6)}) == _expected(matches)


async def test_a_cooperative_table_plays_against_a_fixed_scenario(client: aioredis.Redis) -> None:
    await _finish(client, "c1", ["a", "b"], [1, 1], coop=True, game="discover")
    await _finish(client, "c2", ["a", "b"], [1, 1], coop=False, game="discover")
    projection = RatingsProjection(client, RedisEventStore(client))
    await projection.catch_up()
    scenario = MODEL.rating(mu=SCENARIO.mu, sigma=SCENARIO.sigma)
    team = [MODEL.rating(), MODEL.rating()]
    team = MODEL.rate([team, [scenario]], ranks=[1, 2])[0]
    team = MODEL.rate([team, [MODEL.rating(mu=SCENARIO.mu, sigma=SCENARIO.sigma)]], ranks=[2, 1])[0]
    assert await _all(projection, {"a", "b"}, "discover") == {p: (r.mu, r.sigma) for p, r in zip("ab", team)}
    assert (await projection.rating("discover", "a")).matches == 2  # type: ignore[union-attr]
