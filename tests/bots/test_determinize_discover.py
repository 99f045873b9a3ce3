"""Discover's determinize: consistent with the seat's view, blind to what the seat cannot see."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from bots.strategies.discover_heuristic import evaluate
from services.games.common.host import Determinization
from services.games.discover import GAME
from services.games.discover.content import load
from services.games.discover.setup import card_id
from services.games.discover.state import State, Status
from services.games.discover.vocab import DamageType
from tests.bots.determinize_props import decision_points

# Whole random games, every decision checked: draft, day turns, trades, combats, fighter votes, nights.
CASES = [({}, 1, 31), ({}, 2, 32), ({}, 3, 33), ({}, 4, 34), ({}, 4, 36), ({}, 3, 37), ({"characters": "3,7"}, 2, 35)]


def _determinize(state: State, seat: int, rng: random.Random) -> Determinization[State]:
    assert GAME.determinize is not None
    return GAME.determinize(GAME.view(state, seat), seat, rng)


@pytest.mark.parametrize(("config", "seats", "seed"), CASES)
def test_determinizations_match_the_view_and_the_legal_actions(config: dict[str, str], seats: int, seed: int) -> None:
    engine = GAME.engine
    rng = random.Random(seed)
    checked = 0
    for state, seat in decision_points(GAME, config, seats, seed, every=1):
        det = _determinize(state, seat, rng)
        assert engine.view(det.state, seat) == engine.view(state, seat)
        assert list(engine.legal_actions(det.state, seat)) == list(engine.legal_actions(state, seat))
        assert engine.to_move(det.state) == engine.to_move(state)
        _check_piles(state, det)
        checked += 1
    assert checked >= 20


def _check_piles(state: State, det: Determinization[State]) -> None:
    """Every pile of the state is there, with its size, holding only cards that are nowhere on the table."""
    content = load(state.scenario)
    assert set(det.piles) == set(state.piles)
    for name, cards in det.piles.items():
        assert len(cards) == state.piles[name], name
        assert len(set(cards)) == len(cards), name
    shown_tiles = {card_id("L", n) for n in state.tiles.values()}
    for name, cards in det.piles.items():
        if name.startswith("tiles:"):
            group = name.split(":")[1]
            assert set(cards) == {card_id("L", n) for n, t in content.tiles.items() if t.group == group} - shown_tiles
    held = {p for s in det.state.survivors for p in s.hand} | set(state.table)
    assert not {int(c[1:]) for c in det.piles.get("projects", [])} & held
    gone = set(state.threat_discard) | {c for s in state.survivors for c, _ in s.ongoing}
    assert not set(det.piles.get(state.threat_pile, [])) & gone
    assert not set(det.piles.get(state.night_pile, [])) & set(state.night_discard)
    if "exploration" in det.piles:
        assert list(det.piles["exploration"]) == [card_id("E", n) for n in sorted(content.exploration)]


def test_other_hands_are_sampled_not_read() -> None:
    for state, seat in decision_points(GAME, {}, 2, 9, every=3):
        other = 1 - seat
        if not state.survivors[other].hand:
            continue
        hands = {_determinize(state, seat, random.Random(i)).state.survivors[other].hand for i in range(20)}
        assert len(hands) > 1
        return
    pytest.fail("no position with another seat's hand")


def test_the_bot_input_ignores_what_the_seat_cannot_see() -> None:
    """States differing only in another seat's hand determinize identically for this seat."""
    for state, seat in decision_points(GAME, {}, 2, 12, every=3):
        other = state.survivors[1 - seat]
        if not other.hand:
            continue
        unseen = [n for n in load(state.scenario).projects if n not in other.hand and n not in state.table]
        swapped = state.with_survivor(replace(other, hand=tuple(unseen[: len(other.hand)])))
        a = _determinize(state, seat, random.Random(5))
        b = _determinize(swapped, seat, random.Random(5))
        assert a == b
        return
    pytest.fail("no position with another seat's hand")


def test_evaluate_prefers_a_healthier_team_further_in_the_quest() -> None:
    state, _ = next(decision_points(GAME, {}, 2, 4, every=1))
    first = state.survivors[0]
    hurt = state.with_survivor(replace(first, damage=(*first.damage, DamageType.PHYSICAL)))
    fallen = state.with_survivor(replace(first, status=Status.CASUALTY))
    ahead = replace(state, stages_done=state.stages_done + 1)
    base = evaluate(state, 0)
    assert 0.0 < evaluate(fallen, 0) < evaluate(hurt, 0) < base < evaluate(ahead, 0) < 1.0
    assert evaluate(state, 1) == base


def test_evaluate_rewards_steps_toward_the_current_stage() -> None:
    """Landmarks investigated toward stage 1, then the beacon's materials held by one survivor."""
    state, _ = next(decision_points(GAME, {}, 2, 4, every=1))
    state = replace(state, stage=1, stage_complete=False, investigated=frozenset())
    one = replace(state, investigated=frozenset({1}))
    assert evaluate(state, 0) < evaluate(one, 0)
    beacon = replace(state, stage=3, stages_done=2, unlocked=frozenset({"beacon"}))
    first = beacon.survivors[0]
    stocked = beacon.with_survivor(replace(first, resources={**first.resources, "wood": 3, "stone": 1}))
    split = beacon.with_survivor(replace(first, resources={**first.resources, "wood": 1}))
    assert evaluate(beacon, 0) < evaluate(split, 0) < evaluate(stocked, 0)
