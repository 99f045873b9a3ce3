"""Replay: how fast the match service rebuilds a match from its log.

A finished match's record at any version is folded from its log on first
request (GetView with at_version: read the stream, fold every event through
the rules, as a cold match service catching up does) and cached after. Asking
versions N, N+1, ... once each folds about N events per request; asking them
again is answered from the cache.

The rebuild itself (reading the log and folding it) is timed where it runs, by
the match repository (its tabletop_match_fold_seconds metric, read from the
process that holds the match app before and after each cold request): its
median is the figure held to the target. The difference of the two requests'
medians is reported beside it: it also holds what a cold request does beyond
the rebuild (the view of a state seen for the first time).
"""

from __future__ import annotations

import math
import statistics
import time
import urllib.request
from collections.abc import Callable
from dataclasses import asdict, dataclass

from prometheus_client.parser import text_string_to_metric_families
from tabletop.gateway.v1 import gateway_pb2 as pb

from bench import cpu
from bench.streams import play_seats
from cli import autoplay
from cli.api import Gateway
from deploy.stack import Stack

GAME = "dice_hand"
CALIBRATION_MOVES = (2, 6)


@dataclass(frozen=True)
class Replay:
    events: float  # events folded per request, on average
    folds: int
    rebuild_ms: float  # median read and fold of one cold request, timed by the match repository
    fold_ms: float  # median cold request minus median cached request
    cold_ms: float
    cached_ms: float
    cpu_ms_per_fold: float  # the stack's CPU for the cold requests beyond the cached ones

    @property
    def events_per_second(self) -> float:
        """The rebuild's rate: events over the repository's own time for reading and folding them."""
        return 1000 * self.events / self.rebuild_ms if self.rebuild_ms > 0 else math.inf

    @property
    def request_events_per_second(self) -> float:
        """Events over the cold requests' extra time (the rebuild and the view of a new state)."""
        return 1000 * self.events / self.fold_ms if self.fold_ms > 0 else math.inf

    @property
    def events_per_cpu_second(self) -> float:
        return 1000 * self.events / self.cpu_ms_per_fold if self.cpu_ms_per_fold > 0 else math.inf

    def figures(self) -> dict[str, float]:
        return {
            **asdict(self),
            "events_per_second": self.events_per_second,
            "request_events_per_second": self.request_events_per_second,
            "events_per_cpu_second": self.events_per_cpu_second,
        }


async def replay_run(stack: Stack, pids: list[int], events: int, folds: int) -> Replay:
    """Fold a finished match of more than `events` events `folds` times, at versions `events`, `events`+1, ..."""
    # The process that holds the match app: the gateway when it runs it, else the match service.
    metrics_port = stack.procs["match" if "match" in stack.procs else "gateway"].metrics_port
    async with Gateway(stack.gateway_addr) as gateway:
        match_id = await _long_match(gateway, await _moves_for(gateway, events + folds))
        final = (await gateway.view(match_id)).match.version
        versions = range(events, min(events + folds, final + 1))
        cold, cold_cpu, rebuilds = await _ask(gateway, match_id, versions, pids, lambda: _replay_seconds(metrics_port))
        cached, cached_cpu, _ = await _ask(gateway, match_id, versions, pids)
    cold_ms, cached_ms = 1000 * statistics.median(cold), 1000 * statistics.median(cached)
    return Replay(
        events=statistics.mean(versions),
        folds=len(versions),
        rebuild_ms=1000 * statistics.median(rebuilds),
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
    seats = await autoplay.open_match(gateway, GAME, 2, seed=moves, config={"moves": str(moves)})
    await play_seats(gateway, seats, seed=moves, stop_at=time.perf_counter() + 600)
    return seats[0].match_id


async def _ask(
    gateway: Gateway,
    match_id: str,
    versions: range,
    pids: list[int],
    folding: Callable[[], float] | None = None,
) -> tuple[list[float], float, list[float]]:
    """Each version's spectator view, one request at a time: latencies, the stack's CPU
    seconds and, with `folding` (the match app's replay seconds so far), each request's share
    of them; those readings lie outside the CPU and latency figures."""
    latencies, cpu_seconds, rebuilds = [], 0.0, []
    for version in versions:
        folded = folding() if folding else 0.0
        before = cpu.cpu_seconds(pids)
        started = time.perf_counter()
        await gateway.stub.GetView(pb.GetViewRequest(match_id=match_id, at_version=version))
        latencies.append(time.perf_counter() - started)
        cpu_seconds += cpu.used_between(before, cpu.cpu_seconds(pids))
        if folding:
            rebuilds.append(folding() - folded)
    return latencies, cpu_seconds, rebuilds


def _replay_seconds(metrics_port: int) -> float:
    """Seconds the match app has spent reading and folding logs for replays (its metrics page)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=5) as page:
        text = page.read().decode()
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == "tabletop_match_fold_seconds_sum" and sample.labels.get("why") == "replay":
                return float(sample.value)
    return 0.0
