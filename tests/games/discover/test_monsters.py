"""Monster tokens ("Fichas de monstruo"): spawning, movement, encounters."""

from __future__ import annotations

from dataclasses import replace

import pytest

from services.games.common.chance import DrawCards
from services.games.common.engine import IllegalAction
from services.games.discover import ENGINE, effects
from services.games.discover import actions as a
from services.games.discover import events as ev
from services.games.discover import state as st
from services.games.discover.decide import advance, fold
from services.games.discover.state import Source
from services.games.discover.vocab import Hex, MoveMonsters, Toward, Which
from tests.games.discover.builders import CAMP, NORTH, SOUTH, act, day, enemy, game_events, landmark, reveal, survivor


def _resolving(state: st.State, source: Source, key: str, seat: int = 0) -> tuple[st.State, list[ev.Event]]:
    """Run a card's effects from the agenda."""
    state = replace(state, agenda=(st.RunEffects(seat, source, key, 0, True),))
    events = advance(state)
    return fold(state, events), events


def _moving(state: st.State, steps: int, *movers: str) -> tuple[st.State, list[ev.Event]]:
    state = replace(state, agenda=(st.MoveMonsters(movers, steps, steps, -1, ()),))
    events = advance(state)
    return fold(state, events), events


def test_a_spawned_monster_is_face_down_and_the_leader_breaks_ties_of_place() -> None:
    state, events = _resolving(day(1), Source.THREAT, "T02a")  # spawn at the default place
    assert game_events(events) == []
    assert ENGINE.to_move(state).seats == (0,)  # six spaces tie at distance 1: the leader picks
    state, events = act(state, 0, a.ChooseSpace(NORTH))
    assert game_events(events) == [ev.EnemySpawned("X1", 0, NORTH, False), ev.CardDiscarded("threat", "T02a")]


def test_a_monster_spawned_off_the_map_is_not_spawned() -> None:
    _, events = _resolving(day(1), Source.EXPLORATION, "25")  # the Watcher at landmark 3, not revealed
    assert not [e for e in events if isinstance(e, ev.EnemySpawned)]


def test_a_monster_spawned_on_a_survivor_is_revealed_and_fought_at_once() -> None:
    state = reveal(day(1), 7, 9)  # tile 9 holds landmark 3, the Cave Mouth
    state = survivor(state, 0, space=landmark(state, 3))
    state, events = act(state, 0, a.Investigate())
    assert game_events(events)[-2:] == [
        ev.EnemySpawned("X1", 0, landmark(state, 3), False),
        ev.CombatStarted(0, "X1", ()),
    ]
    assert ENGINE.to_move(state).chance == DrawCards("monsters", 1, None)


def test_rulebook_example_the_nearest_monster_moves_two_spaces_and_stays_face_down() -> None:
    state = enemy(reveal(day(1), 2, 2), "X1", 0, Hex(0, 3))
    state, events = _resolving(state, Source.THREAT, "T01a")  # Scent of Prey: nearest monster, 2 toward you
    assert game_events(events) == [
        ev.MonsterMoved("X1", Hex(0, 2)),
        ev.MonsterMoved("X1", Hex(0, 1)),
        ev.CardDiscarded("threat", "T01a"),
    ]
    assert state.enemy("X1").number == 0 and state.combat is None


def test_a_monster_stops_when_it_enters_a_survivors_space() -> None:
    state = survivor(enemy(reveal(day(1), 2, 2), "X1", 0, Hex(0, 3)), 0, space=SOUTH)
    state, events = _moving(state, 3, "X1")
    assert game_events(events) == [
        ev.MonsterMoved("X1", Hex(0, 2)),
        ev.MonsterMoved("X1", SOUTH),
        ev.CombatStarted(0, "X1", ()),
    ]


def test_monsters_never_move_onto_unexplored_tiles() -> None:
    state = enemy(reveal(day(1), 8, 8), "X1", 0, Hex(1, 3))  # an island of revealed tiles
    _, events = _moving(state, 2, "X1")
    assert game_events(events) == []


def test_the_leader_decides_where_a_monster_goes_when_paths_tie() -> None:
    state = enemy(reveal(day(2, leader=1), 1, 1), "X1", 0, Hex(2, 1))
    state, _ = _moving(state, 1, "X1")
    assert ENGINE.to_move(state).seats == (1,)
    assert ENGINE.legal_actions(state, 1) == [a.ChooseSpace(Hex(1, 1)), a.ChooseSpace(Hex(2, 0))]
    _, events = act(state, 1, a.ChooseSpace(Hex(2, 0)))
    assert game_events(events) == [ev.MonsterMoved("X1", Hex(2, 0))]


def _special_and_normal() -> st.State:
    state = enemy(enemy(day(1), "S1", 12, NORTH, special=True), "X2", 0, Hex(-1, 1))
    return survivor(state, 0, space=SOUTH)


def test_special_monsters_do_not_move_with_threat_cards() -> None:
    """Fichas especiales de monstruo: "no se mueven con cartas nocturnas o cartas de amenaza"."""
    _, events = _resolving(_special_and_normal(), Source.THREAT, "T03a")  # On the Move: all monsters 1 step
    assert [e for e in events if isinstance(e, ev.MonsterMoved)] == [ev.MonsterMoved("X2", SOUTH)]


def test_special_monsters_do_not_move_with_night_cards() -> None:
    state = survivor(_special_and_normal(), 0, resources={})  # nothing to eat: no upkeep choice to wait for
    _, events = _resolving(state, Source.NIGHT, "N04")  # Distant Howls: all monsters 1 step
    assert [e for e in events if isinstance(e, ev.MonsterMoved)] == [ev.MonsterMoved("X2", SOUTH)]


@pytest.mark.parametrize("source", [Source.EXPLORATION, Source.ITEM, Source.QUEST_ACTION, Source.STAGE])
def test_special_monsters_move_with_every_other_movement_effect(
    monkeypatch: pytest.MonkeyPatch, source: Source
) -> None:
    """Otherwise "siguen todas las demás reglas para monstruos": other cards move them."""
    move_all = (MoveMonsters(1, Which.ALL, Toward.NEAREST_SURVIVOR),)
    monkeypatch.setattr(effects, "card_effects", lambda state, step: move_all)
    _, events = _resolving(_special_and_normal(), source, "1")
    assert [e for e in events if isinstance(e, ev.MonsterMoved)] == [
        ev.MonsterMoved("S1", CAMP),
        ev.MonsterMoved("X2", SOUTH),
    ]


def test_all_monsters_move_before_any_combat_and_the_survivor_picks_which_to_fight() -> None:
    state = enemy(enemy(day(1), "X1", 0, NORTH), "X2", 0, SOUTH)
    state, events = _moving(state, 1, "X1", "X2")
    assert game_events(events) == [ev.MonsterMoved("X1", CAMP), ev.MonsterMoved("X2", CAMP)]
    assert ENGINE.legal_actions(state, 0) == [a.ChooseEnemy("X1"), a.ChooseEnemy("X2")]
    _, events = act(state, 0, a.ChooseEnemy("X2"))
    assert events == [ev.CombatStarted(0, "X2", ())]


def test_the_survivors_in_a_shared_space_agree_who_fights_a_monster() -> None:
    """Mover fichas de monstruo: "los supervivientes en ese espacio deben acordar cuál de ellos luchará"."""
    state = survivor(enemy(day(3, leader=2), "X1", 0, NORTH), 2, space=SOUTH)
    state, _ = _moving(state, 1, "X1")
    assert ENGINE.to_move(state).seats == (0, 1)  # both survivors at the camp are asked, at once
    assert ENGINE.legal_actions(state, 1) == [a.ChooseFighter(0), a.ChooseFighter(1)]
    state, events = act(state, 1, a.ChooseFighter(1))
    assert events == [ev.FighterVoted(1, 1)]
    assert ENGINE.to_move(state).seats == (0,)
    with pytest.raises(IllegalAction) as refused:
        ENGINE.decide(state, 0, a.ChooseFighter(2))  # seat 2 is not in that space
    assert refused.value.rule == "discover.monsters.fighter_vote"
    _, events = act(state, 0, a.ChooseFighter(1))
    assert events == [ev.FighterVoted(0, 1), ev.FighterChosen(1), ev.CombatStarted(1, "X1", (2, 0))]


def test_the_leader_decides_who_fights_when_the_survivors_do_not_agree() -> None:
    """Mover fichas de monstruo: "Si ... no pueden ponerse de acuerdo, el líder de la tribu decide"."""
    state = survivor(enemy(day(3, leader=2), "X1", 0, NORTH), 2, space=SOUTH)
    state, _ = _moving(state, 1, "X1")
    state, _ = act(state, 0, a.ChooseFighter(1))
    state, events = act(state, 1, a.ChooseFighter(0))
    assert events == [ev.FighterVoted(1, 0)]
    assert ENGINE.to_move(state).seats == (2,)
    assert ENGINE.legal_actions(state, 2) == [a.ChooseFighter(0), a.ChooseFighter(1)]
    _, events = act(state, 2, a.ChooseFighter(0))
    assert events == [ev.FighterChosen(0), ev.CombatStarted(0, "X1", (1, 2))]


def test_moving_into_a_monster_fights_it_before_the_free_gather() -> None:
    state = enemy(day(1), "X1", 0, NORTH)
    state, events = act(state, 0, a.Move(NORTH))
    assert game_events(events) == [ev.StaminaChanged(0, 11), ev.SurvivorMoved(0, NORTH), ev.CombatStarted(0, "X1", ())]
    assert isinstance(state.agenda[0], st.FreeGather)  # still owed after the combat
    assert ENGINE.to_move(state).chance == DrawCards("monsters", 1, None)


def test_encounters_resolve_from_the_acting_survivor_clockwise() -> None:
    state = enemy(enemy(day(2, turn_order=(1, 0)), "X1", 4, NORTH), "X2", 4, SOUTH)
    state = survivor(survivor(state, 0, space=NORTH), 1, space=SOUTH)
    events = advance(state)
    assert events == [ev.CombatStarted(1, "X2", (0,))]
