"""Thousands of watchers on thousands of matches hold a bounded number of Redis
connections, and updates still reach them promptly."""

from __future__ import annotations

import asyncio
import os
import statistics
import time
from collections.abc import Iterator

import pytest
import redis.asyncio as aioredis

from cli.api import Gateway
from deploy.stack import Stack
from tests.integration.conftest import PIG

pytestmark = pytest.mark.integration

MATCHES = int(os.environ.get("TABLETOP_TEST_WATCHES", "2000"))
POOL = 12
PROBE = 1  # the health probe's own connection, outside the pool
CHANNELS = 8
BATCH = 100
UPDATED = 100


@pytest.fixture(scope="module")
def small_pool_stack(redis_url: str) -> Iterator[Stack]:
    # One player creates every match: no per-player create rate here.
    env = {**PIG, "TABLETOP_REDIS_MAX_CONNECTIONS": str(POOL), "TABLETOP_CREATE_RATE": "0"}
    with Stack(redis_url=redis_url, extra_env=env, games=("pig",), matchmakers=0, shape="match-local") as running:
        yield running


async def gateway_connections(redis: aioredis.Redis) -> int:
    clients = await redis.client_list()
    return sum(1 for c in clients if c.get("name") == "tabletop-gateway")


async def test_thousands_of_watches_hold_a_bounded_number_of_connections(small_pool_stack: Stack, redis_url: str):
    clients = [Gateway(small_pool_stack.gateway_addr) for _ in range(CHANNELS)]
    redis = aioredis.from_url(redis_url, decode_responses=True)
    streams: list[asyncio.Task[None]] = []
    try:
        creator = clients[0]
        match_ids = []
        for start in range(0, MATCHES, BATCH):
            count = min(BATCH, MATCHES - start)
            replies = await asyncio.gather(*(creator.create("pig", 2) for _ in range(count)))
            match_ids += [r.match.match_id for r in replies]

        first: dict[str, asyncio.Event] = {m: asyncio.Event() for m in match_ids}
        arrived: dict[str, asyncio.Queue[float]] = {m: asyncio.Queue() for m in match_ids}

        async def watch(client: Gateway, match_id: str) -> None:
            async for update in client.watch(match_id):
                if first[match_id].is_set():
                    arrived[match_id].put_nowait(time.perf_counter())
                first[match_id].set()
                del update

        for start in range(0, MATCHES, BATCH):
            batch = match_ids[start : start + BATCH]
            streams += [asyncio.create_task(watch(clients[i % CHANNELS], m)) for i, m in enumerate(batch, start)]
            await asyncio.wait_for(asyncio.gather(*(first[m].wait() for m in batch)), 60)
        assert all(not s.done() for s in streams), "every watch stays open"
        held = await gateway_connections(redis)
        assert 1 <= held <= POOL + PROBE, held

        # A join in 100 of the matches: each of their watchers hears of it. The
        # latency counts from the call, so it includes the join's own round trip.
        latencies, joins = [], []
        for match_id in match_ids[:UPDATED]:
            called = time.perf_counter()
            await creator.join(match_id, "ana")
            joins.append(time.perf_counter() - called)
            heard = await asyncio.wait_for(arrived[match_id].get(), 10)
            latencies.append(heard - called)
        held_after = await gateway_connections(redis)
        assert held_after <= POOL + PROBE, held_after
        print(
            f"\n{MATCHES} watches: {held} gateway connections (pool {POOL} + probe), then {held_after}; update latency "
            f"p50 {statistics.median(latencies) * 1000:.1f} ms, max {max(latencies) * 1000:.1f} ms "
            f"(the join call alone: p50 {statistics.median(joins) * 1000:.1f} ms)"
        )
    finally:
        for s in streams:
            s.cancel()
        await asyncio.gather(*streams, return_exceptions=True)
        for c in clients:
            await c.close()
        await redis.aclose()


async def test_live_updates_on_a_cluster(redis_cluster_url: str):
    """On a cluster the subscription is one connection to one node (PUBLISH reaches them all)."""
    env = {**PIG, "REDIS_CLUSTER": "1"}
    stack = Stack(redis_url=redis_cluster_url, extra_env=env, games=("pig",), matchmakers=0, shape="match-local")
    stack.start()
    try:
        async with Gateway(stack.gateway_addr) as gateway:
            match_ids = [(await gateway.create("pig", 2)).match.match_id for _ in range(20)]
            watches = [gateway.watch(m) for m in match_ids]
            for call in watches:
                await asyncio.wait_for(call.read(), 10)
            for match_id, call in zip(match_ids, watches):
                joined = await gateway.join(match_id, "ana")
                update = await asyncio.wait_for(call.read(), 10)
                assert update.version >= 2 and joined.seat == 0
                call.cancel()
    finally:
        stack.stop()
