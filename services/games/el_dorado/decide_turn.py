"""Ending a turn: discard played cards, keep or discard the hand, draw to 4 (RB p.5)."""

from __future__ import annotations

from services.games.el_dorado import actions as act
from services.games.el_dorado import events as ev
from services.games.el_dorado.moves import end_move
from services.games.el_dorado.rules import HAND_SIZE, refuse
from services.games.el_dorado.state import Phase, State


def end_turn(state: State, seat: int, a: act.EndTurn) -> list[ev.Event]:
    """Phase 2: all played cards go to the discard pile (RB p.5)."""
    return [*end_move(state, seat), ev.TurnEnded(seat, state.players[seat].played)]


def discard_card(state: State, seat: int, a: act.DiscardCard) -> list[ev.Event]:
    """Each card left in hand may be discarded instead of kept (RB p.5)."""
    if a.card not in state.players[seat].hand:
        raise refuse("cards.not_in_hand", "that card is not in your hand")
    return [ev.CardDiscarded(seat, a.card)]


def done(state: State, seat: int, a: act.Done) -> list[ev.Event]:
    """Close the open choice; in phase 2, keep the rest of the hand and draw up to 4."""
    if state.phase is Phase.CLEANUP:
        kept = len(state.players[seat].hand)
        return [ev.HandKept(seat, kept, max(0, HAND_SIZE - kept))]
    return [ev.ChoiceClosed()]
