"""La Isla's determinize: consistent with the seat's view, blind to what the seat cannot see."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from bots.strategies.la_isla import evaluate
from services.games.la_isla import GAME
from services.games.la_isla.state import State
from tests.bots.determinize_props import check_consistent, decision_points

CASES = [({}, 2, 21), ({"deck": "full"}, 3, 22), ({"deck": "full"}, 4, 23)]



@pytest.mark.parametrize(("config", "seats", "seed"), CASES)
def test_determinizations_match_the_view_and_the_legal_actions(config: dict[str, str], seats: int, seed: int) -> None:
    rng = random.Random(seed)
    checked = 0
    for state, seat in decision_points(GAME, config, seats, seed, every=7):
        sampled = check_consistent(GAME, state, seat, rng, _piles)
        assert sampled.pile_size == state.pile_size
        checked += 1
        if checked == 30:
            break
    assert checked >= 10


def _piles(state: State) -> dict[str, Counter[str]]:
    return {state.pile: Counter(_pile_cards(state))} if state.pile else {}


def _pile_cards(state: State) -> list[str]:
    """What the draw pile must hold: the deck less every card elsewhere in the state."""
    from services.games.la_isla.setup import deck_cards

    left = Counter(deck_cards(state.deck))
    left.subtract(state.discard)
    for p in state.players:
        left.subtract(c for stack in p.slots for c in stack)
        left.subtract(p.hand)
        if p.assignment is not None:
            cards = (p.assignment.a, p.assignment.b, p.assignment.d)
            left.subtract(cards[3 - {"assign": 3, "income": 2}.get(state.phase.value, 1):])
    return list(left.elements())


def test_other_hands_are_sampled_not_read() -> None:
    for state, seat in decision_points(GAME, {"deck": "full"}, 3, 9, every=5):
        other = (seat + 1) % 3
        if len(state.players[other].hand) < 2:
            continue
        assert GAME.determinize is not None
        hands = {GAME.determinize(GAME.view(state, seat), seat, random.Random(i)).state.players[other].hand
                 for i in range(20)}
        assert len(hands) > 1
        return
    pytest.fail("no position with a hidden hand")


def test_evaluate_follows_the_score() -> None:
    from dataclasses import replace

    state, _ = next(decision_points(GAME, {}, 2, 4, every=1))
    ahead = replace(state, players=(replace(state.players[0], score=state.players[0].score + 10), state.players[1]))
    assert 0.0 < evaluate(state, 0) < evaluate(ahead, 0) < 1.0
    assert evaluate(ahead, 1) < evaluate(state, 1)
