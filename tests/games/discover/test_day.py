"""The day phase and its actions: one test per rule."""

from __future__ import annotations

import pytest

from services.games.common.chance import DrawCards
from services.games.common.engine import IllegalAction
from services.games.discover import ENGINE
from services.games.discover import actions as a
from services.games.discover import events as ev
from services.games.discover import state as st
from services.games.discover.decide import advance
from services.games.discover.rules import stamina_events
from services.games.discover.vocab import DamageType, Hex
from tests.games.discover.builders import (
    CAMP,
    NORTH,
    NORTH_EAST,
    act,
    day,
    draw,
    game_events,
    landmark,
    reveal,
    survivor,
)


def refused(state: st.State, seat: int, action: a.Action) -> str:
    with pytest.raises(IllegalAction) as error:
        ENGINE.decide(state, seat, action)
    return error.value.rule


def test_turns_start_with_the_leader_and_go_clockwise() -> None:
    state = day(3, leader=2, day=0, turn_order=(), agenda=(st.StartDay(),))
    assert game_events(advance(state)) == [ev.DayStarted(1, (2, 0, 1))]


def test_only_the_survivor_whose_turn_it_is_acts() -> None:
    assert refused(day(2), 1, a.Move(NORTH)) == "turn.not_your_seat"


def test_ending_a_turn_passes_to_the_next_survivor() -> None:
    state, events = act(day(2), 0, a.EndTurn())
    assert events == [ev.TurnEnded(0)]
    assert ENGINE.to_move(state).seats == (1,)


def test_after_the_last_turn_the_night_phase_begins() -> None:
    state, events = act(day(1), 0, a.EndTurn())
    assert game_events(events) == [ev.TurnEnded(0), ev.DayEnded(1)]
    assert ENGINE.to_move(state).chance == DrawCards("night:I", 1, None)


def test_move_costs_the_terrain_of_the_space_entered() -> None:
    _state, events = act(day(1), 0, a.Move(NORTH_EAST))  # underbrush: 2
    assert game_events(events) == [ev.StaminaChanged(0, 10), ev.SurvivorMoved(0, NORTH_EAST)]


def test_cannot_enter_ocean() -> None:
    state = survivor(reveal(day(1), 7, 7), 0, space=Hex(4, 2))
    assert refused(state, 0, a.Move(Hex(4, 1))) == "discover.day.move.impassable"


def test_cannot_move_onto_an_unexplored_tile() -> None:
    state = survivor(day(1), 0, space=NORTH)
    assert refused(state, 0, a.Move(Hex(0, -2))) == "discover.day.move.not_adjacent_revealed"


def test_an_action_needs_the_stamina_it_costs() -> None:
    state = survivor(day(1), 0, stamina=1)
    assert refused(state, 0, a.Move(NORTH_EAST)) == "discover.day.move.stamina"


def test_move_and_gather_gives_a_free_gather_in_the_new_space() -> None:
    state, _ = act(day(1), 0, a.Move(NORTH))
    assert ENGINE.legal_actions(state, 0) == [a.Gather(), a.SkipGather()]
    state, events = act(state, 0, a.Gather())
    assert game_events(events) == []  # no stamina spent
    assert ENGINE.to_move(state).chance == DrawCards("feature:tree", 1, None)


def test_the_free_gather_may_be_skipped() -> None:
    state, _ = act(day(1), 0, a.Move(NORTH))
    state, events = act(state, 0, a.SkipGather())
    assert game_events(events) == [] and state.features[NORTH] == "tree"
    assert ENGINE.to_move(state).seats == (0,)


def _gathering(token: str) -> tuple[st.State, list[ev.Event]]:
    state = survivor(day(1), 0, space=NORTH)
    state, _ = act(state, 0, a.Gather())
    return draw(state, "feature:tree", token)


def test_gather_a_feature_showing_a_resource_keeps_it() -> None:
    state, events = _gathering("tree-01")
    assert game_events(events) == [
        ev.FeatureRevealed(0, NORTH, "tree-01", "wood"),
        ev.ResourceChanged(0, "wood", 1),
    ]
    assert NORTH not in state.features


def test_gather_a_feature_showing_an_enemy_starts_combat() -> None:
    _state, events = _gathering("tree-29")
    assert game_events(events) == [
        ev.FeatureRevealed(0, NORTH, "tree-29", "enemy:9"),
        ev.EnemySpawned("F1", 9, NORTH, False),
        ev.CombatStarted(0, "F1", ()),
    ]


def test_gather_a_feature_showing_a_number_resolves_that_exploration_card() -> None:
    _state, events = _gathering("tree-32")  # card 13: gain 2 wood
    assert game_events(events) == [
        ev.FeatureRevealed(0, NORTH, "tree-32", "explore:13"),
        ev.ResourceChanged(0, "wood", 2),
        ev.CardResolved(0, 13),
    ]


def test_gather_at_a_water_source_gives_its_water_and_the_source_stays() -> None:
    state = survivor(reveal(day(1), 1, 1), 0, space=Hex(2, 1))  # tile 1: clean water source
    state, events = act(state, 0, a.Gather())
    assert events == [ev.StaminaChanged(0, 11), ev.ResourceChanged(0, "clean_water", 1)]
    state, events = act(state, 0, a.Gather())
    assert events == [ev.StaminaChanged(0, 10), ev.ResourceChanged(0, "clean_water", 1)]


def test_nothing_to_gather_is_refused() -> None:
    assert refused(day(1), 0, a.Gather()) == "discover.day.gather.nothing_here"


def test_explore_turns_up_a_face_down_tile_next_to_you() -> None:
    state = survivor(day(1), 0, space=NORTH)
    assert [x for x in ENGINE.legal_actions(state, 0) if isinstance(x, a.Explore)] == [a.Explore(4), a.Explore(5)]
    state, events = act(state, 0, a.Explore(5))
    assert game_events(events) == [ev.StaminaChanged(0, 11)]
    assert ENGINE.to_move(state).chance == DrawCards("tiles:A", 1, None)
    state, events = draw(state, "tiles:A", "L03")
    assert game_events(events) == [ev.TileRevealed(5, 3)]
    assert state.features[Hex(1, -4)] == "tree"  # tile 3 north space, face-down token


def test_explore_only_next_to_your_space() -> None:
    assert refused(day(1), 0, a.Explore(5)) == "discover.day.explore.not_adjacent"


def test_cook_meat_at_a_lit_fire() -> None:
    state = survivor(day(1), 0, resources={"meat": 2})
    _, events = act(state, 0, a.Cook(2, 0))
    assert events == [ev.StaminaChanged(0, 11), ev.ResourceChanged(0, "meat", -2), ev.ResourceChanged(0, "food", 2)]


def test_cooking_needs_a_lit_fire() -> None:
    state = survivor(day(1), 0, resources={"meat": 2}, space=NORTH)
    assert refused(state, 0, a.Cook(1, 0)) == "discover.day.cook.no_fire"


def test_restart_fire_costs_a_wood_at_an_unlit_fire() -> None:
    state = survivor(day(1, fires={CAMP: False}), 0, resources={"wood": 1})
    _, events = act(state, 0, a.RestartFire())
    assert events == [ev.StaminaChanged(0, 11), ev.ResourceChanged(0, "wood", -1), ev.FireChanged(CAMP, True)]
    assert refused(survivor(day(1), 0, resources={"wood": 1}), 0, a.RestartFire()).endswith("no_unlit_fire")


def test_craft_from_hand_puts_the_project_on_the_table_and_draws_another() -> None:
    state = survivor(day(1), 0, hand=(2,), resources={"wood": 1, "stone": 1})
    state, events = act(state, 0, a.Craft(2))
    assert game_events(events) == [
        ev.StaminaChanged(0, 11),
        ev.ResourceChanged(0, "stone", -1),
        ev.ResourceChanged(0, "wood", -1),
        ev.ProjectCrafted(0, 2, True),
        ev.ItemGained(0, 2),
    ]
    assert state.table == (2,) and state.survivors[0].hand == ()
    assert ENGINE.to_move(state).chance == DrawCards("projects", 1, 0)


def test_craft_from_a_project_on_the_table_needs_the_item_card_in_the_deck() -> None:
    state = survivor(day(1, table=(4,)), 0, resources={"wood": 2, "stone": 2})
    state, events = act(state, 0, a.Craft(4))
    assert ev.ProjectCrafted(0, 4, False) in events and ev.ItemGained(0, 4) in events
    assert refused(state, 0, a.Craft(4)) == "discover.day.craft.item_taken"


def test_a_crafted_shelter_stays_in_its_space() -> None:
    state = survivor(day(1), 0, hand=(5,), resources={"wood": 3})
    _, events = act(state, 0, a.Craft(5))
    assert ev.ItemPlaced(5, CAMP) in events


def _proposal(state: st.State) -> st.State:
    """Seat 0 opens a trade with seat 1, offering a food for a clean water."""
    state, _ = act(state, 0, a.Trade(1))
    state, _ = act(state, 0, a.TradeGive("food", 0))
    state, _ = act(state, 0, a.TradeTake("clean_water", 0))
    return state


def test_a_trade_proposal_changes_nothing_until_the_partner_answers() -> None:
    """Comercio: the active survivor proposes what it gives and what it asks; nothing moves yet."""
    state, events = act(day(2), 0, a.Trade(1))
    assert events == [ev.StaminaChanged(0, 9), ev.TradeOpened(0, 1)]
    state, events = act(state, 0, a.TradeGive("food", 0))
    assert events == [ev.TradeGoodListed(0, "food", 0)]
    assert refused(state, 0, a.TradeGive("food", 0)) == "discover.day.trade.goods"  # only one food held
    state, events = act(state, 0, a.TradeTake("clean_water", 0))
    assert events == [ev.TradeGoodListed(1, "clean_water", 0)]
    assert [s.resources for s in state.survivors] == [s.resources for s in day(2).survivors]  # nothing moved yet
    assert ENGINE.view(state, 1).trade_gives == ("food",) and ENGINE.view(state, 1).trade_asks == ("clean_water",)
    state, events = act(state, 0, a.OfferTrade())
    assert events == [ev.TradeOffered(0, 1)]
    assert ENGINE.to_move(state).seats == (1,)  # the partner decides, in the middle of seat 0's turn
    assert ENGINE.legal_actions(state, 1) == [a.AcceptTrade(), a.DeclineTrade()]


def test_an_accepted_trade_exchanges_the_proposed_goods() -> None:
    state, _ = act(_proposal(day(2)), 0, a.OfferTrade())
    state, events = act(state, 1, a.AcceptTrade())
    assert events == [
        ev.TradeAnswered(1, True),
        ev.GoodsTransferred(0, 1, "food", 0),
        ev.GoodsTransferred(1, 0, "clean_water", 0),
        ev.TradeClosed(0),
    ]
    assert state.survivors[0].resources == {"clean_water": 2} and state.survivors[1].resources == {"food": 2}
    assert state.trade is None and ENGINE.to_move(state).seats == (0,)


def test_a_declined_trade_moves_nothing_and_the_stamina_stays_spent() -> None:
    """Decision: the Trade action was taken (1 stamina) whatever the partner answers."""
    state, _ = act(_proposal(day(2)), 0, a.OfferTrade())
    state, events = act(state, 1, a.DeclineTrade())
    assert events == [ev.TradeAnswered(1, False), ev.TradeClosed(0)]
    assert state.survivors[0].stamina == 9
    assert [s.resources for s in state.survivors] == [s.resources for s in day(2).survivors]


def test_only_the_partner_answers_and_only_an_offered_proposal() -> None:
    state = _proposal(day(3))
    assert refused(state, 0, a.AcceptTrade()) == "discover.day.trade.goods"  # not offered yet
    state, _ = act(state, 0, a.OfferTrade())
    assert ENGINE.to_move(state).seats == (1,)  # seat 2 is never asked
    assert refused(state, 1, a.TradeGive("food", 0)) == "discover.day.trade.answer"


def test_an_empty_proposal_cannot_be_offered_and_a_trade_can_be_withdrawn() -> None:
    state, _ = act(day(2), 0, a.Trade(1))
    assert refused(state, 0, a.OfferTrade()) == "discover.day.trade.goods"
    state, events = act(state, 0, a.EndTrade())
    assert events == [ev.TradeClosed(0)] and state.trade is None and state.survivors[0].stamina == 9


def test_investigate_resolves_the_card_of_the_landmark_first_time_and_later() -> None:
    state = reveal(day(1), 1, 2)  # tile 2 holds landmark 1: Freshwater Spring
    state = survivor(state, 0, space=landmark(state, 1))
    state, events = act(state, 0, a.Investigate())
    assert game_events(events) == [
        ev.StaminaChanged(0, 11),
        ev.LandmarkInvestigated(0, 1),
        ev.ResourceChanged(0, "clean_water", 2),
        ev.CardResolved(0, 1),
    ]
    _, events = act(state, 0, a.Investigate())
    assert ev.ResourceChanged(0, "clean_water", 1) in events


def test_recover_heals_one_damage_by_paying_its_cure() -> None:
    state = survivor(day(1), 0, damage=(DamageType.HUNGER,))
    _, events = act(state, 0, a.Recover(DamageType.HUNGER))
    assert events == [
        ev.StaminaChanged(0, 11),
        ev.ResourceChanged(0, "food", -1),
        ev.DamageHealed(0, DamageType.HUNGER),
    ]


def test_exposure_heals_only_at_a_lit_fire_or_shelter() -> None:
    state = survivor(day(1), 0, damage=(DamageType.EXPOSURE,), space=NORTH)
    assert refused(state, 0, a.Recover(DamageType.EXPOSURE)) == "discover.day.recover.needs_fire"


def test_card_action_on_a_carried_item() -> None:
    state = survivor(day(1), 0, items=(14,), damage=(DamageType.PHYSICAL,))
    _, events = act(state, 0, a.UseItem(14))
    assert game_events(events) == [
        ev.StaminaChanged(0, 11),
        ev.ItemLost(0, 14),
        ev.DamageHealed(0, DamageType.PHYSICAL),
    ]


def test_stamina_stays_between_zero_and_twelve() -> None:
    state = survivor(day(1), 0, stamina=9)
    assert stamina_events(state, 0, 6) == [ev.StaminaChanged(0, 12)]
    assert stamina_events(state, 0, -20) == [ev.StaminaChanged(0, 0)]


def test_something_that_is_not_an_action_is_refused() -> None:
    assert refused(day(1), 0, "jump") == "discover.turn.unknown_action"  # type: ignore[arg-type]


def test_cook_turns_dirty_water_clean() -> None:
    state = survivor(day(1), 0, resources={"dirty_water": 1})
    _, events = act(state, 0, a.Cook(0, 1))
    assert events[1:] == [ev.ResourceChanged(0, "dirty_water", -1), ev.ResourceChanged(0, "clean_water", 1)]


def test_looting_needs_a_casualty_in_your_space() -> None:
    assert refused(day(2), 0, a.Loot(1, "food", 0)) == "discover.casualties.loot.no_casualty"


def test_a_move_costs_at_least_one_stamina_whatever_the_discounts() -> None:
    state = survivor(day(1, characters=(8,)), 0, items=(13,), stamina=1)  # two underbrush discounts
    _, events = act(state, 0, a.Move(NORTH_EAST))
    assert events[0] == ev.StaminaChanged(0, 0)


def test_a_trade_costs_at_least_one_stamina_whatever_the_discounts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Decision: a free trade could be proposed and declined forever."""
    from services.games.discover import day as day_rules

    monkeypatch.setattr(day_rules, "action_cost", lambda state, seat, action, base=1: 0)
    _, events = act(day(2), 0, a.Trade(1))
    assert events[0] == ev.StaminaChanged(0, 9)
