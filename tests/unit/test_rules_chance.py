"""A rules process that resolves the chance after a move under the match's grant logs
exactly what the match would have logged resolving it itself: the same matches, played
the same way, leave the same logs; and the match then makes no draw of its own."""

from __future__ import annotations

import pathlib
import random
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import redis.asyncio as aioredis
from google.protobuf.message import Message
from tabletop.common.v1 import chance_pb2

from services.common import keys, metrics, pki
from services.common.adapters import DeckClient, DiceClient, RulesClient
from services.common.draws import ChanceResolver, Resolution
from services.common.event_store import MemoryEventStore
from services.common.grants import GrantChecker, GrantSigner
from services.common.keys import match_stream
from services.common.ports import DeckPort, DicePort
from services.deck.app import DeckApp
from services.deck.servicer import DeckServicer, DicePermuter
from services.dice.app import DiceApp
from services.dice.servicer import DiceServicer
from services.games import registry
from services.match.app import MatchApp
from services.match.lifecycle import Status
from services.rules.app import EngineHost
from services.rules.servicer import RulesServicer

GAMES = ("dice_hand", "el_dorado", "la_isla", "discover")
DRAWS = ("RollDice", "Permute", "ShufflePile", "DrawCards", "PutCards")


@pytest.fixture(scope="module", autouse=True)
def minimal_game() -> Iterator[None]:
    registry.add_package("dice_hand", "tests.fixtures.dice_hand")
    yield
    registry.forget("dice_hand")


@pytest.fixture(scope="module")
def stack_pki(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    return pki.ensure(tmp_path_factory.mktemp("pki"), ["match", "rules"])


class Counted:
    """A dice or deck port that counts the draws made through it."""

    def __init__(self, inner: DicePort | DeckPort) -> None:
        self._inner = inner
        self.draws = 0

    def __getattr__(self, name: str) -> object:
        call = getattr(self._inner, name)
        if name not in DRAWS:
            return call

        async def counted(request: Message) -> Message:
            self.draws += 1
            reply: Message = await call(request)
            return reply

        return counted


def _ports(redis: aioredis.Redis, checker: GrantChecker, caller: str) -> tuple[DiceClient, DeckClient]:
    """The dice and the deck in process, called as `caller` (the deck's own dice calls as "deck")."""
    dice = DiceClient.in_process(DiceServicer(DiceApp(redis), checker), caller)
    permuter = DicePermuter(DiceClient.in_process(DiceServicer(DiceApp(redis), checker), "deck"))
    return dice, DeckClient.in_process(DeckServicer(DeckApp(redis, permuter), checker), caller)


def _checker(pki_dir: pathlib.Path) -> GrantChecker:
    return GrantChecker((pki_dir / "ca.crt").read_bytes())


def _app(
    game: str,
    redis: aioredis.Redis,
    pki_dir: pathlib.Path,
    resolver: ChanceResolver | None = None,
    signed: bool = True,
) -> tuple[MatchApp, Counted, Counted]:
    """A match app whose rules resolve chance with `resolver` (None: the match resolves it),
    under the match's grants when `signed` (a rules process of its own), else as the match does."""
    dice, deck = _ports(redis, _checker(pki_dir), "match")
    files = pki.files(pki_dir, "match")
    signer = GrantSigner(files.cert.read_bytes(), files.key.read_bytes()) if resolver and signed else None
    rules = RulesClient.in_process(RulesServicer(EngineHost(registry.game(game)), resolver), "match")
    counted_dice, counted_deck = Counted(dice), Counted(deck)
    app = MatchApp(
        MemoryEventStore(), {game: rules}, counted_dice, counted_deck,  # type: ignore[arg-type]
        grants=signer, chance_in_rules=resolver is not None,
    )
    return app, counted_dice, counted_deck


def _rules_resolver(redis: aioredis.Redis, checker: GrantChecker) -> ChanceResolver:
    """What a rules process resolves with: the dice and the deck, called as "rules"."""
    return ChanceResolver(*_ports(redis, checker, "rules"))


async def _play(app: MatchApp, game: str, match_id: str, seed: int, moves: int) -> list[tuple[object, ...]]:
    await app.create(game, {}, 2, match_id=match_id)
    for seat in range(2):
        await app.join(match_id, f"p{seat}", seat)
    await app.start(match_id)
    rng = random.Random(seed)
    for _ in range(moves):
        match = await app.current(match_id)
        if match.status != Status.ACTIVE or not match.turn.seats:
            break
        seat = match.turn.seats[rng.randrange(len(match.turn.seats))]
        _, actions = await app.legal_actions(match_id, seat)
        await app.submit(match_id, seat, actions[rng.randrange(len(actions))])
    events = await app._store.read(match_stream(match_id))
    return [tuple(event) for event in events]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("signed", [True, False], ids=["own process, granted", "in process"])
async def test_rules_resolving_chance_log_what_the_match_would(
    game: str, signed: bool, redis_client: aioredis.Redis, stack_pki: pathlib.Path
) -> None:
    # Two matches with one seed (an ended match's seed draws nothing more): the same draws.
    one, other = uuid.uuid4().hex, uuid.uuid4().hex
    for match_id in (one, other):
        await redis_client.set(keys.dice_seed(match_id), b"same seed for both matches, 32b")
    plain, plain_dice, plain_deck = _app(game, redis_client, stack_pki)
    # A rules process of its own calls as "rules" under grants; rules in process, as the match.
    resolver = ChanceResolver(*_ports(redis_client, _checker(stack_pki), "rules" if signed else "match"))
    granted, granted_dice, granted_deck = _app(game, redis_client, stack_pki, resolver, signed)
    by_match = await _play(plain, game, one, 7, 120)
    by_rules = await _play(granted, game, other, 7, 120)
    assert by_rules == by_match
    chance = sum(1 for event in by_match if event[1] == "tabletop.match.v1.ChanceResolved")
    assert chance > 0
    # The rules drew everything, the opening's chance included; the match nothing.
    assert plain_dice.draws + plain_deck.draws >= chance
    assert granted_dice.draws + granted_deck.draws == 0


class OutOfStep(ChanceResolver):
    """A resolver that uses the draw number after the right one."""

    async def resolve(self, match_id: str, counter: int, *rest: Any) -> tuple[chance_pb2.ChanceOutcome, Resolution]:
        return await super().resolve(match_id, counter + 1, *rest)


async def test_steps_out_of_step_with_the_match_are_refused_and_nothing_is_logged(
    redis_client: aioredis.Redis, stack_pki: pathlib.Path
) -> None:
    app, _, _ = _app(
        "dice_hand", redis_client, stack_pki, OutOfStep(*_ports(redis_client, _checker(stack_pki), "rules"))
    )
    match_id = uuid.uuid4().hex
    await app.create("dice_hand", {}, 2, match_id=match_id)
    for seat in range(2):
        await app.join(match_id, f"p{seat}", seat)
    match = await app.current(match_id)
    with pytest.raises(RuntimeError, match="out of step"):
        await app.start(match_id)  # its opening shuffle used the wrong draw number
    assert (await app.current(match_id)).version == match.version


async def test_refused_grants_leave_the_chance_to_the_match(
    redis_client: aioredis.Redis, stack_pki: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    """Dice and deck that trust another CA refuse every grant: the match resolves it all, the same way."""
    one, other = uuid.uuid4().hex, uuid.uuid4().hex
    for match_id in (one, other):
        await redis_client.set(keys.dice_seed(match_id), b"same seed for both matches, 32b")
    plain, _, _ = _app("dice_hand", redis_client, stack_pki)
    stranger = _checker(pki.ensure(tmp_path / "other", ["match"]))
    refused, refused_dice, refused_deck = _app(
        "dice_hand", redis_client, stack_pki, _rules_resolver(redis_client, stranger)
    )
    left = metrics.CHANCE_LEFT.labels("chance.grant_invalid")._value.get()
    assert await _play(refused, "dice_hand", other, 3, 40) == await _play(plain, "dice_hand", one, 3, 40)
    assert refused_dice.draws + refused_deck.draws > 10
    assert metrics.CHANCE_LEFT.labels("chance.grant_invalid")._value.get() > left
