"""Discover's search heuristic: every step of the quest scores a little more than the one before."""

from __future__ import annotations

from dataclasses import replace

from services.games.discover.board import neighbours
from services.games.discover.content import load
from services.games.discover.heuristic import _costs_to, evaluate
from services.games.discover.state import RunEffects, Source, State, Status
from services.games.discover.vocab import Damage, DamageType
from tests.games.discover.builders import CAMP, day, landmark, reveal, survivor

# Slots and tiles (content/island-1.json): tile 11 holds landmark 6, tile 14 landmark 5, both group B.
LANDMARK_6_TILE, LANDMARK_5_TILE = 11, 14


def _toward(state: State, seat: int, goal: int) -> State:
    """Seat one step nearer landmark `goal` (by the printed terrain costs)."""
    costs = _costs_to(state.scenario, tuple(sorted(state.tiles.items())), frozenset({landmark(state, goal)}))
    here = state.survivors[seat].space
    step = min((n for n in neighbours(here) if n in costs), key=lambda n: costs[n])
    assert costs[step] < costs[here]
    return survivor(state, seat, space=step)


def _open(state: State) -> State:
    """The start tile, the A ring and slots 7 and 8 with landmarks 6 and 5 face up."""
    for slot, tile in zip(range(1, 7), (1, 2, 3, 4, 5, 6), strict=True):
        state = reveal(state, slot, tile)
    return reveal(reveal(state, 7, LANDMARK_6_TILE), 8, LANDMARK_5_TILE)


def test_exploring_scores_while_the_landmark_needed_is_face_down() -> None:
    state = day(2, stage=2, stages_done=1, investigated=frozenset({1, 2}))
    more = reveal(state, 1, 1)
    assert evaluate(state, 0) < evaluate(more, 0)


def test_a_step_toward_the_landmark_needed_scores() -> None:
    state = _open(day(2, stage=2, stages_done=1, investigated=frozenset({1, 2})))
    assert evaluate(state, 0) < evaluate(_toward(state, 0, 6), 0)
    there = survivor(state, 0, space=landmark(state, 6))
    assert evaluate(_toward(state, 0, 6), 0) < evaluate(there, 0)


def test_the_beacon_materials_pooled_then_carried_to_landmark_5_then_lit() -> None:
    state = _open(day(2, stage=3, stages_done=2, unlocked=frozenset({"beacon"})))
    held = state.survivors[0].resources  # the starting food and water, the same for both
    cost = {**held, "wood": 2, "salvage": 1, "stone": 1}
    split = survivor(survivor(state, 0, resources={**held, "wood": 2}), 1, resources={**held, "salvage": 1, "stone": 1})
    pooled = survivor(state, 0, resources=cost)
    assert evaluate(state, 0) < evaluate(split, 0) < evaluate(pooled, 0)
    nearer = _toward(pooled, 0, 5)
    at_beacon = survivor(pooled, 0, space=landmark(state, 5))
    assert evaluate(pooled, 0) < evaluate(nearer, 0) < evaluate(at_beacon, 0)
    lit = replace(at_beacon, stage_complete=True, stages_done=3, placed={20: landmark(state, 5)})
    lit = survivor(lit, 0, resources=held)
    away = survivor(lit, 0, space=CAMP)
    assert evaluate(at_beacon, 0) < evaluate(away, 0) < evaluate(lit, 0) < 1.0
    escaped = survivor(lit, 0, status=Status.WON)
    assert evaluate(escaped, 0) == 1.0


def test_a_survivor_hurt_by_exposure_scores_a_lit_fire_within_reach() -> None:
    state = _open(day(1))
    cold = survivor(state, 0, damage=(DamageType.EXPOSURE,))
    out = replace(cold, fires={**cold.fires, CAMP: False})
    assert state.fires.get(CAMP)
    assert evaluate(out, 0) < evaluate(cold, 0) < evaluate(state, 0)


def test_the_exposure_a_night_card_is_about_to_deal_counts_for_survivors_away_from_a_fire() -> None:
    state = _open(day(2))
    away = survivor(state, 1, space=landmark(state, 5))
    key, cold_snap = next((k, c) for k, c in load(state.scenario).night.items() if c.name == "Cold Snap")
    index = next(i for i, e in enumerate(cold_snap.effects) if isinstance(e, Damage))
    step = RunEffects(0, Source.NIGHT, key, index, False)
    assert evaluate(replace(state, agenda=(step,)), 0) == evaluate(state, 0)  # both at the camp fire
    assert evaluate(replace(away, agenda=(step,)), 0) < evaluate(away, 0)


def test_investigating_the_landmark_needed_beats_standing_on_it() -> None:
    state = _open(day(1, stage=2, stages_done=1, investigated=frozenset({1, 2})))
    there = survivor(state, 0, space=landmark(state, 6))
    done = replace(there, stage=3, stages_done=2, investigated=frozenset({1, 2, 6}), unlocked=frozenset({"beacon"}))
    assert evaluate(state, 0) < evaluate(there, 0) < evaluate(done, 0)
    assert evaluate(done, 0) - evaluate(there, 0) > evaluate(there, 0) - evaluate(state, 0)
