"""Undo never crosses a disclosure: the rules' verdict (services/rules/app.py
`undoable`, services/games/common/host.py `HostedEngine.discloses`) is derived
from what a move's events depend on, not from a list of event names.

A move is undoable only if nothing it caused depends on what its mover could not
see: La Isla's last secret choice of a step reveals every seat's (issue 27), so
it is final; a card played from the mover's own hand is the mover's own secret,
so it can still be taken back. The property at the end checks every undoable
decision of random play against an oracle of its own: more worlds the mover
cannot tell from the real one (each game's determinizer, another generator),
in which the same move must show every viewer the same thing.
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from dataclasses import dataclass, fields, is_dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.dice.playout import LocalChance
from services.games import registry
from services.games.common.chance import CHANCE_SEAT
from services.games.common.disclosure import SeededRng
from services.games.common.engine import IllegalAction, ToMove, Visibility
from services.games.common.host import Determinization, GameDeclaration, Rng
from services.games.common.schema import GameSchema, OneOf
from services.games.la_isla.actions import AssignCards
from services.games.la_isla.events import FunctionsInserted
from services.games.la_isla.state import Phase
from services.rules.app import Decision, EngineHost
from tests.games.la_isla.builders import assigning, plain_cards

SOAK = bool(os.environ.get("SOAK"))
GAMES = [g for g in registry.GAMES if g in registry.available()]
HANDS = (plain_cards(6)[:3], plain_cards(6)[3:])
# Worlds the oracle plays the same move in (production plays fewer: see host.py).
ORACLE_WORLDS = 6


def _host(game: str) -> EngineHost:
    return EngineHost(registry.game(game))


def _decide(host: EngineHost, state: Any, seat: int, action: Any) -> Decision:
    return host.decide(host.encode(state), seat, action, judge_undo=True)


# ---------------------------------------------------------------- La Isla, issue 27 item 1


def test_the_last_assignment_reveals_every_seats_cards_so_it_cannot_be_taken_back():
    host = _host("la_isla")
    state = assigning(HANDS)
    first = _decide(host, state, 0, AssignCards(*HANDS[0], 0))
    assert first.undoable, "seat 0's assignment is its own secret: nothing is revealed yet"
    last = _decide(host, first.state, 1, AssignCards(*HANDS[1], 0))
    (inserted,) = [e for e, _, _ in last.events if isinstance(e, FunctionsInserted)]
    assert HANDS[0][0] in {i.card for i in inserted.insertions}, "the reveal names seat 0's A card"
    assert not last.undoable


def _secret_steps(seed: int) -> Iterator[tuple[Phase, Any, list[int]]]:
    """(phase, state, seats asked) at each of La Isla's secret simultaneous steps while
    at least two seats still owe their choice, through one seeded random 4-seat game with
    the full deck (whose income and animal functions give seats choices to make)."""
    engine = registry.game("la_isla").engine
    rng, chance = random.Random(seed), LocalChance(seed.to_bytes(32, "big"))
    state = engine.setup({"deck": "full"}, 4)
    while (turn := engine.to_move(state)).seats or turn.chance is not None:
        if turn.chance is not None:
            seat, move = CHANCE_SEAT, chance.resolve(turn.chance)
        else:
            if state.phase in (Phase.ASSIGN, Phase.INCOME, Phase.ANIMALS) and len(turn.seats) >= 2:
                yield state.phase, state, list(turn.seats)
            seat = turn.seats[rng.randrange(len(turn.seats))]
            legal = engine.legal_actions(state, seat)
            move = legal[rng.randrange(len(legal))]
        for event in engine.decide(state, seat, move):
            state = engine.evolve(state, event)


@pytest.mark.parametrize("phase", [Phase.ASSIGN, Phase.INCOME, Phase.ANIMALS])
def test_every_secret_step_is_undoable_until_the_choice_that_reveals_them_all(phase: Phase):
    host, engine = _host("la_isla"), registry.game("la_isla").engine
    rng = random.Random(7)
    found = [(state, asked) for seed in range(4) for seen, state, asked in _secret_steps(seed) if seen is phase]
    assert found, f"no {phase} step with two seats to choose in four games"
    for state, asked in found[:3]:
        # Every seat but the last chooses: a choice only its own seat sees, undoable.
        for seat in asked[:-1]:
            legal = engine.legal_actions(state, seat)
            decision = _decide(host, state, seat, legal[rng.randrange(len(legal))])
            assert decision.undoable, f"{phase}: seat {seat}'s secret choice is its own"
            state = decision.state
        # The last seat's choice reveals everyone's: final.
        last = asked[-1]
        legal = engine.legal_actions(state, last)
        decision = _decide(host, state, last, legal[rng.randrange(len(legal))])
        assert not decision.undoable, f"{phase}: the last choice revealed the others' and was called undoable"


def test_a_card_played_from_the_movers_own_hand_stays_undoable():
    host = _host("el_dorado")
    played = 0
    for state, seat, action in _decisions("el_dorado", 2, 3, every=1, limit=300):
        if type(action).__name__ != "PlayCard":
            continue
        decision = _decide(host, state, seat, action)
        shown = {type(e).__name__ for e, visibility, _ in decision.events if visibility.audience.name == "PUBLIC"}
        if "CardPlayed" in shown and decision.turn.chance is None:
            assert decision.undoable, "a card from the mover's own hand is the mover's own to show"
            played += 1
    assert played >= 5


def test_every_built_in_game_declares_the_determinizer_the_verdict_samples():
    for game in registry.GAMES:
        assert registry.declaration(game).determinize is not None, game


def test_the_verdict_is_the_same_on_every_replica():
    host = _host("la_isla")
    again = _host("la_isla")  # another process would decode its own copy
    state = assigning(HANDS)
    first = _decide(host, state, 0, AssignCards(*HANDS[0], 0))
    for action in registry.game("la_isla").engine.legal_actions(first.state, 1):
        data = host.encode(first.state)
        verdicts = [h.decide(data, 1, action, judge_undo=True).undoable for h in (host, again)]
        assert verdicts[0] == verdicts[1]


# ---------------------------------------------------------------- the worlds, on a two-way secret


@dataclass(frozen=True)
class Coins:
    """Each seat hides a coin (0 or 1) in turn; then seat 0 may peek at its own, or call,
    which shows seat 1's in public."""

    coins: tuple[int | None, int | None] = (None, None)
    called: bool = False


@dataclass(frozen=True)
class Hide:
    side: int


@dataclass(frozen=True)
class Call:
    pass


@dataclass(frozen=True)
class Show:
    pass


@dataclass(frozen=True)
class Hidden:
    seat: int
    side: int


@dataclass(frozen=True)
class Called:
    side: int  # seat 1's coin


@dataclass(frozen=True)
class Shown:
    side: int  # seat 0's own coin


@dataclass(frozen=True)
class CoinView:
    mine: int | None
    hidden: tuple[bool, bool]
    called: bool


def _coins_to_move(state: Coins) -> ToMove:
    if state.coins[0] is None:
        return ToMove((0,))
    if state.coins[1] is None:
        return ToMove((1,))
    return ToMove() if state.called else ToMove((0,))


def _coins_decide(state: Coins, seat: int, action: object) -> list[object]:
    match action:
        case Hide(side=side):
            return [Hidden(seat, side)]
        case Call():
            return [Called(state.coins[1] or 0)]
        case Show():
            return [Shown(state.coins[0] or 0)]
    raise IllegalAction("coins.unknown")


def _coins_evolve(state: Coins, event: object) -> Coins:
    match event:
        case Hidden(seat=seat, side=side):
            return Coins(tuple(side if i == seat else c for i, c in enumerate(state.coins)))  # type: ignore[arg-type]
        case Called():
            return Coins(state.coins, called=True)
    return state


def _coins_view(state: Coins, viewer: int | None) -> CoinView:
    mine = state.coins[viewer] if viewer is not None else None
    return CoinView(mine, (state.coins[0] is not None, state.coins[1] is not None), state.called)


def _coins_determinize(view: CoinView, seat: int, rng: Rng) -> Determinization[Coins]:
    """Seat 0's world: its own coin as it is, seat 1's either side."""
    other = rng.randrange(2) if view.hidden[1] else None
    return Determinization(Coins((view.mine, other), view.called), {})


COINS: GameDeclaration[Coins, object, object] = GameDeclaration(
    name="coins", min_seats=2, max_seats=2, options=(), setup=lambda config, seats: Coins(),
    to_move=_coins_to_move,
    legal_actions=lambda state, seat: (Hide(0), Hide(1)) if None in state.coins else (Call(), Show()),
    decide=_coins_decide, evolve=_coins_evolve,
    visibility=lambda event: Visibility.only(event.seat) if isinstance(event, Hidden) else Visibility.public(),
    redact=lambda event: None, view=_coins_view, result=lambda state: None, codec="",
    schema=GameSchema(
        game="coins", package="tabletop.testing.v1", action=OneOf("Action", Hide | Call | Show),
        event=OneOf("Event", Hidden | Called | Shown), view=CoinView, files={"coins": ("action", "event", "view")},
    ),
    state_types=(Coins,), determinize=_coins_determinize,
)


@pytest.mark.parametrize("side", [0, 1])
def test_a_two_way_secret_shown_in_public_is_caught_in_every_position(side: int):
    engine = COINS.engine
    hidden = Coins((1, side))
    called = [Called(side)]
    for seed in range(200):  # the state's bytes seed the worlds: every one of them must catch it
        assert engine.discloses((hidden, 0, Call()), (called, _coins_evolve(hidden, called[0])), b"%d" % seed)


def test_the_movers_own_secret_shown_in_public_is_its_own_to_take_back():
    engine = COINS.engine
    hidden = Coins((1, 0))
    for seed in range(50):
        assert not engine.discloses((hidden, 0, Show()), ([Shown(1)], hidden), b"%d" % seed)


def test_the_worlds_are_a_function_of_their_seed_and_their_rotations_pick_apart():
    def picks(seed: bytes, rotation: float) -> list[int]:
        rng = SeededRng(seed, rotation)
        return [rng.randrange(width) for width in range(2, 12)]

    assert picks(b"s", 0.0) == picks(b"s", 0.0) and picks(b"s", 0.0) != picks(b"t", 0.0)
    for seed in range(100):
        first, second = picks(b"%d" % seed, 0.0), picks(b"%d" % seed, 0.5)
        assert all(a != b for a, b in zip(first, second, strict=True)), "an antithetic pick matched"


def test_two_rotations_deal_disjoint_hands_from_one_shuffle():
    cards = [f"C{n}" for n in range(10)]
    for seed in range(100):
        one, two = list(cards), list(cards)
        SeededRng(b"%d" % seed, 0.0).shuffle(one)
        SeededRng(b"%d" % seed, 0.5).shuffle(two)
        assert sorted(one) == cards and not set(one[-5:]) & set(two[-5:])


# ---------------------------------------------------------------- the property, every game


def _decisions(game: str, seats: int, seed: int, every: int, limit: int) -> Iterator[tuple[Any, int, Any]]:
    """(state, seat, action) at every `every`-th player decision of one seeded random game."""
    engine = registry.game(game).engine
    rng, chance = random.Random(seed), LocalChance(seed.to_bytes(32, "big"))
    state = engine.setup({}, seats)
    decisions = 0
    while decisions < limit and ((turn := engine.to_move(state)).seats or turn.chance is not None):
        if turn.chance is not None:
            seat, move = CHANCE_SEAT, chance.resolve(turn.chance)
        else:
            seat = turn.seats[rng.randrange(len(turn.seats))]
            legal = engine.legal_actions(state, seat)
            move = legal[rng.randrange(len(legal))]
            if decisions % every == 0:
                yield state, seat, move
            decisions += 1
        for event in engine.decide(state, seat, move):
            state = engine.evolve(state, event)


def _differing(a: object, b: object, path: tuple[object, ...] = ()) -> set[tuple[object, ...]]:
    """The places (field names and indices) where two values of one view differ."""
    if a == b:
        return set()
    if is_dataclass(a) and type(a) is type(b):
        found: set[tuple[object, ...]] = set()
        for f in fields(a):
            found |= _differing(getattr(a, f.name), getattr(b, f.name), (*path, f.name))
        return found
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):
        return {p for i, (x, y) in enumerate(zip(a, b, strict=True)) for p in _differing(x, y, (*path, i))}
    return {path}


def _newly_told(before: set[tuple[object, ...]], after: set[tuple[object, ...]]) -> set[tuple[object, ...]]:
    """Places that tell two worlds apart after a move and did not before (nor any place around them)."""
    return {p for p in after if not any(p[: len(q)] == q for q in before)}


def check_discloses_nothing(
    game: str, seats: int, state: Any, seat: int, action: Any, decision: Decision, rng: random.Random
) -> None:
    """The oracle: in worlds the mover cannot tell from this one, the same move gives the
    same events and turn, the same views to the mover and to spectators, and no other
    seat a view that tells the worlds apart where its view before the move did not."""
    declared = registry.declaration(game)
    engine = declared.engine
    assert declared.determinize is not None
    real_events = [e for e, _, _ in decision.events]
    for _ in range(ORACLE_WORLDS):
        world = declared.determinize(engine.view(state, seat), seat, rng).state
        try:
            events = list(engine.decide(world, seat, action))
        except IllegalAction as refused:
            pytest.fail(f"{game}: the move was legal by the mover's view but refused ({refused.rule}) in another world")
        assert events == real_events, f"{game}: an undoable move's events depend on what seat {seat} could not see"
        after = world
        for event in events:
            after = engine.evolve(after, event)
        assert engine.to_move(after) == decision.turn
        for viewer in (seat, None):
            assert engine.view(after, viewer) == engine.view(decision.state, viewer), (
                f"{game}: after an undoable move, viewer {viewer} sees what seat {seat} could not before"
            )
        for other in range(seats):
            if other == seat:
                continue
            before = _differing(engine.view(state, other), engine.view(world, other))
            now = _differing(engine.view(decision.state, other), engine.view(after, other))
            assert not _newly_told(before, now), (
                f"{game}: an undoable move of seat {seat} told seat {other} what seat {seat} could not see"
            )


def _undoable_play(game: str, seats: int, seed: int, limit: int) -> int:
    """Random play of `game`, every undoable decision checked by the oracle; how many were."""
    host, rng = _host(game), random.Random(seed)
    checked = 0
    for state, seat, action in _decisions(game, seats, seed, every=1, limit=limit):
        decision = _decide(host, state, seat, action)
        if decision.undoable:
            check_discloses_nothing(game, seats, state, seat, action, decision, rng)
            checked += 1
    return checked


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=100 if SOAK else 2, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_no_undoable_decision_shows_any_seat_what_its_mover_could_not_see(game: str, data: st.DataObject):
    engine = registry.game(game).engine
    seats = data.draw(st.integers(min_value=max(2, engine.min_seats), max_value=engine.max_seats), label="seats")
    seed = data.draw(st.integers(min_value=0, max_value=2**31), label="seed")
    checked = _undoable_play(game, seats, seed, limit=1000 if SOAK else 120)
    assert checked, f"{game}: random play met no undoable decision, so nothing was checked"
