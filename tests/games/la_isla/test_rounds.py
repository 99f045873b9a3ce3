"""Card phase, action A and action B (rulebook: Fase de cartas, Acción A, Acción B)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from services.games.common.chance import CHANCE_SEAT, CardsDrawn, DrawCards, PileShuffled, ShufflePile
from services.games.common.engine import IllegalAction, Visibility, apply
from services.games.la_isla import ENGINE
from services.games.la_isla.actions import AssignCards, CollectIncome
from services.games.la_isla.content import (
    Animal,
    Colour,
    ExtraExplorer,
    ExtraSlot,
    IncomeMarker,
    IncomeResource,
    LargerDraw,
)
from services.games.la_isla.events import (
    CardsAssigned,
    CardsDrawnToHand,
    ChoiceMade,
    DrawPileShuffled,
    FunctionsInserted,
    HandRefilled,
    Income,
    IncomeChosen,
    IncomeCollected,
    Insertion,
    MarkerAdvanced,
    Step,
)
from services.games.la_isla.rules import CONTENT, visible
from services.games.la_isla.state import Assignment, Phase
from tests.games.la_isla.builders import assigning, card_with, plain_cards, set_up, with_player

HANDS = (plain_cards(6)[:3], plain_cards(6)[3:])


def refused(state, seat, action, rule):
    with pytest.raises(IllegalAction) as refusal:
        ENGINE.decide(state, seat, action)
    assert refusal.value.rule == rule


def test_each_player_draws_three_cards_clockwise_from_the_start_player():
    state = replace(set_up(2), start=1)
    assert ENGINE.to_move(state).chance == DrawCards("draw:1", 3, 1)
    state, events = apply(ENGINE, state, CHANCE_SEAT, CardsDrawn("draw:1", HANDS[1]))
    assert events == [CardsDrawnToHand(1, "draw:1", HANDS[1])]
    assert ENGINE.to_move(state).chance == DrawCards("draw:1", 3, 0)
    state, _ = apply(ENGINE, state, CHANCE_SEAT, CardsDrawn("draw:1", HANDS[0]))
    assert state.phase is Phase.ASSIGN and set(ENGINE.to_move(state).seats) == {0, 1}
    assert state.pile_size == 120 - 6


def test_drawn_cards_are_seen_only_by_their_seat():
    event = CardsDrawnToHand(1, "draw:1", HANDS[1])
    assert ENGINE.visibility(event) == Visibility.only(1)
    assert ENGINE.redact(event) == HandRefilled(1, "draw:1", 3)


def test_a_short_draw_pile_is_drawn_out_then_the_discard_is_reshuffled():
    discard = tuple(sorted(plain_cards(5)))
    state = replace(set_up(2), pile_size=1, discard=discard)
    assert ENGINE.to_move(state).chance == DrawCards("draw:1", 1, 0)
    state, _ = apply(ENGINE, state, CHANCE_SEAT, CardsDrawn("draw:1", (HANDS[1][0],)))
    assert ENGINE.to_move(state).chance == ShufflePile("draw:2", discard)
    state, events = apply(ENGINE, state, CHANCE_SEAT, PileShuffled("draw:2", 5))
    assert events == [DrawPileShuffled("draw:2", 5, True)] and state.discard == ()
    assert ENGINE.to_move(state).chance == DrawCards("draw:2", 2, 0)


def test_a_larger_draw_function_draws_one_more_card():
    state = with_player(set_up(2), 0, slots=((card_with(LargerDraw(1)),), (), ()))
    assert ENGINE.to_move(state).chance == DrawCards("draw:1", 4, 0)


def test_every_assignment_of_the_hand_to_a_b_and_d_is_legal():
    state = assigning(HANDS)
    actions = ENGINE.legal_actions(state, 0)
    assert len(actions) == 6 and {a.slot for a in actions} == {0}  # type: ignore[union-attr]


def test_assignment_stays_secret_until_every_seat_has_chosen():
    state = assigning(HANDS)
    a0, b0, d0 = HANDS[0]
    state, events = apply(ENGINE, state, 0, AssignCards(a0, b0, d0, 0))
    assert events == [CardsAssigned(0, a0, b0, d0, 0)]
    assert ENGINE.visibility(events[0]) == Visibility.only(0)
    assert ENGINE.redact(events[0]) == ChoiceMade(0, Step.ASSIGN)
    assert ENGINE.to_move(state).seats == (1,)
    refused(state, 0, AssignCards(a0, b0, d0, 0), "turn.not_your_seat")
    a1, b1, d1 = HANDS[1]
    state, events = apply(ENGINE, state, 1, AssignCards(a1, b1, d1, 0))
    res0, res1 = CONTENT.card(b0).resource, CONTENT.card(b1).resource
    assert events == [
        CardsAssigned(1, a1, b1, d1, 0),
        FunctionsInserted((Insertion(0, a0, 0, False, False), Insertion(1, a1, 0, False, False))),
        IncomeCollected((Income(0, b0, (res0,)), Income(1, b1, (res1,))), ()),
    ]
    assert all(ENGINE.visibility(e) == Visibility.public() for e in events[1:])
    assert state.phase is Phase.EXPLORE and state.player(0).slots[0] == (a0,)


def test_assigning_cards_not_in_hand_or_twice_is_refused():
    state = assigning(HANDS)
    a, b, _ = HANDS[0]
    refused(state, 0, AssignCards(a, b, HANDS[1][0], 0), "la_isla.cards.not_in_hand")
    refused(state, 0, AssignCards(a, a, b, 0), "la_isla.cards.not_in_hand")


def test_a_card_fills_a_free_slot_while_one_is_left():
    state = assigning(HANDS)
    refused(state, 0, AssignCards(*HANDS[0], 1), "la_isla.a.slot")


def test_once_the_slots_are_full_a_visible_card_must_be_covered():
    held = plain_cards(9)[6:]
    state = with_player(assigning(HANDS), 0, slots=tuple((c,) for c in held))
    assert {a.slot for a in ENGINE.legal_actions(state, 0)} == {0, 1, 2}  # type: ignore[union-attr]
    state, _ = apply(ENGINE, state, 0, AssignCards(*HANDS[0], 2))
    state, _ = apply(ENGINE, state, 1, AssignCards(*HANDS[1], 0))
    assert state.player(0).slots[2] == (held[2], HANDS[0][0])
    assert len(visible(state.player(0))) == 3


def test_two_identical_functions_may_never_be_visible():
    function = CONTENT.card(HANDS[0][0]).function
    twin = card_with(function, exclude=(HANDS[0][0],))
    state = with_player(assigning(HANDS), 0, slots=((), (twin,), ()))
    legal = {(a.a, a.slot) for a in ENGINE.legal_actions(state, 0)}  # type: ignore[union-attr]
    assert (HANDS[0][0], 1) in legal and (HANDS[0][0], 0) not in legal
    refused(state, 0, AssignCards(*HANDS[0], 0), "la_isla.a.slot")


def test_extra_explorer_comes_from_the_supply_and_is_kept_when_covered():
    explorer = card_with(ExtraExplorer())
    hands = ((explorer, *HANDS[0][1:]), HANDS[1])
    state, _ = apply(ENGINE, assigning(hands), 0, AssignCards(*hands[0], 0))
    state, events = apply(ENGINE, state, 1, AssignCards(*hands[1], 0))
    assert events[1] == FunctionsInserted(
        (Insertion(0, explorer, 0, True, False), Insertion(1, HANDS[1][0], 0, False, False))
    )
    assert (state.player(0).explorers_left, state.player(0).explorers_gained) == (6, 1)
    covered = with_player(state, 0, slots=((explorer, HANDS[0][0]), (), ()))
    assert covered.player(0).explorers_left == 6  # nothing in the rules takes it back


def test_extra_explorers_are_limited_to_the_two_in_the_general_supply():
    explorer = card_with(ExtraExplorer())
    hands = ((explorer, *HANDS[0][1:]), HANDS[1])
    state = with_player(assigning(hands), 0, explorers_gained=2)
    state, _ = apply(ENGINE, state, 0, AssignCards(*hands[0], 0))
    _, events = apply(ENGINE, state, 1, AssignCards(*hands[1], 0))
    assert events[1].insertions[0] == Insertion(0, explorer, 0, False, False)  # type: ignore[union-attr]


def test_extra_slot_is_gained_and_kept_when_covered():
    extra = card_with(ExtraSlot())
    hands = ((extra, *HANDS[0][1:]), HANDS[1])
    state, _ = apply(ENGINE, assigning(hands), 0, AssignCards(*hands[0], 0))
    state, _ = apply(ENGINE, state, 1, AssignCards(*hands[1], 0))
    assert len(state.player(0).slots) == 4
    state = with_player(state, 0, slots=((extra, HANDS[1][2]), *state.player(0).slots[1:]))
    assert len(state.player(0).slots) == 4 and ExtraSlot() not in visible(state.player(0))


def test_a_covered_function_stops_working():
    held = plain_cards(2)
    state = with_player(set_up(2), 0, slots=(held, (), ()))
    assert visible(state.player(0)) == (CONTENT.card(held[1]).function,)


def _income_position():
    """Action B due: seat 0 shows a fixed-colour, a choice and a Dodo income function."""
    functions = (IncomeResource(Colour.GREEN, 1), IncomeResource(None, 1), IncomeMarker(Animal.DODO, 1))
    slots = tuple((card_with(f),) for f in functions)
    state = replace(set_up(2), phase=Phase.INCOME)
    for seat, hand in enumerate(HANDS):
        state = with_player(state, seat, assignment=Assignment(*hand, 0))
    return with_player(state, 0, slots=slots)


def test_action_b_gives_the_card_resource_plus_income_functions_and_marker_moves():
    state = _income_position()
    assert ENGINE.to_move(state).seats == (0,)  # seat 1 has nothing to choose
    assert len(ENGINE.legal_actions(state, 0)) == 10
    state, events = apply(ENGINE, state, 0, CollectIncome((Colour.WHITE,), (Animal.DODO,)))
    b0, b1 = HANDS[0][1], HANDS[1][1]
    res0, res1 = CONTENT.card(b0).resource, CONTENT.card(b1).resource
    assert events == [
        IncomeChosen(0, (Colour.WHITE,), (Animal.DODO,)),
        IncomeCollected(
            (Income(0, b0, (res0, Colour.GREEN, Colour.WHITE)), Income(1, b1, (res1,))),
            (MarkerAdvanced(0, Animal.DODO, True, 2),),
        ),
    ]
    assert ENGINE.redact(events[0]) == ChoiceMade(0, Step.INCOME)
    assert state.player(0).score == 2 and state.markers[0] == 1 and b0 in state.discard


def test_income_choices_outside_the_visible_functions_are_refused():
    state = _income_position()
    refused(state, 0, CollectIncome((), ()), "la_isla.b.choice")
    refused(state, 0, CollectIncome((Colour.WHITE,), (Animal.GIANT_FOSSA,)), "la_isla.b.choice")


def test_only_the_asked_step_action_is_accepted():
    refused(assigning(HANDS), 0, CollectIncome((), ()), "la_isla.turn.wrong_step")


def test_seat_zero_is_the_first_start_player():
    assert ENGINE.setup({}, 3).start == 0
