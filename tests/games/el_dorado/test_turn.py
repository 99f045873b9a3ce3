"""Phases 2 and 3 (RB p.5), turn order and hidden information."""

from __future__ import annotations

from services.games.common import chance
from services.games.common.chance import DrawCards, ShufflePile
from services.games.common.engine import Visibility
from services.games.el_dorado import ENGINE
from services.games.el_dorado import events as ev
from services.games.el_dorado.actions import DiscardCard, Done, EndTurn, PlayCard, SpendCard
from services.games.el_dorado.content import Symbol
from services.games.el_dorado.state import Phase
from tests.games.el_dorado.builders import position, refusal, resolve, run, with_player


def test_end_of_turn_discards_played_cards() -> None:
    state, _ = run(position(hands={0: ("traveler", "sailor", "explorer")}), 0, SpendCard("traveler"))
    state, events = run(state, 0, EndTurn())
    assert events == [ev.TurnEnded(0, ("traveler",))]
    assert state.phase is Phase.CLEANUP and state.players[0].discard == ("traveler",)


def test_each_card_in_hand_is_kept_or_discarded() -> None:
    state, _ = run(position(hands={0: ("traveler", "sailor", "explorer")}), 0, EndTurn())
    state, events = run(state, 0, DiscardCard("sailor"), Done())
    assert events == [ev.CardDiscarded(0, "sailor"), ev.HandKept(0, 2, 2)]
    assert ENGINE.to_move(state).chance == DrawCards("draw:0", 2, 0)


def test_hand_is_refilled_to_four_and_the_next_seat_plays() -> None:
    state, _ = run(position(hands={0: ("traveler",)}), 0, EndTurn(), Done())
    state, events = resolve(state)
    assert len(state.players[0].hand) == 4
    assert events[-1] == ev.TurnStarted(1, 1)


def test_empty_draw_pile_reshuffles_the_discard_pile() -> None:
    state = position(hands={0: ("traveler",)})
    state = with_player(state, 0, draw=("explorer",), discard=("sailor", "scout", "traveler"))
    state, _ = run(state, 0, EndTurn(), Done())
    assert ENGINE.to_move(state).chance == DrawCards("draw:0", 1, 0)
    state, _ = resolve_one(state)
    assert ENGINE.to_move(state).chance == ShufflePile("draw:0", ("sailor", "scout", "traveler"))
    state, _ = resolve(state)
    assert len(state.players[0].hand) == 4 and state.players[0].discard == ()


def resolve_one(state):  # type: ignore[no-untyped-def]
    request = ENGINE.to_move(state).chance
    assert isinstance(request, chance.DrawCards)
    outcome = chance.CardsDrawn(request.pile, state.players[0].draw[: request.count])
    events = list(ENGINE.decide(state, chance.CHANCE_SEAT, outcome))
    for event in events:
        state = ENGINE.evolve(state, event)
    return state, events


def test_more_than_four_cards_kept_draws_none() -> None:
    """Decision: the hand is only filled up to 4; nobody discards down to 4 (RULES.md)."""
    hand = ("traveler", "traveler", "sailor", "explorer", "explorer")
    _, events = run(position(hands={0: hand}), 0, EndTurn(), Done())
    assert ev.HandKept(0, 5, 0) in events


def test_only_the_current_seat_acts() -> None:
    state = position(hands={1: ("explorer",)})
    assert refusal(state, 1, EndTurn()) == "turn.not_your_seat"
    assert ENGINE.legal_actions(state, 1) == ()


def test_discarding_from_hand_waits_for_the_end_of_the_turn() -> None:
    assert refusal(position(), 0, DiscardCard("sailor")) == "el_dorado.turn.wrong_phase"


def test_drawn_cards_are_seen_by_their_owner_only() -> None:
    drawn = ev.CardsDrawnToHand(2, ("scout", "traveler"))
    assert ENGINE.visibility(drawn) == Visibility.only(2)
    assert ENGINE.redact(drawn) == ev.CardsDrawnUnseen(2, 2)
    assert ENGINE.visibility(ev.CardBought(0, "scout", False)) == Visibility.public()


def test_view_shows_own_hand_and_draw_piles_as_counts() -> None:
    state = position(hands={0: ("traveler", "sailor")})
    mine, theirs, spectator = ENGINE.view(state, 0), ENGINE.view(state, 1), ENGINE.view(state, None)
    assert mine.hand == ("sailor", "traveler")
    assert theirs.hand != mine.hand and spectator.hand == ()
    assert mine.players[0].draw_count == 6 and mine.players[0].hand_count == 2


def test_legal_actions_are_all_accepted() -> None:
    state = position(hands={0: ("traveler", "scout", "explorer", "transmitter")})
    actions = ENGINE.legal_actions(state, 0)
    assert PlayCard("scout", Symbol.MACHETE, 0) in actions and EndTurn() in actions
    for action in actions:
        ENGINE.decide(state, 0, action)
