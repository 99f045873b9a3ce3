"""The scale harness's workloads, spread over every gateway: bots playing 2-seat matches,
and players queueing for 2-seat tables (one hot pool, or many pools at once).

Each workload is closed-loop (a lane plays its next match as soon as one ends, a
player queues again as soon as it is placed) and records when each action or
placement completed, so the harness counts those inside its measured window and
the fault runs see throughput second by second. What was acknowledged is kept
for the checks afterwards: every placed ticket in one match with its mate, every
acknowledged action in its match's log. A bot or player whose gateway dies moves to
the next gateway and carries on: a match on fresh Play streams, a ticket reopened by
its command id; a submit refused for a transient reason is sent again under its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc
from tabletop.gateway.v1 import gateway_pb2 as pb
from tabletop.matchmaker.v1 import matchmaker_service_pb2 as mmpb

from bench.arrivals import Arrivals

# The Play-stream seat and its match's shared book (bench/streams.py): play_seats gives a match
# up when a stream breaks; the fault run reopens it on another gateway with the same pieces.
from bench.streams import Player, Table
from cli import autoplay
from cli.api import Gateway, Seat
from contract.gateway import GatewayStub
from services.common.rpc.transport import CHANNEL_OPTIONS

# Seconds a workload runs before its window opens (connections, caches, consumer groups).
WARMUP = 3.0
# Seconds a placed-or-not ticket may still take once the window closed.
DRAIN = 5.0
# Seconds a client waits before it tries again after a failed call (a replica went away).
RETRY_PAUSE = 0.2


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
    """What the bots did: each action's completion time, the actions acknowledged per match
    (their new state reached every seat) and the newest version any seat was shown."""

    done: list[float] = field(default_factory=list)
    acknowledged: dict[str, int] = field(default_factory=dict)
    versions: dict[str, int] = field(default_factory=dict)
    finished: list[str] = field(default_factory=list)
    failed: int = 0
    # Matches whose streams broke and were reopened (on another gateway): worth a verify.
    resumed: list[str] = field(default_factory=list)
    # Actions acknowledged while their lane was away from its own gateway (it had failed).
    rerouted: int = 0


async def play(addrs: Sequence[str], game: str, lanes: int, window: Window, stop: asyncio.Event) -> Actions:
    """`lanes` matches at a time (lane i on gateway i mod K), each replaced when it ends.
    A lane whose gateway fails moves to the next one and carries on its match there."""
    found = Actions()
    # Every match stops at the window's end by itself (the seats' stop_at), its actions all counted.
    ends = time.perf_counter() + WARMUP + window.seconds

    async def lane(index: int) -> None:
        seed = 1000 * index
        ring = GatewayRing(addrs, index)
        try:
            while time.perf_counter() < ends:
                seed += 1
                try:
                    seats = await autoplay.open_match(ring.gateway, game, 2, seed)
                except grpc.aio.AioRpcError:
                    found.failed += 1
                    await ring.rotate()  # a replica went away: open the next match elsewhere
                    continue
                found.acknowledged.setdefault(seats[0].match_id, 0)
                if await _play_match(ring, seats, seed, ends, found) and time.perf_counter() < ends:
                    found.finished.append(seats[0].match_id)
                # Only once a match was played elsewhere: going home straight after a refused
                # opening would knock on a dead gateway again until it is back.
                await ring.home()
        finally:
            await ring.close()

    await asyncio.gather(window.run(stop), *(lane(i) for i in range(lanes)))
    return found


class GatewayRing:
    """A client's gateway: the `first`-th of `addrs`, the next one once it fails."""

    def __init__(self, addrs: Sequence[str], first: int) -> None:
        self._addrs, self._first = addrs, first % len(addrs)
        self._at = self._first
        self.gateway = Gateway(addrs[self._at])

    @property
    def away(self) -> bool:
        """Whether the lane plays through another gateway than its own (its own failed)."""
        return self._at != self._first

    async def home(self) -> None:
        """Back to the first gateway: without it, the lanes of a gateway that died and came
        back would crowd its neighbour for the rest of the run."""
        if self._at != self._first:
            await self.gateway.close()
            self._at = self._first
            self.gateway = Gateway(self._addrs[self._at])

    async def rotate(self) -> None:
        await self.gateway.close()
        await asyncio.sleep(RETRY_PAUSE)
        self._at = (self._at + 1) % len(self._addrs)
        self.gateway = Gateway(self._addrs[self._at])

    async def close(self) -> None:
        await self.gateway.close()


async def _play_match(ring: GatewayRing, seats: list[Seat], seed: int, ends: float, found: Actions) -> bool:
    """One match played to its end (or `ends`), its streams reopened on the next gateway
    whenever they break; True if it ran without giving up. What reached every seat is
    acknowledged, with its completion time: an action whose answer a broken stream lost
    counts only once a reopened stream shows its state."""
    rng = random.Random(seed)
    match_id = seats[0].match_id
    table = Table(TimedArrivals.of(seat.seat for seat in seats))
    while True:
        players = [ResilientSeat(ring.gateway, seat, rng, ends, table) for seat in seats]
        broke = await _seats_broke(players)
        _book(found, match_id, table, players, ring.away)
        if not broke:
            return True
        found.failed += 1
        if match_id not in found.resumed:
            found.resumed.append(match_id)
        if time.perf_counter() >= ends:
            return False
        await ring.rotate()


async def _seats_broke(players: Sequence[Player]) -> bool:
    """Play every seat until the match is over for them; True if a stream broke (the other
    seats' streams are then closed too: the match goes on from fresh ones)."""
    broke = False
    try:
        async with asyncio.TaskGroup() as group:
            for player in players:
                group.create_task(player.play())
    except* grpc.aio.AioRpcError:
        broke = True
    return broke


def _book(found: Actions, match_id: str, table: Table, players: Sequence[Player], away: bool) -> None:
    """What a match's seats acknowledged so far (kept even if the match is given up)."""
    arrivals = table.arrivals
    assert isinstance(arrivals, TimedArrivals)
    found.acknowledged[match_id] = len(arrivals.latencies)
    found.versions[match_id] = max([found.versions.get(match_id, 0), *(p.latest for p in players)])
    found.done.extend(arrivals.completed[arrivals.booked:])
    if away:
        found.rerouted += len(arrivals.completed) - arrivals.booked
    arrivals.booked = len(arrivals.completed)


@dataclass
class TimedArrivals(Arrivals):
    """`Arrivals` that also keeps when each action reached its last seat (for the second by
    second rates of the fault run)."""

    completed: list[float] = field(default_factory=list)
    booked: int = 0  # how many of `completed` are in Actions.done already

    def seen(self, seat: int, version: int, at: float) -> None:
        before = len(self.latencies)
        super().seen(seat, version, at)
        self.completed.extend([at] * (len(self.latencies) - before))


# PlayError codes that say a replica behind the gateway went away (or was busy), not that
# the action was wrong: the seat sends it again under the same command id (idempotent).
TRANSIENT = frozenset({"UNAVAILABLE", "DEADLINE_EXCEEDED", "ABORTED", "INTERNAL", "UNKNOWN", "CANCELLED"})


class ResilientSeat(Player):
    """A bench seat that retries a submit refused for a transient reason; the plain seat
    would wait for a new state that its refused action never makes."""

    async def _take(self, at: float, response: pb.PlayResponse) -> None:
        mine = self.in_flight
        await super()._take(at, response)
        refused = response.error if response.WhichOneof("kind") == "error" else None
        if refused is not None and refused.code in TRANSIENT and refused.command_id == mine:
            await asyncio.sleep(RETRY_PAUSE)
            self.acted_at = -1  # act on the same offer again: the same version, the same command id


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
    stubs = [GatewayStub(c) for c in channels]
    try:
        sessions = await _sign_in(stubs, players, run)

        async def player(n: int) -> None:
            gateway, session = n % len(stubs), sessions[n]
            options = {"target": f"pool-{n % pools}"} if pools else {}
            pool = options.get("target", "hot")
            tries = 0
            while not stop.is_set():
                tries += 1
                request = pb.QueueRequest(game=game, players_min=2, players_max=2, options=options,
                                          command_id=f"{run}-{n}-{tries}")
                try:
                    placed = await _placed(stubs[gateway], request, session, stop)
                except grpc.aio.AioRpcError:
                    found.failed += 1
                    # Its gateway went away: the same command id reopens the same ticket on the
                    # next one (a new id would leave the old ticket to be placed unseen).
                    gateway, tries = (gateway + 1) % len(stubs), tries - 1
                    await asyncio.sleep(RETRY_PAUSE)
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
    return double_placements(tickets) + unpaired_matches(tickets)


def double_placements(tickets: Tickets) -> list[str]:
    """Every ticket seen placed more than once."""
    problems: list[str] = []
    seen: dict[str, str] = {}
    for p in tickets.placed:
        if p.ticket_id in seen:
            problems.append(f"ticket {p.ticket_id} placed twice ({seen[p.ticket_id]}, {p.match_id})")
        seen[p.ticket_id] = p.match_id
    return problems


def unpaired_matches(tickets: Tickets) -> list[str]:
    """Every match whose placed tickets are not one in each of its two seats: a ticket
    placed that its player never heard of (its mate did), or two in one seat."""
    by_match: dict[str, list[int]] = {}
    for p in tickets.placed:
        by_match.setdefault(p.match_id, []).append(p.seat)
    return [f"match {m} seats {sorted(seats)}, not [0, 1]" for m, seats in by_match.items() if sorted(seats) != [0, 1]]


async def log_problems(addr: str, actions: Actions, verify: int, check: Callable[[str], Awaitable[list[str]]]
                       ) -> list[str]:
    """What is wrong with the played matches: an acknowledged action missing from its log
    (the log holds fewer versions than were acknowledged, or a version is missing), and
    `check`'s findings (the verify of a finished match) for up to `verify` finished ones."""
    problems = [problem for _, problem in await log_shortfalls(addr, actions)]
    for match_id in actions.finished[:verify]:
        problems += await check(match_id)
    return problems


async def log_shortfalls(addr: str, actions: Actions) -> list[tuple[int, str]]:
    """Each match whose log lacks something a seat was told: (how many versions are missing,
    what). A seat shown version v was told that v events are stored: the log must hold
    1..v; and it holds at least as many events as the actions that were acknowledged."""
    found: list[tuple[int, str]] = []
    async with Gateway(addr) as gateway:
        for match_id, acknowledged in actions.acknowledged.items():
            versions = [e.version for e in await gateway.log(match_id)]
            if versions != list(range(1, len(versions) + 1)):
                found.append((0, f"match {match_id}: log versions are not 1..{len(versions)}"))
            shown = actions.versions.get(match_id, 0)
            missing = max(acknowledged - len(versions), shown - len(versions), 0)
            if missing:
                found.append((missing, f"match {match_id}: {acknowledged} actions acknowledged and version "
                                       f"{shown} shown, {len(versions)} logged"))
    return found
