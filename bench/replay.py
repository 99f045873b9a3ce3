"""Replay: how fast the match service rebuilds a match from its log.

A finished match's record at any version is folded from its log on first
request (GetView with at_version: read the stream, fold every event through
the rules, as a cold match service catching up does) and cached after. Asking
versions N, N+1, ... once each folds about N events per request; asking them
again is answered from the cache. The difference of the two medians is the
fold alone, without the round trip and the view around it.
"""

from __future__ import annotations

import asyncio
import math
import random
import statistics
import time
from dataclasses import asdict, dataclass

from tabletop.gateway.v1 import gateway_service_pb2 as pb

from bench import cpu
from bench.streams import play_seat
from deploy.stack import Stack
from gateway.client import bots
from gateway.client.api import Gateway

GAME = "dice_hand"
CALIBRATION_MOVES = (2, 6)


@dataclass(frozen=True)
class Replay:
    events: float  # events folded per request, on average
    folds: int
    fold_ms: float  # median cold request minus median cached request
    cold_ms: float
    cached_ms: float
    cpu_ms_per_fold: float  # the stack's CPU for the cold requests beyond the cached ones

    @property
    def events_per_second(self) -> float:
        return 1000 * self.events / self.fold_ms if self.fold_ms > 0 else math.inf

    @property
    def events_per_cpu_second(self) -> float:
        return 1000 * self.events / self.cpu_ms_per_fold if self.cpu_ms_per_fold > 0 else math.inf

    def figures(self) -> dict[str, float]:
        return {
            **asdict(self),
            "events_per_second": self.events_per_second,
            "events_per_cpu_second": self.events_per_cpu_second,
        }


async def replay_run(stack: Stack, pids: list[int], events: int, folds: int) -> Replay:
    """Fold a finished match of more than `events` events `folds` times, at versions `events`, `events`+1, ..."""
    async with Gateway(stack.gateway_addr) as gateway:
        match_id = await _long_match(gateway, await _moves_for(gateway, events + folds))
        final = (await gateway.view(match_id)).match.version
        versions = range(events, min(events + folds, final + 1))
        cold, cold_cpu = await _ask(gateway, match_id, versions, pids)
        cached, cached_cpu = await _ask(gateway, match_id, versions, pids)
    cold_ms, cached_ms = 1000 * statistics.median(cold), 1000 * statistics.median(cached)
    return Replay(
        events=statistics.mean(versions),
        folds=len(versions),
        fold_ms=cold_ms - cached_ms,
        cold_ms=cold_ms,
        cached_ms=cached_ms,
        cpu_ms_per_fold=1000 * (cold_cpu - cached_cpu) / len(versions),
    )


async def _moves_for(gateway: Gateway, events: int) -> int:
    """Moves a match needs for its log to hold `events` events, learnt from two short matches:
    the log's length is a fixed part plus so many entries per move."""
    short, longer = CALIBRATION_MOVES
    lengths = []
    for moves in CALIBRATION_MOVES:
        lengths.append((await gateway.view(await _long_match(gateway, moves))).match.version)
    per_move = (lengths[1] - lengths[0]) / (longer - short)
    fixed = lengths[0] - short * per_move
    return max(1, math.ceil((events - fixed) / per_move))


async def _long_match(gateway: Gateway, moves: int) -> str:
    """The id of a finished match of `moves` moves, played by bots."""
    seats = await bots.open_match(gateway, GAME, 2, seed=moves, config={"moves": str(moves)})
    rng, stop_at = random.Random(moves), time.perf_counter() + 600
    await asyncio.gather(*(play_seat(gateway, seat, rng, stop_at) for seat in seats))
    return seats[0].match_id


async def _ask(gateway: Gateway, match_id: str, versions: range, pids: list[int]) -> tuple[list[float], float]:
    """Each version's spectator view, one request at a time: latencies and the stack's CPU seconds."""
    latencies = []
    before = cpu.cpu_seconds(pids)
    for version in versions:
        started = time.perf_counter()
        await gateway.stub.GetView(pb.GetViewRequest(match_id=match_id, at_version=version))
        latencies.append(time.perf_counter() - started)
    return latencies, cpu.used_between(before, cpu.cpu_seconds(pids))
