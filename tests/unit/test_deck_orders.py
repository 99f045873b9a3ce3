"""The deck keeps pile orders it has read: a pile version never changes, so a kept
order answers a draw exactly as the store would, without a round trip."""

from __future__ import annotations

import pathlib
import uuid

import pytest
import redis.asyncio as aioredis
from tabletop.deck.v1 import deck_service_pb2 as deck_pb

from services.common.errors import FailedPrecondition, PermissionDenied
from services.common.redis import keys
from services.common.security import pki
from services.common.security.grants import GRANT_COUNTERS, PILE_NOT_NEXT, GrantChecker, GrantSigner
from services.common.security.tls import KnownPeer
from services.deck.app import DeckApp
from services.deck.servicer import DeckServicer


class Identity:
    async def permute(self, match_id: str, counter: int, n: int) -> tuple[int, ...]:
        return tuple(reversed(range(n)))


class CountingRedis:
    """Passes every call through, counting GETs."""

    def __init__(self, client: aioredis.Redis) -> None:
        self._client = client
        self.gets = 0

    def __getattr__(self, name: str) -> object:
        return getattr(self._client, name)

    async def get(self, key: str) -> bytes | None:
        self.gets += 1
        return await self._client.get(key)


async def test_draws_after_a_shuffle_read_nothing_and_agree_with_a_fresh_deck(redis_client: aioredis.Redis) -> None:
    match_id = uuid.uuid4().hex
    counting = CountingRedis(redis_client)
    deck = DeckApp(counting, Identity())  # type: ignore[arg-type]
    cards = tuple(f"c{i}" for i in range(10))
    await deck.shuffle(match_id, "deck", 3, cards, keep_order=False)
    before = counting.gets
    drawn = [await deck.draw(match_id, "deck", 3, offset, 2) for offset in (0, 2, 4)]
    assert drawn == [("c9", "c8"), ("c7", "c6"), ("c5", "c4")]
    assert counting.gets == before, "the shuffle kept the order it stored: no read for three draws"
    fresh = DeckApp(redis_client, Identity())
    assert [await fresh.draw(match_id, "deck", 3, offset, 2) for offset in (0, 2, 4)] == drawn
    # A put makes a new version under a new counter: it is read and kept apart.
    await deck.put(match_id, "deck", 4, 3, 6, ("x",), bottom=False)
    assert await deck.draw(match_id, "deck", 4, 0, 2) == ("x", "c3")
    assert await deck.draw(match_id, "deck", 3, 0, 1) == ("c9",), "the older version is unchanged"
    # Released piles are forgotten here as well as in the store.
    await deck.release(match_id)
    with pytest.raises(FailedPrecondition, match="never made"):
        await deck.draw(match_id, "deck", 3, 0, 1)


class RacedRedis(CountingRedis):
    """Its first GET misses a pile another writer stores at that moment."""

    def __init__(self, client: aioredis.Redis, key: str, theirs: bytes) -> None:
        super().__init__(client)
        self._race = (key, theirs)

    async def get(self, key: str) -> bytes | None:
        if self.gets == 0 and key == self._race[0]:
            self.gets += 1
            await self._client.set(key, self._race[1])
            return None
        return await super().get(key)


async def test_a_shuffle_that_loses_a_race_keeps_the_winners_order(redis_client: aioredis.Redis) -> None:
    from services.common.redis import keys

    match_id = uuid.uuid4().hex
    key = keys.deck_pile(match_id, "deck", 5)
    # The other writer made the same request: the same order, stored once.
    deck = DeckApp(RacedRedis(redis_client, key, b'["c", "b", "a"]'), Identity())  # type: ignore[arg-type]
    assert await deck.shuffle(match_id, "deck", 5, ("a", "b", "c"), keep_order=False) == 3
    assert await deck.draw(match_id, "deck", 5, 0, 3) == ("c", "b", "a")
    assert await DeckApp(redis_client, Identity()).draw(match_id, "deck", 5, 0, 3) == ("c", "b", "a")
    await deck.release(match_id)  # indexed for release like any pile
    assert await redis_client.exists(key) == 0


async def test_a_pile_made_from_another_request_is_refused_not_dealt(redis_client: aioredis.Redis) -> None:
    """Whoever stores a pile first under a draw number (a raced writer, a retry, or a caller
    trying to choose an order in advance) cannot make another request take that order."""
    match_id = uuid.uuid4().hex
    deck = DeckApp(redis_client, Identity())
    cards = ("card1", "card2", "card3")
    # Chosen in advance, in an order of the caller's choosing, under draw number 7.
    await deck.shuffle(match_id, "deck", 7, cards, keep_order=True)
    for app in (deck, DeckApp(redis_client, Identity())):  # kept here, or read from the store
        with pytest.raises(FailedPrecondition) as refused:
            await app.shuffle(match_id, "deck", 7, cards, keep_order=False)
        assert refused.value.reason == "deck.pile_conflict" and "card" not in refused.value.message
    # A put onto it under draw number 8, then another put claiming that number.
    await deck.put(match_id, "deck", 8, 7, 0, ("x",), bottom=False)
    with pytest.raises(FailedPrecondition, match="another request"):
        await DeckApp(redis_client, Identity()).put(match_id, "deck", 8, 7, 0, ("y",), bottom=False)
    # The same requests again are answered as before.
    assert await deck.shuffle(match_id, "deck", 7, cards, keep_order=True) == 3
    assert await deck.put(match_id, "deck", 8, 7, 0, ("x",), bottom=False) == 4


async def test_a_rules_caller_makes_no_pile_ahead_of_the_match_s_next_draw_number(
    redis_client: aioredis.Redis, tmp_path: pathlib.Path
) -> None:
    """Issue 27 item 6: under a valid grant (the match's next draw number 7), a rules process's
    shuffle or put at 8 or later, in an order of its choosing, is refused before anything is
    stored; the match's own shuffle there is then answered with the honest order and dealt."""
    files = pki.ensure(tmp_path, ["match", "rules"])
    match = pki.files(files, "match")
    grant = GrantSigner(match.cert.read_bytes(), match.key.read_bytes()).grant(match_id := uuid.uuid4().hex, 7)
    deck = DeckServicer(DeckApp(redis_client, Identity()), GrantChecker((files / "ca.crt").read_bytes()))
    rules, as_match = KnownPeer("rules"), KnownPeer("match")
    planted = ["card3", "card1", "card2"]
    for ahead in (8, 7 + GRANT_COUNTERS - 1):
        shuffle = deck_pb.ShufflePileRequest(
            match_id=match_id, pile="deck", counter=ahead, cards=planted, keep_order=True, grant=grant
        )
        put = deck_pb.PutCardsRequest(
            match_id=match_id, pile="deck", counter=ahead, from_counter=-1, cards=planted, grant=grant
        )
        for refused_call in (deck.ShufflePile(shuffle, rules), deck.PutCards(put, rules)):
            with pytest.raises(PermissionDenied) as refused:
                await refused_call
            assert refused.value.reason == PILE_NOT_NEXT and "card" not in refused.value.message
        assert await redis_client.get(keys.deck_pile(match_id, "deck", ahead)) is None  # nothing stored
    # The match's own shuffle at 8 (its draw number by then) is the honest one, and deals it.
    honest = deck_pb.ShufflePileRequest(match_id=match_id, pile="deck", counter=8, cards=sorted(planted))
    assert (await deck.ShufflePile(honest, as_match)).size == 3
    dealt = await deck.DrawCards(
        deck_pb.DrawCardsRequest(match_id=match_id, pile="deck", counter=8, offset=0, count=3), as_match
    )
    assert list(dealt.cards) == ["card3", "card2", "card1"]  # Identity() reverses: not the planted order
    # At the grant's first draw number, the match's next one, the rules may make it.
    at_next = deck_pb.ShufflePileRequest(match_id=match_id, pile="deck", counter=7, cards=planted, grant=grant)
    assert (await deck.ShufflePile(at_next, rules)).size == 3
