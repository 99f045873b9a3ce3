"""A rules process that resolves the chance after a move under the match's grant logs
exactly what the match would have logged resolving it itself: the same matches, played
the same way, leave the same logs. Rolls cost no call per roll: the match rolls from its
roll windows (one OpenWindow per many rolls) and hands a rules process of its own the
slice of the window it needs; the rules call the deck for piles, and leave to the match
only a roll past their slice or a pile past the grant's first draw number."""

from __future__ import annotations

import pathlib
import random
import uuid
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
import redis.asyncio as aioredis
from google.protobuf.message import Message
from tabletop.common.v1 import chance_pb2
from tabletop.match.v1 import events_pb2 as ev

from services.common import metrics
from services.common.draws import (
    SLICE_COUNTERS,
    WINDOW_COUNTERS,
    WINDOW_SHORT,
    ChanceResolver,
    NoRolls,
    Resolution,
    RollWindows,
)
from services.common.redis import keys
from services.common.redis.keys import match_stream
from services.common.rpc.adapters import DeckClient, DiceClient, RulesClient
from services.common.rpc.ports import DeckPort, DicePort
from services.common.security import pki
from services.common.security.grants import PILE_NOT_NEXT, GrantChecker, GrantSigner
from services.common.store.event_store import MemoryEventStore
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
CHANCE = "tabletop.match.v1.ChanceResolved"


@pytest.fixture(scope="module", autouse=True)
def minimal_game() -> Iterator[None]:
    registry.add_package("dice_hand", "tests.fixtures.dice_hand")
    yield
    registry.forget("dice_hand")


@pytest.fixture(scope="module")
def stack_pki(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    return pki.ensure(tmp_path_factory.mktemp("pki"), ["match", "rules"])


class Counted:
    """A dice or deck port that counts the calls made through it, by method."""

    def __init__(self, inner: DicePort | DeckPort) -> None:
        self._inner = inner
        self.calls: Counter[str] = Counter()

    @property
    def draws(self) -> int:
        return sum(self.calls[name] for name in DRAWS)

    def __getattr__(self, name: str) -> object:
        call = getattr(self._inner, name)

        async def counted(request: Message) -> Message:
            self.calls[name] += 1
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


class Played:
    """A match app wired as bootstrap/match.py wires one, with counted ports."""

    def __init__(self, game: str, redis: aioredis.Redis, pki_dir: pathlib.Path, rules_chance: str = "") -> None:
        """`rules_chance`: "" (the match resolves all chance), "in process" (rules resolve it as
        the match, from its windows) or "own process" (as "rules", under grants and slices)."""
        dice, deck = _ports(redis, _checker(pki_dir), "match")
        self.dice, self.deck = Counted(dice), Counted(deck)
        windows = RollWindows(self.dice) if rules_chance else None  # type: ignore[arg-type]
        resolver: ChanceResolver | None = None
        signer = None
        self.rules_dice = self.rules_deck = None
        if rules_chance == "in process":
            resolver = ChanceResolver(self.dice, self.deck, windows)  # type: ignore[arg-type]
        elif rules_chance == "own process":
            rules_dice, rules_deck = _ports(redis, _checker(pki_dir), "rules")
            self.rules_dice, self.rules_deck = Counted(rules_dice), Counted(rules_deck)
            resolver = ChanceResolver(self.rules_dice, self.rules_deck, NoRolls())  # type: ignore[arg-type]
            files = pki.files(pki_dir, "match")
            signer = GrantSigner(files.cert.read_bytes(), files.key.read_bytes())
        rules = RulesClient.in_process(RulesServicer(EngineHost(registry.game(game)), resolver), "match")
        self.app = MatchApp(
            MemoryEventStore(), {game: rules}, self.dice, self.deck,  # type: ignore[arg-type]
            grants=signer, chance_in_rules=resolver is not None, windows=windows,
        )


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


def _left(reason: str) -> float:
    return metrics.CHANCE_LEFT.labels(reason)._value.get()  # type: ignore[no-any-return]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("rules_chance", ["own process", "in process"])
async def test_rules_resolving_chance_log_what_the_match_would(
    game: str, rules_chance: str, redis_client: aioredis.Redis, stack_pki: pathlib.Path
) -> None:
    # Two matches with one seed (an ended match's seed draws nothing more): the same draws.
    one, other = uuid.uuid4().hex, uuid.uuid4().hex
    for match_id in (one, other):
        await redis_client.set(keys.dice_seed(match_id), b"same seed for both matches, 32b")
    plain = Played(game, redis_client, stack_pki)
    granted = Played(game, redis_client, stack_pki, rules_chance)
    short, not_next = _left(WINDOW_SHORT), _left(PILE_NOT_NEXT)
    by_match = await _play(plain.app, game, one, 7, 120)
    by_rules = await _play(granted.app, game, other, 7, 120)
    assert by_rules == by_match
    chance = sum(1 for event in by_match if event[1] == CHANCE)
    rolls = _rolls(by_match)
    assert chance > 0
    assert plain.dice.draws + plain.deck.draws >= chance  # one call per draw, each roll included
    # Nobody calls the dice per roll: one window serves the next WINDOW_COUNTERS draw numbers.
    assert granted.dice.calls["RollDice"] == 0
    if rules_chance == "in process":
        # One call per shuffle, deal, put and permutation (the rules', through the match's own
        # dice and deck), none per roll.
        assert granted.dice.draws + granted.deck.draws == chance - rolls
    else:
        assert granted.rules_dice is not None and granted.rules_dice.calls["RollDice"] == 0
        # A rules process leaves the match a roll only where it had no window yet (the first,
        # or past a window the match did not top up), and a pile only past its grant's first
        # draw number: the match itself resolved a few steps, not one per draw.
        assert _left(WINDOW_SHORT) - short <= granted.dice.calls["OpenWindow"]
        assert granted.deck.draws == _left(PILE_NOT_NEXT) - not_next
        assert granted.dice.calls["Permute"] == 0
    # One window per WINDOW_COUNTERS draw numbers (topped up SLICE_COUNTERS before its end), not per roll.
    last = max((resolved.counter for resolved in _resolved(by_match)), default=0)
    assert (granted.dice.calls["OpenWindow"] > 0) == (rolls > 0)
    assert granted.dice.calls["OpenWindow"] <= 1 + last // (WINDOW_COUNTERS - SLICE_COUNTERS)


def _resolved(events: list[tuple[object, ...]]) -> list[ev.ChanceResolved]:
    return [ev.ChanceResolved.FromString(event[2]) for event in events if event[1] == CHANCE]  # type: ignore[arg-type]


def _rolls(events: list[tuple[object, ...]]) -> int:
    return sum(1 for resolved in _resolved(events) if resolved.request.WhichOneof("kind") == "roll_dice")


class OutOfStep(ChanceResolver):
    """A resolver that uses the draw number after the right one."""

    async def resolve(self, match_id: str, counter: int, *rest: Any) -> tuple[chance_pb2.ChanceOutcome, Resolution]:
        return await super().resolve(match_id, counter + 1, *rest)


async def test_steps_out_of_step_with_the_match_are_refused_and_nothing_is_logged(
    redis_client: aioredis.Redis, stack_pki: pathlib.Path
) -> None:
    # Rules in process (no grant, which would stop a pile at the wrong draw number first).
    played = Played("dice_hand", redis_client, stack_pki, "in process")
    dice, deck = _ports(redis_client, _checker(stack_pki), "match")
    rules = RulesClient.in_process(
        RulesServicer(EngineHost(registry.game("dice_hand")), OutOfStep(dice, deck)), "match"
    )
    app = MatchApp(MemoryEventStore(), {"dice_hand": rules}, played.dice, played.deck,  # type: ignore[arg-type]
                   chance_in_rules=True)
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
    """A deck that trusts another CA refuses every grant: the match resolves it all, the same way."""
    one, other = uuid.uuid4().hex, uuid.uuid4().hex
    for match_id in (one, other):
        await redis_client.set(keys.dice_seed(match_id), b"same seed for both matches, 32b")
    plain = Played("dice_hand", redis_client, stack_pki)
    refused = Played("dice_hand", redis_client, stack_pki, "own process")
    stranger = _checker(pki.ensure(tmp_path / "other", ["match"]))
    rules_dice, rules_deck = _ports(redis_client, stranger, "rules")
    resolver = ChanceResolver(rules_dice, rules_deck, NoRolls())
    refused.app._rules._rules["dice_hand"] = RulesClient.in_process(
        RulesServicer(EngineHost(registry.game("dice_hand")), resolver), "match"
    )
    left = _left("chance.grant_invalid")
    assert await _play(refused.app, "dice_hand", other, 3, 40) == await _play(plain.app, "dice_hand", one, 3, 40)
    assert refused.deck.draws > 10  # every deal the match's own
    assert _left("chance.grant_invalid") > left


async def test_a_granted_rules_process_rolls_from_its_slice_and_calls_no_dice(
    redis_client: aioredis.Redis, stack_pki: pathlib.Path
) -> None:
    """dice_hand rolls on every move: past the first roll (no window yet) the rules roll them all."""
    played = Played("dice_hand", redis_client, stack_pki, "own process")
    short = _left(WINDOW_SHORT)
    events = await _play(played.app, "dice_hand", uuid.uuid4().hex, 5, 100)
    assert _rolls(events) > WINDOW_COUNTERS  # more than one window's worth
    assert played.rules_dice is not None and sum(played.rules_dice.calls.values()) == 0
    assert _left(WINDOW_SHORT) - short == 1  # the first roll only: the match keeps the window topped up
    assert played.dice.calls["RollDice"] == 0
    assert played.dice.calls["OpenWindow"] == 1 + (_rolls(events) + SLICE_COUNTERS) // WINDOW_COUNTERS
