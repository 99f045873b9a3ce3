"""Tickets live only while their player waits, and matchmade tables never stall: real processes.

A Queue stream that ends without an assignment withdraws its ticket at once;
`tabletop queue` withdraws on SIGINT, SIGTERM and SIGHUP, and killed outright
its stream's end withdraws the ticket at the gateway; a formation whose player
left before the start forms nothing and puts the others back; a matchmade
table whose player went away is moved on by its clock, a bot's move for the
absent seat.
"""

from __future__ import annotations

import asyncio
import os
import pathlib
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import grpc
import pytest
import redis.asyncio as aioredis
from tabletop.gateway.v1 import gateway_pb2 as pb
from tabletop.match.v1 import match_service_pb2 as mpb
from tabletop.matchmaker.v1 import matchmaker_service_pb2 as mmpb

from cli.api import Gateway, Seat
from cli.queue import queue
from contract.gateway import GatewayStub
from deploy.stack import ROOT, Stack
from services.matchmaker import store as mm
from services.matchmaker.pool import Group, Ticket
from services.matchmaker.tables import matchmade_defaults

pytestmark = pytest.mark.integration
PIG = {"TABLETOP_EXTRA_GAMES": "pig=tests.fixtures.pig"}
Metadata = tuple[tuple[str, str], ...]


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    # Its own embedded server: the tests read the tickets' keys. The default watch grace (3 s).
    with Stack(games=("pig",), extra_env=PIG, matchmakers=1) as running:
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


def _device(name: str) -> str:
    """A guest device id (16 characters or more) for the player called `name`."""
    return f"lifetime-device-{name}"


async def _session(gateway: Any, device: str) -> Metadata:
    reply = await gateway.Authenticate(pb.AuthenticateRequest(device_id=_device(device)), wait_for_ready=True)
    return (("authorization", f"Bearer {reply.session_token}"),)


async def _state(redis: aioredis.Redis, ticket_id: str) -> str:
    raw = await redis.hget(mm.ticket_key(ticket_id), "s")
    return raw.decode() if raw is not None else ""


async def _becomes(redis: aioredis.Redis, ticket_id: str, wanted: str, within: float) -> float:
    """Seconds until the ticket's state is `wanted`; fails after `within` seconds."""
    started = time.monotonic()
    while (state := await _state(redis, ticket_id)) != wanted:
        assert time.monotonic() - started < within, \
            f"ticket {ticket_id} is {state!r}, not {wanted!r}: {await redis.hgetall(mm.ticket_key(ticket_id))}"
        await asyncio.sleep(0.05)  # polling a key another process writes; nothing to block on
    return time.monotonic() - started


async def _stays_waiting(gateway: Any, session: Metadata, options: dict[str, str], seconds: float) -> str:
    """Queue a 2-player pig ticket and see it still waiting after `seconds`; cancel it; its id."""
    call = gateway.Queue(pb.QueueRequest(game="pig", players_min=2, options=options), metadata=session)
    first = await call.read()
    assert first.status == mmpb.TICKET_STATUS_WAITING
    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(call.read(), seconds)  # nobody to be seated with: no assignment
    call.cancel()
    return str(first.ticket_id)


async def test_list_games_declares_each_games_matchmade_table(gateway: Any) -> None:
    games = {g.game: g for g in (await gateway.ListGames(pb.ListGamesRequest())).games}
    assert dict(games["pig"].matchmade_options) == matchmade_defaults("pig")
    assert games["pig"].matchmade_options["clock_timeout"] == "bot"


async def test_a_queue_stream_that_ends_withdraws_its_ticket_at_once(gateway: Any, redis: aioredis.Redis) -> None:
    options = {"target": "closed-stream"}
    call = gateway.Queue(pb.QueueRequest(game="pig", players_min=2, options=options),
                         metadata=await _session(gateway, "lifetime-closer"))
    ticket = (await call.read()).ticket_id
    assert await _state(redis, ticket) == "waiting"
    call.cancel()  # a closed tab, a lost connection
    took = await _becomes(redis, ticket, "withdrawn", within=1.0)  # at once, not after the grace
    assert took < 1.0
    # A player queueing a moment later is not seated with the one who left.
    await _stays_waiting(gateway, await _session(gateway, "lifetime-later"), options, 1.0)
    await asyncio.sleep(3.5)  # past the grace period: the withdrawn ticket is abandoned for good
    assert await _state(redis, ticket) == "abandoned"


async def test_a_watch_reopened_within_the_grace_gets_the_ticket_back(
    stack: Stack, gateway: Any, redis: aioredis.Redis
) -> None:
    session = await _session(gateway, "lifetime-reconnect")
    request = pb.QueueRequest(game="pig", players_min=2, options={"target": "reconnect"}, command_id="q-1")
    call = gateway.Queue(request, metadata=session)
    ticket = (await call.read()).ticket_id
    call.cancel()
    await _becomes(redis, ticket, "withdrawn", within=1.0)
    again = gateway.Queue(request, metadata=session)  # the same command id: the same ticket
    reopened = await again.read()
    assert (reopened.ticket_id, reopened.status) == (ticket, mmpb.TICKET_STATUS_WAITING)
    assert await _state(redis, ticket) == "waiting"
    # Watched again, a partner now meets it.
    placed = await queue(stack.gateway_addr, "pig", 2, 2, {"target": "reconnect"}, _device("lifetime-partner"))
    last = await asyncio.wait_for(again.read(), 30)
    assert last.status == mmpb.TICKET_STATUS_ASSIGNED and last.assignment.match_id == placed["match_id"]


def _cli_queue(stack: Stack, home: pathlib.Path, name: str, target: str) -> subprocess.Popen[str]:
    env = {**os.environ, "TABLETOP_HOME": str(home)}
    command = [sys.executable, "-m", "tests.fixtures.at_a_terminal", "cli", "queue",
               "--game", "pig", "--players", "2",
               "--option", f"target={target}", "--name", name, "--gateway", stack.gateway_addr]
    return subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


async def _cli_ticket(waiting: subprocess.Popen[str], redis: aioredis.Redis) -> str:
    """The waiting ticket of a `tabletop queue` process, from the id it prints (on stderr)."""
    assert waiting.stderr is not None
    for _ in range(5):
        said = await asyncio.wait_for(asyncio.to_thread(waiting.stderr.readline), 60)
        if "(ticket " in said:
            break
    short = said.rsplit("(ticket ", 1)[1].split(")")[0]
    ids = [k.decode().rsplit(":", 1)[1] for k in await redis.keys(mm.ticket_key(short + "*"))]
    (ticket,) = ids
    return ticket


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
async def test_the_cli_withdraws_its_ticket_when_stopped_by_a_signal(
    stack: Stack, redis: aioredis.Redis, tmp_path: pathlib.Path, signum: int
) -> None:
    waiting = _cli_queue(stack, tmp_path, f"stopped-{signum}", f"signal-{signum}")
    ticket = await _cli_ticket(waiting, redis)
    assert await _state(redis, ticket) == "waiting"
    waiting.send_signal(signum)
    _, err = await asyncio.to_thread(waiting.communicate, timeout=30)
    assert waiting.returncode == 128 + signum, err
    assert "the ticket is withdrawn" in err and "Traceback" not in err
    assert await _state(redis, ticket) == "cancelled"


async def test_a_killed_cli_leaves_no_placeable_ticket(
    stack: Stack, gateway: Any, redis: aioredis.Redis, tmp_path: pathlib.Path
) -> None:
    waiting = _cli_queue(stack, tmp_path, "killed", "sigkill")
    ticket = await _cli_ticket(waiting, redis)
    waiting.kill()  # SIGKILL: no chance to cancel; the gateway sees the stream end
    await asyncio.to_thread(waiting.wait, 30)
    took = await _becomes(redis, ticket, "withdrawn", within=3.0)
    assert took < 3.0
    await asyncio.sleep(max(0.0, 2.0 - took))
    # Two seconds later another player queues for the same table: nobody to be seated with.
    await _stays_waiting(gateway, await _session(gateway, "after-the-kill"), {"target": "sigkill"}, 1.5)


async def test_a_matchmade_table_whose_player_left_is_moved_on_by_the_clock(stack: Stack) -> None:
    """Two players are matched (the clock's allowance shortened by the tickets' options); one
    plays, the other is gone from the start. Each time the absent seat is asked, its time runs
    out and a bot's move is played for it, so the match keeps going to its end."""
    options = {"target": "absent", "clock_seconds": "5"}
    here, gone = await asyncio.gather(queue(stack.gateway_addr, "pig", 2, 2, options, _device("absent-here")),
                                      queue(stack.gateway_addr, "pig", 2, 2, options, _device("absent-gone")))
    assert here["match_id"] == gone["match_id"]
    match_id, absent = str(here["match_id"]), int(gone["seat"])
    seat = Seat(match_id, int(here["seat"]), str(here["token"]), str(here["player_id"]))
    async with Gateway(stack.gateway_addr) as client:
        summary = (await client.view(match_id)).match
        assert summary.clocks and dict(summary.config)["clock_timeout"] == "bot"
        timeouts, moved_after_timeout, started = 0, False, time.monotonic()
        async for update in client.follow(match_id):
            for entry in update.entries:
                if entry.type.endswith("ClockExpired"):
                    timeouts += 1
            if update.match.status == mpb.MATCH_STATUS_FINISHED or (timeouts >= 3 and moved_after_timeout):
                break
            assert time.monotonic() - started < 120, "the match stalled"
            if seat.seat in update.match.to_move:
                legal = await client.legal_actions(seat)
                if legal.actions:
                    with_hold = [a for a in legal.actions if a.type_url.endswith("Hold")]
                    try:
                        await client.submit(seat, (with_hold or list(legal.actions))[0],
                                            f"here-{legal.version}")
                    except grpc.aio.AioRpcError as error:
                        assert error.code() in (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.ABORTED)
                    moved_after_timeout = moved_after_timeout or timeouts > 0
        assert timeouts >= 1
        entries = await client.log(match_id)
        expired = [e for e in entries if e.type.endswith("ClockExpired")]
        assert expired, "the absent seat's clock never ran out"
        assert absent != seat.seat


async def _claimable(redis: aioredis.Redis, pool: str, count: int) -> list[Ticket]:
    for _ in range(200):
        ids = [i.decode() for i in await redis.zrange(mm.pool_key(pool), 0, -1)]
        if len(ids) >= count:
            break
        await asyncio.sleep(0.05)  # the tickets are written by the gateway's process
    store = mm.TicketStore(redis)
    return await store.waiting(pool, 10)


async def test_a_formation_whose_player_left_before_the_start_forms_nothing_and_requeues_the_others() -> None:
    """Tickets claimed for a table (the job written, the matchmaker not yet at it); one player's
    stream closes; the formation's take-up finds them gone: no match is made with them, the
    other goes back to its pool and is seated with the next player who comes."""
    env = {**PIG, "TABLETOP_MATCHMAKER_TRANSPORT": "inprocess"}  # the gateway serves the watches
    with Stack(games=("pig",), extra_env=env, matchmakers=1) as running:
        redis = aioredis.from_url(running.redis_url, decode_responses=False)
        former = running.procs["matchmaker"].process
        assert former is not None
        async with grpc.aio.insecure_channel(running.gateway_addr) as channel:
            gateway = GatewayStub(channel)
            options = {"target": "left-before-start"}
            former.send_signal(signal.SIGSTOP)  # the matchmaker neither groups nor forms meanwhile
            try:
                calls = []
                for device in ("formation-ana", "formation-ben"):
                    call = gateway.Queue(pb.QueueRequest(game="pig", players_min=2, options=options),
                                         metadata=await _session(gateway, device))
                    calls.append((call, (await call.read()).ticket_id))
                (ana_call, ana), (ben_call, ben) = calls
                pool = mm.pool_name("pig", {**matchmade_defaults("pig"), **options})
                tickets = {t.ticket_id: t for t in await _claimable(redis, pool, 2)}
                match_id = "f" * 32
                # The grouping's claim, as the paused replica would have made it.
                assert await mm.TicketStore(redis).claim(pool, match_id, Group((tickets[ana], tickets[ben])))
                ana_call.cancel()  # ana leaves while her table is being formed
                await _becomes(redis, ana, "forming", within=1.0)
                for _ in range(100):
                    if await redis.hget(mm.ticket_key(ana), "left"):
                        break
                    await asyncio.sleep(0.02)  # the gateway's unwatch lands
            finally:
                former.send_signal(signal.SIGCONT)
            await _becomes(redis, ben, "waiting", within=15.0)
            assert await _state(redis, ana) == "withdrawn"
            async with Gateway(running.gateway_addr) as client:
                with pytest.raises(grpc.aio.AioRpcError) as none:
                    await client.view(match_id)
                assert none.value.code() == grpc.StatusCode.NOT_FOUND  # no match was made with ana
            carl = await queue(running.gateway_addr, "pig", 2, 2, options, _device("formation-carl"))
            last = await asyncio.wait_for(ben_call.read(), 30)
            assert last.status == mmpb.TICKET_STATUS_ASSIGNED
            assert last.assignment.match_id == carl["match_id"] != match_id
        await redis.aclose()
