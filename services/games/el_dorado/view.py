"""What a viewer may know: everything public plus the viewer's own hand (draw piles as counts).

Every card that enters a deck is public (the starting deck, each card bought,
discarded, played or removed), so the multiset of a seat's hand and draw pile
together is public too; only how it splits between the two, and the draw
order, is hidden. The view carries it (`hand_and_draw`) so that a seat's client,
or a bot, can rebuild every position it cannot tell apart (docs/bots.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from services.games.el_dorado import content
from services.games.el_dorado.content import Symbol
from services.games.el_dorado.state import Choice, Phase, State, added


@dataclass(frozen=True)
class PieceView:
    """A piece: its hex, or `arrived` once in El Dorado (q, r then 0)."""

    q: int
    r: int
    arrived: bool
    near_caves: tuple[int, ...]  # caves this piece stood beside when it last stopped (RB p.7)


@dataclass(frozen=True)
class PlayerView:
    """One seat as everybody sees it."""

    seat: int
    hand_count: int
    draw_count: int
    discard: tuple[str, ...]
    played: tuple[str, ...]
    removed: tuple[str, ...]
    pieces: tuple[PieceView, ...]
    blockades: tuple[int, ...]
    tokens: tuple[str, ...]
    hand_and_draw: tuple[str, ...]  # sorted multiset of hand and draw pile together: public


@dataclass(frozen=True)
class MarketPile:
    """A market pile: `on_board` or beside the board, with `count` cards left."""

    card: str
    count: int
    on_board: bool


@dataclass(frozen=True)
class ActiveView:
    """The card (or token) still moving `piece` with `left` power."""

    source: str
    symbol: Symbol
    piece: int
    left: int


@dataclass(frozen=True)
class View:
    """The whole public table, plus `hand` for the viewing seat (empty for spectators)."""

    viewer: int | None
    course: str
    phase: Phase
    current: int
    round: int
    final_round: bool
    players: tuple[PlayerView, ...]
    market: tuple[MarketPile, ...]
    seams: tuple[int, ...]
    cave_tokens_left: tuple[int, ...]
    active: ActiveView | None
    coins_halves: int
    bought: bool
    choice: Choice
    choice_left: int
    hand: tuple[str, ...]
    ranking: tuple[int, ...]
    caves: bool  # the caves variant is played
    max_rounds: int
    any_symbol: bool  # a played effect lets this turn's cards move on any landscape
    pass_occupied: bool  # a played effect lets pieces pass occupied spaces this turn
    last_item: str | None  # the item card just played and removed, which a later effect may keep
    set_aside: int  # cards set aside in the open set-aside choice, to be drawn back
    owed: int  # cards the current seat still draws


def _player(state: State, seat: int) -> PlayerView:
    p = state.players[seat]
    pieces = tuple(
        PieceView(0, 0, True, tuple(sorted(near))) if h is None else PieceView(h[0], h[1], False, tuple(sorted(near)))
        for h, near in zip(p.pieces, p.near_caves)
    )
    return PlayerView(
        seat, len(p.hand), len(p.draw), p.discard, p.played, p.removed, pieces, p.blockades, p.tokens,
        added(p.hand, p.draw),
    )


def view(state: State, viewer: int | None) -> View:
    """The view of `viewer` (a seat, or None for a spectator)."""
    market = tuple(
        MarketPile(card, count, card in state.board)
        for card, count in zip(content.market_types(), state.stock)
    )
    a = state.turn.active
    active = None if a is None else ActiveView(a.source, a.symbol, a.piece, a.left)
    hand = state.players[viewer].hand if viewer is not None and 0 <= viewer < state.seats else ()
    return View(
        viewer, state.course, state.phase, state.current, state.round, state.final_round,
        tuple(_player(state, s) for s in range(state.seats)), market, state.seams, state.cave_left,
        active, state.turn.coins, state.turn.bought, state.turn.choice, state.turn.choice_left, hand,
        state.ranking, state.caves, state.max_rounds, state.turn.any_symbol, state.turn.pass_occupied,
        state.turn.last_item, state.turn.set_aside, state.owed,
    )


__all__ = ["ActiveView", "MarketPile", "Phase", "PieceView", "PlayerView", "View", "view"]
