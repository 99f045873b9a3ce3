"""The ratings projection: finished matches counted once, in finish order, rebuildable; only
trusted tables rated, and guests kept off the leaderboard until they have played enough."""

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

from gateway.identity import Players
from services.common.players import CUSTOM, EXTERNAL, GUEST, kinds, set_kind
from services.common.redis import keys
from services.common.redis.commands import commands
from services.common.store.event_store import NewEvent
from services.common.store.redis_store import RedisEventStore
from services.matchmaker.projection import RatingsProjection
from services.matchmaker.ratings import SCENARIO, RatingRules

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


async def _finish(client: aioredis.Redis, match_id: str, seated: list[str], ranking: list[int],
                  coop: bool | None = None, game: str = "pig", matchmade: bool = True) -> None:
    """Write a finished match's log (a join that is left again included) and announce it;
    a matchmade table's unless `matchmade` is False (a lobby made with CreateMatch)."""
    store = RedisEventStore(client)
    outcome = common_pb2.Outcome(ranking=ranking)
    if coop is not None:
        outcome.cooperative_win = coop
    events: list[Message] = [ev.MatchCreated(game=game, seat_count=len(seated), matchmade=matchmade),
                             ev.PlayerJoined(seat=0, player_id="leaver"), ev.PlayerLeft(seat=0, player_id="leaver")]
    events += [ev.PlayerJoined(seat=i, player_id=p) for i, p in enumerate(seated)]
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


# ---------------------------------------------------------------- what is rated, what is shown


async def _board(projection: RatingsProjection, game: str = "pig") -> list[str]:
    return [player for player, _ in await projection.leaderboard(game, 100)]


async def test_a_custom_table_is_not_rated_unless_the_operator_allows_it(client: aioredis.Redis) -> None:
    await _finish(client, "lobby", ["farmer", "victim"], [1, 2], matchmade=False)
    await _finish(client, "formed", ["a", "b"], [1, 2])
    projection = RatingsProjection(client, RedisEventStore(client))
    assert await projection.catch_up() == 1
    assert await projection.cursor() == (await client.xrevrange(keys.FINISHED_STREAM, count=1))[0][0].decode()
    assert await projection.rating("pig", "farmer") is None and await projection.rating("pig", "victim") is None
    assert await _all(projection, {"a", "b"}) == _expected([(["a", "b"], [1, 2])])
    # Where the operator rates custom tables, a rebuild from the same logs rates it too.
    allowing = RatingsProjection(client, RedisEventStore(client), RatingRules(rate_custom_tables=True))
    assert await allowing.rebuild() == 2
    assert await _all(allowing, {"farmer", "victim", "a", "b"}) == _expected([(["farmer", "victim"], [1, 2]),
                                                                            (["a", "b"], [1, 2])])
    assert (await allowing.rating("pig", "farmer")).matchmade == 0  # type: ignore[union-attr]
    assert (await allowing.rating("pig", "a")).matchmade == 1  # type: ignore[union-attr]


@pytest.mark.parametrize("matchmade", [True, False])
async def test_one_player_in_two_seats_is_never_rated(client: aioredis.Redis, matchmade: bool) -> None:
    await _finish(client, "self", ["farmer", "farmer", "other"], [1, 2, 3], matchmade=matchmade)
    projection = RatingsProjection(client, RedisEventStore(client), RatingRules(rate_custom_tables=True))
    assert await projection.catch_up() == 0
    assert await _all(projection, {"farmer", "other"}) == {}
    assert await projection.rebuild() == 0


async def test_a_guest_is_rated_but_off_the_leaderboard_until_its_minimum(client: aioredis.Redis) -> None:
    redis = commands(client)
    for player, kind in (("guest", GUEST), ("account", CUSTOM), ("sso", EXTERNAL)):
        await set_kind(redis, player, kind)
    rules = RatingRules(guest_min_matches=3)
    projection = RatingsProjection(client, RedisEventStore(client), rules)
    for i in range(2):
        await _finish(client, f"m{i}", ["guest", "account", "sso", "unknown"], [1, 2, 3, 4])
    await projection.catch_up()
    # Accounts of the operator's are shown at once, and so is a player signed in before kinds
    # were recorded; the guest, first at every table, is rated but not ranked yet.
    assert set(await _board(projection)) == {"account", "sso", "unknown"}
    standing = await projection.standing("pig", "guest")
    assert standing is not None and standing.provisional and standing.rating.matchmade == 2
    assert not (await projection.standing("pig", "account")).provisional  # type: ignore[union-attr]
    # A custom table, rated by the operator's leave, does not count towards the minimum.
    await _finish(client, "lobby", ["guest", "account"], [1, 2], matchmade=False)
    allowing = RatingsProjection(client, RedisEventStore(client), RatingRules(True, guest_min_matches=3))
    await allowing.catch_up()
    assert "guest" not in await _board(allowing)
    await _finish(client, "m2", ["guest", "account"], [1, 2])
    await allowing.catch_up()
    assert (await _board(allowing))[0] == "guest"
    assert not (await allowing.standing("pig", "guest")).provisional  # type: ignore[union-attr]
    # A rebuild under a stricter minimum takes the guest off again: the board follows the rules.
    strict = RatingsProjection(client, RedisEventStore(client), RatingRules(True, guest_min_matches=10))
    await strict.rebuild()
    assert "guest" not in await _board(strict) and await strict.rating("pig", "guest") is not None


async def test_every_sign_in_records_the_kind_the_leaderboard_reads(client: aioredis.Redis) -> None:
    signing = Players(client)
    guest = await signing.device("a-device-id-of-16+")
    account = await signing.custom("an-operator-account-id")
    await client.hdel(f"tabletop:player:{guest.player_id}", "kind")  # as if signed in before kinds were
    again = await signing.device("a-device-id-of-16+")
    assert again.player_id == guest.player_id and not again.created
    assert await kinds(commands(client), [guest.player_id, account.player_id, "never"]) == [GUEST, CUSTOM, ""]
