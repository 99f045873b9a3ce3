"""Deck use cases: hidden pile orders, kept here alone.

A pile is made by one shuffle, identified by the match's draw number
(`counter`) it used, and dealt from the top at offsets the match log records.
Nothing is consumed by a draw, so retries and raced writers see the same cards
and a replay needs no deck at all.

A pile version is a pure function of the seed, its draw number and the request
(the cards, and whether they keep their order; for a put, the version it goes
onto): a request that finds another order already stored under its draw number
is refused (`deck.pile_conflict`) instead of answered with it, so no caller can
make a pile in advance with an order of its choosing.
"""

from __future__ import annotations

import json
from typing import Protocol

import redis.asyncio as aioredis

from services.common.errors import FailedPrecondition, InvalidArgument
from services.common.lru import LRU
from services.common.redis import keys
from services.common.redis.commands import commands

MAX_PILE = 10_000
# Pile orders kept in memory. A pile version never changes once made (SET NX, one
# key per shuffle or put), so a kept order is always the stored one; a draw then
# costs no round trip and no JSON.
ORDER_CACHE = 4096


class Permuter(Protocol):
    """The one dice call the deck needs."""

    async def permute(self, match_id: str, counter: int, n: int) -> tuple[int, ...]: ...


class DeckApp:
    def __init__(self, redis: aioredis.Redis, dice: Permuter) -> None:
        self._redis = commands(redis)
        self._dice = dice
        self._orders: LRU[str, tuple[str, ...]] = LRU(ORDER_CACHE)

    async def shuffle(self, match_id: str, pile: str, counter: int, cards: tuple[str, ...], keep_order: bool) -> int:
        """Create the pile (idempotent for the same counter); its size."""
        _check(match_id, pile, counter)
        if len(cards) > MAX_PILE:
            raise InvalidArgument(f"a pile holds at most {MAX_PILE} cards")
        key = keys.deck_pile(match_id, pile, counter)
        known = self._orders.peek(key)
        if known is None:
            existing = await self._redis.get(key)
            known = tuple(json.loads(existing)) if existing is not None else None
        order = cards if keep_order else await self._permuted(match_id, counter, cards)
        if known is not None:  # a retry, or a raced writer's: the same order, or a refusal
            return len(self._orders.put(key, _same(pile, counter, known, order)))
        return len(await self._store(match_id, key, order, pile, counter))

    async def _permuted(self, match_id: str, counter: int, cards: tuple[str, ...]) -> tuple[str, ...]:
        permutation = await self._dice.permute(match_id, counter, len(cards))
        return tuple(cards[i] for i in permutation)

    async def draw(self, match_id: str, pile: str, counter: int, offset: int, count: int) -> tuple[str, ...]:
        """The cards at positions offset..offset+count of the pile."""
        _check(match_id, pile, counter)
        order = await self._order(match_id, pile, counter)
        if offset < 0 or count < 0 or offset + count > len(order):
            # Say how many are left, never which.
            raise FailedPrecondition(
                f"pile {pile} has {max(0, len(order) - offset)} cards left, {count} asked", "deck.pile_short"
            )
        return tuple(order[offset : offset + count])

    async def put(
        self, match_id: str, pile: str, counter: int, from_counter: int, offset: int,
        cards: tuple[str, ...], bottom: bool,
    ) -> int:
        """A new version of the pile: `cards` on top (or at the bottom) of what is left; its size."""
        _check(match_id, pile, counter)
        rest: tuple[str, ...] = ()
        if from_counter >= 0:
            previous = await self._order(match_id, pile, from_counter)
            if not 0 <= offset <= len(previous):
                raise FailedPrecondition(f"pile {pile} has only {len(previous)} cards", "deck.pile_short")
            rest = previous[offset:]
        order = rest + cards if bottom else cards + rest
        if len(order) > MAX_PILE:
            raise InvalidArgument(f"a pile holds at most {MAX_PILE} cards")
        key = keys.deck_pile(match_id, pile, counter)
        return len(await self._store(match_id, key, order, pile, counter))

    async def _store(
        self, match_id: str, key: str, order: tuple[str, ...], pile: str, counter: int
    ) -> tuple[str, ...]:
        """Keep a new pile version (SET NX: the first writer's stays) and index it for
        release, in one round trip; the order stored, which is kept here too (the first
        draw then reads nothing). Only a lost race reads what the winner stored, which
        must be this same order."""
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.set(key, json.dumps(order), nx=True)
            pipe.sadd(keys.deck_index(match_id), key)
            created, _ = await pipe.execute()
        if not created:
            stored = await self._redis.get(key)
            assert stored is not None  # set by the writer that won
            order = _same(pile, counter, tuple(json.loads(stored)), order)
        return self._orders.put(key, order)

    async def _order(self, match_id: str, pile: str, counter: int) -> tuple[str, ...]:
        key = keys.deck_pile(match_id, pile, counter)
        order = self._orders.get(key)
        if order is None:
            raw = await self._redis.get(key)
            if raw is None:
                raise FailedPrecondition(f"pile {pile} was never made", "deck.pile_unknown")
            return self._orders.put(key, tuple(json.loads(raw)))
        return order

    async def release(self, match_id: str) -> None:
        """Drop the piles of a finished match (they are rebuildable from seed and log)."""
        index = keys.deck_index(match_id)
        members = await self._redis.smembers(index)
        for member in members:
            self._orders.pop(member.decode() if isinstance(member, bytes) else member)
        if members:
            await self._redis.delete(*members)
        await self._redis.delete(index)


def _same(pile: str, counter: int, stored: tuple[str, ...], wanted: tuple[str, ...]) -> tuple[str, ...]:
    """The stored version when it is the one asked for; else a refusal that shows no card."""
    if stored != wanted:
        raise FailedPrecondition(
            f"pile {pile} was made under draw number {counter} from another request", "deck.pile_conflict"
        )
    return stored


def _check(match_id: str, pile: str, counter: int) -> None:
    if not match_id or not pile or counter < 0:
        raise InvalidArgument("match_id, pile and a non-negative counter are required")
