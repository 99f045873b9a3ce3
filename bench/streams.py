"""Bots that play over the gateway's Play stream: one stream per seat, actions in,
updates with the seat's legal actions out, and no other call per move.

An action's latency is until every seat of its match holds the new state
(bench/arrivals.py): from its send to the later of the seats' first messages
showing a version past the one it was chosen at. On the mover's own stream
that is the update that answers its submit (the watch asks for legal actions,
so the gateway sends no `accepted` beside it), or an `accepted` where the
gateway sends one.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Literal

import grpc
from tabletop.gateway.v1 import gateway_pb2 as pb
from tabletop.match.v1 import match_service_pb2 as mpb

from bench.arrivals import Arrivals
from cli.api import Gateway, Seat

# Seconds past the run's end a seat may still wait for an answer or a state it is owed.
GRACE_SECONDS = 5.0
# What a seat's inbox holds: a message with the time it arrived, the end of its stream (or
# the error that broke it), or a nudge to look again (an action it waited for was refused
# on another seat's stream).
Item = tuple[float, pb.PlayResponse | grpc.aio.AioRpcError | Literal["ended", "wake"]]
State = pb.WatchMatchResponse | pb.SubmitActionResponse  # both carry the match and the seat's legal actions


@dataclass
class Table:
    """What the seats of one match share: the book of actions in flight and every seat's inbox."""

    arrivals: Arrivals
    inboxes: list[asyncio.Queue[Item]] = field(default_factory=list)

    def wake(self) -> None:
        for inbox in self.inboxes:
            inbox.put_nowait((time.perf_counter(), "wake"))


async def play_seats(gateway: Gateway, seats: list[Seat], seed: int, stop_at: float) -> list[float]:
    """Every seat of an opened match played over its own Play stream, to the match's end
    (or `stop_at`); the latency of each action until every seat held its new state."""
    rng = random.Random(seed)
    table = Table(Arrivals.of(seat.seat for seat in seats))
    players = [Player(gateway, seat, rng, stop_at, table) for seat in seats]
    await asyncio.gather(*(player.play() for player in players))
    return table.arrivals.latencies


async def _read(call: Any, inbox: asyncio.Queue[Item]) -> None:
    """Everything the stream brings, stamped with its arrival, until it ends or breaks."""
    try:
        async for response in call:
            inbox.put_nowait((time.perf_counter(), response))
    except grpc.aio.AioRpcError as error:
        inbox.put_nowait((time.perf_counter(), error))  # the seat raises it: the match counts as failed
    else:
        inbox.put_nowait((time.perf_counter(), "ended"))


class Player:
    """One seat: acts on the newest state that asks it to, one submit in flight at a time."""

    def __init__(self, gateway: Gateway, seat: Seat, rng: random.Random, stop_at: float, table: Table) -> None:
        self.gateway, self.seat, self.rng, self.stop_at, self.table = gateway, seat, rng, stop_at, table
        self.inbox: asyncio.Queue[Item] = asyncio.Queue()
        table.inboxes.append(self.inbox)
        self.outbox: asyncio.Queue[pb.PlayRequest | None] = asyncio.Queue()
        self.latest = -1  # the newest version this seat's stream has shown
        self.offer: State | None = None  # the newest state, if it asks this seat to act
        self.acted_at = -1  # the version the last submit was chosen at
        self.in_flight = ""  # the command id of the submit awaiting its answer
        self.finished = False

    async def play(self) -> None:
        watch = pb.WatchMatchRequest(match_id=self.seat.match_id, with_legal_actions=True)
        await self.outbox.put(pb.PlayRequest(watch=watch))
        call: Any = self.gateway.stub.Play(self._requests(), metadata=self.seat.metadata)
        reader = asyncio.create_task(_read(call, self.inbox))
        try:
            async with asyncio.timeout(max(0.0, self.stop_at - time.perf_counter()) + GRACE_SECONDS):
                await self._loop()
        except TimeoutError:
            pass  # an answer or a state never came: the run is over anyway
        finally:
            await self.outbox.put(None)
            call.cancel()
            reader.cancel()

    async def _requests(self) -> AsyncIterator[pb.PlayRequest]:
        while (item := await self.outbox.get()) is not None:
            yield item

    def _owed(self) -> bool:
        """An answer to this seat's submit, or a state some seat's action made, is still to come."""
        return bool(self.in_flight) or self.table.arrivals.owes(self.seat.seat)

    def _over(self) -> bool:
        return self.finished or time.perf_counter() >= self.stop_at

    async def _loop(self) -> None:
        while not (self._over() and not self._owed()):
            # Owing nothing, a seat stops at stop_at even if nothing arrives: the other
            # seats may have stopped already and will send nothing more.
            patience = None if self._owed() else max(0.0, self.stop_at - time.perf_counter())
            try:
                at, item = await asyncio.wait_for(self.inbox.get(), patience)
            except TimeoutError:
                continue
            if isinstance(item, grpc.aio.AioRpcError):
                raise item
            if item == "ended":
                return
            if isinstance(item, pb.PlayResponse):
                await self._take(at, item)
            if not self._over():
                await self._act()

    async def _take(self, at: float, response: pb.PlayResponse) -> None:
        kind = response.WhichOneof("kind")
        if kind == "error":
            self.table.arrivals.refused(response.error.command_id)
            self.table.wake()  # a seat waiting for that action's state would wait in vain
            if response.error.command_id == self.in_flight:
                self.in_flight = ""
            if response.error.code == "RESOURCE_EXHAUSTED":
                await asyncio.sleep(0.05)  # told to slow down: try the same offer again shortly
                self.acted_at = -1
            return
        if kind == "accepted":
            self.in_flight = ""  # one submit in flight at a time: this answers it
            if response.accepted.duplicate:
                return  # a duplicate carries no state
        elif self.in_flight in response.update.answered_command_ids:
            self.in_flight = ""  # the watch's update answers the submit: no `accepted` comes
        state: State = response.accepted if kind == "accepted" else response.update
        version = state.match.version
        self.table.arrivals.seen(self.seat.seat, version, at)
        if version > self.latest:  # an older state arriving late says nothing new
            self.latest = version
            self.finished = self.finished or state.match.status == mpb.MATCH_STATUS_FINISHED
            self.offer = state if state.legal_actions else None

    async def _act(self) -> None:
        """Act on the newest offer once the previous submit has been answered."""
        offer = self.offer
        if offer is None or self.in_flight or offer.match.version <= self.acted_at:
            return
        action = offer.legal_actions[self.rng.randrange(len(offer.legal_actions))]
        self.acted_at = offer.match.version
        self.in_flight = f"s{self.seat.seat}-v{self.acted_at}"
        self.table.arrivals.sent(self.in_flight, self.acted_at, time.perf_counter())
        submit = pb.SubmitActionRequest(match_id=self.seat.match_id, action=action, command_id=self.in_flight)
        await self.outbox.put(pb.PlayRequest(submit=submit))
