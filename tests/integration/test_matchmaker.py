"""The matchmaker as real processes: replicas sharing Redis, behind the gateway.

Every wait here blocks on a gRPC stream or a Redis stream (the matchmaker's
ticket events, the finished-matches stream), never on a fixed sleep.
"""

from __future__ import annotations

import asyncio
import os
import random
import urllib.request
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from typing import Any

import grpc
import pytest
import redis.asyncio as aioredis
from openskill.models import PlackettLuce
from prometheus_client.parser import text_string_to_metric_families
from tabletop.gateway.v1 import gateway_pb2 as pb
from tabletop.match.v1 import events_pb2 as ev
from tabletop.matchmaker.v1 import matchmaker_service_pb2 as mmpb

from cli.queue import queue
from contract.gateway import GatewayStub
from deploy.stack import Stack
from services.common.redis import keys
from services.common.store.redis_store import RedisEventStore
from services.matchmaker import store as mm
from services.matchmaker.config import MatchmakerConfig
from services.matchmaker.pool import form_groups
from services.matchmaker.projection import RatingsProjection, match_result
from services.matchmaker.ratings import RatingRules
from services.matchmaker.tables import matchmade_options

pytestmark = pytest.mark.integration
# Tickets here have no watcher (throughput and placement tests): none is abandoned for it.
PIG = {"TABLETOP_EXTRA_GAMES": "pig=tests.fixtures.pig", "TABLETOP_MM_WATCH_GRACE": "0"}
SOAK = int(os.environ.get("SOAK", "0") or 0)
# Longest single blocking read: redis-py's default socket timeout is 5 s, and a block at least
# that long ends in a timeout error instead of an empty reply.
BLOCK_MS = 4000


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    # Its own embedded Redis: the module's tests count every key they see.
    # A wide rating spread: these tests are about placement; grouping by rating has unit tests.
    # Every guest on the leaderboard at once: the ratings test checks the board holds all it rated
    # (guests waiting for their minimum of matchmade games: tests/integration/test_rating_trust.py).
    env = {**PIG, "TABLETOP_MM_SPREAD_BASE": "100", "TABLETOP_RATE_GUEST_MIN_MATCHES": "0"}
    with Stack(games=("pig",), extra_env=env, matchmakers=2) as running:
        yield running


@pytest.fixture
async def gateway(stack: Stack) -> AsyncIterator[Any]:
    async with grpc.aio.insecure_channel(stack.gateway_addr) as channel:
        yield GatewayStub(channel)


@pytest.fixture
async def redis(stack: Stack) -> AsyncIterator[aioredis.Redis]:
    client = aioredis.from_url(stack.redis_url, decode_responses=False)
    yield client
    await client.aclose()


def _bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


# Player name -> verified player id, as the gateway signed each name's device in.
IDS: dict[str, str] = {}


def _device(name: str) -> str:
    """The guest device id the tests sign the player called `name` in with."""
    return f"test-device-of-{name}"


async def _session(gateway: Any, name: str) -> tuple[tuple[str, str], ...]:
    """Sign `name` in; the session's bearer metadata."""
    request = pb.AuthenticateRequest(device_id=_device(name), display_name=name)
    reply = await gateway.Authenticate(request, wait_for_ready=True)
    IDS[name] = reply.player_id
    return _bearer(reply.session_token)


async def _find(gateway: Any, player: str, low: int, high: int = 0, options: dict[str, str] | None = None,
                command_id: str = "") -> str:
    request = pb.FindMatchRequest(game="pig", players_min=low, players_max=high,
                                  options=options or {}, command_id=command_id)
    for _ in range(20):
        try:
            session = await _session(gateway, player)
            return (await gateway.FindMatch(request, metadata=session, wait_for_ready=True)).ticket_id
        except grpc.aio.AioRpcError as error:  # a replica went away mid-call: retry, same command id
            if error.code() != grpc.StatusCode.UNAVAILABLE:
                raise
    raise AssertionError("the gateway stayed unavailable")


async def _code(call: Any) -> grpc.StatusCode:
    try:
        if hasattr(call, "read"):
            while await call.read() != grpc.aio.EOF:
                pass
        else:
            await call
    except grpc.aio.AioRpcError as error:
        return error.code()
    return grpc.StatusCode.OK


async def _tickets(redis: aioredis.Redis, ids: list[str]) -> dict[str, dict[str, str]]:
    async with redis.pipeline(transaction=False) as pipe:
        for ticket_id in ids:
            pipe.hgetall(mm.ticket_key(ticket_id))
        rows = await pipe.execute()
    return {i: {k.decode(): v.decode() for k, v in row.items()} for i, row in zip(ids, rows)}


async def _settled(redis: aioredis.Redis, ids: list[str]) -> dict[str, dict[str, str]]:
    """Block on the ticket events stream until no ticket is being placed and the waiting ones
    cannot form a table (by the matchmaker's own grouping with unbounded spread)."""
    last = "0-0"
    loose = MatchmakerConfig(spread_base=1e9)
    while True:
        tickets = await _tickets(redis, ids)
        states = Counter(t["s"] for t in tickets.values())
        waiting = [mm_ticket(i, t) for i, t in tickets.items() if t["s"] == "waiting"]
        by_pool: dict[str, list[Any]] = {}
        for (pool, ticket) in waiting:
            by_pool.setdefault(pool, []).append(ticket)
        if not states["forming"] and not any(form_groups(ts, 0.0, loose) for ts in by_pool.values()):
            return tickets
        reply = await _read_within(redis, {mm.EVENTS: last}, 30.0)
        assert reply, f"no matchmaking progress: {states}"
        last = reply[0][1][-1][0].decode()


async def _read_within(redis: aioredis.Redis, streams: dict[Any, Any], seconds: float) -> Any:
    """XREAD blocking until an entry arrives or `seconds` pass (in reads shorter than the socket timeout)."""
    for _ in range(max(1, int(seconds * 1000 / BLOCK_MS))):
        reply = await redis.xread(streams, count=10_000, block=BLOCK_MS)
        if reply:
            return reply
    return []


def mm_ticket(ticket_id: str, fields: dict[str, str]) -> tuple[str, Any]:
    from services.matchmaker.pool import Ticket

    return fields["pool"], Ticket(ticket_id, fields["p"], int(fields["lo"]), int(fields["hi"]), float(fields["r"]),
                                  int(fields["q"]) / 1000)


async def _matches(redis: aioredis.Redis, match_ids: set[str]) -> dict[str, tuple[str, dict[str, str], list[str]]]:
    """match id -> (game, options, players by seat), read from the match logs."""
    store = RedisEventStore(redis)
    found = {}
    for match_id in match_ids:
        game, options, players = "", {}, []
        for stored in await store.read(keys.match_stream(match_id)):
            if stored.type == "tabletop.match.v1.MatchCreated":
                created = ev.MatchCreated.FromString(stored.data)
                game, options, players = created.game, dict(created.config), [""] * created.seat_count
            elif stored.type == "tabletop.match.v1.PlayerJoined":
                joined = ev.PlayerJoined.FromString(stored.data)
                players[joined.seat] = joined.player_id
        found[match_id] = (game, options, players)
    return found


def _check_placements(tickets: dict[str, dict[str, str]], wanted: dict[str, tuple[str, int, int, dict[str, str]]],
                      matches: dict[str, tuple[str, dict[str, str], list[str]]]) -> None:
    """Every ticket assigned exactly once or still waiting; every match of the right game, options and size."""
    wanted = {IDS[name]: w for name, w in wanted.items()}
    assert {t["s"] for t in tickets.values()} <= {"assigned", "waiting"}
    seated: Counter[str] = Counter()
    for game, options, players in matches.values():
        assert game == "pig"
        assert "" not in players and len(set(players)) == len(players), players
        for player in players:
            seated[player] += 1
            _, low, high, wanted_options = wanted[player]
            assert low <= len(players) <= high, (player, low, high, len(players))
            assert options == matchmade_options("pig", wanted_options)  # with the matchmade table's clock
    for fields in tickets.values():
        player = fields["p"]
        if fields["s"] == "assigned":
            assert seated[player] == 1, player
            assert matches[fields["m"]][2][int(fields["seat"])] == player
        else:
            assert seated[player] == 0, player


# ---------------------------------------------------------------- the API


async def test_queue_seats_players_together_with_working_tokens(stack: Stack, gateway: Any) -> None:
    found = await asyncio.gather(*(queue(stack.gateway_addr, "pig", 2, 2, {"target": "q"}, _device(f"q{i}"))
                                   for i in range(2)))
    assert found[0]["match_id"] == found[1]["match_id"]
    assert sorted(f["seat"] for f in found) == [0, 1]
    for f in found:
        view = await gateway.GetView(pb.GetViewRequest(match_id=str(f["match_id"])), metadata=_bearer(str(f["token"])))
        assert view.seat == f["seat"]
        assert view.match.status == 2  # started: every seat taken


async def test_malformed_requests_are_invalid_argument(gateway: Any) -> None:
    session = await _session(gateway, "x")
    bad = [
        pb.FindMatchRequest(game="pig", players_min=0),
        pb.FindMatchRequest(game="pig", players_min=3, players_max=2),
        pb.FindMatchRequest(game="pig", players_min=2, players_max=7),
        pb.FindMatchRequest(game="chess", players_min=2),
        pb.FindMatchRequest(game="", players_min=2),
        pb.FindMatchRequest(game="pig", players_min=2, options={"deck": "full"}),
        pb.FindMatchRequest(game="pig", players_min=2, options={"target": "x" * 65}),
        pb.FindMatchRequest(game="pig", players_min=2, command_id="x" * 129),
    ]
    for request in bad:
        assert await _code(gateway.FindMatch(request, metadata=session)) == grpc.StatusCode.INVALID_ARGUMENT, request
    assert await _code(gateway.WatchTicket(pb.WatchTicketRequest(), metadata=session)) == \
        grpc.StatusCode.INVALID_ARGUMENT
    assert await _code(gateway.ListLeaderboard(pb.ListLeaderboardRequest())) == grpc.StatusCode.INVALID_ARGUMENT
    # Queueing, watching and cancelling need a session.
    anonymous = pb.FindMatchRequest(game="pig", players_min=2)
    assert await _code(gateway.FindMatch(anonymous)) == grpc.StatusCode.UNAUTHENTICATED
    assert await _code(gateway.WatchTicket(pb.WatchTicketRequest(ticket_id="t"))) == grpc.StatusCode.UNAUTHENTICATED


async def test_unknown_or_cancelled_ticket_is_not_found(gateway: Any) -> None:
    session = await _session(gateway, "lonely")
    assert await _code(gateway.WatchTicket(pb.WatchTicketRequest(ticket_id="nope"), metadata=session)) == \
        grpc.StatusCode.NOT_FOUND
    assert await _code(gateway.CancelTicket(pb.CancelTicketRequest(ticket_id="nope"), metadata=session)) == \
        grpc.StatusCode.NOT_FOUND
    ticket = await _find(gateway, "lonely", 5, 5, {"target": "lonely"})
    watch = gateway.WatchTicket(pb.WatchTicketRequest(ticket_id=ticket), metadata=session)
    first = await watch.read()
    assert first.status == mmpb.TICKET_STATUS_WAITING
    await gateway.CancelTicket(pb.CancelTicketRequest(ticket_id=ticket), metadata=session)
    # The open watch ends NOT_FOUND the moment the ticket is cancelled; new ones too.
    assert await _code(watch) == grpc.StatusCode.NOT_FOUND
    assert await _code(gateway.WatchTicket(pb.WatchTicketRequest(ticket_id=ticket), metadata=session)) == \
        grpc.StatusCode.NOT_FOUND
    assert await _code(gateway.CancelTicket(pb.CancelTicketRequest(ticket_id=ticket), metadata=session)) == \
        grpc.StatusCode.NOT_FOUND


async def test_find_match_retried_with_its_command_id_gives_one_ticket(gateway: Any) -> None:
    first = await _find(gateway, "retry", 6, 6, {"target": "retry"}, command_id="c-retry")
    again = await _find(gateway, "retry", 6, 6, {"target": "retry"}, command_id="c-retry")
    assert first == again
    # The same id with another request is refused; another player's same id is their own.
    other_request = _find(gateway, "retry", 5, 5, {"target": "retry"}, command_id="c-retry")
    assert await _code(other_request) == grpc.StatusCode.ALREADY_EXISTS
    someone_else = await _find(gateway, "retry-2", 6, 6, {"target": "retry"}, command_id="c-retry")
    assert someone_else != first
    for name, ticket in (("retry", first), ("retry-2", someone_else)):
        await gateway.CancelTicket(pb.CancelTicketRequest(ticket_id=ticket), metadata=await _session(gateway, name))


async def test_another_players_ticket_cannot_be_watched_or_cancelled(gateway: Any) -> None:
    ticket = await _find(gateway, "owner", 6, 6, {"target": "owned"})
    thief = await _session(gateway, "thief")
    assert await _code(gateway.WatchTicket(pb.WatchTicketRequest(ticket_id=ticket), metadata=thief)) == \
        grpc.StatusCode.NOT_FOUND
    assert await _code(gateway.CancelTicket(pb.CancelTicketRequest(ticket_id=ticket), metadata=thief)) == \
        grpc.StatusCode.NOT_FOUND
    owner = await _session(gateway, "owner")
    await gateway.CancelTicket(pb.CancelTicketRequest(ticket_id=ticket), metadata=owner)


async def test_watch_delivers_the_assignment_the_moment_it_exists(gateway: Any) -> None:
    options = {"target": "watch"}
    ticket = await _find(gateway, "w0", 3, 3, options)
    watch = gateway.WatchTicket(pb.WatchTicketRequest(ticket_id=ticket), metadata=await _session(gateway, "w0"))
    assert (await watch.read()).status == mmpb.TICKET_STATUS_WAITING
    others = [await _find(gateway, f"w{i}", 2, 3, options) for i in (1, 2)]
    update = await watch.read()
    assert update.status == mmpb.TICKET_STATUS_ASSIGNED and update.assignment.match_id
    assert await watch.read() == grpc.aio.EOF
    for i, other in zip((1, 2), others):
        session = await _session(gateway, f"w{i}")
        async for seen in gateway.WatchTicket(pb.WatchTicketRequest(ticket_id=other), metadata=session):
            last = seen
        assert last.assignment.match_id == update.assignment.match_id
    assert await _code(gateway.CancelTicket(pb.CancelTicketRequest(ticket_id=ticket),
                                            metadata=await _session(gateway, "w0"))) == \
        grpc.StatusCode.FAILED_PRECONDITION


async def test_queue_is_find_and_watch_in_one_stream(gateway: Any) -> None:
    """Queue answers the ticket first, then the assignment; the same command id again watches
    the same ticket (already queued); each stream's seat token is its own player's."""
    options = {"target": "one-stream"}
    sessions = [await _session(gateway, f"qs{i}") for i in range(2)]
    requests = [pb.QueueRequest(game="pig", players_min=2, options=options, command_id=f"qs-{i}") for i in range(2)]
    first_stream = gateway.Queue(requests[0], metadata=sessions[0])
    first = await first_stream.read()
    assert (first.status, first.already_queued, first.assignment.match_id) == (mmpb.TICKET_STATUS_WAITING, False, "")
    second = [update async for update in gateway.Queue(requests[1], metadata=sessions[1])]
    assigned = await first_stream.read()
    assert await first_stream.read() == grpc.aio.EOF
    placed = [assigned, second[-1]]
    assert all(p.status == mmpb.TICKET_STATUS_ASSIGNED for p in placed)
    assert placed[0].assignment.match_id == placed[1].assignment.match_id
    assert sorted(p.assignment.seat for p in placed) == [0, 1]
    assert assigned.ticket_id == first.ticket_id and second[0].ticket_id != first.ticket_id
    for update in placed:
        view = await gateway.GetView(pb.GetViewRequest(match_id=update.assignment.match_id),
                                     metadata=_bearer(update.assignment.token))
        assert view.seat == update.assignment.seat
    again = [update async for update in gateway.Queue(requests[0], metadata=sessions[0])]
    assert [(u.ticket_id, u.already_queued, u.status) for u in again] == \
        [(first.ticket_id, True, mmpb.TICKET_STATUS_ASSIGNED)]
    assert again[0].assignment.match_id == assigned.assignment.match_id


async def test_a_refused_queue_request_queues_nothing(gateway: Any, redis: aioredis.Redis) -> None:
    before = set(await redis.keys(mm.ticket_key("*")))
    session = await _session(gateway, "q-bad")
    for request in (
        pb.QueueRequest(game="pig", players_min=0),
        pb.QueueRequest(game="chess", players_min=2),
        pb.QueueRequest(game="pig", players_min=2, options={"deck": "full"}),
        pb.QueueRequest(game="pig", players_min=2, command_id="x" * 129),
    ):
        assert await _code(gateway.Queue(request, metadata=session)) == grpc.StatusCode.INVALID_ARGUMENT, request
    assert await _code(gateway.Queue(pb.QueueRequest(game="pig", players_min=2))) == grpc.StatusCode.UNAUTHENTICATED
    assert set(await redis.keys(mm.ticket_key("*"))) == before


# ---------------------------------------------------------------- many tickets, many replicas


def _mix(count: int, seed: int, prefix: str) -> dict[str, tuple[str, int, int, dict[str, str]]]:
    """player -> (player, low, high, options): mixed table sizes and two option pools."""
    rng = random.Random(seed)
    ranges = [(2, 2), (2, 2), (3, 3), (2, 4), (4, 4), (2, 3)]
    wanted = {}
    for i in range(count):
        low, high = rng.choice(ranges)
        # Pools of their own per run: a run's leftovers never meet another run's tickets.
        options = {"target": f"{prefix}-b"} if i % 3 == 0 else {"target": prefix}
        wanted[f"{prefix}{i}"] = (f"{prefix}{i}", low, high, options)
    return wanted


async def _flood(gateway: Any, wanted: dict[str, tuple[str, int, int, dict[str, str]]],
                 parallel: int = 32) -> list[str]:
    slots = asyncio.Semaphore(parallel)

    async def one(player: str, low: int, high: int, options: dict[str, str]) -> str:
        async with slots:
            return await _find(gateway, player, low, high, options, command_id=f"cmd-{player}")

    return list(await asyncio.gather(*(one(*w) for w in wanted.values())))


async def _run_flood(stack: Stack, gateway: Any, redis: aioredis.Redis, count: int, prefix: str) -> None:
    wanted = _mix(count, seed=count, prefix=prefix)
    ids = await _flood(gateway, wanted)
    tickets = await _settled(redis, ids)
    assigned = {t["m"] for t in tickets.values() if t["s"] == "assigned"}
    _check_placements(tickets, wanted, await _matches(redis, assigned))
    assert sum(t["s"] == "assigned" for t in tickets.values()) > count * 0.9


async def test_a_thousand_tickets_over_two_replicas_each_placed_once(stack: Stack, gateway: Any,
                                                                     redis: aioredis.Redis) -> None:
    await _run_flood(stack, gateway, redis, 1000, "t")
    # Both replicas formed matches: the work is shared.
    consumers = await redis.xinfo_consumers(mm.JOBS, "formers")
    assert len(consumers) == 2


@pytest.mark.slow
@pytest.mark.skipif(not SOAK, reason="set SOAK=n to run (n x 5000 tickets)")
async def test_soak_many_tickets(stack: Stack, gateway: Any, redis: aioredis.Redis) -> None:
    await _run_flood(stack, gateway, redis, 5000 * max(1, SOAK), "s")


async def test_a_killed_replicas_claimed_tickets_are_still_assigned(redis_url: str) -> None:
    # A stack of its own (this test kills one of its processes), quick to claim back.
    running = Stack(games=("pig",), extra_env={**PIG, "TABLETOP_MM_CLAIM_IDLE_MS": "1500"}, matchmakers=2)
    running.start()
    try:
        client = aioredis.from_url(running.redis_url, decode_responses=False)
        async with grpc.aio.insecure_channel(running.gateway_addr) as channel:
            gateway = GatewayStub(channel)
            wanted = {f"k{i}": (f"k{i}", 2, 2, {}) for i in range(400)}
            flood = asyncio.create_task(_flood(gateway, wanted, parallel=8))
            # Kill the replica while it holds formation jobs it has not finished.
            while not await _holds_jobs(client, "matchmaker-1"):
                await client.xread({mm.EVENTS: "$"}, block=2000)
            running.kill("matchmaker-1")
            orphaned = await _pending_of(client, "matchmaker-1")
            ids = await flood
            tickets = await _settled(client, ids)
            assert {t["s"] for t in tickets.values()} == {"assigned"}
            _check_placements(tickets, wanted, await _matches(client, {t["m"] for t in tickets.values()}))
            pending = await client.xpending(mm.JOBS, "formers")
            assert pending["pending"] == 0
            # What the dead replica held was claimed back by the live one (XAUTOCLAIM) and formed.
            assert orphaned > 0 and await _pending_of(client, "matchmaker-1") == 0
        await client.aclose()
    finally:
        running.stop()


async def test_queue_streams_outlive_the_replica_serving_them(redis_url: str) -> None:
    """The gateway reopens a Queue whose matchmaker replica went away (by the ticket's id on
    another replica): every player still hears the assignment on the stream it opened."""
    running = Stack(games=("pig",), extra_env=PIG, matchmakers=2)
    running.start()
    try:
        async with grpc.aio.insecure_channel(running.gateway_addr) as channel:
            gateway = GatewayStub(channel)
            request = pb.QueueRequest(game="pig", players_min=4, options={"target": "outlive"})

            async def queued(name: str) -> tuple[str, Any]:
                stream = gateway.Queue(request, metadata=await _session(gateway, name))
                first = await stream.read()
                assert first.status == mmpb.TICKET_STATUS_WAITING
                return first.ticket_id, stream

            # Three wait for a fourth; the replica serving some of their streams goes away.
            waiting = [await queued(f"outlive{i}") for i in range(3)]
            serving = [name for name in ("matchmaker", "matchmaker-1") if _open_streams(running, name) > 0]
            assert serving, "some replica serves the streams"
            running.kill(serving[-1])
            last_ticket, last = await queued("outlive3")
            ends = await asyncio.wait_for(asyncio.gather(*(s.read() for _, s in [*waiting, (last_ticket, last)])), 60)
            assert [e.status for e in ends] == [mmpb.TICKET_STATUS_ASSIGNED] * 4
            assert len({e.assignment.match_id for e in ends}) == 1
            assert sorted(e.assignment.seat for e in ends) == [0, 1, 2, 3]
            assert [e.ticket_id for e in ends] == [t for t, _ in [*waiting, (last_ticket, last)]]
    finally:
        running.stop()


def _open_streams(running: Stack, name: str) -> float:
    """The gRPC streams process `name` has open (its metrics page)."""
    port = running.procs[name].metrics_port
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as page:
        families = text_string_to_metric_families(page.read().decode())
    return sum(s.value for f in families for s in f.samples if s.name == "tabletop_rpc_open_streams")


async def _pending_of(client: aioredis.Redis, consumer: str) -> int:
    for info in await client.xinfo_consumers(mm.JOBS, "formers") if await client.exists(mm.JOBS) else []:
        if info["name"] in (consumer, consumer.encode()):
            return int(info["pending"])
    return 0


async def _holds_jobs(client: aioredis.Redis, consumer: str) -> bool:
    return await _pending_of(client, consumer) > 0


# ---------------------------------------------------------------- ratings


async def _play_out(gateway: Any, seats: list[dict[str, object]], rng: random.Random) -> None:
    """Random legal moves for every seat until the match ends, through the gateway."""
    match_id = str(seats[0]["match_id"])
    tokens = {int(str(s["seat"])): str(s["token"]) for s in seats}
    step = 0
    while True:
        view = await gateway.GetView(pb.GetViewRequest(match_id=match_id), metadata=_bearer(tokens[0]))
        if view.match.status == 3:
            return
        seat = view.match.to_move[0]
        if seat not in tokens:
            # A bot's turn: block on the match's live updates until it has moved.
            updates = gateway.WatchMatch(pb.WatchMatchRequest(match_id=match_id, after_version=view.match.version))
            await updates.read()
            updates.cancel()
            continue
        legal = await gateway.ListLegalActions(pb.ListLegalActionsRequest(match_id=match_id),
                                               metadata=_bearer(tokens[seat]))
        action = legal.actions[rng.randrange(len(legal.actions))]
        await gateway.SubmitAction(pb.SubmitActionRequest(match_id=match_id, action=action, command_id=f"a{step}"),
                                   metadata=_bearer(tokens[seat]))
        step += 1


async def _expected_ratings(redis: aioredis.Redis, match_ids: list[str]) -> dict[str, tuple[float, float]]:
    """openskill's own computation, match by match in finish order."""
    model = PlackettLuce()
    ratings: dict[str, Any] = {}
    store = RedisEventStore(redis)
    for match_id in match_ids:
        result = await match_result(store, match_id)
        assert result is not None
        teams = [[ratings.get(p, model.rating())] for p in result.players]
        new = model.rate(teams, ranks=list(result.ranking))
        for player, team in zip(result.players, new):
            ratings[player] = team[0]
    return {p: (r.mu, r.sigma) for p, r in ratings.items()}


async def test_ratings_equal_openskill_and_replaying_changes_nothing(stack: Stack, gateway: Any,
                                                                     redis: aioredis.Redis) -> None:
    rng = random.Random(7)
    roster = [f"r{i}" for i in range(5)]
    options = {"target": "rated"}
    for round_ in range(6):
        size = 2 + round_ % 3
        players = rng.sample(roster, size)
        seats = await asyncio.gather(
            *(queue(stack.gateway_addr, "pig", size, size, options, _device(p), display_name=p) for p in players)
        )
        for name, seat in zip(players, seats):
            IDS[name] = str(seat["player_id"])
        await _play_out(gateway, list(seats), rng)
    names = {IDS[name]: name for name in roster if name in IDS}
    roster = list(names)
    finished = [f[b"match_id"].decode() for _, f in await redis.xrange(keys.FINISHED_STREAM)]
    ours = [m for m in finished if (await match_result(RedisEventStore(redis), m)).players[0] in roster]
    assert len(ours) == 6
    # Block on the finished stream's ratings group until the replicas have acknowledged everything.
    # (Applying here too, so under the stack's rules: every guest on the board.)
    projection = RatingsProjection(redis, RedisEventStore(redis), RatingRules(guest_min_matches=0))
    await _projected(redis, projection)
    expected = await _expected_ratings(redis, ours)

    async def current() -> dict[str, tuple[float, float, int]]:
        found = {}
        for player in roster:
            if player in expected:
                r = (await gateway.GetRating(pb.GetRatingRequest(player_id=player, game="pig"))).rating
                found[player] = (r.mu, r.sigma, r.matches)
        return found

    live = await current()
    for player, (mu, sigma) in expected.items():
        assert live[player][:2] == pytest.approx((mu, sigma), abs=1e-9)
    board = (await gateway.ListLeaderboard(pb.ListLeaderboardRequest(game="pig", limit=100))).entries
    ordinals = [e.rating.ordinal for e in board]
    assert ordinals == sorted(ordinals, reverse=True) and {e.rating.player_id for e in board} >= set(expected)
    # Players are shown by the names they signed in with, beside their ratings and at their seats.
    assert {e.rating.display_name for e in board if e.rating.player_id in expected} == {names[p] for p in expected}
    seated = (await gateway.GetView(pb.GetViewRequest(match_id=ours[-1]))).match.seats
    assert {s.display_name for s in seated} <= set(names.values()) and all(s.display_name for s in seated)

    # Announced again (at least once) and rebuilt from the logs: nothing changes.
    for match_id in ours:
        await redis.xadd(keys.FINISHED_STREAM, {"match_id": match_id, "game": "pig"})
    await _projected(redis, projection)
    assert await current() == live
    await projection.rebuild()
    assert await current() == live
    assert await _code(gateway.GetRating(pb.GetRatingRequest(player_id="never", game="pig"))) == \
        grpc.StatusCode.NOT_FOUND


async def _projected(redis: aioredis.Redis, projection: RatingsProjection) -> None:
    """Wait until the cursor has reached the finished stream's last entry (blocking on the stream)."""
    last = (await redis.xrevrange(keys.FINISHED_STREAM, count=1))[0][0].decode()
    while await projection.cursor() != last:
        # The replicas apply entries as they arrive; applying here as well is harmless
        # (strictly ordered and counted once) and ends the wait without polling.
        await projection.catch_up(upto=last)


# ---------------------------------------------------------------- bot backfill


async def test_bots_backfill_a_waiting_ticket_and_play_to_the_end(redis_url: str) -> None:
    # Bots give up on a match that has not moved for 2 s (the second match below).
    env = {**PIG, "TABLETOP_BOT_BACKFILL_AFTER": "0.5", "TABLETOP_MM_BOT_IDLE": "2"}
    running = Stack(games=("pig",), extra_env=env, matchmakers=1)
    running.start()
    try:
        found = await queue(running.gateway_addr, "pig", 3, 3, {}, _device("solo"))
        client = aioredis.from_url(running.redis_url, decode_responses=False)
        async with grpc.aio.insecure_channel(running.gateway_addr) as channel:
            gateway = GatewayStub(channel)
            view = await gateway.GetView(pb.GetViewRequest(match_id=str(found["match_id"])),
                                         metadata=_bearer(str(found["token"])))
            players = [s.player_id for s in view.match.seats]
            assert players[0] == found["player_id"] and all(p.startswith("bot-") for p in players[1:])
            await _play_out(gateway, [found], random.Random(1))
        finished = await _read_within(client, {keys.FINISHED_STREAM: "0-0"}, 30.0)
        assert finished
        await _abandoned_match_releases_its_bots(running, client)
        await client.aclose()
    finally:
        running.stop()


async def _abandoned_match_releases_its_bots(running: Stack, client: aioredis.Redis) -> None:
    """A backfilled match its human never plays: the bot job ends (acknowledged) after the idle bound."""
    found = await queue(running.gateway_addr, "pig", 2, 2, {}, _device("gone"))
    abandoned = str(found["match_id"])
    log, stream = RedisEventStore(client), keys.match_stream(abandoned)
    version = await log.version(stream)
    began = asyncio.get_running_loop().time()
    # Block on the abandoned match's log (nothing moves there) until the bots' group has nothing pending.
    while (await client.xpending(mm.BOTS, "bots"))["pending"]:
        assert asyncio.get_running_loop().time() - began < 20, "the bots never gave up"
        assert not await log.wait(stream, version, 0.5), "the abandoned match moved"
    assert asyncio.get_running_loop().time() - began >= 1.5  # not before the bound (2 s, minus setup time)
    stopped = [line for line in running.tail("matchmaker", 200).splitlines()
               if abandoned in line and "bots_done" in line]
    assert stopped and '"reason": "idle"' in stopped[-1]


async def test_a_lone_ticket_expires_and_is_never_matched_later(redis_url: str) -> None:
    running = Stack(games=("pig",), extra_env={**PIG, "TABLETOP_MM_TICKET_TTL": "1"}, matchmakers=1)
    running.start()
    try:
        client = aioredis.from_url(running.redis_url, decode_responses=False)
        async with grpc.aio.insecure_channel(running.gateway_addr) as channel:
            gateway = GatewayStub(channel)
            options = {"target": "ttl"}
            early = await _find(gateway, "early", 2, 2, options)
            session = await _session(gateway, "early")
            await _expires_while_watched(gateway, early, session)
            # Gone like a cancelled ticket: nothing to cancel; a new watch is told at once.
            assert await _code(gateway.CancelTicket(pb.CancelTicketRequest(ticket_id=early), metadata=session)) == \
                grpc.StatusCode.NOT_FOUND
            watch = gateway.WatchTicket(pb.WatchTicketRequest(ticket_id=early), metadata=session)
            assert [u.status async for u in watch] == [mmpb.TICKET_STATUS_EXPIRED]
            # A later ticket for the same table is not seated with the expired one: it waits alone, and expires.
            late = await _find(gateway, "late", 2, 2, options)
            await _expires_while_watched(gateway, late, await _session(gateway, "late"))
            states = await _tickets(client, [early, late])
            assert {t["s"] for t in states.values()} == {"expired"}
            assert not await client.exists(mm.JOBS) or await client.xlen(mm.JOBS) == 0
        await client.aclose()
    finally:
        running.stop()


async def _expires_while_watched(gateway: Any, ticket: str, session: tuple[tuple[str, str], ...]) -> None:
    watch = gateway.WatchTicket(pb.WatchTicketRequest(ticket_id=ticket), metadata=session)
    assert (await watch.read()).status == mmpb.TICKET_STATUS_WAITING
    last = await watch.read()
    assert (last.status, last.assignment.match_id) == (mmpb.TICKET_STATUS_EXPIRED, "")
    assert await watch.read() == grpc.aio.EOF


async def test_tickets_live_with_their_watchers(redis_url: str) -> None:
    """A ticket whose watcher went away (and did not come back within the grace period) is
    abandoned, and a later player is never seated with it; one that is watched stays."""
    running = Stack(games=("pig",), extra_env={**PIG, "TABLETOP_MM_WATCH_GRACE": "1"}, matchmakers=1)
    running.start()
    try:
        client = aioredis.from_url(running.redis_url, decode_responses=False)
        async with grpc.aio.insecure_channel(running.gateway_addr) as channel:
            gateway = GatewayStub(channel)
            options = {"target": "grace"}
            gone = await _find(gateway, "gone", 2, 2, options)  # queued, never watched
            kept = await _find(gateway, "kept", 3, 3, options)  # watched throughout
            watch = gateway.WatchTicket(pb.WatchTicketRequest(ticket_id=kept), metadata=await _session(gateway, "kept"))
            assert (await watch.read()).status == mmpb.TICKET_STATUS_WAITING
            await asyncio.sleep(3)  # three grace periods
            states = await _tickets(client, [gone, kept])
            assert (states[gone]["s"], states[kept]["s"]) == ("abandoned", "waiting")
            # Coming back too late is told why.
            late = gateway.WatchTicket(pb.WatchTicketRequest(ticket_id=gone), metadata=await _session(gateway, "gone"))
            with pytest.raises(grpc.aio.AioRpcError) as told:
                await late.read()
            assert told.value.code() == grpc.StatusCode.FAILED_PRECONDITION
            assert "nobody watched it" in (told.value.details() or "")
            # A newcomer for the abandoned ticket's table waits for a real partner.
            newcomer = await _find(gateway, "newcomer", 2, 2, options)
            await asyncio.sleep(0.5)
            assert (await _tickets(client, [newcomer]))[newcomer]["s"] == "waiting"
            watch.cancel()  # the kept ticket's watcher leaves too: abandoned after the grace period
            # A Queue stream is its ticket's watcher: closed, the ticket goes the same way.
            request = pb.QueueRequest(game="pig", players_min=4, options=options)
            queued = gateway.Queue(request, metadata=await _session(gateway, "closer"))
            closed = (await queued.read()).ticket_id
            queued.cancel()
            await asyncio.sleep(3)
            states = await _tickets(client, [kept, closed])
            assert (states[kept]["s"], states[closed]["s"]) == ("abandoned", "abandoned")
        await client.aclose()
    finally:
        running.stop()


async def test_a_player_has_one_ticket_per_game(gateway: Any) -> None:
    session = await _session(gateway, "twice")
    first = await gateway.FindMatch(pb.FindMatchRequest(game="pig", players_min=5, options={"target": "once"}),
                                    metadata=session)
    again = await gateway.FindMatch(pb.FindMatchRequest(game="pig", players_min=6, options={"target": "twice"}),
                                    metadata=session)
    assert (first.already_queued, again.already_queued) == (False, True)
    assert again.ticket_id == first.ticket_id
    await gateway.CancelTicket(pb.CancelTicketRequest(ticket_id=first.ticket_id), metadata=session)
    after = await gateway.FindMatch(pb.FindMatchRequest(game="pig", players_min=6, options={"target": "twice"}),
                                    metadata=session)
    assert not after.already_queued and after.ticket_id != first.ticket_id
    await gateway.CancelTicket(pb.CancelTicketRequest(ticket_id=after.ticket_id), metadata=session)


async def test_the_cli_says_what_it_waits_for_and_ctrl_c_withdraws_the_ticket(
    stack: Stack, redis: aioredis.Redis, tmp_path: Any
) -> None:
    import pathlib
    import signal
    import subprocess
    import sys

    root = pathlib.Path(__file__).resolve().parents[2]
    env = {**os.environ, "TABLETOP_HOME": str(tmp_path)}
    command = [sys.executable, "-m", "tests.fixtures.at_a_terminal", "cli", "queue",
               "--game", "pig", "--players", "4",
               "--option", "target=cli", "--name", "waiter", "--gateway", stack.gateway_addr]
    waiting = subprocess.Popen(command, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert waiting.stderr is not None
    first = await asyncio.wait_for(asyncio.to_thread(waiting.stderr.readline), 60)
    assert first.startswith("queueing for a pig table of 4 players (target=cli)"), first
    said = await asyncio.wait_for(asyncio.to_thread(waiting.stderr.readline), 60)
    assert said.startswith("waiting for a pig table of 4 players (target=cli) (ticket "), said
    short = said.rsplit("(ticket ", 1)[1].split(")")[0]
    ids = [k.decode().rsplit(":", 1)[1] for k in await redis.keys(mm.ticket_key("*"))]
    (ticket,) = [i for i in ids if i.startswith(short) and (await _tickets(redis, [i]))[i].get("s") == "waiting"]
    waiting.send_signal(signal.SIGINT)
    _, err = await asyncio.to_thread(waiting.communicate, timeout=30)
    assert waiting.returncode == 130, err
    assert "the ticket is withdrawn" in err
    assert (await _tickets(redis, [ticket]))[ticket]["s"] == "cancelled"


async def test_ticket_calls_served_in_the_gateway_place_every_ticket_once_with_working_seat_tokens() -> None:
    # TABLETOP_MATCHMAKER_TRANSPORT=inprocess: the gateway serves FindMatch/WatchTicket on Redis,
    # the two replicas only group and form; assignments reach the watchers from the events stream
    # with the seat's tenure, and the token minted from it is accepted by the match.
    from cli.api import Gateway, Seat

    env = {**PIG, "TABLETOP_MATCHMAKER_TRANSPORT": "inprocess"}
    running = Stack(games=("pig",), extra_env=env, matchmakers=2)
    running.start()
    try:
        players = 20
        found = await asyncio.gather(*(
            queue(running.gateway_addr, "pig", 2, 2, {"target": "desk"}, f"desk-device-{i:08d}") for i in range(players)
        ))
        by_match: dict[str, list[int]] = {}
        for seat in found:
            by_match.setdefault(str(seat["match_id"]), []).append(int(seat["seat"]))
        assert len({seat["ticket_id"] for seat in found}) == players
        assert sorted(sorted(seats) for seats in by_match.values()) == [[0, 1]] * (players // 2)
        # The token minted from the carried tenure is a working seat token.
        async with Gateway(running.gateway_addr) as gateway:
            for placed in found[:4]:
                seat = Seat(str(placed["match_id"]), int(placed["seat"]), str(placed["token"]),
                            str(placed["player_id"]))
                await gateway.legal_actions(seat)  # a seat call: refused with a stale or wrong token
    finally:
        running.stop()
