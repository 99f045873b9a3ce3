"""Bots that play over the gateway's Play stream: one stream per seat, actions in,
updates with the seat's legal actions out, and no other call per move."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator
from typing import Any

import grpc
from tabletop.gateway.v1 import gateway_service_pb2 as pb
from tabletop.match.v1 import match_service_pb2 as mpb

from gateway.client import bots
from gateway.client.api import Gateway, Seat

# Seconds past the run's end a submit may still take to be answered.
GRACE_SECONDS = 5.0


async def play_seat(gateway: Gateway, seat: Seat, rng: random.Random, stop_at: float) -> list[float]:
    """Play one seat to the end of its match (or `stop_at`); the submit latencies."""
    outbox: asyncio.Queue[pb.PlayRequest | None] = asyncio.Queue()
    latencies: list[float] = []

    async def requests() -> AsyncIterator[pb.PlayRequest]:
        while (item := await outbox.get()) is not None:
            yield item

    watch = pb.WatchMatchRequest(match_id=seat.match_id, with_legal_actions=True)
    await outbox.put(pb.PlayRequest(watch=watch))
    call: Any = gateway.stub.Play(requests(), metadata=seat.metadata)
    try:
        async with asyncio.timeout(max(0.0, stop_at - time.perf_counter()) + GRACE_SECONDS):
            await _play(call, outbox, seat, rng, stop_at, latencies)
    except TimeoutError:
        pass  # a submit never answered: the run is over anyway
    finally:
        await outbox.put(None)
        call.cancel()
    return latencies


async def _play(
    call: Any,
    outbox: asyncio.Queue[pb.PlayRequest | None],
    seat: Seat,
    rng: random.Random,
    stop_at: float,
    latencies: list[float],
) -> None:
    in_flight: float | None = None  # when the one submit awaiting its answer was sent
    offer: pb.WatchMatchResponse | None = None  # the newest update that asked this seat to act
    acted_at = -1  # the version the last submit was chosen at
    finished = False
    while True:
        # With no submit awaiting its answer, a seat stops at stop_at even if nothing arrives:
        # the other seat may have stopped already and will send nothing more.
        patience = None if in_flight is not None else max(0.0, stop_at - time.perf_counter())
        try:
            response = await asyncio.wait_for(call.read(), patience)
        except TimeoutError:
            return
        if response is grpc.aio.EOF:
            return
        kind = response.WhichOneof("kind")
        if kind in ("accepted", "error"):
            if in_flight is not None and kind == "accepted":
                latencies.append(time.perf_counter() - in_flight)
            in_flight = None
            if kind == "error" and response.error.code == "RESOURCE_EXHAUSTED":
                await asyncio.sleep(0.05)  # told to slow down: try the same offer again shortly
                acted_at = -1
        else:
            update = response.update
            finished = finished or update.match.status == mpb.MATCH_STATUS_FINISHED
            if update.legal_actions:
                offer = update
        # The update a move caused may come before the move's own answer: wait for that.
        if finished or time.perf_counter() > stop_at:
            if in_flight is None:
                return
            continue
        # Act on the newest offer once the previous submit has been answered.
        if offer is not None and in_flight is None and offer.match.version > acted_at:
            action = offer.legal_actions[rng.randrange(len(offer.legal_actions))]
            acted_at, in_flight = offer.match.version, time.perf_counter()
            command_id = f"s{seat.seat}-v{acted_at}"
            submit = pb.SubmitActionRequest(match_id=seat.match_id, action=action, command_id=command_id)
            await outbox.put(pb.PlayRequest(submit=submit))


async def stream_match(
    gateway: Gateway, game: str, players: int, seed: int, stop_at: float, config: dict[str, str] | None = None
) -> list[float]:
    """A whole match played over Play streams; the submit latencies of all seats."""
    seats = await bots.open_match(gateway, game, players, seed, config)
    return await play_seats(gateway, seats, seed, stop_at)


async def play_seats(gateway: Gateway, seats: list[Seat], seed: int, stop_at: float) -> list[float]:
    """Every seat of an opened match played over its own Play stream; the submit latencies of all."""
    rng = random.Random(seed)
    lanes = await asyncio.gather(*(play_seat(gateway, seat, rng, stop_at) for seat in seats))
    return [latency for lane in lanes for latency in lane]
