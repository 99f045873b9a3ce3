"""Fold one event into the state; never raises on an event `decide` emitted."""

from __future__ import annotations

from typing import assert_never

from services.games.common.values import replace
from services.games.el_dorado import content
from services.games.el_dorado import events as ev
from services.games.el_dorado.content import EffectKind
from services.games.el_dorado.state import (
    Active,
    Choice,
    Phase,
    Player,
    State,
    Turn,
    added,
    taken,
    with_player,
    with_turn,
)


def _player(state: State, seat: int) -> Player:
    return state.players[seat]


def _update(state: State, seat: int, **changes: object) -> State:
    return with_player(state, seat, replace(state.players[seat], **changes))  # type: ignore[arg-type]


def _new_play(state: State) -> State:
    """Playing anything else ends the active move and the keep-item window (RB p.3)."""
    return with_turn(state, active=None, last_item=None)


def _move_piece(state: State, seat: int, piece: int, to: tuple[int, int] | None) -> State:
    pieces = list(_player(state, seat).pieces)
    pieces[piece] = to
    return _update(state, seat, pieces=tuple(pieces))


def _play_card(state: State, e: ev.CardPlayed) -> State:
    p = _player(state, e.seat)
    state = with_turn(
        _new_play(state), active=Active(e.card, e.symbol, e.piece, e.power), any_symbol=False,
        last_item=e.card if e.removed else None,
    )
    pile = {"removed": added(p.removed, [e.card])} if e.removed else {"played": added(p.played, [e.card])}
    return _update(state, e.seat, hand=taken(p.hand, [e.card]), **pile)


def _step(state: State, e: ev.PieceMoved) -> State:
    active = state.turn.active
    if active is not None and e.power:
        state = with_turn(state, active=replace(active, left=active.left - e.power))
    return _move_piece(state, e.seat, e.piece, (e.q, e.r))


def _given_up(state: State, e: ev.CardsGivenUp) -> State:
    p = _player(state, e.seat)
    pile = {"removed": added(p.removed, e.cards)} if e.removed else {"played": added(p.played, e.cards)}
    return _update(_new_play(state), e.seat, hand=taken(p.hand, e.cards), **pile)


def _blockade(state: State, e: ev.BlockadeTaken) -> State:
    seams = tuple(0 if i == e.seam else b for i, b in enumerate(state.seams))
    state = replace(state, seams=seams)
    active = state.turn.active
    if active is not None and e.power:
        state = with_turn(state, active=replace(active, left=active.left - e.power))
    return _update(state, e.seat, blockades=(*_player(state, e.seat).blockades, e.blockade))


def _spend(state: State, e: ev.CardSpent) -> State:
    p = _player(state, e.seat)
    state = with_turn(_new_play(state), coins=state.turn.coins + e.halves,
                      last_item=e.card if e.removed else None)
    pile = {"removed": added(p.removed, [e.card])} if e.removed else {"played": added(p.played, [e.card])}
    return _update(state, e.seat, hand=taken(p.hand, [e.card]), **pile)


def _buy(state: State, e: ev.CardBought) -> State:
    state = _take(state, e.seat, e.card)
    board = (*state.board, e.card) if e.to_board else state.board
    return replace(with_turn(state, coins=0, bought=True), board=board)


def _take(state: State, seat: int, card: str) -> State:
    """Move one card of `card` from the market to `seat`'s discard pile; a sold-out pile frees its slot."""
    index = content.market_types().index(card)
    stock = tuple(n - 1 if i == index else n for i, n in enumerate(state.stock))
    board = tuple(c for c in state.board if c != card or stock[index] > 0)
    state = replace(state, stock=stock, board=board)
    return _update(state, seat, discard=added(_player(state, seat).discard, [card]))


def _action(state: State, e: ev.ActionPlayed) -> State:
    p = _player(state, e.seat)
    state = with_turn(_new_play(state), last_item=e.card if e.removed else None)
    pile = {"removed": added(p.removed, [e.card])} if e.removed else {"played": added(p.played, [e.card])}
    return _update(state, e.seat, hand=taken(p.hand, [e.card]), **pile)


def _token_used(state: State, e: ev.TokenUsed) -> State:
    effects = {f.kind for f in content.tokens()[e.token].effects}
    turn = state.turn
    state = with_turn(
        state if EffectKind.KEEP_ITEM in effects else _new_play(state),
        pass_occupied=turn.pass_occupied or EffectKind.PASS_OCCUPIED in effects,
        any_symbol=turn.any_symbol or EffectKind.CHANGE_SYMBOL in effects,
    )
    return _update(state, e.seat, tokens=taken(_player(state, e.seat).tokens, [e.token]))


def _drawn(state: State, e: ev.CardsDrawnToHand) -> State:
    p = _player(state, e.seat)
    state = replace(state, owed=max(0, state.owed - len(e.cards)))
    return _update(state, e.seat, hand=added(p.hand, e.cards), draw=taken(p.draw, e.cards))


def _stopped(state: State, e: ev.PieceStopped) -> State:
    p = _player(state, e.seat)
    near = tuple(frozenset(e.near) if i == e.piece else n for i, n in enumerate(p.near_caves))
    left = tuple(n - 1 if i in e.explores else n for i, n in enumerate(state.cave_left))
    queue = (*state.explore, *((e.seat, c) for c in e.explores))
    return _update(replace(state, cave_left=left, explore=queue), e.seat, near_caves=near)


def _choice_closed(state: State) -> State:
    if state.turn.choice is Choice.SET_ASIDE:
        state = replace(state, owed=state.owed + state.turn.set_aside)
    return with_turn(state, choice=Choice.NONE, choice_left=0, set_aside=0)


def _turn_ended(state: State, e: ev.TurnEnded) -> State:
    p = _player(state, e.seat)
    state = with_turn(state, active=None)
    return _update(state, e.seat, played=(), discard=added(p.discard, e.discarded))


def _cleanup_discard(state: State, e: ev.CardDiscarded) -> State:
    p = _player(state, e.seat)
    return _update(state, e.seat, hand=taken(p.hand, [e.card]), discard=added(p.discard, [e.card]))


def _removed(state: State, e: ev.CardRemoved) -> State:
    p = _player(state, e.seat)
    state = with_turn(state, choice_left=state.turn.choice_left - 1)
    return _update(state, e.seat, hand=taken(p.hand, [e.card]), removed=added(p.removed, [e.card]))


def _set_aside(state: State, e: ev.CardSetAside) -> State:
    p = _player(state, e.seat)
    turn = state.turn
    state = with_turn(state, choice_left=turn.choice_left - 1, set_aside=turn.set_aside + 1)
    return _update(state, e.seat, hand=taken(p.hand, [e.card]), played=added(p.played, [e.card]))


def _kept(state: State, e: ev.ItemKept) -> State:
    p = _player(state, e.seat)
    state = with_turn(state, last_item=None)
    return _update(state, e.seat, removed=taken(p.removed, [e.card]), played=added(p.played, [e.card]))


def _token_played(state: State, e: ev.TokenPlayed) -> State:
    active = Active(e.token, e.symbol, e.piece, e.power)
    state = with_turn(_new_play(state), active=active, any_symbol=False)
    return _update(state, e.seat, tokens=taken(_player(state, e.seat).tokens, [e.token]))


def _token_spent(state: State, e: ev.TokenSpent) -> State:
    state = with_turn(_new_play(state), coins=state.turn.coins + e.halves)
    return _update(state, e.seat, tokens=taken(_player(state, e.seat).tokens, [e.token]))


def _explored(state: State, e: ev.CaveExplored) -> State:
    p = _player(state, e.seat)
    return _update(replace(state, explore=state.explore[1:]), e.seat, tokens=added(p.tokens, [e.token]))


def _arrived(state: State, e: ev.PieceArrived) -> State:
    state = _move_piece(with_turn(state, active=None), e.seat, e.piece, None)
    return replace(state, final_round=state.final_round or e.final_round)


def _deck(state: State, e: ev.DeckShuffled) -> State:
    return _update(state, e.seat, draw=added(_player(state, e.seat).draw, e.cards), discard=())


def evolve(state: State, event: ev.Event) -> State:
    """The state after `event`."""
    match event:
        case ev.BlockadesPlaced(seams=seams):
            return replace(state, seams=seams)
        case ev.CaveTokensShuffled(caves=caves, per_cave=per):
            return replace(state, caves_ready=True, cave_left=(per,) * caves)
        case ev.DeckShuffled():
            return _deck(state, event)
        case ev.CardsDrawnToHand():
            return _drawn(state, event)
        case ev.CardsDrawnUnseen():
            return state
        case ev.TurnStarted(seat=seat, round=rnd):
            return replace(state, phase=Phase.PLAY, current=seat, round=rnd, turn=Turn(), owed=0)
        case ev.CardPlayed():
            return _play_card(state, event)
        case ev.TokenPlayed():
            return _token_played(state, event)
        case ev.PieceMoved():
            return _step(state, event)
        case ev.MoveEnded():
            return with_turn(state, active=None)
        case ev.PieceStopped():
            return _stopped(state, event)
        case ev.CaveExplored():
            return _explored(state, event)
        case ev.CardsGivenUp():
            return _given_up(state, event)
        case ev.BlockadeTaken():
            return _blockade(state, event)
        case ev.CardSpent():
            return _spend(state, event)
        case ev.TokenSpent():
            return _token_spent(state, event)
        case ev.CardBought():
            return _buy(state, event)
        case ev.ActionPlayed():
            return _action(state, event)
        case ev.TokenUsed():
            return _token_used(state, event)
        case ev.DrawOwed(count=count):
            return replace(state, owed=state.owed + count)
        case ev.ChoiceOpened(choice=choice, count=count):
            return with_turn(state, choice=choice, choice_left=count, set_aside=0)
        case ev.ChoiceClosed():
            return _choice_closed(state)
        case ev.CardTaken(seat=seat, card=card):
            return _take(state, seat, card)
        case ev.CardRemoved():
            return _removed(state, event)
        case ev.CardSetAside():
            return _set_aside(state, event)
        case ev.ItemKept():
            return _kept(state, event)
        case ev.PieceArrived():
            return _arrived(state, event)
        case ev.TurnEnded():
            return replace(_turn_ended(state, event), phase=Phase.CLEANUP)
        case ev.CardDiscarded():
            return _cleanup_discard(state, event)
        case ev.HandKept(owed=owed):
            return replace(state, phase=Phase.DRAW, owed=owed)
        case ev.GameEnded(ranking=ranking, reason=reason):
            return replace(state, phase=Phase.OVER, ranking=ranking, end_reason=reason)
        case _:
            assert_never(event)
