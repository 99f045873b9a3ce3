"""The floor every figure is also divided by, measured in the same run: per
action, what any design of one action pays at the least (bench/bare_server.py
serves it): one message in on a seat's bidi stream, one XADD of a 200-byte
entry to the stack's own embedded server (append-only file, fsync on every
write), one message back, and one message on each of two seats' watch streams.

A lane is one match: its Play stream and two watches on one channel, one
action after another, each done once the answer and both watches' messages
have come. Its server CPU is the bare server's plus the embedded server's.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

import grpc
import redis.asyncio as aioredis

from bench import cpu
from bench.bare_server import PLAY, READY, WATCH, stream_key
from bench.redisstats import Commands
from bench.stats import Run, run_of

WATCHES = 2  # the two seats of a match


@dataclass(frozen=True)
class BareServer:
    addr: str
    pid: int


@contextlib.contextmanager
def bare_server(redis_url: str) -> Iterator[BareServer]:
    """The floor's server in its own process, appending to `redis_url`, for the life of the block."""
    process = subprocess.Popen(
        [sys.executable, "-m", "bench.bare_server"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env={**os.environ, "BENCH_FLOOR_REDIS_URL": redis_url},
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        if not line.strip():
            raise RuntimeError("the floor's bare server exited at start")
        yield BareServer(f"127.0.0.1:{int(line)}", process.pid)
    finally:
        assert process.stdin is not None
        process.stdin.close()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@dataclass
class _Lane:
    name: bytes
    channel: grpc.aio.Channel
    play: Any  # the bidi call
    watches: list[Any]  # the server-stream calls

    async def drive(self, stop_at: float, latencies: list[float]) -> None:
        while time.perf_counter() < stop_at:
            started = time.perf_counter()
            await self.play.write(self.name)
            await self.play.read()
            for watch in self.watches:
                await watch.read()
            latencies.append(time.perf_counter() - started)

    async def close(self) -> None:
        await self.play.done_writing()
        for call in (self.play, *self.watches):
            call.cancel()
        await self.channel.close()


async def _open(server: BareServer, index: int) -> _Lane:
    """A lane with its streams open and its watches registered: nothing of this is timed."""
    name = f"lane-{index}".encode()
    channel = grpc.aio.insecure_channel(server.addr)
    watches = [channel.unary_stream(WATCH)(name) for _ in range(WATCHES)]
    for watch in watches:
        if await watch.read() != READY:
            raise RuntimeError("the floor's watch did not start")
    lane = _Lane(name, channel, channel.stream_stream(PLAY)(), watches)
    await lane.play.write(name)  # the first append opens the server's store connection for it
    await lane.play.read()
    for watch in watches:
        await watch.read()
    return lane


async def floor_run(server: BareServer, redis_url: str, redis_pid: int, lanes: int, seconds: float) -> Run:
    """`lanes` matches, each one action after another for `seconds`."""
    opened = await asyncio.gather(*(_open(server, i) for i in range(lanes)))
    meter = cpu.Meter({"bare_server": server.pid, "redis": redis_pid})
    commands = Commands(redis_url)
    latencies: list[float] = []
    try:
        await commands.start()
        meter.start()
        started = time.perf_counter()
        await asyncio.gather(*(lane.drive(started + seconds, latencies) for lane in opened))
        wall, split = time.perf_counter() - started, meter.stop()
        redis_calls = await commands.stop(len(latencies))
    finally:
        await asyncio.gather(*(lane.close() for lane in opened))
        await _forget(redis_url, [lane.name for lane in opened])
    return replace(run_of(latencies, wall, cpu_by_process=split), redis_per_action=redis_calls)


async def _forget(redis_url: str, names: list[bytes]) -> None:
    """The lanes' streams deleted: the next run starts from empty ones, as new matches do."""
    client = aioredis.Redis.from_url(redis_url)
    try:
        await client.delete(*(stream_key(name) for name in names))
    finally:
        await client.aclose()
