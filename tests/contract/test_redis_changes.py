"""Hearing of appends (services/common/redis/changes.py) against a real server: the
subscription is marked, every publish is heard in order, a silent one is kept alive by
pings, and a connection the server drops ends the listening (the caller resubscribes
and re-reads)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError

from services.common.redis import changes
from services.common.redis import client as redis_client
from services.common.store.redis_store import APPENDED_CHANNEL

Heard = AsyncIterator[tuple[str, int]]


@contextlib.asynccontextmanager
async def listening(redis_url: str, name: str) -> AsyncIterator[tuple[Heard, aioredis.Redis]]:
    """A subscription, already marked, and an admin client to publish and kill with."""
    client = redis_client.connect(redis_url, name=name)
    admin = aioredis.Redis.from_url(redis_url)
    heard = changes.listen(client)
    try:
        assert await _next(heard) == changes.SUBSCRIBED
        yield heard, admin
    finally:
        await heard.aclose()  # type: ignore[attr-defined]
        await client.aclose()
        await admin.aclose()


async def _next(heard: Heard) -> tuple[str, int]:
    return await asyncio.wait_for(anext(heard), 5)


async def test_the_subscription_is_marked_then_every_append_is_heard_in_order(redis_url: str) -> None:
    async with listening(redis_url, "changes-order") as (heard, admin):
        for version in range(1, 4):
            await admin.publish(APPENDED_CHANNEL, f"match:a {version}")
        await admin.publish(APPENDED_CHANNEL, "match:b 7")
        assert [await _next(heard) for _ in range(4)] == [
            ("match:a", 1), ("match:a", 2), ("match:a", 3), ("match:b", 7)]


async def test_a_silent_subscription_is_kept_alive_by_pings(redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(changes, "PING_EVERY", 0.05)
    monkeypatch.setattr(changes, "DEAD_AFTER", 0.3)
    async with listening(redis_url, "changes-silent") as (heard, admin):
        waiting = asyncio.ensure_future(_next(heard))
        await asyncio.sleep(0.8)  # silent for more than DEAD_AFTER: the pongs kept it alive
        assert not waiting.done()
        await admin.publish(APPENDED_CHANNEL, "match:c 2")
        assert await waiting == ("match:c", 2)


async def test_a_dropped_subscription_ends_the_listening(redis_url: str) -> None:
    async with listening(redis_url, "changes-dropped") as (heard, admin):
        assert await admin.client_kill_filter(_type="pubsub") >= 1
        with pytest.raises(RedisConnectionError):
            await _next(heard)
