"""Every legal action: candidates filtered through the same checks `decide` runs."""

from __future__ import annotations

from services.games.common.engine import IllegalAction
from services.games.el_dorado import actions as act
from services.games.el_dorado import content
from services.games.el_dorado.actions import Action
from services.games.el_dorado.content import Symbol, Terrain
from services.games.el_dorado.decide import handle
from services.games.el_dorado.decide_action import native_targets
from services.games.el_dorado.rules import (
    blockade_seams,
    blockade_spec,
    board_of,
    move_symbols,
    payments,
)
from services.games.el_dorado.state import Choice, Phase, State


def _choice_candidates(state: State, seat: int, choice: Choice) -> list[Action]:
    hand = sorted(set(state.players[seat].hand))
    if choice is Choice.TAKE:
        return [act.TakeCard(c) for c in content.market_types()]
    if choice is Choice.NATIVE:
        return [act.NativeMove(p, q, r) for p, q, r in native_targets(state, seat)]
    if choice is Choice.REMOVE:
        return [*(act.RemoveCard(c) for c in hand), act.Done()]
    return [*(act.SetAsideCard(c) for c in hand), act.Done()]


def _card_candidates(state: State, seat: int, pieces: list[int]) -> list[Action]:
    out: list[Action] = []
    for card in sorted(set(state.players[seat].hand)):
        spec = content.cards()[card]
        for symbol in move_symbols(spec.symbol, state.turn.any_symbol):
            out.extend(act.PlayCard(card, symbol, p) for p in pieces)
        if spec.symbol is Symbol.ACTION:
            out.append(act.PlayAction(card))
        out.append(act.SpendCard(card))
    return out


def _token_candidates(state: State, seat: int, pieces: list[int]) -> list[Action]:
    out: list[Action] = []
    for token in sorted(set(state.players[seat].tokens)):
        spec = content.tokens()[token]
        if spec.symbol is Symbol.ACTION:
            out.append(act.UseToken(token))
            continue
        for symbol in move_symbols(spec.symbol, state.turn.any_symbol):
            out.extend(act.PlayToken(token, symbol, p) for p in pieces)
        if spec.symbol is Symbol.COIN:
            out.append(act.SpendToken(token))
    return out


def _paying_candidates(state: State, seat: int, pieces: list[int]) -> list[Action]:
    """Rubble, base camps and rubble blockades, paid with every distinct set of hand cards."""
    b = board_of(state)
    hand = state.players[seat].hand
    out: list[Action] = []
    for p in pieces:
        here = state.players[seat].pieces[p]
        assert here is not None
        for to in b.neighbours[here]:
            space = b.spaces[to]
            if space.terrain in (Terrain.RUBBLE, Terrain.BASECAMP):
                out.extend(act.ClearSpace(p, *to, pay) for pay in payments(hand, space.power))
        for seam in blockade_seams(state, here):
            spec = blockade_spec(state, seam)
            if spec.terrain is Terrain.RUBBLE:
                out.extend(act.ClearBlockade(p, seam, pay) for pay in payments(hand, spec.power))
    return out


def _play_candidates(state: State, seat: int) -> list[Action]:
    player = state.players[seat]
    pieces = [i for i, h in enumerate(player.pieces) if h is not None]
    out: list[Action] = []
    active = state.turn.active
    if active is not None and player.pieces[active.piece] is not None:
        here = player.pieces[active.piece]
        assert here is not None
        out.extend(act.MoveTo(*to) for to in board_of(state).neighbours[here])
        out.extend(act.BreakBlockade(s) for s in blockade_seams(state, here))
        out.append(act.StopMoving())
    out += _card_candidates(state, seat, pieces) + _token_candidates(state, seat, pieces)
    out += _paying_candidates(state, seat, pieces)
    out.extend(act.BuyCard(c) for c in content.market_types())
    out.append(act.EndTurn())
    return out


def candidates(state: State, seat: int) -> list[Action]:
    """A superset of the legal actions of `seat` now."""
    if state.phase is Phase.CLEANUP:
        return [*(act.DiscardCard(c) for c in sorted(set(state.players[seat].hand))), act.Done()]
    if state.turn.choice is not Choice.NONE:
        return _choice_candidates(state, seat, state.turn.choice)
    return _play_candidates(state, seat)


def _accepted(state: State, seat: int, action: Action) -> bool:
    try:
        handle(state, seat, action)
    except IllegalAction:
        return False
    return True


def legal_actions(state: State, seat: int) -> list[Action]:
    """Every action `decide` accepts from `seat`, a seat asked to act (the host sees to that)."""
    return [a for a in candidates(state, seat) if _accepted(state, seat, a)]
