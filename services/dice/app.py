"""Dice use cases: one secret seed per match, outcomes derived from it."""

from __future__ import annotations

import redis.asyncio as aioredis

from services.common.errors import FailedPrecondition, InvalidArgument, NotFound
from services.common.lru import LRU
from services.common.redis import keys
from services.common.redis.commands import commands
from services.dice import fair

MAX_DICE = 64
MAX_FACES = fair.MAX_FACES
# A roll window (OpenWindow) spans at most this many draw numbers and dice per draw number.
# 64 draw numbers (a grant's reach, services/common/security/grants.py) x 8 dice is 512 HMACs, about
# 1.5 ms of this process's CPU and a 16 KB reply: the most one call should cost. The match asks
# for less (services/common/draws.py): enough that one call serves a few dozen rolls, and every
# die any game here rolls at once (Discover's leader dice, one per seat: 4).
MAX_WINDOW_COUNTERS = 64
MAX_WINDOW_DICE = 8
MAX_PERMUTATION = 10_000
SEED_CACHE = 10_000


class DiceApp:
    """Seeds live in Redis (never logged); every draw is a pure function of one.

    Once a seed is revealed every outcome it would give is public, so no roll
    or permutation is served for that match any more: a revealed seed never
    predicts a future draw.
    """

    def __init__(self, redis: aioredis.Redis) -> None:
        self._redis = commands(redis)
        self._seeds: LRU[str, bytes] = LRU(SEED_CACHE, fifo=True)

    async def commit(self, match_id: str) -> str:
        """Create the match's seed unless it exists; its public commitment."""
        _require_id(match_id)
        seed = self._seeds.get(match_id)
        if seed is None:
            # One round trip: SET NX GET answers the seed already there, if any (a retry,
            # or another replica first), and sets ours only if there was none.
            fresh = fair.new_seed()
            previous = await self._redis.set(keys.dice_seed(match_id), fresh, nx=True, get=True)
            seed = self._keep(match_id, previous if isinstance(previous, bytes) else fresh)
        return fair.commitment(bytes(seed))

    async def roll(self, match_id: str, counter: int, faces: int, count: int) -> tuple[int, ...]:
        if not (1 <= faces <= MAX_FACES and 0 < count <= MAX_DICE and counter >= 0):
            raise InvalidArgument("roll: faces, count or counter out of range")
        return fair.roll(await self._unrevealed_seed(match_id), counter, faces, count)

    async def window(self, match_id: str, first: int, counters: int, dice: int) -> fair.Window:
        """The roll window of draw numbers first..first+counters-1, `dice` dice each: one
        revealed-seed check for all of those rolls, where RollDice makes one per roll."""
        if not (first >= 0 and 0 < counters <= MAX_WINDOW_COUNTERS and 0 < dice <= MAX_WINDOW_DICE):
            raise InvalidArgument(
                f"a window spans 1..{MAX_WINDOW_COUNTERS} draw numbers from one >= 0, 1..{MAX_WINDOW_DICE} dice each"
            )
        return fair.window(await self._unrevealed_seed(match_id), first, counters, dice)

    async def permute(self, match_id: str, counter: int, n: int) -> tuple[int, ...]:
        if not (0 <= n <= MAX_PERMUTATION and counter >= 0):
            raise InvalidArgument("permute: n or counter out of range")
        return fair.permutation(await self._unrevealed_seed(match_id), counter, n)

    async def reveal(self, match_id: str) -> tuple[str, str]:
        """The seed (hex) and its commitment; the match calls this once it has ended.

        The mark is written before the seed is returned, so no caller can hold
        the seed while draws are still served. Revealing again returns the same.
        """
        seed = await self._seed(match_id)
        await self._redis.set(keys.dice_revealed(match_id), 1)
        return seed.hex(), fair.commitment(seed)

    async def _unrevealed_seed(self, match_id: str) -> bytes:
        seed = await self._seed(match_id)
        # Asked of Redis every time (not cached): another dice replica may have revealed it.
        if await self._redis.exists(keys.dice_revealed(match_id)):
            raise FailedPrecondition(f"match {match_id} has ended and its seed is revealed", "dice.seed_revealed")
        return seed

    async def _seed(self, match_id: str) -> bytes:
        _require_id(match_id)
        seed = self._seeds.get(match_id)
        if seed is None:
            seed = await self._redis.get(keys.dice_seed(match_id))
            if seed is None:
                raise NotFound(f"no seed for match {match_id}")
            seed = self._keep(match_id, seed)
        return bytes(seed)

    def _keep(self, match_id: str, seed: bytes) -> bytes:
        # A seed never changes once set, so it is safe to keep (the newest few).
        return self._seeds.put(match_id, seed)


def _require_id(match_id: str) -> None:
    if not match_id or len(match_id) > 128:
        raise InvalidArgument("match_id is required (at most 128 characters)")
