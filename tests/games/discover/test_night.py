"""The night phase ("Fase nocturna"), threat cards, and the night and threat decks."""

from __future__ import annotations

from dataclasses import replace

import pytest

from services.games.common.chance import DrawCards, ShufflePile
from services.games.common.engine import IllegalAction
from services.games.discover import ENGINE
from services.games.discover import actions as a
from services.games.discover import events as ev
from services.games.discover import state as st
from services.games.discover.content import load
from services.games.discover.decide import advance, fold
from services.games.discover.state import Phase
from services.games.discover.vocab import DamageType, Stamina, Target
from tests.games.discover.builders import CAMP, NORTH, act, day, draw, enemy, game_events, of_type, survivor

NIGHT_STEPS = (st.DrawNight(), st.NightHealing(), st.PassLeader(), st.StartDay())


def night(seats: int = 1, **changes: object) -> st.State:
    return day(seats, phase=Phase.NIGHT, turn_order=(), agenda=NIGHT_STEPS, **changes)


def paying(state: st.State, *seats: int) -> tuple[st.State, list[ev.Event]]:
    """The listed survivors, in turn, pay what the card asks of them."""
    out: list[ev.Event] = []
    for seat in seats:
        assert ENGINE.to_move(state).seats == (seat,)
        state, events = act(state, seat, a.PayCost())
        out += events
    return state, out


def test_the_leader_draws_the_top_night_card_and_resolves_it_top_to_bottom() -> None:
    state = survivor(survivor(night(2, leader=1), 0, stamina=3), 1, resources={})
    assert ENGINE.to_move(state).chance == DrawCards("night:I", 1, None)
    state, events = draw(state, "night:I", "N02")  # Growling Stomachs: 8 stamina, eat, one threat
    assert game_events(events) == [
        ev.NightCardDrawn("N02"),
        ev.StaminaChanged(1, 12),
        ev.StaminaChanged(0, 11),
        ev.DamageTaken(1, DamageType.HUNGER),  # the leader first; nothing to eat
    ]
    state, events = paying(state, 0)
    assert game_events(events) == [ev.ResourceChanged(0, "food", -1)]
    assert ENGINE.to_move(state).chance == DrawCards("threats", 1, None)
    assert state.agenda[0] == st.DrawThreat(1)  # the leader draws the threat


def test_every_night_card_gives_at_least_six_stamina_to_each_survivor() -> None:
    for card in load("island-1").night.values():
        gains = [e for e in card.effects if isinstance(e, Stamina) and e.target is Target.EACH]
        assert gains and gains[0].amount >= 6, card.id


def test_threat_cards_are_drawn_one_at_a_time_from_the_leader_clockwise() -> None:
    state, _ = draw(night(3, leader=1), "night:I", "N04")  # Distant Howls: one threat
    state = replace(state, agenda=(st.RunEffects(1, st.Source.NIGHT, "N09", 2, False), *state.agenda[1:]))
    state = fold(state, advance(state))  # Long Dark (effect 2): M+1 = 4 threats
    assert state.agenda[:4] == (st.DrawThreat(1), st.DrawThreat(2), st.DrawThreat(0), st.DrawThreat(1))


def test_a_tribal_threat_is_replaced_when_no_other_survivor_is_on_the_map() -> None:
    state = replace(night(1), agenda=(st.DrawThreat(0),))
    state, events = draw(state, "threats", "T08a")
    assert game_events(events) == [ev.ThreatDrawn(0, "T08a"), ev.CardDiscarded("threat", "T08a")]
    assert ENGINE.to_move(state).chance == DrawCards("threats", 1, None)


def test_a_tribal_threat_applies_when_others_are_on_the_map() -> None:
    state = replace(night(2), agenda=(st.DrawThreat(0),))
    _, events = draw(state, "threats", "T08a")
    assert ev.StaminaChanged(1, 8) in events


def test_an_ongoing_threat_stays_in_front_of_the_survivor_until_it_expires() -> None:
    state = replace(night(1, day=3), agenda=(st.DrawThreat(0), st.StartDay()))
    state, events = draw(state, "threats", "T11a")  # Unease: Explore costs 1 more until the end of next day
    assert ev.OngoingThreatPlaced(0, "T11a", 4) in events
    state = survivor(state, 0, space=NORTH)
    state, events = act(state, 0, a.Explore(5))
    assert events[0] == ev.StaminaChanged(0, 10)
    state, _ = draw(state, "tiles:A", "L01")
    state, events = act(state, 0, a.EndTurn())
    assert ev.OngoingThreatExpired(0, "T11a") in events
    assert "T11a" in fold(state, []).threat_discard


def test_an_empty_night_deck_is_rebuilt_from_level_two_cards_only() -> None:
    discard = tuple(f"N{n:02d}" for n in range(1, 11))
    state = night(1, night_discard=discard)
    state = replace(state, piles={**state.piles, "night:I": 0, "night:II": 0})
    events = advance(state)
    assert events[0] == ev.DiscardsReshuffled("night", "night:II.1", discard[4:])
    assert ENGINE.to_move(fold(state, events)).chance == ShufflePile("night:II.1", discard[4:], False)


def test_an_empty_threat_deck_is_rebuilt_from_its_discards() -> None:
    state = replace(night(1, threat_discard=("T03a", "T01b")), agenda=(st.DrawThreat(0),))
    state = replace(state, piles={**state.piles, "threats": 0})
    events = advance(state)
    assert events[0] == ev.DiscardsReshuffled("threat", "threats.1", ("T01b", "T03a"))


def test_night_cards_move_monsters_toward_the_nearest_survivor() -> None:
    state = enemy(night(1), "X1", 0, NORTH)
    state, _ = draw(state, "night:I", "N04")
    _, events = paying(state, 0)
    assert ev.MonsterMoved("X1", state.survivors[0].space) in events


def test_exposure_hurts_survivors_away_from_a_lit_fire() -> None:
    state = survivor(survivor(night(2), 1, space=NORTH), 0, resources={"clean_water": 5})
    state, _ = draw(state, "night:I", "N03")  # Cool Breeze: drink, then exposure away from fire or shelter
    _, events = paying(state, 0, 1)
    assert [e for e in of_type(events, ev.DamageTaken) if e.damage is DamageType.EXPOSURE] == [
        ev.DamageTaken(1, DamageType.EXPOSURE)
    ]


def test_the_leader_keeps_or_passes_the_marker_at_the_end_of_the_night() -> None:
    state = replace(night(2), agenda=(st.PassLeader(), st.StartDay()))
    assert ENGINE.legal_actions(state, 0) == [a.PassLeadership(0), a.PassLeadership(1)]
    state, events = act(state, 0, a.PassLeadership(1))
    assert game_events(events) == [ev.LeaderChanged(1), ev.DayStarted(2, (1, 0))]


def test_a_night_ability_heals_one_damage() -> None:
    state = replace(night(1, characters=(4,)), agenda=(st.NightHealing(),))  # Taoist Monk: thirst
    state = survivor(state, 0, damage=(DamageType.THIRST,))
    assert game_events(advance(state))[0] == ev.DamageHealed(0, DamageType.THIRST)


def test_a_threat_puts_out_the_camp_fire_when_nobody_there_holds_the_wood() -> None:
    state = replace(night(1), agenda=(st.DrawThreat(0), st.StartDay()))
    _, events = draw(state, "threats", "T04a")  # Embers Fade
    assert ev.FireChanged(state.survivors[0].space, False) in events


def _embers_fade(seats: int, wood: dict[int, int], leader: int = 0) -> st.State:
    state = replace(night(seats, leader=leader), agenda=(st.DrawThreat(leader), st.StartDay()))
    for seat, n in wood.items():
        state = survivor(state, seat, resources={"wood": n})
    state, _ = draw(state, "threats", "T04a")  # Embers Fade: the camp fire goes out unless a wood is paid
    return state


def test_paying_wood_to_keep_a_fire_lit_is_a_choice() -> None:
    """The survivors at the fire choose to pay the wood; letting the fire go out is offered."""
    state = _embers_fade(1, {0: 1})
    assert ENGINE.to_move(state).seats == (0,) and state.fires[CAMP]
    assert ENGINE.legal_actions(state, 0) == [a.PayCost(), a.DeclineCost()]
    kept, events = act(state, 0, a.PayCost())
    assert game_events(events)[0] == ev.ResourceChanged(0, "wood", -1) and kept.fires[CAMP]
    out, events = act(state, 0, a.DeclineCost())
    assert game_events(events)[:2] == [ev.CostDeclined(0), ev.FireChanged(CAMP, False)]
    assert out.survivors[0].resources == {"wood": 1} and not out.fires[CAMP]


def test_each_survivor_at_the_fire_is_asked_in_turn_from_the_leader() -> None:
    state = _embers_fade(3, {0: 1, 1: 0, 2: 2}, leader=2)
    assert ENGINE.to_move(state).seats == (2,)
    state, events = act(state, 2, a.DeclineCost())
    assert game_events(events) == [ev.CostDeclined(2)]
    assert ENGINE.to_move(state).seats == (0,)  # seat 1 holds no wood: never asked
    with pytest.raises(IllegalAction) as refused:
        ENGINE.decide(state, 0, a.PassLeadership(0))
    assert refused.value.rule == "discover.night.feed_fire"
    _, events = act(state, 0, a.DeclineCost())
    assert game_events(events)[:2] == [ev.CostDeclined(0), ev.FireChanged(CAMP, False)]


def test_a_full_round_day_then_night_then_the_next_day() -> None:
    state, _ = act(day(2), 0, a.EndTurn())
    state, events = act(state, 1, a.EndTurn())
    assert game_events(events) == [ev.TurnEnded(1), ev.DayEnded(1)]
    state, events = draw(state, "night:I", "N01")  # Calm Dusk: 8 stamina, drink, no threat
    assert game_events(events) == [ev.NightCardDrawn("N01"), ev.StaminaChanged(0, 12), ev.StaminaChanged(1, 12)]
    state, events = paying(state, 0, 1)
    assert game_events(events) == [
        ev.ResourceChanged(0, "clean_water", -1),
        ev.ResourceChanged(1, "clean_water", -1),
        ev.CardDiscarded("night", "N01"),
    ]
    assert ENGINE.to_move(state).seats == (0,)  # the leader keeps or passes the marker
    state, events = act(state, 0, a.PassLeadership(1))
    assert game_events(events) == [ev.LeaderChanged(1), ev.DayStarted(2, (1, 0))]
    assert state.night_discard == ("N01",) and state.piles["night:I"] == 3


# ---------------------------------------------------------------- upkeep: pay or suffer


def test_upkeep_is_a_choice_a_survivor_may_suffer_the_damage_instead() -> None:
    """A night card's "pay or suffer" is the survivor's choice, even when it could pay."""
    state, _ = draw(night(1), "night:I", "N02")  # Growling Stomachs: eat a food or suffer hunger
    assert ENGINE.to_move(state).seats == (0,)
    assert ENGINE.legal_actions(state, 0) == [a.PayCost(), a.DeclineCost()]
    state, events = act(state, 0, a.DeclineCost())
    assert game_events(events)[:2] == [ev.CostDeclined(0), ev.DamageTaken(0, DamageType.HUNGER)]
    assert state.survivors[0].resources["food"] == 1


def test_each_survivor_decides_its_upkeep_in_turn_from_the_leader() -> None:
    state, _ = draw(night(3, leader=1), "night:I", "N02")
    assert ENGINE.to_move(state).seats == (1,)
    with pytest.raises(IllegalAction) as refused:
        ENGINE.decide(state, 1, a.EndTurn())
    assert refused.value.rule == "discover.night.pay_or"
    state, _ = act(state, 1, a.DeclineCost())
    assert ENGINE.to_move(state).seats == (2,)
    state, _ = act(state, 2, a.PayCost())
    assert ENGINE.to_move(state).seats == (0,)


def test_a_survivor_who_cannot_pay_suffers_without_being_asked() -> None:
    state = survivor(night(2), 0, resources={})
    state, events = draw(state, "night:I", "N02")
    assert ev.DamageTaken(0, DamageType.HUNGER) in events
    assert ENGINE.to_move(state).seats == (1,)
