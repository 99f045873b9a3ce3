"""The dice's seed per match: made once, whoever asks first, and the same for every replica;
roll windows from it: bounded, one revealed-seed check each, none once the seed is revealed."""

from __future__ import annotations

import uuid

import pytest
import redis.asyncio as aioredis

from services.common.errors import FailedPrecondition, InvalidArgument, NotFound
from services.common.redis import keys
from services.dice import fair
from services.dice.app import MAX_WINDOW_COUNTERS, MAX_WINDOW_DICE, DiceApp


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


async def _exists_calls(redis: aioredis.Redis) -> int:
    stats = await redis.info("commandstats")
    return int(stats.get("cmdstat_exists", {}).get("calls", 0))


async def test_a_window_costs_one_revealed_seed_check_for_all_its_rolls(redis_client: aioredis.Redis) -> None:
    match_id = uuid.uuid4().hex
    dice = DiceApp(redis_client)
    await dice.commit(match_id)
    before = await _exists_calls(redis_client)
    held = await dice.window(match_id, 10, 32, 4)
    assert await _exists_calls(redis_client) == before + 1
    seed = bytes(await redis_client.get(keys.dice_seed(match_id)) or b"")
    assert held == fair.window(seed, 10, 32, 4)
    for counter in range(10, 42):
        assert fair.roll_from_window(held, counter, 6, 4) == await dice.roll(match_id, counter, 6, 4)
    assert await _exists_calls(redis_client) == before + 1 + 32  # each RollDice checks on its own


@pytest.mark.parametrize(
    ("first", "counters", "dice"),
    [(-1, 8, 4), (0, 0, 4), (0, MAX_WINDOW_COUNTERS + 1, 4), (0, 8, 0), (0, 8, MAX_WINDOW_DICE + 1)],
)
async def test_a_window_is_bounded(redis_client: aioredis.Redis, first: int, counters: int, dice: int) -> None:
    match_id = uuid.uuid4().hex
    app = DiceApp(redis_client)
    await app.commit(match_id)
    await app.window(match_id, 0, MAX_WINDOW_COUNTERS, MAX_WINDOW_DICE)  # the largest there is
    with pytest.raises(InvalidArgument):
        await app.window(match_id, first, counters, dice)


async def test_no_window_once_the_seed_is_revealed(redis_client: aioredis.Redis) -> None:
    match_id = uuid.uuid4().hex
    app = DiceApp(redis_client)
    await app.commit(match_id)
    await app.window(match_id, 0, 8, 2)
    await DiceApp(redis_client).reveal(match_id)  # by another replica: this one's cache knows nothing
    with pytest.raises(FailedPrecondition) as refused:
        await app.window(match_id, 8, 8, 2)
    assert refused.value.reason == "dice.seed_revealed"
    assert "roll" not in refused.value.message  # nor any digest: a refusal names only the match
    with pytest.raises(NotFound):
        await app.window(uuid.uuid4().hex, 0, 8, 2)
