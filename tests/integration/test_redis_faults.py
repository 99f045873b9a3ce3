"""Redis paused (SIGSTOP) or stopped: calls that need it fail UNAVAILABLE or
DEADLINE_EXCEEDED (never UNKNOWN or INTERNAL, and their messages name no
address or exception class), every process that uses it reports NOT_SERVING,
and after SIGCONT or a restart everything recovers with nothing lost.

These tests run their own embedded server (they pause and stop it)."""

from __future__ import annotations

import asyncio
import inspect
import signal
from collections.abc import AsyncIterator, Iterator
from typing import Any

import grpc
import pytest
from google.protobuf import any_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from tabletop.gateway.v1 import gateway_pb2 as gpb
from tabletop.testing.v1 import pig_pb2

from cli.api import Gateway, Seat
from deploy.stack import IDENTITY, Stack
from services.common.redis import server as redis_server
from services.common.rpc.server import LIVENESS_SERVICE
from services.common.security import tls
from tests.integration.conftest import PIG

pytestmark = pytest.mark.integration

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING
FAILED = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED}
# Every process that uses Redis (rules processes do not).
USERS = ("gateway", "match", "dice", "deck", "matchmaker")


def roll() -> any_pb2.Any:
    packed = any_pb2.Any()
    packed.Pack(pig_pb2.Action(roll=pig_pb2.Roll()))
    return packed


# Append-only with an fsync per write, so a restarted server has every write.
DURABLE = ("--appendonly", "yes", "--appendfsync", "always")


def start_durable() -> redis_server.RedisProcess:
    """An embedded server that keeps its writes across a restart. (Where the
    embedded server is durable by default, `start` takes no extra arguments.)"""
    if "extra" in inspect.signature(redis_server.start).parameters:
        return redis_server.start(extra=DURABLE)
    return redis_server.start()


def start_again(server: Any) -> Any:
    """The stopped `server` again, on its port and with its data."""
    if hasattr(server, "launch"):
        return server.launch()
    return redis_server.start(port=server.port, extra=(*DURABLE, "--dir", server.workdir))


@pytest.fixture
def server() -> Iterator[redis_server.RedisProcess]:
    running = start_durable()
    yield running
    if running.process.poll() is None:
        running.process.send_signal(signal.SIGCONT)
    running.stop()


@pytest.fixture
def stack(server: redis_server.RedisProcess) -> Iterator[Stack]:
    env = {**PIG, "TABLETOP_REDIS_TIMEOUT": "2"}
    with Stack(redis_url=server.url, extra_env=env, games=("pig",), matchmakers=1) as running:
        yield running


@pytest.fixture
async def gateway(stack: Stack) -> AsyncIterator[Gateway]:
    client = Gateway(stack.gateway_addr)
    yield client
    await client.close()


def open_channel(stack: Stack, name: str) -> grpc.aio.Channel:
    """The gateway in plaintext; an internal process over mutual TLS, as itself."""
    if name == "gateway":
        return grpc.aio.insecure_channel(stack.addr(name))
    identity = IDENTITY[stack.procs[name].module]
    how = tls.dial(stack.credentials(identity), identity)
    return grpc.aio.secure_channel(stack.addr(name), how.credentials, options=how.options)


async def health_becomes(stack: Stack, name: str, wanted: int, timeout: float = 30) -> None:
    """Returns once the process's health is `wanted` (the Watch stream, no polling)."""
    async with open_channel(stack, name) as channel:
        async for reply in health_pb2_grpc.HealthStub(channel).Watch(health_pb2.HealthCheckRequest(), timeout=timeout):
            if reply.status == wanted:
                return


async def all_become(stack: Stack, wanted: int) -> None:
    await asyncio.gather(*(health_becomes(stack, name, wanted) for name in USERS))


async def started_match(gateway: Gateway) -> list[Seat]:
    match_id = (await gateway.create("pig", 2)).match.match_id
    seats = [await gateway.join(match_id, f"p{i}") for i in range(2)]
    await gateway.start(seats[0])
    return seats


async def mover(gateway: Gateway, seats: list[Seat]) -> Seat:
    return seats[(await gateway.view(seats[0].match_id)).match.to_move[0]]


def assert_failed_cleanly(error: grpc.aio.AioRpcError) -> None:
    assert error.code() in FAILED, (error.code(), error.details())
    text = error.details() or ""
    assert "127.0.0.1" not in text and "Error" not in text and "redis" not in text.lower(), text


async def refused(call) -> grpc.aio.AioRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as failed:
        await call
    assert_failed_cleanly(failed.value)
    return failed.value


async def test_a_paused_redis_is_unavailable_and_not_serving_then_recovers(stack, gateway, server):
    seats = await started_match(gateway)
    match_id = seats[0].match_id
    player = await mover(gateway, seats)
    version = (await gateway.view(match_id)).match.version
    watch = gateway.watch(match_id, after=version)

    server.process.send_signal(signal.SIGSTOP)
    await all_become(stack, NOT_SERVING)
    # Out of rotation, yet alive: a liveness probe must not restart every pod for a lost Redis.
    for name in USERS:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{stack.procs[name].health_port}") as channel:
            request = health_pb2.HealthCheckRequest(service=LIVENESS_SERVICE)
            reply = await health_pb2_grpc.HealthStub(channel).Check(request, timeout=5)
            assert reply.status == SERVING, name
    await refused(gateway.submit(player, roll(), command_id="during-pause"))
    await refused(gateway.create("pig", 2))
    with pytest.raises(grpc.aio.AioRpcError) as ended:
        async for update in watch:
            assert update.version > version  # only if the paused append landed first
    assert_failed_cleanly(ended.value)

    server.process.send_signal(signal.SIGCONT)
    await all_become(stack, SERVING)
    # The same command again: applied once, whether or not the paused call landed.
    accepted = await gateway.submit(player, roll(), command_id="during-pause")
    log = await gateway.log(match_id)
    assert [e.version for e in log] == list(range(1, accepted.version + 1))
    assert (await gateway.view(match_id)).match.version == accepted.version
    resumed = gateway.watch(match_id, after=version)
    first = await asyncio.wait_for(anext(aiter(resumed)), 10)
    assert first.entries[0].version == version + 1
    resumed.cancel()


async def test_a_stopped_redis_is_unavailable_then_a_restart_loses_nothing(stack, gateway, server):
    seats = await started_match(gateway)
    match_id = seats[0].match_id
    accepted = await gateway.submit(await mover(gateway, seats), roll(), command_id="before-stop")
    before = await gateway.log(match_id)

    server.process.terminate()
    server.process.wait(timeout=10)
    await all_become(stack, NOT_SERVING)
    await refused(gateway.create("pig", 2))
    await refused(gateway.submit(seats[0], roll(), command_id="while-stopped"))

    restarted = start_again(server)
    try:
        await all_become(stack, SERVING)
        after = await gateway.log(match_id)
        assert [(e.version, e.type) for e in after] == [(e.version, e.type) for e in before]
        assert (await gateway.view(match_id)).match.version == accepted.version
        again = await gateway.submit(await mover(gateway, seats), roll(), command_id="after-restart")
        assert again.version > accepted.version
        assert (await gateway.create("pig", 2)).match.match_id
        find = gpb.FindMatchRequest(game="pig", players_min=2, command_id="after-restart")
        player = await gateway.sign_in("finder")
        assert (await gateway.stub.FindMatch(find, metadata=player.metadata, timeout=10)).ticket_id
    finally:
        if restarted is not server:
            restarted.stop()
