"""Action cards and cave tokens with effects, and the choices they open (RB p.7-8)."""

from __future__ import annotations

from services.games.common.engine import IllegalAction
from services.games.el_dorado import actions as act
from services.games.el_dorado import content
from services.games.el_dorado import events as ev
from services.games.el_dorado.content import Effect, EffectKind, Symbol
from services.games.el_dorado.decide_move import _card
from services.games.el_dorado.moves import end_move
from services.games.el_dorado.rules import available, board_of, buying, check_enter, refuse
from services.games.el_dorado.state import Choice, State

OPENS = {
    EffectKind.REMOVE: Choice.REMOVE,
    EffectKind.TAKE_FREE: Choice.TAKE,
    EffectKind.NATIVE_MOVE: Choice.NATIVE,
    EffectKind.REPLACE_HAND: Choice.SET_ASIDE,
}


def native_targets(state: State, seat: int) -> list[tuple[int, int, int]]:
    """(piece, q, r) the Native may move to: next spaces, not mountains or occupied (RB p.8)."""
    out = []
    for piece, here in enumerate(state.players[seat].pieces):
        if here is None:
            continue
        for to in board_of(state).neighbours[here]:
            try:
                check_enter(state, here, to, through_blockade=True)
            except IllegalAction:
                continue
            out.append((piece, *to))
    return out


def _feasible(state: State, seat: int, effect: Effect) -> bool:
    """An effect that could do nothing is not playable (decision, RULES.md)."""
    match effect.kind:
        case EffectKind.TAKE_FREE:
            return any(available(state, c, free=True) for c in content.market_types())
        case EffectKind.NATIVE_MOVE:  # it moves a piece: not once buying has begun
            return not buying(state) and bool(native_targets(state, seat))
        case EffectKind.KEEP_ITEM:
            return state.turn.last_item is not None
    return True


def _effects(state: State, seat: int, effects: tuple[Effect, ...]) -> list[ev.Event]:
    """Draws come first; a choice opened afterwards waits until they are drawn."""
    out: list[ev.Event] = []
    for effect in effects:
        if effect.kind is EffectKind.DRAW:
            out.append(ev.DrawOwed(seat, effect.n))
        elif effect.kind in OPENS:
            out.append(ev.ChoiceOpened(OPENS[effect.kind], max(effect.n, 1)))
        elif effect.kind is EffectKind.KEEP_ITEM and state.turn.last_item is not None:
            out.append(ev.ItemKept(seat, state.turn.last_item))
    return out


def play_action(state: State, seat: int, a: act.PlayAction) -> list[ev.Event]:
    """A purple card's effect; an item leaves the game once used (RB p.4, p.8)."""
    spec = _card(state, seat, a.card)
    if spec.symbol is not Symbol.ACTION:
        raise refuse("action.not_an_action", f"{spec.name} has no action")
    if not all(_feasible(state, seat, e) for e in spec.effects):
        raise refuse("action.no_effect", f"{spec.name} would have no effect now")
    played = ev.ActionPlayed(seat, a.card, spec.single_use)
    return [*end_move(state, seat), played, *_effects(state, seat, spec.effects)]


def use_token(state: State, seat: int, a: act.UseToken) -> list[ev.Event]:
    """An effect cave token; keep-item keeps the move going since it plays no card (RB p.7)."""
    spec = content.tokens().get(a.token)
    if spec is None or spec.symbol is not Symbol.ACTION or a.token not in state.players[seat].tokens:
        raise refuse("caves.no_such_token", "you hold no such effect token")
    if not all(_feasible(state, seat, e) for e in spec.effects):
        raise refuse("caves.no_effect", "the token would have no effect now")
    keeps = any(e.kind is EffectKind.KEEP_ITEM for e in spec.effects)
    ended = [] if keeps else end_move(state, seat)
    return [*ended, ev.TokenUsed(seat, a.token), *_effects(state, seat, spec.effects)]


def _in_hand(state: State, seat: int, card: str) -> None:
    if card not in state.players[seat].hand:
        raise refuse("cards.not_in_hand", "that card is not in your hand")


def _last(state: State) -> list[ev.Event]:
    return [ev.ChoiceClosed()] if state.turn.choice_left <= 1 else []


def remove_card(state: State, seat: int, a: act.RemoveCard) -> list[ev.Event]:
    """Scientist, Travel Log, remove token: take a hand card out of the game (RB p.8)."""
    _in_hand(state, seat, a.card)
    return [ev.CardRemoved(seat, a.card), *_last(state)]


def set_aside(state: State, seat: int, a: act.SetAsideCard) -> list[ev.Event]:
    """Replace-hand token: up to 4 hand cards go to the play area, then as many are drawn (RB p.7)."""
    _in_hand(state, seat, a.card)
    return [ev.CardSetAside(seat, a.card), *_last(state)]
