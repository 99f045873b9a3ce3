"""The dice's seed per match: made once, whoever asks first, and the same for every replica."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

from services.common import keys
from services.dice import fair
from services.dice.app import DiceApp


@pytest.fixture
async def client(redis_url: str) -> AsyncIterator[aioredis.Redis]:
    redis = aioredis.Redis.from_url(redis_url)
    try:
        yield redis
    finally:
        await redis.aclose()


async def test_a_seed_is_committed_once_whichever_replica_asks(client: aioredis.Redis) -> None:
    match_id = uuid.uuid4().hex
    one, other = DiceApp(client), DiceApp(client)
    first = await one.commit(match_id)
    assert await one.commit(match_id) == first
    assert await other.commit(match_id) == first
    stored = await client.get(keys.dice_seed(match_id))
    assert stored is not None and fair.commitment(stored) == first
    assert await other.roll(match_id, 0, 6, 3) == await one.roll(match_id, 0, 6, 3)


async def test_a_seed_already_stored_is_the_one_committed(client: aioredis.Redis) -> None:
    match_id = uuid.uuid4().hex
    await client.set(keys.dice_seed(match_id), b"s" * 32)
    assert await DiceApp(client).commit(match_id) == fair.commitment(b"s" * 32)
