"""The whole stack on Redis Cluster: an embedded three-master cluster behind every process.

Play, watching, matchmaking over two replicas, and a kill -9 of the match process in
the middle of a match, as on a single server: every key a script or a transaction
touches shares its hash slot (`{match:<id>}`, `{mm}`, `{ratings}`), so nothing here may
fail with CROSSSLOT, and every acknowledged action survives.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Iterator

import pytest
from tabletop.match.v1 import match_service_pb2 as mpb

from cli import autoplay
from cli.api import Gateway
from cli.queue import queue
from deploy.stack import UNLIMITED_CALLERS, Stack
from services.common.redis.keys import match_stream
from services.common.store.redis_store import RedisEventStore
from tests.integration.test_platform import play_some

pytestmark = pytest.mark.integration
PIG = {"TABLETOP_EXTRA_GAMES": "pig=tests.fixtures.pig", "REDIS_CLUSTER": "1", **UNLIMITED_CALLERS}


@pytest.fixture(scope="module")
def stack(redis_cluster_url: str) -> Iterator[Stack]:
    with Stack(redis_url=redis_cluster_url, extra_env=PIG, games=("pig", "el_dorado"), matchmakers=2) as running:
        yield running


@pytest.fixture
async def gateway(stack: Stack) -> AsyncIterator[Gateway]:
    async with Gateway(stack.gateway_addr) as client:
        yield client


async def _log(stack: Stack, match_id: str) -> list[int]:
    store = RedisEventStore.from_url(stack.redis_url, cluster=True)
    try:
        return [e.version for e in await store.read(match_stream(match_id))]
    finally:
        await store.close()


async def test_matches_play_to_their_end_on_a_cluster(gateway: Gateway, stack: Stack) -> None:
    results = await asyncio.gather(*(autoplay.play_match(gateway, "pig", 2, seed=s) for s in range(4)))
    for result in results:
        assert result.summary.status == mpb.MATCH_STATUS_FINISHED
        versions = await _log(stack, result.match_id)
        assert versions == list(range(1, result.summary.version + 1))
    # A real game too, a stretch of it: hidden hands and piles live in the same slot as its log.
    real = await autoplay.play_match(gateway, "el_dorado", 2, seed=3, stop_after=40)
    assert real.actions >= 40 and await _log(stack, real.match_id) == list(range(1, real.summary.version + 1))


async def test_a_watcher_sees_every_version_on_a_cluster(gateway: Gateway) -> None:
    match_id = (await gateway.create("pig", 2)).match.match_id
    watch = gateway.watch(match_id)
    seats = [await gateway.join(match_id, f"w{i}") for i in range(2)]
    await gateway.start(seats[0])
    result = autoplay.BotResult(match_id, "pig", 0, 0.0, mpb.MatchSummary(), [], seats)
    await autoplay.drive(gateway, result, random.Random(5))
    seen: list[int] = []
    async for update in watch:
        seen += [entry.version for entry in update.entries]
        if update.match.status == mpb.MATCH_STATUS_FINISHED and seen and seen[-1] == update.match.version:
            break
    assert seen == list(range(1, result.summary.version + 1))


async def test_two_matchmaker_replicas_place_every_ticket_once_on_a_cluster(stack: Stack) -> None:
    players = 40
    found = await asyncio.gather(*(
        queue(stack.gateway_addr, "pig", 2, 2, {"target": "cluster"}, f"cluster-device-{i}") for i in range(players)
    ))
    by_match: dict[str, list[int]] = {}
    for seat in found:
        by_match.setdefault(str(seat["match_id"]), []).append(int(seat["seat"]))
    assert len({seat["ticket_id"] for seat in found}) == players
    assert sorted(sorted(seats) for seats in by_match.values()) == [[0, 1]] * (players // 2)


async def test_a_killed_match_process_loses_no_acknowledged_action_on_a_cluster(
    gateway: Gateway, stack: Stack
) -> None:
    match_id = (await gateway.create("pig", 2)).match.match_id
    seats = [await gateway.join(match_id, f"k{i}") for i in range(2)]
    await gateway.start(seats[0])
    acknowledged = await play_some(gateway, seats, 10, "before")
    stack.kill("match")
    stack.restart("match")
    acknowledged += await play_some(gateway, seats, 10, "after")
    versions = await _log(stack, match_id)
    assert versions == list(range(1, len(versions) + 1))
    assert max(acknowledged) <= versions[-1]
