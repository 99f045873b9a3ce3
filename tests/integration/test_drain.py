"""SIGTERM drains a process: NOT_SERVING, new calls refused, calls in flight
finish OK, open streams end UNAVAILABLE (server.draining) so clients resume
them elsewhere, and the process exits 0 as soon as its calls in flight are done.
No caller is ever answered CANCELLED, a code the client guide does not list."""

from __future__ import annotations

import asyncio
import signal
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from tabletop.gateway.v1 import gateway_pb2 as gpb

from cli.api import Gateway
from deploy.stack import Stack
from services.common.errors import reason_of
from tests.integration.conftest import PIG

pytestmark = pytest.mark.integration

GRACE = 8.0
IN_FLIGHT = 6
# How long after its last call in flight a drained process may take to exit: the
# statuses it sent last reach the wire (grpc_server.STOP_FLUSH_SECONDS at most), then it ends.
EXIT_BOUND = 1.5
CALLERS = 8


@pytest.fixture
def stack(redis_url: str) -> Iterator[Stack]:
    env = {**PIG, "TABLETOP_GRACE_SECONDS": str(GRACE)}
    with Stack(redis_url=redis_url, extra_env=env, games=("pig",), matchmakers=0, shape="match-local") as running:
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
        answered_at = time.monotonic()
        assert all(v.match.match_id == match_id for v in views)
        assert await asyncio.to_thread(process.wait, GRACE + 5) == 0
        assert time.monotonic() - answered_at < EXIT_BOUND
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


# What a caller may meet once the process it calls has exited: no server answers then,
# its own channel (or the gateway's, for a match) says the connection is gone.
GONE = ("failed to connect", "Connection reset", "Broken pipe", "Socket closed", "Stream removed")


@dataclass
class Answer:
    started: float
    finished: float
    code: grpc.StatusCode
    reason: str
    details: str


def server_reason(error: grpc.aio.AioRpcError) -> str:
    """The ErrorInfo reason a server sent ('' when the failure is the caller's channel's own)."""
    sent = dict(error.trailing_metadata() or ()).get("grpc-status-details-bin")
    return reason_of(error) if isinstance(sent, bytes) else ""


async def keep_calling(call, answers: list[Answer], stop: asyncio.Event) -> None:
    """`call()` again and again until `stop`, each answer kept."""
    while not stop.is_set():
        started = time.monotonic()
        try:
            await call()
            code, reason, details = grpc.StatusCode.OK, "", ""
        except grpc.aio.AioRpcError as error:
            code, reason, details = error.code(), server_reason(error), error.details() or ""
        answers.append(Answer(started, time.monotonic(), code, reason, details))
        if code != grpc.StatusCode.OK:
            await asyncio.sleep(0.005)  # a caller's back-off, not a synchronisation


def acceptable(answer: Answer, process: str) -> bool:
    """OK, refused by the draining process, or met after it had gone; CANCELLED never."""
    if answer.code == grpc.StatusCode.OK:
        return True
    if answer.code != grpc.StatusCode.UNAVAILABLE:
        return False
    if answer.reason == "server.draining":
        return True
    gone_here = process == "gateway" and not answer.reason and any(g in answer.details for g in GONE)
    return gone_here or (process == "match" and answer.reason == "match.unavailable")


def check_drain(answers: list[Answer], process: str, signalled_at: float, answered_at: float, exited_at: float):
    """Every answer since the signal acceptable, some of them refusals of the draining
    process, and the exit at once after the calls it had in flight were answered."""
    during = [a for a in answers if a.finished >= signalled_at]
    assert [a for a in during if not acceptable(a, process)] == []
    assert any(a.reason == "server.draining" for a in during)
    assert exited_at - answered_at < EXIT_BOUND


async def test_a_draining_gateway_refuses_calls_unavailable_until_it_exits_at_once(stack: Stack):
    async with Gateway(stack.gateway_addr) as gateway:
        match_id = (await gateway.create("pig", 2)).match.match_id
        answers: list[Answer] = []
        stop = asyncio.Event()

        async def call() -> None:
            await gateway.stub.ListGames(gpb.ListGamesRequest(), timeout=GRACE + 5)

        # Calls held in flight on a paused match process keep the gateway draining.
        match = stack.procs["match"].process
        match.send_signal(signal.SIGSTOP)
        in_flight = [
            asyncio.ensure_future(gateway.stub.GetView(gpb.GetViewRequest(match_id=match_id), timeout=30))
            for _ in range(IN_FLIGHT)
        ]
        await until(lambda: gauge(stack, "gateway", "tabletop_rpc_inflight") >= IN_FLIGHT)
        callers = [asyncio.ensure_future(keep_calling(call, answers, stop)) for _ in range(CALLERS)]
        await until(lambda: len(answers) >= 50)
        gateway_process = stack.procs["gateway"].process
        gateway_process.send_signal(signal.SIGTERM)
        signalled_at = time.monotonic()
        await until(lambda: sum(a.reason == "server.draining" for a in answers) >= 50)
        match.send_signal(signal.SIGCONT)
        assert all(v.match.match_id == match_id for v in await asyncio.gather(*in_flight))
        answered_at = time.monotonic()
        assert await asyncio.to_thread(gateway_process.wait, GRACE + 5) == 0
        exited_at = time.monotonic()
        await stopped(callers, stop)
    check_drain(answers, "gateway", signalled_at, answered_at, exited_at)


@pytest.fixture
def services(redis_url: str) -> Iterator[Stack]:
    """Rules of their own, so that a paused rules process holds the match's calls in flight."""
    env = {**PIG, "TABLETOP_GRACE_SECONDS": str(GRACE)}
    with Stack(redis_url=redis_url, extra_env=env, games=("pig",), matchmakers=0) as running:
        yield running


async def test_a_draining_match_process_refuses_calls_unavailable_until_it_exits_at_once(services: Stack):
    async with Gateway(services.gateway_addr) as gateway:
        lobby_id = (await gateway.create("pig", 2)).match.match_id
        waiting = await gateway.join(lobby_id, "cleo")
        match_id = (await gateway.create("pig", 2)).match.match_id
        seats = [await gateway.join(match_id, "ana"), await gateway.join(match_id, "ben")]
        await gateway.start(seats[0])
        mover = seats[(await gateway.view(match_id)).match.to_move[0]]
        action = (await gateway.legal_actions(mover)).actions[0]
        answers: list[Answer] = []
        stop = asyncio.Event()

        async def call() -> None:
            # Answered by the match process alone (a lobby seat has no legal actions to ask the rules).
            await gateway.stub.ListLegalActions(
                gpb.ListLegalActionsRequest(match_id=lobby_id), metadata=waiting.metadata, timeout=GRACE + 5
            )

        # A move held in flight on a paused rules process keeps the match process draining.
        rules = services.procs["rules-pig"].process
        rules.send_signal(signal.SIGSTOP)
        move = asyncio.ensure_future(gateway.submit(mover, action))
        await until(lambda: gauge(services, "match", "tabletop_rpc_inflight") >= 1)
        callers = [asyncio.ensure_future(keep_calling(call, answers, stop)) for _ in range(CALLERS)]
        await until(lambda: len(answers) >= 50)
        match = services.procs["match"].process
        match.send_signal(signal.SIGTERM)
        signalled_at = time.monotonic()
        await until(lambda: sum(a.reason == "server.draining" for a in answers) >= 50)
        rules.send_signal(signal.SIGCONT)
        assert (await move).version > 0
        answered_at = time.monotonic()
        assert await asyncio.to_thread(match.wait, GRACE + 5) == 0
        exited_at = time.monotonic()
        await stopped(callers, stop)
    check_drain(answers, "match", signalled_at, answered_at, exited_at)


async def stopped(callers: list[asyncio.Future[None]], stop: asyncio.Event) -> None:
    """The callers stopped; calls still waiting were sent after the exit: not these tests' business."""
    stop.set()
    for caller in callers:
        caller.cancel()
    await asyncio.gather(*callers, return_exceptions=True)
