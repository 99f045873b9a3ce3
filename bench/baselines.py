"""The baseline every figure is divided by, measured in the same run: one bare
gRPC round trip (bench/bare_server.py) followed by one XADD of a 200-byte entry
through the stack's own embedded server (append-only file, fsync on every write).

That is the least an action can cost: one call in, one durable append. Its
server CPU is the bare server's plus the embedded server's.
"""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass

import grpc
import redis.asyncio as aioredis
from grpc_health.v1 import health_pb2, health_pb2_grpc

from bench import cpu
from bench.stats import Run, run_of

PAYLOAD = b"x" * 200


@dataclass(frozen=True)
class BareServer:
    addr: str
    pid: int


@contextlib.contextmanager
def bare_server() -> Iterator[BareServer]:
    """A bare gRPC server in its own process, for the life of the block."""
    process = subprocess.Popen(
        [sys.executable, "-m", "bench.bare_server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    try:
        assert process.stdout is not None
        port = int(process.stdout.readline())
        yield BareServer(f"127.0.0.1:{port}", process.pid)
    finally:
        assert process.stdin is not None
        process.stdin.close()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


async def baseline(server: BareServer, redis_url: str, redis_pid: int, concurrency: int, seconds: float) -> Run:
    """`concurrency` callers, each doing round trip + append back to back for `seconds`."""
    client = aioredis.Redis.from_url(redis_url)
    channels = [grpc.aio.insecure_channel(server.addr) for _ in range(concurrency)]
    keys = [f"bench:{{baseline}}:{i}" for i in range(concurrency)]
    latencies: list[float] = []
    request = health_pb2.HealthCheckRequest()

    async def caller(channel: grpc.aio.Channel, key: str, stop_at: float) -> None:
        stub = health_pb2_grpc.HealthStub(channel)
        while time.perf_counter() < stop_at:
            started = time.perf_counter()
            await stub.Check(request)
            await client.xadd(key, {"d": PAYLOAD})
            latencies.append(time.perf_counter() - started)

    try:
        # Connections up before the clock starts, as the load runs' stacks are.
        await asyncio.gather(*(health_pb2_grpc.HealthStub(c).Check(request) for c in channels), client.ping())
        pids = [server.pid, redis_pid]
        before, started = cpu.cpu_seconds(pids), time.perf_counter()
        await asyncio.gather(*(caller(c, k, started + seconds) for c, k in zip(channels, keys, strict=True)))
        wall, after = time.perf_counter() - started, cpu.cpu_seconds(pids)
    finally:
        await client.delete(*keys)
        await client.aclose()
        for channel in channels:
            await channel.close()
    return run_of(latencies, wall, cpu.used_between(before, after))
