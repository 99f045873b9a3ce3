"""Load shedding and per-caller limits through the real gateway.

Calls are held in flight deterministically by pausing the match process
(SIGSTOP): the gateway is then waiting on it, and the next call finds the
bound reached."""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import Iterator

import grpc
import pytest
from tabletop.gateway.v1 import gateway_pb2 as gpb

from cli.api import Gateway
from deploy.stack import Stack
from services.common.errors import reason_of
from tests.integration.conftest import PIG
from tests.integration.test_drain import gauge, until

pytestmark = pytest.mark.integration


def limited_stack(redis_url: str, env: dict[str, str], matchmakers: int = 0) -> Iterator[Stack]:
    env = {**PIG, **env}
    shape = "match-local"
    with Stack(redis_url=redis_url, extra_env=env, games=("pig",), matchmakers=matchmakers, shape=shape) as running:
        yield running


@pytest.fixture
def shedding(redis_url: str) -> Iterator[Stack]:
    yield from limited_stack(redis_url, {"TABLETOP_MAX_INFLIGHT": "4"})


@pytest.fixture
def per_caller(redis_url: str) -> Iterator[Stack]:
    env = {
        "TABLETOP_CALLER_CALLS": "3",
        "TABLETOP_CALLER_STREAMS": "2",
        "TABLETOP_CALLER_CREATE_RATE": "0.001",
        "TABLETOP_CALLER_CREATE_BURST": "3",
        "TABLETOP_CALLER_TICKET_RATE": "0.001",
        "TABLETOP_CALLER_TICKET_BURST": "2",
    }
    yield from limited_stack(redis_url, env, matchmakers=1)


async def exhausted(call) -> str:
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await call
    assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, refused.value.details()
    return reason_of(refused.value)


def views(gateway: Gateway, match_id: str, count: int) -> list[asyncio.Future]:
    request = gpb.GetViewRequest(match_id=match_id)
    return [asyncio.ensure_future(gateway.stub.GetView(request, timeout=30)) for _ in range(count)]


async def test_a_saturated_process_sheds_at_once_and_recovers(shedding: Stack, redis_url: str):
    async with Gateway(shedding.gateway_addr) as gateway:
        match_id = (await gateway.create("pig", 2)).match.match_id
        match = shedding.procs["match"].process
        match.send_signal(signal.SIGSTOP)
        held = views(gateway, match_id, 4)
        await until(lambda: gauge(shedding, "gateway", "tabletop_rpc_inflight") >= 4)
        started = time.perf_counter()
        assert await exhausted(gateway.stub.ListGames(gpb.ListGamesRequest(), timeout=5)) == "server.overloaded"
        assert time.perf_counter() - started < 1.0, "refused at once, not after queueing"
        match.send_signal(signal.SIGCONT)
        assert all(v.match.match_id == match_id for v in await asyncio.gather(*held))
        assert (await gateway.view(match_id)).match.match_id == match_id


async def test_per_caller_concurrent_calls(per_caller: Stack):
    async with Gateway(per_caller.gateway_addr) as gateway:
        match_id = (await gateway.create("pig", 2)).match.match_id
        match = per_caller.procs["match"].process
        match.send_signal(signal.SIGSTOP)
        held = views(gateway, match_id, 3)
        await until(lambda: gauge(per_caller, "gateway", "tabletop_rpc_inflight") >= 3)
        assert await exhausted(gateway.stub.ListGames(gpb.ListGamesRequest(), timeout=5)) == "caller.too_many"
        match.send_signal(signal.SIGCONT)
        await asyncio.gather(*held)
        assert (await gateway.stub.ListGames(gpb.ListGamesRequest(), timeout=5)).games


async def test_per_caller_open_streams(per_caller: Stack):
    async with Gateway(per_caller.gateway_addr) as gateway:
        match_id = (await gateway.create("pig", 2)).match.match_id
        watches = [gateway.stub.WatchMatch(gpb.WatchMatchRequest(match_id=match_id)) for _ in range(2)]
        for call in watches:
            await asyncio.wait_for(call.read(), 10)
        third = gateway.stub.WatchMatch(gpb.WatchMatchRequest(match_id=match_id))
        assert await exhausted(third.read()) == "caller.too_many"
        watches[0].cancel()
        await until(lambda: gauge(per_caller, "gateway", "tabletop_rpc_open_streams") <= 1)
        fourth = gateway.stub.WatchMatch(gpb.WatchMatchRequest(match_id=match_id))
        assert (await asyncio.wait_for(fourth.read(), 10)).version >= 1
        fourth.cancel()
        watches[1].cancel()


async def test_per_caller_create_and_ticket_rates(per_caller: Stack):
    async with Gateway(per_caller.gateway_addr) as gateway:
        for name in ("ana", "ben", "cid"):  # the burst; the rate refills one create in 1,000 s
            await gateway.create("pig", 2, by=name)
        assert await exhausted(gateway.create("pig", 2, by="dan")) == "rate_limited"
        players = [await gateway.sign_in(name) for name in ("ana", "ben", "cid")]
        find = gpb.FindMatchRequest(game="pig", players_min=2)
        for player in players[:2]:  # two players, one address: the address's budget
            assert (await gateway.stub.FindMatch(find, metadata=player.metadata, timeout=10)).ticket_id
        over = gateway.stub.FindMatch(find, metadata=players[2].metadata, timeout=10)
        assert await exhausted(over) == "rate_limited"


@pytest.fixture
def few_sign_ins(redis_url: str) -> Iterator[Stack]:
    yield from limited_stack(redis_url, {"TABLETOP_CALLER_SIGNIN_RATE": "0.001", "TABLETOP_CALLER_SIGNIN_BURST": "3"})


async def test_per_caller_sign_in_rate(few_sign_ins: Stack):
    """Every new device id is a new player: one address cannot mint them without bound."""
    async with Gateway(few_sign_ins.gateway_addr) as gateway:
        for name in ("s0", "s1", "s2"):
            await gateway.sign_in(name)
        more = gateway.stub.Authenticate(gpb.AuthenticateRequest(device_id="yet-another-device-id"))
        assert await exhausted(more) == "rate_limited"


@pytest.fixture
def per_player(redis_url: str) -> Iterator[Stack]:
    yield from limited_stack(redis_url, {"TABLETOP_CREATE_RATE": "0.001", "TABLETOP_CREATE_BURST": "2"},
                             matchmakers=1)


async def test_per_player_create_and_ticket_rates(per_player: Stack):
    """A player's creates and tickets are bounded whatever address they come from; others are not held up."""
    async with Gateway(per_player.gateway_addr) as gateway:
        for _ in range(2):
            await gateway.create("pig", 2, by="eager")
        assert await exhausted(gateway.create("pig", 2, by="eager")) == "rate_limited"
        await gateway.create("pig", 2, by="patient")
        eager = await gateway.sign_in("eager")
        find = gpb.FindMatchRequest(game="pig", players_min=2)
        for _ in range(2):
            await gateway.stub.FindMatch(find, metadata=eager.metadata, timeout=10)
        assert await exhausted(gateway.stub.FindMatch(find, metadata=eager.metadata, timeout=10)) == "rate_limited"
