"""Quests, key items, M, casualties, looting, winning and the end of the game."""

from __future__ import annotations

import pytest

from services.games.common.engine import STOPPED_REASON, IllegalAction, Outcome
from services.games.discover import ENGINE
from services.games.discover import actions as a
from services.games.discover import events as ev
from services.games.discover import state as st
from services.games.discover.day import quest_cost
from services.games.discover.decide import advance, fold
from services.games.discover.rules import damage_events
from services.games.discover.state import Status
from services.games.discover.vocab import DamageType
from tests.games.discover.builders import (
    CAMP,
    NORTH,
    act,
    day,
    draw,
    enemy,
    game_events,
    landmark,
    reveal,
    roll,
    survivor,
)

HURT = (DamageType.PHYSICAL, DamageType.HUNGER, DamageType.THIRST)

ESCAPED = "the survivors left on the map escaped by the signal fire"


def _at_landmark_one(investigated: frozenset[int]) -> st.State:
    state = reveal(day(1, investigated=investigated), 1, 2)  # landmark 1
    return survivor(state, 0, space=landmark(state, 1))


def test_stage_one_completes_when_a_second_landmark_is_investigated() -> None:
    _, events = act(_at_landmark_one(frozenset({2})), 0, a.Investigate())
    assert game_events(events)[-2:] == [ev.StageCompleted(1), ev.StageBegan(2)]


def test_stage_one_needs_two_landmarks() -> None:
    _, events = act(_at_landmark_one(frozenset()), 0, a.Investigate())
    assert ev.StageCompleted(1) not in game_events(events)


def test_stage_two_wakes_the_watcher_and_unlocks_the_beacon() -> None:
    state = reveal(reveal(day(1, stage=2), 1, 11), 2, 9)  # landmarks 6 and 3
    state = survivor(state, 0, space=landmark(state, 6))
    _, events = act(state, 0, a.Investigate())
    assert game_events(events)[1:] == [
        ev.LandmarkInvestigated(0, 6),
        ev.CluesGained(2),
        ev.CardResolved(0, 6),
        ev.StageCompleted(2),
        ev.EnemySpawned("S1", 12, landmark(state, 3), True),
        ev.CardResolved(0, 25),
        ev.QuestActionUnlocked("beacon"),
        ev.CardResolved(0, 26),
        ev.StageBegan(3),
    ]


@pytest.mark.parametrize(("seats", "wood"), [(1, 1), (3, 3)])  # the beacon costs M wood
def test_m_is_the_number_of_players_who_started(seats: int, wood: int) -> None:
    state = day(seats)
    state = survivor(state, 0, status=Status.CASUALTY)  # casualties still count in M
    assert dict(quest_cost(state, "beacon"))["wood"] == wood


def _final_stage(seats: int = 1) -> st.State:
    state = reveal(day(seats, stage=3, unlocked=frozenset({"beacon"})), 1, 14)  # landmark 5
    return survivor(state, 0, space=landmark(state, 5), resources={"wood": 1 + seats, "salvage": 2, "stone": 1})


def test_the_beacon_card_action_places_the_key_item_and_completes_the_last_stage() -> None:
    state, events = act(_final_stage(), 0, a.UseQuestAction("beacon"))
    assert game_events(events)[-2:] == [ev.ItemPlaced(20, landmark(state, 5)), ev.StageCompleted(3)]


def test_a_card_action_away_from_its_landmark_is_refused() -> None:
    state = survivor(_final_stage(), 0, space=CAMP)
    with pytest.raises(IllegalAction) as refused:
        ENGINE.decide(state, 0, a.UseQuestAction("beacon"))
    assert refused.value.rule == "discover.day.card_action.place"


def test_survivors_on_the_final_objective_at_the_end_of_the_day_win_and_the_game_ends() -> None:
    state, _ = act(_final_stage(), 0, a.UseQuestAction("beacon"))
    state, events = act(state, 0, a.EndTurn())
    assert game_events(events)[-3:] == [ev.DayEnded(1), ev.SurvivorWon(0), ev.GameEnded(True, ESCAPED)]
    assert ENGINE.result(state) == Outcome((1,), (2,), ENGINE.result(state).detail, cooperative_win=True)  # type: ignore[union-attr]


def test_a_winner_leaves_the_map_and_the_others_play_on() -> None:
    state, _ = act(_final_stage(2), 0, a.UseQuestAction("beacon"))
    state, _ = act(state, 0, a.EndTurn())
    state, events = act(state, 1, a.EndTurn())
    assert [ev.SurvivorWon(0), ev.LeaderChanged(1)] == [
        e for e in events if isinstance(e, ev.SurvivorWon | ev.LeaderChanged)
    ]
    assert state.active() == (1,) and ENGINE.result(state) is None
    assert state.survivors[0].resources == {} and state.survivors[0].items == ()


def test_a_key_item_resolves_its_card_instead_of_the_one_drawn() -> None:
    state = survivor(day(1), 0, space=NORTH, items=(16,))
    state, _ = act(state, 0, a.Gather())
    state, _ = draw(state, "feature:tree", "tree-32")  # exploration card 13
    assert ENGINE.legal_actions(state, 0) == [a.UseKeyItem(16), a.DeclineKeyItem()]
    _, events = act(state, 0, a.UseKeyItem(16))  # card 6 instead, chosen before seeing it
    assert game_events(events) == [ev.CluesGained(2), ev.CardResolved(0, 6)]


def test_the_fourth_damage_makes_a_casualty() -> None:
    state = survivor(day(1), 0, damage=HURT)
    assert damage_events(state, 0, DamageType.PHYSICAL, 1) == [ev.SurvivorEliminated(0)]


def test_a_casualty_leader_passes_the_marker_to_the_left() -> None:
    state = survivor(day(3, leader=1), 1, damage=HURT)
    assert damage_events(state, 1, DamageType.HUNGER, 1) == [ev.SurvivorEliminated(1), ev.LeaderChanged(2)]


def test_a_casualty_loses_its_project_and_threat_cards_but_keeps_its_goods() -> None:
    state = survivor(day(2), 1, hand=(3,), ongoing=(("T11a", 2),), resources={"food": 2}, items=(2,))
    state = ENGINE.evolve(state, ev.SurvivorEliminated(1))
    body = state.survivors[1]
    assert (body.hand, body.ongoing, body.resources, body.items) == ((), (), {"food": 2}, (2,))
    assert state.turn_order == (0,)  # no more turns


def test_looting_takes_one_good_from_a_casualty_in_your_space() -> None:
    state = survivor(day(2), 1, status=Status.CASUALTY, resources={"food": 2}, items=(2,))
    assert [x for x in ENGINE.legal_actions(state, 0) if isinstance(x, a.Loot)] == [
        a.Loot(1, "food", 0),
        a.Loot(1, "", 2),
    ]
    _, events = act(state, 0, a.Loot(1, "", 2))
    assert events == [ev.StaminaChanged(0, 9), ev.GoodsTransferred(1, 0, "", 2)]


def test_the_game_ends_when_no_survivor_is_left_on_the_map() -> None:
    state = survivor(enemy(day(1), "X1", 1, CAMP), 0, damage=HURT)
    state = fold(state, advance(state))  # the boar attacks
    state, _ = act(state, 0, a.RollCombat())
    state, events = roll(state, 1, 12)
    state, events = act(state, 0, a.ResolveCombat())
    assert game_events(events)[:1] == [ev.SurvivorEliminated(0)]
    assert isinstance(events[-1], ev.GameEnded) and not events[-1].won
    outcome = ENGINE.result(state)
    assert outcome is not None and outcome.ranking == (1,) and outcome.scores == (0,)
    assert outcome.cooperative_win is False


def test_a_game_whose_last_survivor_falls_after_others_escaped_is_won_and_says_so() -> None:
    """Fin del juego: a survivor who escaped has won, whatever befalls the others after."""
    state = survivor(enemy(day(2), "X1", 1, CAMP), 1, status=Status.WON)
    state = survivor(state, 0, damage=HURT)
    state = fold(state, advance(state))  # the boar attacks the one left
    state, _ = act(state, 0, a.RollCombat())
    state, _ = roll(state, 1, 12)
    state, events = act(state, 0, a.ResolveCombat())
    assert game_events(events)[:1] == [ev.SurvivorEliminated(0)]
    assert events[-1] == ev.GameEnded(True, "some survivors escaped by the signal fire, the others fell")
    outcome = ENGINE.result(state)
    assert outcome is not None and outcome.cooperative_win is True and outcome.ranking == (2, 1)


def test_the_outcome_ranks_winners_first_then_survivors_on_the_map_then_casualties() -> None:
    """Fin del juego: winners won, casualties lost; the Outcome itself tells them apart."""
    state = day(4, phase=st.Phase.OVER, won=True)
    fates = (Status.CASUALTY, Status.WON, Status.ACTIVE, Status.WON)
    for seat, status in enumerate(fates):
        state = survivor(state, seat, status=status)
    outcome = ENGINE.result(state)
    assert outcome is not None
    assert outcome.ranking == (4, 1, 3, 1) and outcome.scores == (0, 2, 1, 2)
    assert outcome.cooperative_win is True
    assert [outcome.detail[f"seat_{s}"] for s in range(4)] == ["casualty", "won", "active", "won"]


def test_without_winners_the_survivors_left_on_the_map_rank_first() -> None:
    state = survivor(day(2, phase=st.Phase.OVER), 0, status=Status.CASUALTY)
    outcome = ENGINE.result(state)
    assert outcome is not None and outcome.ranking == (2, 1) and outcome.cooperative_win is False


def test_the_day_cap_stops_the_game_and_nobody_loses_by_it() -> None:
    """Fase nocturna: "Este proceso continúa hasta que cada superviviente haya ganado o perdido
    el juego": there is no day limit, so the safety cap stops the game without a verdict."""
    state = day(2, max_days=1, turn_order=(), agenda=(st.StartDay(),))
    events = advance(state)
    assert game_events(events) == [ev.GameEnded(False, STOPPED_REASON)]
    outcome = ENGINE.result(fold(state, events))
    assert outcome is not None
    assert outcome.detail["reason"] == "stopped_by_cap"
    assert outcome.ranking == (1, 1) and outcome.cooperative_win is None  # no loser, not a lost game
    assert [outcome.detail[f"seat_{s}"] for s in range(2)] == ["active", "active"]


def test_a_stopped_game_keeps_the_fates_the_rules_gave_and_ranks_no_one_below_a_stopped_survivor() -> None:
    """Fin del juego: a survivor who escaped has won and a casualty has lost, whatever the cap does
    later; a survivor the cap stopped shares the first place."""
    state = day(3, max_days=1, turn_order=(), agenda=(st.StartDay(),))
    state = survivor(survivor(state, 0, status=Status.WON), 2, status=Status.CASUALTY)
    state = fold(state, advance(state))
    outcome = ENGINE.result(state)
    assert outcome is not None and outcome.detail["reason"] == STOPPED_REASON
    assert outcome.ranking == (1, 1, 3) and outcome.scores == (2, 1, 0)
    assert outcome.cooperative_win is True


def test_by_default_the_day_cap_lies_far_beyond_any_game() -> None:
    assert ENGINE.setup({}, 2).max_days == 365


def test_a_key_item_may_be_declined() -> None:
    state = survivor(day(1), 0, space=NORTH, items=(16,))
    state, _ = act(state, 0, a.Gather())
    state, _ = draw(state, "feature:tree", "tree-32")
    with pytest.raises(IllegalAction) as refused:
        ENGINE.decide(state, 0, a.UseKeyItem(2))
    assert refused.value.rule == "discover.world.key_item"
    _, events = act(state, 0, a.DeclineKeyItem())
    assert game_events(events) == [ev.ResourceChanged(0, "wood", 2), ev.CardResolved(0, 13)]


def test_objective_icons_are_data_without_effect() -> None:
    from services.games.discover.content import load

    assert load("island-1").stages[3].objective_icons == (5,)
