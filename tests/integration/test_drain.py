"""SIGTERM drains a process: NOT_SERVING, new calls refused, calls in flight
finish OK, open streams end UNAVAILABLE (server.draining) so clients resume
them elsewhere, and the process exits 0 within its grace period."""

from __future__ import annotations

import asyncio
import signal
import time
import urllib.request
from collections.abc import Iterator

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from tabletop.gateway.v1 import gateway_service_pb2 as gpb

from deploy.stack import Stack
from gateway.client.api import Gateway
from services.common.errors import reason_of
from tests.integration.conftest import PIG

pytestmark = pytest.mark.integration

GRACE = 8.0
IN_FLIGHT = 6


@pytest.fixture
def stack(redis_url: str) -> Iterator[Stack]:
    env = {**PIG, "TABLETOP_GRACE_SECONDS": str(GRACE)}
    with Stack(redis_url=redis_url, extra_env=env, games=("pig",), matchmakers=0, inprocess=True) as running:
        yield running


def gauge(stack: Stack, name: str, metric: str) -> float:
    port = stack.procs[name].metrics_port
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as page:
        for line in page.read().decode().splitlines():
            if line.startswith(metric + " "):
                return float(line.split()[1])
    return 0.0


async def until(condition, timeout: float = 20) -> None:
    """Polls an observable condition of another process (there is no event to wait on)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not reached"
        await asyncio.sleep(0.05)


async def first_update(call) -> None:
    await asyncio.wait_for(call.read(), 10)


async def test_sigterm_finishes_calls_in_flight_and_ends_streams_resumably(stack: Stack):
    async with Gateway(stack.gateway_addr) as gateway:
        match_id = (await gateway.create("pig", 2)).match.match_id
        seat = await gateway.join(match_id, "ana")
        watches = [gateway.stub.WatchMatch(gpb.WatchMatchRequest(match_id=match_id)) for _ in range(3)]
        play = gateway.stub.Play(metadata=seat.metadata)
        await play.write(gpb.PlayRequest(watch=gpb.WatchMatchRequest(match_id=match_id)))
        for call in [*watches, play]:
            await first_update(call)

        # The match process paused: the gateway's calls to it stay in flight.
        match = stack.procs["match"].process
        match.send_signal(signal.SIGSTOP)
        in_flight = [
            asyncio.ensure_future(gateway.stub.GetView(gpb.GetViewRequest(match_id=match_id), timeout=30))
            for _ in range(IN_FLIGHT)
        ]
        await until(lambda: gauge(stack, "gateway", "tabletop_rpc_inflight") >= IN_FLIGHT)

        process = stack.procs["gateway"].process
        process.send_signal(signal.SIGTERM)
        stopped_at = time.monotonic()
        for call in [*watches, play]:
            with pytest.raises(grpc.aio.AioRpcError) as ended:
                await asyncio.wait_for(call.read(), 5)
            assert ended.value.code() == grpc.StatusCode.UNAVAILABLE
            assert reason_of(ended.value) == "server.draining"

        # The probe port says the same, so an orchestrator stops routing here.
        for addr in (stack.gateway_addr, f"127.0.0.1:{stack.procs['gateway'].health_port}"):
            with grpc.insecure_channel(addr) as channel:
                health = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=5)
                assert health.status == health_pb2.HealthCheckResponse.NOT_SERVING, addr
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await gateway.stub.ListMatches(gpb.ListMatchesRequest(game="pig"), timeout=5)
        assert refused.value.code() == grpc.StatusCode.UNAVAILABLE

        match.send_signal(signal.SIGCONT)
        views = await asyncio.gather(*in_flight)
        assert all(v.match.match_id == match_id for v in views)
        assert await asyncio.to_thread(process.wait, GRACE + 5) == 0
        assert time.monotonic() - stopped_at < GRACE


async def test_a_follower_resumes_from_its_last_version_on_a_restarted_gateway(stack: Stack):
    async with Gateway(stack.gateway_addr) as gateway:
        match_id = (await gateway.create("pig", 2)).match.match_id
        updates = gateway.follow(match_id)
        seen = [e.version for e in (await anext(updates)).entries]

        process = stack.procs["gateway"].process
        process.send_signal(signal.SIGTERM)
        assert await asyncio.to_thread(process.wait, GRACE + 5) == 0
        stack.restart("gateway")
        await gateway.join(match_id, "ana")
        while seen[-1] < 2:
            seen += [e.version for e in (await asyncio.wait_for(anext(updates), 15)).entries]
        assert seen == list(range(1, seen[-1] + 1)), "nothing missed, nothing twice"
        await updates.aclose()
