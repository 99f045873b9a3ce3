"""Shared rule predicates: what a piece may enter, what a card is worth (RB pp.3-5)."""

from __future__ import annotations

from itertools import combinations

from services.games.common.engine import IllegalAction
from services.games.el_dorado import content
from services.games.el_dorado.board import Board, Hex, board
from services.games.el_dorado.content import LANDSCAPE, Symbol, Terrain
from services.games.el_dorado.state import Player, State, occupied

TERRAIN_OF = {Symbol.MACHETE: Terrain.MACHETE, Symbol.PADDLE: Terrain.PADDLE, Symbol.COIN: Terrain.COIN}
HAND_SIZE = 4


def board_of(state: State) -> Board:
    """The assembled course of this match (cached per course)."""
    return board(state.course)


def refuse(rule: str, detail: str = "") -> IllegalAction:
    """An IllegalAction with the game's rule-id prefix."""
    return IllegalAction(f"el_dorado.{rule}", detail)


def buying(state: State) -> bool:
    """Phase 1 has moved on to buying: a card or coin token was spent, or a card bought.

    Fase 1: "Primero, juega a las cartas que quieras usar para moverte. Utilice el resto de
    sus tarjetas para comprar hasta 1 tarjeta nueva": cards for moving come first.
    """
    return state.turn.bought or state.turn.coins > 0


def check_moving_first(state: State) -> None:
    """Nothing moves a piece once buying has begun this turn."""
    if buying(state):
        raise refuse("movement.after_buying", "cards for moving are played first: no move once buying has begun")


def piece_at(state: State, seat: int, piece: int) -> Hex:
    """Where `piece` of `seat` stands; refuses pieces that do not exist or arrived."""
    pieces = state.players[seat].pieces
    if not 0 <= piece < len(pieces):
        raise refuse("movement.no_such_piece", f"piece {piece}")
    here = pieces[piece]
    if here is None:
        raise refuse("movement.piece_arrived", f"piece {piece} is in El Dorado")
    return here


def intact_seam(state: State, a: Hex, b: Hex) -> int | None:
    """The join between `a` and `b` if a blockade still closes it (RB p.5)."""
    seam = board_of(state).seam_of.get((a, b))
    if seam is not None and state.seams and state.seams[seam]:
        return seam
    return None


def check_enter(state: State, here: Hex, to: Hex, through_blockade: bool = False) -> None:
    """Refuse entering `to` from `here`: not adjacent, mountain, occupied or blockaded (RB p.3, p.5)."""
    b = board_of(state)
    if to not in b.neighbours[here]:
        raise refuse("movement.not_adjacent", f"{to} is not next to {here}")
    if not b.enterable(to):
        raise refuse("movement.mountain", f"{to} cannot be entered")
    if not state.turn.pass_occupied and to in occupied(state):
        raise refuse("movement.occupied", f"{to} is occupied")
    if not through_blockade and intact_seam(state, here, to) is not None:
        raise refuse("blockade.closed", "a blockade closes this join")


def check_landscape(state: State, to: Hex, symbol: Symbol, power: int) -> None:
    """One card of the space's symbol with enough power enters it; no combining (RB p.3)."""
    space = board_of(state).spaces[to]
    if space.terrain is not TERRAIN_OF.get(symbol):
        raise refuse("movement.symbol_mismatch", f"{to} needs {space.terrain.value}")
    if space.power > power:
        raise refuse("movement.not_enough_power", f"{to} needs power {space.power}")


def can_step(state: State, here: Hex, to: Hex, symbol: Symbol, power: int) -> bool:
    """True if a card of `symbol` with `power` left may enter `to` from `here`."""
    try:
        check_enter(state, here, to)
        check_landscape(state, to, symbol, power)
    except IllegalAction:
        return False
    return True


def blockade_seams(state: State, here: Hex) -> tuple[int, ...]:
    """Intact blockades next to `here`."""
    b = board_of(state)
    seams = {intact_seam(state, here, n) for n in b.neighbours[here]}
    return tuple(sorted(s for s in seams if s is not None))


def blockade_spec(state: State, seam: int) -> content.BlockadeSpec:
    """The blockade lying on join `seam`."""
    return next(b for b in content.blockades() if b.id == state.seams[seam])


def can_break(state: State, here: Hex, seam: int, symbol: Symbol, power: int) -> bool:
    """True if a landscape blockade on `seam` next to `here` can be paid with this card."""
    if seam not in blockade_seams(state, here):
        return False
    spec = blockade_spec(state, seam)
    return spec.terrain is TERRAIN_OF.get(symbol) and spec.power <= power


def has_step(state: State, here: Hex, symbol: Symbol, power: int) -> bool:
    """True if the card can do anything at all from `here` (a step or a blockade)."""
    b = board_of(state)
    if any(can_step(state, here, to, symbol, power) for to in b.neighbours[here]):
        return True
    return any(can_break(state, here, s, symbol, power) for s in blockade_seams(state, here))


def move_symbols(symbol: Symbol, any_symbol: bool) -> tuple[Symbol, ...]:
    """Symbols a card may move with: jokers (and the change-symbol token) choose (RB p.8)."""
    if symbol in LANDSCAPE and not any_symbol:
        return (symbol,)
    if symbol in (Symbol.JOKER, *LANDSCAPE):
        return LANDSCAPE
    return ()


def coin_halves(card: content.CardSpec) -> tuple[int, bool]:
    """Half-coins a card is worth, and whether that uses its function (RB p.4).

    Coin cards pay their power; jokers may be played as coin, so they do too
    (facts.md 2); every other card pays 1/2.
    """
    if card.symbol in (Symbol.COIN, Symbol.JOKER):
        return 2 * card.power, True
    return 1, False


def available(state: State, card: str, free: bool) -> bool:
    """True if `card` can be bought now (vacant-slot rule, RB p.4) or taken for free."""
    types = content.market_types()
    if card not in types or state.stock[types.index(card)] == 0:
        return False
    return free or card in state.board or len(state.board) < content.board_slots()


def payments(hand: tuple[str, ...], n: int) -> tuple[tuple[str, ...], ...]:
    """Every distinct multiset of `n` cards from `hand` (sorted)."""
    if n > len(hand):
        return ()
    return tuple(sorted(set(combinations(hand, n))))


def drawable(player: Player) -> bool:
    """True if the player can still draw a card (draw or discard pile not empty)."""
    return bool(player.draw or player.discard)
