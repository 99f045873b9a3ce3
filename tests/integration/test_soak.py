"""Soak and fault run (make soak): many bot matches while the match process is
killed and restarted; every match must still end, verify and keep a linear log."""

from __future__ import annotations

import asyncio
import os
import random
import time

import grpc
import pytest
from tabletop.match.v1 import match_service_pb2 as mpb

from cli import autoplay
from cli.api import Gateway
from deploy.stack import Stack
from services.common.redis.keys import match_stream
from services.common.store.redis_store import RedisEventStore
from services.dice.verify import verify

pytestmark = [pytest.mark.integration, pytest.mark.slow]
SOAK = int(os.environ.get("SOAK", "0") or 0)
RETRYABLE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION)


@pytest.mark.skipif(not SOAK, reason="set SOAK=n for n x 40 matches with match-process kills")
async def test_matches_survive_repeated_match_process_kills(redis_url: str) -> None:
    stack = Stack(redis_url=redis_url, extra_env={"TABLETOP_EXTRA_GAMES": "pig=tests.fixtures.pig"}, matchmakers=0)
    stack.start()
    matches, kills = 40 * SOAK, 0
    done: list[str] = []
    started = time.perf_counter()
    try:

        async def lane(index: int) -> None:
            async with Gateway(stack.gateway_addr) as gateway:
                for seed in range(index, matches, 8):
                    game = ("pig", "la_isla")[seed % 2]
                    done.append((await resilient(gateway, game, seed)).match_id)

        async def chaos() -> None:
            nonlocal kills
            while len(done) < matches:
                await asyncio.sleep(3)
                stack.kill("match")
                stack.restart("match")
                kills += 1

        chaos_task = asyncio.create_task(chaos())
        await asyncio.gather(*(lane(i) for i in range(8)))
        chaos_task.cancel()
        store = RedisEventStore.from_url(stack.redis_url)
        async with Gateway(stack.gateway_addr) as gateway:
            for match_id in done:
                log = await store.read(match_stream(match_id))
                assert [e.version for e in log] == list(range(1, len(log) + 1))
                entries = await gateway.log(match_id)
                assert verify((e.version, e.type, e.event.value) for e in entries).ok
        await store.close()
    finally:
        stack.stop()
    print(f"soak: {len(done)} matches, {kills} match-process kills, {time.perf_counter() - started:.0f} s")
    assert len(done) == matches


async def resilient(gateway: Gateway, game: str, seed: int) -> autoplay.BotResult:
    """Play a match; when the match process dies mid-call, carry on with the same match."""
    seats = await retried(lambda: autoplay.open_match(gateway, game, 2, seed))
    result = autoplay.BotResult(seats[0].match_id, game, 0, 0.0, mpb.MatchSummary(), [], seats)
    rng = random.Random(seed)
    await retried(lambda: autoplay.drive(gateway, result, rng))
    return result


async def retried(call):
    for _ in range(100):
        try:
            return await call()
        except grpc.aio.AioRpcError as error:
            if error.code() not in RETRYABLE:
                raise
            await asyncio.sleep(0.3)
    raise AssertionError("gave up")
