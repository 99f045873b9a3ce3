"""The dice's seed per match: made once, whoever asks first, and the same for every replica."""

from __future__ import annotations

import uuid

import redis.asyncio as aioredis

from services.common import keys
from services.dice import fair
from services.dice.app import DiceApp


async def test_a_seed_is_committed_once_whichever_replica_asks(redis_client: aioredis.Redis) -> None:
    match_id = uuid.uuid4().hex
    one, other = DiceApp(redis_client), DiceApp(redis_client)
    first = await one.commit(match_id)
    assert await one.commit(match_id) == first
    assert await other.commit(match_id) == first
    stored = await redis_client.get(keys.dice_seed(match_id))
    assert stored is not None and fair.commitment(stored) == first
    assert await other.roll(match_id, 0, 6, 3) == await one.roll(match_id, 0, 6, 3)


async def test_a_seed_already_stored_is_the_one_committed(redis_client: aioredis.Redis) -> None:
    match_id = uuid.uuid4().hex
    await redis_client.set(keys.dice_seed(match_id), b"s" * 32)
    assert await DiceApp(redis_client).commit(match_id) == fair.commitment(b"s" * 32)
