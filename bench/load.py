"""Load runs through the gateway: concurrent bot matches, their actions/s, submit
latency, and the CPU all of the stack's processes used meanwhile.

By default each seat plays over its own Play stream (bench/streams.py): every
seat's client gets every update, as both boardgame.io clients do. BENCH_DRIVER=bots
uses the project's unary bots instead (gateway/client/bots.py: one spectator
watch per match, ListLegalActions and SubmitAction calls).
"""

from __future__ import annotations

import asyncio
import os
import time

import grpc

from bench import cpu
from bench.stats import Run, run_of
from bench.streams import stream_match
from deploy.stack import Stack
from gateway.client import bots
from gateway.client.api import Gateway
from services.games import registry

DRIVER = os.environ.get("BENCH_DRIVER", "stream")


def stack_pids(stack: Stack) -> list[int]:
    """Every process of the stack: services, rules, matchmakers, gateway, edge, embedded server."""
    pids = [proc.process.pid for proc in stack.procs.values() if proc.process is not None]
    if stack.embedded and stack.redis.process is not None:
        pids.append(stack.redis.process.pid)
    return pids


def seats_for(game: str) -> int:
    """Two seats, as in the comparison, unless the game needs more."""
    engine = registry.game(game).engine
    return min(max(2, engine.min_seats), engine.max_seats)


async def _match(gateway: Gateway, game: str, seats: int, seed: int, stop_at: float) -> list[float]:
    """One match played until it ends or the run is over; the submit latencies (seconds)."""
    if DRIVER == "bots":
        return (await bots.play_match(gateway, game, seats, seed, stop_at=stop_at)).latencies
    return await stream_match(gateway, game, seats, seed, stop_at)


async def load_run(stack: Stack, game: str, matches: int, seconds: float) -> tuple[Run, int]:
    """`matches` matches kept going for `seconds` (a finished one is replaced by a new one);
    the run and the number of matches that failed with an RPC error."""
    seats = seats_for(game)
    latencies: list[float] = []
    failed = 0

    async def lane(index: int, stop_at: float) -> None:
        nonlocal failed
        async with Gateway(stack.gateway_addr) as gateway:
            seed = 1000 * index
            while time.perf_counter() < stop_at:
                try:
                    latencies.extend(await _match(gateway, game, seats, seed, stop_at))
                except grpc.aio.AioRpcError:
                    failed += 1  # counted and reported; the lane goes on with a new match
                seed += 1

    pids = stack_pids(stack)
    before, started = cpu.cpu_seconds(pids), time.perf_counter()
    await asyncio.gather(*(lane(i, started + seconds) for i in range(matches)))
    wall, after = time.perf_counter() - started, cpu.cpu_seconds(pids)
    return run_of(latencies, wall, cpu.used_between(before, after)), failed
