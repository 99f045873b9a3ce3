"""Load runs through the gateway: concurrent bot matches, their actions/s, latency,
the CPU each of the stack's processes used meanwhile and the store's calls per action.

By default each seat plays over its own Play stream (bench/streams.py): every
seat's client gets every update, as both boardgame.io clients do, and an
action's latency runs until every seat holds its new state. BENCH_DRIVER=bots
uses the project's unary bots instead (cli/autoplay.py: one spectator
watch per match, ListLegalActions and SubmitAction calls); their latency is
a submit's, until the mover's answer.
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from dataclasses import dataclass, field, replace

import grpc
from tabletop.match.v1 import match_service_pb2 as mpb

from bench import cpu
from bench.redisstats import Commands
from bench.stats import Run, run_of
from bench.streams import play_seats
from cli import autoplay
from cli.api import Gateway, Seat
from deploy.stack import Stack
from services.games import registry

DRIVER = os.environ.get("BENCH_DRIVER", "stream")


def stack_pids(stack: Stack) -> list[int]:
    """Every process of the stack: services, rules, matchmakers, gateway, edge, embedded server."""
    pids = [proc.process.pid for proc in stack.procs.values() if proc.process is not None]
    if stack.embedded and stack.redis.process is not None:
        pids.append(stack.redis.process.pid)
    return pids


def named_pids(stack: Stack) -> dict[str, int]:
    """The stack's processes by name ("redis" for the embedded server)."""
    named = {name: proc.process.pid for name, proc in stack.procs.items() if proc.process is not None}
    if stack.embedded and stack.redis.process is not None:
        named["redis"] = stack.redis.process.pid
    return named


def seats_for(game: str) -> int:
    """Two seats, as in the comparison, unless the game needs more."""
    engine = registry.game(game).engine
    return min(max(2, engine.min_seats), engine.max_seats)


async def _play(gateway: Gateway, game: str, seats: list[Seat], seed: int, stop_at: float) -> list[float]:
    """An opened match played until it ends or the run is over; the submit latencies (seconds)."""
    if DRIVER == "bots":
        result = autoplay.BotResult(seats[0].match_id, game, 0, 0.0, mpb.MatchSummary(), [], seats)
        await autoplay.drive(gateway, result, random.Random(seed), stop_at=stop_at)
        return result.latencies
    return await play_seats(gateway, seats, seed, stop_at)


@dataclass
class Clock:
    """Starts a run once every lane has opened its first match, so that the 64 matches
    opening at once are not what the run measures; later matches open inside it."""

    lanes: int
    opened: int = 0
    all_opened: asyncio.Event = field(default_factory=asyncio.Event)
    go: asyncio.Event = field(default_factory=asyncio.Event)
    stop_at: float = 0.0

    async def ready(self) -> float:
        """Called by each lane with its first match open; the run's end once it starts."""
        self.opened += 1
        if self.opened == self.lanes:
            self.all_opened.set()
        await self.go.wait()
        return self.stop_at


async def load_run(stack: Stack, game: str, matches: int, seconds: float) -> tuple[Run, int]:
    """`matches` matches kept going for `seconds` (a finished one is replaced by a new one);
    the run and the number of matches that failed with an RPC error. Only this stack's
    processes are counted, from the moment every lane has its first match open. A lane's
    players sign in once and play match after match, as players do (boardgame.io's
    driver has no sign-in at all; its lobby join stands for ours)."""
    players = seats_for(game)
    latencies: list[float] = []
    failed = 0
    clock = Clock(matches)

    async def lane(index: int) -> None:
        nonlocal failed
        seed = 1000 * index
        async with Gateway(stack.gateway_addr) as gateway:
            try:
                seats = await autoplay.open_match(gateway, game, players, seed, crew=f"lane{index}")
            except grpc.aio.AioRpcError:
                failed += 1
                await clock.ready()  # the run goes on without this lane
                return
            stop_at = await clock.ready()
            while True:
                try:
                    latencies.extend(await _play(gateway, game, seats, seed, stop_at))
                    if time.perf_counter() >= stop_at:
                        return
                    seed += 1
                    seats = await autoplay.open_match(gateway, game, players, seed, crew=f"lane{index}")
                except grpc.aio.AioRpcError:
                    failed += 1  # counted and reported; the lane goes on with a new match
                    if time.perf_counter() >= stop_at:
                        return

    meter, commands = cpu.Meter(named_pids(stack)), Commands(stack.redis_url)
    lanes = [asyncio.ensure_future(lane(i)) for i in range(matches)]
    await clock.all_opened.wait()
    await commands.start()
    meter.start()
    started = time.perf_counter()
    clock.stop_at = started + seconds
    clock.go.set()
    await asyncio.gather(*lanes)
    wall, split = time.perf_counter() - started, meter.stop()
    redis_calls = await commands.stop(len(latencies))
    return replace(run_of(latencies, wall, cpu_by_process=split), redis_per_action=redis_calls), failed
