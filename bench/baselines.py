"""Baselines measured in the same run: a bare gRPC round trip, a bare stream append."""

from __future__ import annotations

import asyncio
import statistics
import time

import grpc
import redis.asyncio as aioredis
from grpc_health.v1 import health_pb2, health_pb2_grpc


def summarize(samples: list[float], wall: float) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "per_second": len(samples) / wall if wall else 0.0,
        "p50_ms": 1000 * statistics.median(ordered),
        "p99_ms": 1000 * ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))],
    }


async def grpc_round_trip(addr: str, calls: int = 2000, concurrency: int = 16) -> dict[str, float]:
    """Health checks against a running server: the cheapest real gRPC call."""
    async with grpc.aio.insecure_channel(addr) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        request = health_pb2.HealthCheckRequest()
        await stub.Check(request)
        samples: list[float] = []

        async def worker(n: int) -> None:
            for _ in range(n):
                started = time.perf_counter()
                await stub.Check(request)
                samples.append(time.perf_counter() - started)

        started = time.perf_counter()
        await asyncio.gather(*(worker(calls // concurrency) for _ in range(concurrency)))
        return summarize(samples, time.perf_counter() - started)


async def redis_append(url: str, calls: int = 5000, concurrency: int = 16) -> dict[str, float]:
    """XADD of a 200-byte entry: the cheapest write of an event."""
    client = aioredis.from_url(url)
    payload = b"x" * 200
    samples: list[float] = []

    async def worker(index: int, n: int) -> None:
        for _ in range(n):
            started = time.perf_counter()
            await client.xadd(f"bench:{{baseline}}:{index}", {"d": payload})
            samples.append(time.perf_counter() - started)

    started = time.perf_counter()
    await asyncio.gather(*(worker(i, calls // concurrency) for i in range(concurrency)))
    wall = time.perf_counter() - started
    await client.delete(*[f"bench:{{baseline}}:{i}" for i in range(concurrency)])
    await client.aclose()
    return summarize(samples, wall)
