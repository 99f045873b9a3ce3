"""Movement: cards, steps, rubble, base camps, blockades and the Native (RB pp.3-5, p.8)."""

from __future__ import annotations

from services.games.el_dorado import actions as act
from services.games.el_dorado import content
from services.games.el_dorado import events as ev
from services.games.el_dorado.content import Terrain
from services.games.el_dorado.moves import after_jump, after_step, end_move
from services.games.el_dorado.rules import (
    blockade_seams,
    blockade_spec,
    board_of,
    can_break,
    check_enter,
    check_landscape,
    check_moving_first,
    has_step,
    move_symbols,
    piece_at,
    refuse,
)
from services.games.el_dorado.state import Active, State, holds


def _card(state: State, seat: int, card: str) -> content.CardSpec:
    spec = content.cards().get(card)
    if spec is None or card not in state.players[seat].hand:
        raise refuse("cards.not_in_hand", "that card is not in your hand")
    return spec


def play_card(state: State, seat: int, a: act.PlayCard) -> list[ev.Event]:
    """One card per move; its (chosen) symbol and power must fit a next space (RB p.3)."""
    check_moving_first(state)
    spec = _card(state, seat, a.card)
    if a.symbol not in move_symbols(spec.symbol, state.turn.any_symbol):
        raise refuse("movement.wrong_symbol", f"{spec.name} cannot move as {a.symbol.value}")
    here = piece_at(state, seat, a.piece)
    if not has_step(state, here, a.symbol, spec.power):
        raise refuse("movement.no_step", f"{spec.name} cannot enter any next space")
    played = ev.CardPlayed(seat, a.card, a.symbol, a.piece, spec.power, spec.single_use)
    return [*end_move(state, seat), played]


def play_token(state: State, seat: int, a: act.PlayToken) -> list[ev.Event]:
    """A terrain cave token moves like a card of its symbol and power (RB p.7)."""
    check_moving_first(state)
    spec = content.tokens().get(a.token)
    if spec is None or a.token not in state.players[seat].tokens or spec.power == 0:
        raise refuse("caves.no_such_token", "you hold no such terrain token")
    if a.symbol not in move_symbols(spec.symbol, state.turn.any_symbol):
        raise refuse("movement.wrong_symbol", f"the token cannot move as {a.symbol.value}")
    here = piece_at(state, seat, a.piece)
    if not has_step(state, here, a.symbol, spec.power):
        raise refuse("movement.no_step", "the token cannot enter any next space")
    return [*end_move(state, seat), ev.TokenPlayed(seat, a.token, a.symbol, a.piece, spec.power)]


def _active(state: State) -> Active:
    if state.turn.active is None:
        raise refuse("movement.no_active_card", "play a card first")
    return state.turn.active


def move_to(state: State, seat: int, a: act.MoveTo) -> list[ev.Event]:
    """Leftover power continues on the same card only, onto its symbol (RB p.3)."""
    active = _active(state)
    here = piece_at(state, seat, active.piece)
    check_enter(state, here, (a.q, a.r))
    check_landscape(state, (a.q, a.r), active.symbol, active.left)
    power = board_of(state).spaces[(a.q, a.r)].power
    return after_step(state, seat, [ev.PieceMoved(seat, active.piece, a.q, a.r, power)])


def stop_moving(state: State, seat: int, a: act.StopMoving) -> list[ev.Event]:
    """A player may stop at any time and loses the unspent power (RB p.3)."""
    _active(state)
    return end_move(state, seat)


def break_blockade(state: State, seat: int, a: act.BreakBlockade) -> list[ev.Event]:
    """A landscape blockade is paid like a space; the piece stays, leftover goes on (RB p.5)."""
    active = _active(state)
    here = piece_at(state, seat, active.piece)
    if not can_break(state, here, a.seam, active.symbol, active.left):
        raise refuse("blockade.cannot_pay", "the active card cannot pay that blockade")
    spec = blockade_spec(state, a.seam)
    return after_step(state, seat, [ev.BlockadeTaken(seat, a.seam, spec.id, spec.power)])


def _paid(state: State, seat: int, cards: tuple[str, ...], need: int) -> tuple[str, ...]:
    """Rubble and base camps take `need` cards of any kind from hand (RB p.3)."""
    if len(cards) != need:
        raise refuse("movement.wrong_card_count", f"give up exactly {need} cards")
    if not holds(state.players[seat].hand, cards):
        raise refuse("cards.not_in_hand", "those cards are not in your hand")
    return tuple(sorted(cards))


def clear_space(state: State, seat: int, a: act.ClearSpace) -> list[ev.Event]:
    """Rubble: cards are discarded later; base camp: cards leave the game (RB p.3)."""
    check_moving_first(state)
    here = piece_at(state, seat, a.piece)
    to = (a.q, a.r)
    check_enter(state, here, to)
    space = board_of(state).spaces[to]
    if space.terrain not in (Terrain.RUBBLE, Terrain.BASECAMP):
        raise refuse("movement.not_rubble_or_camp", "play one card for landscape spaces")
    cards = _paid(state, seat, a.cards, space.power)
    given = ev.CardsGivenUp(seat, cards, space.terrain is Terrain.BASECAMP)
    moved = ev.PieceMoved(seat, a.piece, a.q, a.r, 0)
    return after_jump(state, seat, a.piece, [*end_move(state, seat), given, moved])


def clear_blockade(state: State, seat: int, a: act.ClearBlockade) -> list[ev.Event]:
    """A rubble blockade is paid in cards; the piece stays where it is (RB p.5)."""
    check_moving_first(state)
    here = piece_at(state, seat, a.piece)
    if a.seam not in blockade_seams(state, here):
        raise refuse("blockade.not_adjacent", "no blockade there")
    spec = blockade_spec(state, a.seam)
    if spec.terrain is not Terrain.RUBBLE:
        raise refuse("blockade.not_rubble", "play a card of the blockade's symbol")
    cards = _paid(state, seat, a.cards, spec.power)
    taken = ev.BlockadeTaken(seat, a.seam, spec.id, 0)
    return [*end_move(state, seat), ev.CardsGivenUp(seat, cards, False), taken]


def native_move(state: State, seat: int, a: act.NativeMove) -> list[ev.Event]:
    """The Native enters a next space ignoring its requirement, even through a blockade (RB p.8)."""
    check_moving_first(state)
    here = piece_at(state, seat, a.piece)
    to = (a.q, a.r)
    check_enter(state, here, to, through_blockade=True)
    out: list[ev.Event] = [ev.ChoiceClosed()]
    seam = board_of(state).seam_of.get((here, to))
    if seam is not None and state.seams[seam]:
        out.append(ev.BlockadeTaken(seat, seam, state.seams[seam], 0))
    out.append(ev.PieceMoved(seat, a.piece, a.q, a.r, 0))
    return after_jump(state, seat, a.piece, out)
