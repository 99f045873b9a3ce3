"""What a viewer may know: everything public plus the viewer's own hand (draw piles as counts)."""

from __future__ import annotations

from dataclasses import dataclass

from services.games.el_dorado import content
from services.games.el_dorado.content import Symbol
from services.games.el_dorado.state import Choice, Phase, State


@dataclass(frozen=True)
class PieceView:
    """A piece: its hex, or `arrived` once in El Dorado (q, r then 0)."""

    q: int
    r: int
    arrived: bool


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


def _player(state: State, seat: int) -> PlayerView:
    p = state.players[seat]
    pieces = tuple(PieceView(0, 0, True) if h is None else PieceView(h[0], h[1], False) for h in p.pieces)
    return PlayerView(
        seat, len(p.hand), len(p.draw), p.discard, p.played, p.removed, pieces, p.blockades, p.tokens
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
        state.ranking,
    )


__all__ = ["ActiveView", "MarketPile", "Phase", "PieceView", "PlayerView", "View", "view"]
