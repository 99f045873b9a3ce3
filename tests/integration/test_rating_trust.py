"""Ratings cannot be farmed (issue 27, item 4), as real processes behind the gateway.

The attack: a player makes private lobbies, seats fresh guest accounts (one
Authenticate each) that lose on purpose, and climbs the leaderboard; or takes
both seats of a lobby and beats themselves. Only tables the matchmaker formed
are rated (the log says so: MatchCreated.matchmade, which no client request
sets), never one player in two seats, and a guest waits off the leaderboard
until it has played the minimum of matchmade games (3 in this stack).
"""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import AsyncIterator, Callable, Iterator, Sequence

import grpc
import pytest
import redis.asyncio as aioredis
from google.protobuf import any_pb2
from tabletop.gateway.v1 import gateway_pb2 as pb
from tabletop.match.v1 import events_pb2 as ev
from tabletop.match.v1 import match_service_pb2 as mpb
from tabletop.testing.v1 import pig_pb2

from cli.api import Gateway, Player, Seat
from cli.queue import queue
from deploy.stack import Stack
from services.common.redis import keys
from services.common.security import authz
from services.common.store.redis_store import RedisEventStore
from services.matchmaker.projection import RatingsProjection, match_result
from services.matchmaker.ratings import RatingRules

pytestmark = pytest.mark.integration
GUEST_MIN = 3
# The stack's rules, for the projection these tests catch up with (applying alongside the
# replicas is harmless: strictly ordered, each match once, the same rules, the same ratings).
RULES = RatingRules(rate_custom_tables=False, guest_min_matches=GUEST_MIN)
ENV = {"TABLETOP_EXTRA_GAMES": "pig=tests.fixtures.pig", "TABLETOP_RATE_GUEST_MIN_MATCHES": str(GUEST_MIN),
       # Any two tickets of a pool make a table: these tests are about rating, not grouping.
       "TABLETOP_MM_SPREAD_BASE": "100"}
Chooser = Callable[[int, Sequence[any_pb2.Any]], any_pb2.Any]


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    # Its own Redis: the leaderboard here holds these tests' players alone.
    with Stack(games=("pig",), extra_env=ENV, matchmakers=1) as running:
        yield running


@pytest.fixture
async def gateway(stack: Stack) -> AsyncIterator[Gateway]:
    async with Gateway(stack.gateway_addr) as client:
        yield client


@pytest.fixture
async def redis(stack: Stack) -> AsyncIterator[aioredis.Redis]:
    client = aioredis.from_url(stack.redis_url, decode_responses=False)
    yield client
    await client.aclose()


def _kind(action: any_pb2.Any) -> str:
    """Which pig action it is: roll, hold or swap."""
    unpacked = pig_pb2.Action()
    assert action.Unpack(unpacked)
    return str(unpacked.WhichOneof("kind"))


def _farmed(farmer: set[int]) -> Chooser:
    """The farmer's seats bank every point they roll; the accomplice's only roll, so bank nothing."""
    def choose(seat: int, legal: Sequence[any_pb2.Any]) -> any_pb2.Any:
        wanted = "hold" if seat in farmer and any(_kind(a) == "hold" for a in legal) else "roll"
        return next(a for a in legal if _kind(a) == wanted)
    return choose


def _random(rng: random.Random) -> Chooser:
    return lambda seat, legal: legal[rng.randrange(len(legal))]


async def _play(gateway: Gateway, seats: dict[int, Seat], choose: Chooser) -> None:
    """Every seat's moves through the gateway until the match ends."""
    match_id = next(iter(seats.values())).match_id
    while True:
        summary = (await gateway.view(match_id)).match
        if summary.status == mpb.MATCH_STATUS_FINISHED:
            return
        seat = seats[summary.to_move[0]]
        legal = (await gateway.legal_actions(seat)).actions
        await gateway.submit(seat, choose(seat.seat, legal))


async def _lobby(gateway: Gateway, host: Player, guest: Player | None) -> dict[int, Seat]:
    """A custom table: the host makes it and takes seat 0; seat 1 is the guest's, or the host's too."""
    match_id = (await gateway.create("pig", 2, by=host)).match.match_id
    seats = {0: await gateway.join(match_id, host, seat=0), 1: await gateway.join(match_id, guest or host, seat=1)}
    await gateway.start(seats[0])
    return seats


async def _matchmade(stack: Stack, names: list[str], pool: str) -> dict[int, Seat]:
    """A table the matchmaker forms from the named guests' tickets (each queues with its own device)."""
    found = await asyncio.gather(*(queue(stack.gateway_addr, "pig", len(names), len(names), {"target": pool},
                                         f"rating-trust-device-{name}", display_name=name) for name in names))
    return {int(str(f["seat"])): Seat(str(f["match_id"]), int(str(f["seat"])), str(f["token"]), str(f["player_id"]))
            for f in found}


async def _created(gateway: Gateway, match_id: str) -> ev.MatchCreated:
    first = (await gateway.log(match_id))[0]
    created = ev.MatchCreated()
    assert first.event.Unpack(created)
    return created


async def _projected(redis: aioredis.Redis) -> RatingsProjection:
    """The ratings once every finished match so far is applied (what the replica has not applied
    yet is applied here: no waiting on its schedule)."""
    projection = RatingsProjection(redis, RedisEventStore(redis), RULES)
    last = (await redis.xrevrange(keys.FINISHED_STREAM, count=1))[0][0].decode()
    await projection.catch_up(upto=last)
    assert await projection.cursor() == last
    return projection


async def _rating(gateway: Gateway, player_id: str) -> pb.GetRatingResponse | grpc.StatusCode:
    try:
        return await gateway.stub.GetRating(pb.GetRatingRequest(player_id=player_id, game="pig"))
    except grpc.aio.AioRpcError as error:
        return error.code()


async def _board(gateway: Gateway) -> list[str]:
    reply = await gateway.stub.ListLeaderboard(pb.ListLeaderboardRequest(game="pig", limit=100))
    return [entry.rating.player_id for entry in reply.entries]


async def test_lobby_wins_over_fresh_guests_and_over_oneself_earn_nothing(
    stack: Stack, gateway: Gateway, redis: aioredis.Redis
) -> None:
    # Two honest players play their minimum of matchmade games.
    rng = random.Random(4)
    honest: set[str] = set()
    for round_ in range(GUEST_MIN):
        seats = await _matchmade(stack, ["ana", "bo"], f"honest-{round_}")
        assert (await _created(gateway, seats[0].match_id)).matchmade
        honest |= {s.player_id for s in seats.values()}
        await _play(gateway, seats, _random(rng))
    # The farmer, a custom-id account (one the leaderboard would show at once), wins ten
    # lobbies against ten fresh guests, then a lobby where it holds both seats.
    signed = await gateway.stub.Authenticate(pb.AuthenticateRequest(custom_id=f"farmer-{uuid.uuid4().hex}"))
    farmer = Player(signed.player_id, signed.session_token, name="farmer")
    victims = [await gateway.sign_in(f"victim-{i}") for i in range(10)]
    lobbies = []
    for victim in victims:
        seats = await _lobby(gateway, farmer, victim)
        await _play(gateway, seats, _farmed({0}))
        lobbies.append(seats[0].match_id)
    alone = await _lobby(gateway, farmer, None)
    await _play(gateway, alone, _farmed({0}))
    store = RedisEventStore(redis)
    for match_id in lobbies:
        result = await match_result(store, match_id)
        assert result is not None and result.players[0] == farmer.player_id and result.ranking == (1, 2)
        assert not (await _created(gateway, match_id)).matchmade  # the log says: a custom table
    assert (await match_result(store, alone[0].match_id)).players == (farmer.player_id,) * 2  # type: ignore[union-attr]

    await _projected(redis)
    assert await _rating(gateway, farmer.player_id) == grpc.StatusCode.NOT_FOUND
    for victim in victims:
        assert await _rating(gateway, victim.player_id) == grpc.StatusCode.NOT_FOUND
    # The board is the honest players', both past the guests' minimum, with every matchmade game.
    assert set(await _board(gateway)) == honest
    for player in honest:
        rating = await _rating(gateway, player)
        assert isinstance(rating, pb.GetRatingResponse)
        assert rating.rating.matches == GUEST_MIN and not rating.rating.provisional


async def test_a_guest_below_its_minimum_sees_its_rating_off_the_leaderboard(
    stack: Stack, gateway: Gateway, redis: aioredis.Redis
) -> None:
    seats = await _matchmade(stack, ["cy", "di"], "newcomers")
    await _play(gateway, seats, _random(random.Random(9)))
    await _projected(redis)
    board = await _board(gateway)
    for seat in seats.values():
        rating = await _rating(gateway, seat.player_id)
        # Rated from its one matchmade game, shown to whoever asks, but provisional: not ranked.
        assert isinstance(rating, pb.GetRatingResponse)
        assert rating.rating.matches == 1 and rating.rating.provisional
        assert rating.rating.display_name in ("cy", "di")
        assert seat.player_id not in board


async def test_no_client_can_mark_a_table_matchmade(gateway: Gateway) -> None:
    # The mark is a field of the log's first event that only FormMatch writes, and FormMatch
    # is the matchmaker's alone (the gateway's certificate is refused it); a table's config
    # is a separate map, checked against the game's declared options.
    for method in ("FormMatch", "FormMatches"):
        assert authz.POLICY[f"/{authz.MATCH}/{method}"] == frozenset({"matchmaker"})
    host = await gateway.sign_in("forger")
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await gateway.create("pig", 2, config={"matchmade": "true"}, by=host)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    made = (await gateway.create("pig", 2, config={"target": "matchmade"}, by=host)).match.match_id
    assert not (await _created(gateway, made)).matchmade
