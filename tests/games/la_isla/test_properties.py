"""Random games: they end, keep every invariant, replay, and keep secrets (hypothesis)."""

from __future__ import annotations

import os
import random
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.dice.playout import LocalChance, play
from services.games.common.chance import CHANCE_SEAT
from services.games.common.engine import IllegalAction, replay
from services.games.la_isla import ENGINE
from services.games.la_isla.actions import (
    AdvanceMarkers,
    AssignCards,
    ChooseMarker,
    ChooseResource,
    CollectIncome,
    DeclineMarker,
    MoveExplorer,
    PlaceExplorer,
    TakeResource,
)
from services.games.la_isla.content import ANIMALS, COLOURS
from services.games.la_isla.state import State
from tests.games.la_isla.invariants import check, secrets_of, strings

TABLES = [(seats, deck) for seats in (2, 3, 4) for deck in ("beginner", "full")]
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
QUICK = settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize(("seats", "deck"), TABLES)
@QUICK
@given(seed=SEEDS)
def test_random_games_end_keep_invariants_and_replay(seats, deck, seed):
    game = play(ENGINE, {"deck": deck}, seats, seed, check=check)
    assert game.outcome is not None and len(game.outcome.ranking) == seats
    assert replay(ENGINE, game.initial, game.events) == game.state


def random_action(rng: random.Random, state: State, seat: int) -> Any:
    """A random, usually illegal, action built from plausible pieces."""
    cards = sorted(strings(state.players)) or ["P001"]
    colours = tuple(rng.choice(COLOURS) for _ in range(rng.randrange(3)))
    animals = tuple(rng.choice(ANIMALS) for _ in range(rng.randrange(3)))
    space, other = rng.randrange(-1, 42), rng.randrange(-1, 42)
    return rng.choice(
        [
            AssignCards(rng.choice(cards), rng.choice(cards), rng.choice(cards), rng.randrange(-1, 5)),
            CollectIncome(colours, animals),
            PlaceExplorer(space, colours),
            MoveExplorer(other, space, colours),
            TakeResource(rng.choice(COLOURS)),
            ChooseResource(rng.choice(COLOURS)),
            ChooseMarker(rng.choice(ANIMALS)),
            DeclineMarker(),
            AdvanceMarkers(rng.randrange(-1, 4)),
        ]
    )


def _views_keep_secrets(state: State) -> None:
    for viewer in (None, *range(state.seats)):
        seen = strings(ENGINE.view(state, viewer))
        for other in range(state.seats):
            if other != viewer:
                assert not seen & secrets_of(state, other), f"seat {viewer} sees secrets of {other}"


def _step_checks(rng: random.Random, state: State, seat: int, legal: list[Any]) -> None:
    for action in rng.sample(legal, min(3, len(legal))):
        ENGINE.decide(state, seat, action)  # every legal action is accepted
    for _ in range(3):
        actor = rng.choice([seat, (seat + 1) % state.seats])
        action = random_action(rng, state, actor)
        # In a simultaneous step the other seat may be asked too: judge by its own list.
        if action in (legal if actor == seat else ENGINE.legal_actions(state, actor)):
            continue
        with pytest.raises(IllegalAction):
            ENGINE.decide(state, actor, action)
    _views_keep_secrets(state)


def _apply_checking_secrets(state: State, events: list[Any]) -> State:
    """Evolve event by event; what each viewer is shown never holds another seat's secret."""
    for event in events:
        state = ENGINE.evolve(state, event)
        visibility = ENGINE.visibility(event)
        for viewer in (None, *range(state.seats)):
            shown = event if visibility.admits(viewer) else ENGINE.redact(event)
            for other in range(state.seats):
                if other != viewer:
                    assert not strings(shown) & secrets_of(state, other), f"{viewer} learns {other}: {event}"
    return state


@pytest.mark.parametrize("seats", [2, 3, 4])
@settings(max_examples=3, deadline=None)
@given(seed=SEEDS)
def test_legal_actions_are_accepted_illegal_refused_and_secrets_kept(seats, seed):
    rng = random.Random(seed)
    chance = LocalChance(seed.to_bytes(32, "big"))
    state = ENGINE.setup({"deck": rng.choice(["beginner", "full"])}, seats)
    while (turn := ENGINE.to_move(state)).seats or turn.chance:
        if turn.chance is not None:
            seat, action = CHANCE_SEAT, chance.resolve(turn.chance)
        else:
            seat = rng.choice(turn.seats)
            legal = list(ENGINE.legal_actions(state, seat))
            _step_checks(rng, state, seat, legal)
            action = rng.choice(legal)
        state = _apply_checking_secrets(state, list(ENGINE.decide(state, seat, action)))
    assert ENGINE.result(state) is not None


def test_refused_actions_change_nothing():
    game = play(ENGINE, {}, 2, 11)
    state = game.initial
    for event in game.events[:40]:
        state = ENGINE.evolve(state, event)
    frozen = replace(state)
    for seat in range(2):
        with pytest.raises(IllegalAction):
            ENGINE.decide(state, seat, PlaceExplorer(99, ()))
    assert state == frozen


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("SOAK"), reason="soak runs only with SOAK set (make soak)")
@pytest.mark.parametrize(("seats", "deck"), TABLES)
def test_soak_thousands_of_random_games(seats, deck):
    games = 500 * int(os.environ.get("SOAK", "1"))  # 3,000 games per SOAK unit over the six tables
    for seed in range(games):
        game = play(ENGINE, {"deck": deck}, seats, seed, check=check)
        assert game.outcome is not None, seed
