"""The scale harness's workloads, spread over every gateway: bots playing 2-seat matches,
and players queueing for 2-seat tables (one hot pool, or many pools at once).

Each workload is closed-loop (a lane plays its next match as soon as one ends, a
player queues again as soon as it is placed) and records when each action or
placement completed, so the harness counts those inside its measured window and
the fault runs see throughput second by second. What was acknowledged is kept
for the checks afterwards: every placed ticket in one match with its mate, every
acknowledged action in its match's log.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc
from tabletop.gateway.v1 import gateway_service_pb2 as pb
from tabletop.gateway.v1 import gateway_service_pb2_grpc as pb_grpc
from tabletop.matchmaker.v1 import matchmaker_service_pb2 as mmpb

from bench.streams import play_seats
from gateway.client import bots
from gateway.client.api import Gateway
from services.common.transport import CHANNEL_OPTIONS

# Seconds a workload runs before its window opens (connections, caches, consumer groups).
WARMUP = 3.0
# Seconds a placed-or-not ticket may still take once the window closed.
DRAIN = 5.0


@dataclass
class Window:
    """The measured stretch of a run: `opened` and `closed` are called at its edges."""

    seconds: float
    opened: Callable[[], None] = lambda: None
    closed: Callable[[], None] = lambda: None
    start: float = 0.0
    end: float = 0.0

    def count(self, times: Sequence[float]) -> int:
        return sum(1 for t in times if self.start <= t < self.end)

    async def run(self, stop: asyncio.Event) -> None:
        await asyncio.sleep(WARMUP)
        self.opened()
        self.start = time.perf_counter()
        await asyncio.sleep(self.seconds)
        self.end = time.perf_counter()
        self.closed()
        stop.set()


@dataclass
class Actions:
    """What the bots did: each action's completion time, the actions acknowledged per match."""

    done: list[float] = field(default_factory=list)
    acknowledged: dict[str, int] = field(default_factory=dict)
    finished: list[str] = field(default_factory=list)
    failed: int = 0


async def play(addrs: Sequence[str], game: str, lanes: int, window: Window, stop: asyncio.Event) -> Actions:
    """`lanes` matches at a time (lane i on gateway i mod K), each replaced when it ends."""
    found = Actions()
    # Every match stops at the window's end by itself (play_seats), its actions all counted.
    ends = time.perf_counter() + WARMUP + window.seconds

    async def lane(index: int) -> None:
        seed = 1000 * index
        async with Gateway(addrs[index % len(addrs)]) as gateway:
            while time.perf_counter() < ends:
                seed += 1
                try:
                    seats = await bots.open_match(gateway, game, 2, seed)
                    found.acknowledged.setdefault(seats[0].match_id, 0)
                    latencies = await play_seats(gateway, seats, seed, ends)
                except grpc.aio.AioRpcError:
                    found.failed += 1
                    await asyncio.sleep(0.2)  # a replica went away: the channel finds another
                    continue
                # Completion times, spread back from now by the latencies (the actions of one
                # match follow each other): a second's resolution is all the window needs.
                at = time.perf_counter()
                for latency in reversed(latencies):
                    found.done.append(at)
                    at -= latency
                found.acknowledged[seats[0].match_id] = len(latencies)
                if time.perf_counter() < ends:
                    found.finished.append(seats[0].match_id)

    await asyncio.gather(window.run(stop), *(lane(i) for i in range(lanes)))
    return found


@dataclass
class Placed:
    """One ticket's assignment."""

    at: float
    ticket_id: str
    match_id: str
    seat: int
    pool: str
    waited: float


@dataclass
class Tickets:
    placed: list[Placed] = field(default_factory=list)
    failed: int = 0

    @property
    def done(self) -> list[float]:
        return [p.at for p in self.placed]


async def queue(addrs: Sequence[str], players: int, pools: int, window: Window, stop: asyncio.Event,
                game: str = "pig", run: str = "") -> Tickets:
    """`players` players (player i on gateway i mod K) queueing for a 2-seat table, again as
    soon as they are placed; `pools` 0 is the one hot pool (default options), else player i
    asks for pool i mod `pools` (a `target` option of its own)."""
    run = run or uuid.uuid4().hex[:8]
    found = Tickets()
    channels = [grpc.aio.insecure_channel(a, options=CHANNEL_OPTIONS) for a in addrs]
    stubs = [pb_grpc.GatewayServiceStub(c) for c in channels]
    try:
        sessions = await _sign_in(stubs, players, run)

        async def player(n: int) -> None:
            stub, session = stubs[n % len(stubs)], sessions[n]
            options = {"target": f"pool-{n % pools}"} if pools else {}
            pool = options.get("target", "hot")
            tries = 0
            while not stop.is_set():
                tries += 1
                request = pb.QueueRequest(game=game, players_min=2, players_max=2, options=options,
                                          command_id=f"{run}-{n}-{tries}")
                try:
                    placed = await _placed(stub, request, session, stop)
                except grpc.aio.AioRpcError:
                    found.failed += 1
                    await asyncio.sleep(0.2)
                    continue
                if placed is not None:
                    ticket_id, match_id, seat, waited = placed
                    found.placed.append(Placed(time.perf_counter(), ticket_id, match_id, seat, pool, waited))

        await asyncio.gather(window.run(stop), *(player(n) for n in range(players)))
    finally:
        for channel in channels:
            await channel.close()
    return found


async def _sign_in(stubs: Sequence[Any], players: int, run: str) -> list[tuple[tuple[str, str], ...]]:
    slots = asyncio.Semaphore(64)

    async def one(n: int) -> tuple[tuple[str, str], ...]:
        async with slots:
            signed = await stubs[n % len(stubs)].Authenticate(
                pb.AuthenticateRequest(device_id=f"scale-{run}-{n}"), wait_for_ready=True)
            return (("authorization", f"Bearer {signed.session_token}"),)

    return list(await asyncio.gather(*(one(n) for n in range(players))))


async def _placed(stub: Any, request: pb.QueueRequest, session: Any, stop: asyncio.Event
                  ) -> tuple[str, str, int, float] | None:
    """Queue and read the stream to the assignment: (ticket, match, seat, seconds waited);
    None if the run stopped first (then the ticket is withdrawn, or placed meanwhile)."""
    started = time.perf_counter()
    call = stub.Queue(request, metadata=session, wait_for_ready=True)
    ticket_id = ""

    async def read() -> tuple[str, str, int, float] | None:
        nonlocal ticket_id
        async for update in call:
            ticket_id = ticket_id or update.ticket_id
            if update.status == mmpb.TICKET_STATUS_ASSIGNED:
                return ticket_id, update.assignment.match_id, update.assignment.seat, time.perf_counter() - started
        return None

    reading = asyncio.ensure_future(read())
    stopping = asyncio.ensure_future(stop.wait())
    await asyncio.wait({reading, stopping}, return_when=asyncio.FIRST_COMPLETED)
    if not reading.done():
        # The run is over: a ticket being placed may still be; give it the drain.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(reading), DRAIN)
    stopping.cancel()
    if not reading.done():
        call.cancel()
        reading.cancel()
        with contextlib.suppress(asyncio.CancelledError, grpc.aio.AioRpcError):
            await reading
        if ticket_id:
            with contextlib.suppress(grpc.aio.AioRpcError):
                await stub.CancelTicket(pb.CancelTicketRequest(ticket_id=ticket_id), metadata=session)
        return None
    return reading.result()


def placement_problems(tickets: Tickets) -> list[str]:
    """What is wrong with the placements: a ticket placed twice, a match without both its
    seats, two tickets in one seat."""
    problems: list[str] = []
    seen: dict[str, str] = {}
    by_match: dict[str, list[int]] = {}
    for p in tickets.placed:
        if p.ticket_id in seen:
            problems.append(f"ticket {p.ticket_id} placed twice ({seen[p.ticket_id]}, {p.match_id})")
        seen[p.ticket_id] = p.match_id
        by_match.setdefault(p.match_id, []).append(p.seat)
    for match_id, seats in by_match.items():
        if sorted(seats) != [0, 1]:
            problems.append(f"match {match_id} seats {sorted(seats)}, not [0, 1]")
    return problems


async def log_problems(addr: str, actions: Actions, verify: int, check: Callable[[str], Awaitable[list[str]]]
                       ) -> list[str]:
    """What is wrong with the played matches: an acknowledged action missing from its log
    (the log holds fewer versions than were acknowledged, or a version is missing), and
    `check`'s findings (the verify of a finished match) for up to `verify` finished ones."""
    problems: list[str] = []
    async with Gateway(addr) as gateway:
        for match_id, acknowledged in actions.acknowledged.items():
            entries = await gateway.log(match_id)
            versions = [e.version for e in entries]
            if versions != list(range(1, len(versions) + 1)):
                problems.append(f"match {match_id}: log versions are not 1..{len(versions)}")
            if acknowledged > len(versions):
                problems.append(f"match {match_id}: {acknowledged} actions acknowledged, {len(versions)} logged")
    for match_id in actions.finished[:verify]:
        problems += await check(match_id)
    return problems
