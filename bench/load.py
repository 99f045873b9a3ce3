"""A load run through the gateway: many concurrent matches played by bots."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from bench.baselines import grpc_round_trip, summarize
from deploy.stack import Stack
from gateway.client import bots
from gateway.client.api import Gateway


async def load_run(stack: Stack, game: str, players: int, matches: int, seconds: float) -> dict[str, Any]:
    """Keep `matches` bot matches going for `seconds`; actions/s and submit latency."""
    stop_at = time.perf_counter() + seconds
    latencies: list[float] = []
    actions = finished = 0

    async def lane(index: int) -> None:
        nonlocal actions, finished
        async with Gateway(stack.gateway_addr) as gateway:
            seed = index * 1000
            while time.perf_counter() < stop_at:
                result = await bots.play_match(gateway, game, players, seed, stop_at=stop_at)
                latencies.extend(result.latencies)
                actions += result.actions
                finished += result.summary.status == 3
                seed += 1

    started = time.perf_counter()
    await asyncio.gather(*(lane(i) for i in range(matches)))
    wall = time.perf_counter() - started
    figures = summarize(latencies, wall) if latencies else {"per_second": 0.0, "p50_ms": 0.0, "p99_ms": 0.0}
    return {
        "game": game,
        "players": players,
        "concurrent_matches": matches,
        "actions": actions,
        "matches_finished": finished,
        "actions_per_second": figures["per_second"],
        "submit_p50_ms": figures["p50_ms"],
        "submit_p99_ms": figures["p99_ms"],
    }


async def shape_run(stack: Stack, games: list[tuple[str, int]], matches: int, seconds: float) -> dict[str, Any]:
    """The load runs of one deployment shape, with a gRPC baseline taken against its gateway."""
    baseline = await grpc_round_trip(stack.gateway_addr)
    runs = [await load_run(stack, game, players, matches, seconds) for game, players in games]
    streams = [await stream_run(stack, game, players, matches, seconds) for game, players in games]
    return {"grpc_round_trip": baseline, "runs": runs, "stream_runs": streams}


async def stream_run(stack: Stack, game: str, players: int, matches: int, seconds: float) -> dict[str, Any]:
    """Like load_run, but every seat plays over one Play stream."""
    from bench.streams import stream_match

    stop_at = time.perf_counter() + seconds
    latencies: list[float] = []

    async def lane(index: int) -> None:
        async with Gateway(stack.gateway_addr) as gateway:
            seed = index * 1000
            while time.perf_counter() < stop_at:
                latencies.extend(await stream_match(gateway, game, players, seed, stop_at))
                seed += 1

    started = time.perf_counter()
    await asyncio.gather(*(lane(i) for i in range(matches)))
    wall = time.perf_counter() - started
    figures = summarize(latencies, wall) if latencies else {"per_second": 0.0, "p50_ms": 0.0, "p99_ms": 0.0}
    return {
        "game": game,
        "players": players,
        "concurrent_matches": matches,
        "transport": "play_stream",
        "actions": len(latencies),
        "actions_per_second": figures["per_second"],
        "submit_p50_ms": figures["p50_ms"],
        "submit_p99_ms": figures["p99_ms"],
    }
