"""Validate an action against the game's own rules, then emit its events (or refuse it and change nothing)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from services.games.common.chance import CHANCE_SEAT, OUTCOME_TYPES
from services.games.el_dorado import actions as act
from services.games.el_dorado import events as ev
from services.games.el_dorado.decide_action import play_action, remove_card, set_aside, use_token
from services.games.el_dorado.decide_chance import decide_chance
from services.games.el_dorado.decide_market import buy_card, spend_card, spend_token, take_card
from services.games.el_dorado.decide_move import (
    break_blockade,
    clear_blockade,
    clear_space,
    move_to,
    native_move,
    play_card,
    play_token,
    stop_moving,
)
from services.games.el_dorado.decide_turn import discard_card, done, end_turn
from services.games.el_dorado.flow import settle
from services.games.el_dorado.moves import replay
from services.games.el_dorado.rules import refuse
from services.games.el_dorado.state import Choice, Phase, State

# The action is untyped: each handler takes the one action class it is keyed by
# below, which a dict's value type cannot tie to its key (dispatch is on type(action)).
Handler = Callable[[State, int, Any], list[ev.Event]]
HANDLERS: dict[type, Handler] = {
    act.PlayCard: play_card, act.PlayToken: play_token, act.MoveTo: move_to,
    act.StopMoving: stop_moving,
    act.BreakBlockade: break_blockade, act.ClearSpace: clear_space, act.ClearBlockade: clear_blockade,
    act.SpendCard: spend_card, act.SpendToken: spend_token, act.BuyCard: buy_card,
    act.PlayAction: play_action, act.UseToken: use_token, act.TakeCard: take_card,
    act.NativeMove: native_move, act.RemoveCard: remove_card, act.SetAsideCard: set_aside,
    act.Done: done, act.EndTurn: end_turn, act.DiscardCard: discard_card,
}
CHOICES: dict[Choice, tuple[type, ...]] = {
    Choice.TAKE: (act.TakeCard,),
    Choice.NATIVE: (act.NativeMove,),
    Choice.REMOVE: (act.RemoveCard, act.Done),
    Choice.SET_ASIDE: (act.SetAsideCard, act.Done),
}
CHOICE_ONLY = (act.TakeCard, act.NativeMove, act.RemoveCard, act.SetAsideCard, act.Done)
CLEANUP = (act.DiscardCard, act.Done)


def gate_action(state: State, action: object) -> None:
    """Refuse actions out of phase, or while another choice is open (RB p.2, p.8)."""
    if state.phase is Phase.CLEANUP and not isinstance(action, CLEANUP):
        raise refuse("turn.wrong_phase", "keep or discard your hand first")
    if state.phase is Phase.PLAY and isinstance(action, act.DiscardCard):
        raise refuse("turn.wrong_phase", "cards in hand are discarded after ending the turn")
    choice = state.turn.choice
    if state.phase is Phase.PLAY and choice is not Choice.NONE and not isinstance(action, CHOICES[choice]):
        raise refuse("action.choice_pending", f"finish the {choice.value} choice first")
    if state.phase is Phase.PLAY and choice is Choice.NONE and isinstance(action, CHOICE_ONLY):
        raise refuse("action.no_choice", "no choice is open")


def handle(state: State, seat: int, action: object) -> list[ev.Event]:
    """The action's own events once the turn is known to be `seat`'s; raises IllegalAction."""
    gate_action(state, action)
    handler = HANDLERS.get(type(action))
    if handler is None:
        raise refuse("turn.unknown_action", type(action).__name__)
    return handler(state, seat, action)


def decide(state: State, seat: int, action: object) -> list[ev.Event]:
    """Every event `action` causes, including the automatic ones up to the next decision.

    The host (services/games/common/host.py) calls it only with the action of
    the seat whose turn it is, or with the outcome answering the pending chance request.
    """
    if seat == CHANCE_SEAT:
        assert isinstance(action, OUTCOME_TYPES)
        events = decide_chance(state, action)
    else:
        events = handle(state, seat, action)
    return [*events, *settle(replay(state, events))]
