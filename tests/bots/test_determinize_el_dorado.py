"""El Dorado's determinize: consistent with the seat's view, blind to what the seat cannot see."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest

from bots.strategies.el_dorado import evaluate
from services.games.el_dorado import GAME
from services.games.el_dorado.board import board
from services.games.el_dorado.flow import CAVES_PILE, draw_pile
from services.games.el_dorado.state import State, occupied, with_player
from tests.bots.determinize_props import check_consistent, decision_points

CASES = [({}, 2, 11), ({}, 4, 12), ({"course": "witchs_cauldron", "caves": "true"}, 3, 13)]




@pytest.mark.parametrize(("config", "seats", "seed"), CASES)
def test_determinizations_match_the_view_and_the_legal_actions(config: dict[str, str], seats: int, seed: int) -> None:
    rng = random.Random(seed)
    checked = 0
    for state, seat in decision_points(GAME, config, seats, seed, every=37):
        sampled = check_consistent(GAME, state, seat, rng, _sizes)
        assert sampled.players[seat].hand == state.players[seat].hand
        checked += 1
        if checked == 25:
            break
    assert checked >= 10


def _sizes(sampled: State) -> dict[str, Counter[str]]:
    piles = {draw_pile(s): Counter(p.draw) for s, p in enumerate(sampled.players)}
    if sampled.caves:
        piles[CAVES_PILE] = Counter(_cave_pile_of(sampled))
    return piles


def _cave_pile_of(state: State) -> list[str]:
    from services.games.el_dorado import content

    left = Counter(content.token_pile())
    left.subtract(t for p in state.players for t in p.tokens)
    return list(left.elements())


def test_other_hands_are_sampled_not_read() -> None:
    """Two determinizations of one view differ in the other seat's hand: the real one is never copied."""
    for state, seat in decision_points(GAME, {}, 2, 5, every=50):
        other = 1 - seat
        if len(set(state.players[other].hand + state.players[other].draw)) < 3 or not state.players[other].hand:
            continue
        assert GAME.determinize is not None
        hands = {GAME.determinize(GAME.view(state, seat), seat, random.Random(i)).state.players[other].hand
                 for i in range(20)}
        assert len(hands) > 1
        return
    pytest.fail("no position with a varied hidden hand")


def test_evaluate_prefers_progress() -> None:
    """The same position with one of the seat's pieces nearer El Dorado is worth more to it, less to its rival."""
    state, _ = next(decision_points(GAME, {}, 2, 3, every=1))
    b = board(state.course)
    here = state.players[0].pieces[0]
    assert here is not None
    ahead = min((h for h, d in b.distance.items() if 0 < d < b.distance[here] - 3 and h not in occupied(state)),
                key=lambda h: -b.distance[h])
    pieces = (ahead, *state.players[0].pieces[1:])
    moved = with_player(state, 0, replace(state.players[0], pieces=pieces))
    assert 0.0 < evaluate(state, 0) < evaluate(moved, 0) < 1.0
    assert evaluate(moved, 1) < evaluate(state, 1)
