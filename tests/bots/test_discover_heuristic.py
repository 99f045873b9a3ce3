"""Discover's search heuristic: every step of the quest scores a little more than the one before."""

from __future__ import annotations

from dataclasses import replace

from bots.strategies.discover_heuristic import _costs_to, evaluate
from services.games.discover.board import board, neighbours
from services.games.discover.content import load
from services.games.discover.state import Combat, CombatStage, RunEffects, Source, State, Status
from services.games.discover.vocab import Damage, DamageType
from tests.games.discover.builders import CAMP, SOUTH, day, enemy, landmark, reveal, survivor

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


def test_a_fight_under_way_counts_its_expected_damage() -> None:
    """A search stopping where a fight starts must not score the fight as free: the harder the
    enemy hits, the worse; a rolled red die below its attack is no damage at all."""
    content = load("island-1")
    plain = [e for e in content.enemies.values() if not e.lethal]
    hard = max(plain, key=lambda e: (e.attack is not None, -(e.attack or 13)))
    mild = min(plain, key=lambda e: (e.attack is not None, -(e.attack or 13)))
    assert hard.attack is not None and (mild.attack is None or mild.attack > hard.attack)
    state = _open(day(1))

    def fighting(spec_number: int, stage: CombatStage, red: int = 0) -> State:
        there = enemy(state, "X9", spec_number, SOUTH)
        fight = Combat(0, "X9", stage, (), (), 0, red, 0, 0, (), "")
        return replace(survivor(there, 0, space=SOUTH), combat=fight)

    calm = survivor(state, 0, space=SOUTH)
    assert evaluate(fighting(hard.number, CombatStage.READY), 0) < evaluate(fighting(mild.number, CombatStage.READY), 0)
    assert evaluate(fighting(hard.number, CombatStage.READY), 0) < evaluate(calm, 0)
    missed = fighting(hard.number, CombatStage.MODIFY, red=hard.attack - 1)
    struck = fighting(hard.number, CombatStage.MODIFY, red=hard.attack)
    assert evaluate(struck, 0) < evaluate(fighting(hard.number, CombatStage.READY), 0) < evaluate(missed, 0)


def test_ending_the_day_away_from_a_fire_risks_the_nights_exposure() -> None:
    """Out at landmark 5 with the stamina to walk back, the night's exposure is not counted yet
    while the survivor may still act; once its turn is over, it is."""
    state = _open(day(1))
    out = survivor(state, 0, space=landmark(state, 5), stamina=12)
    done_for_the_day = replace(out, turn_order=())
    assert evaluate(done_for_the_day, 0) < evaluate(out, 0)
    back_home = replace(survivor(state, 0, stamina=12), turn_order=())
    assert evaluate(replace(back_home, turn_order=(0,)), 0) == evaluate(back_home, 0)


def test_paying_an_upkeep_beats_suffering_it_and_a_held_cure_is_spent_to_heal() -> None:
    state = _open(day(1))
    held = dict(state.survivors[0].resources)
    assert held.get("food", 0) >= 1
    paid = survivor(state, 0, resources={**held, "food": held["food"] - 1})
    suffered = survivor(state, 0, damage=(DamageType.HUNGER,))
    assert evaluate(suffered, 0) < evaluate(paid, 0)
    # Healing the hunger with the food held (Recover) is the same position as having paid.
    assert paid.survivors[0].damage == () and suffered.survivors[0].resources == held


def test_a_thirsty_survivor_without_water_scores_a_step_toward_a_water_source() -> None:
    state = _open(day(1))
    dry = {r: n for r, n in state.survivors[0].resources.items() if r != "clean_water"}
    spaces = board(state).spaces
    sources = frozenset(h for h, s in spaces.items() if s.water == "clean")
    assert sources
    costs = _costs_to(state.scenario, tuple(sorted(state.tiles.items())), sources)
    start = max((h for h in costs if costs[h] <= 8), key=lambda h: costs[h])
    step = min((n for n in neighbours(start) if n in costs), key=lambda n: costs[n])
    thirsty = survivor(state, 0, resources=dry, damage=(DamageType.THIRST,), space=start)
    assert evaluate(thirsty, 0) < evaluate(survivor(thirsty, 0, space=step), 0)
