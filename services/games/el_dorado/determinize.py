"""What a bot may believe about a match: whole states consistent with one seat's view.

A seat sees its own hand, and for every seat the multiset of hand and draw pile
together (`PlayerView.hand_and_draw`, public: every card entering a deck is).
What it cannot tell apart is how another seat's cards split between hand and
draw pile, and the order of every draw pile, its own included: those are drawn
uniformly here. Nothing else is hidden in El Dorado (docs/bots.md).

One approximation, in the caves variant only: the engine keeps the count of
tokens left on each cave, not which tokens were drawn and spent, so the cave
pile is drawn from every token not held by a player now. It costs the search a
little accuracy and never reads anything hidden.
"""

from __future__ import annotations

from collections import Counter

from services.games.common.host import Determinization, Rng
from services.games.el_dorado import content
from services.games.el_dorado.flow import CAVES_PILE, draw_pile
from services.games.el_dorado.state import Active, Phase, Player, State, Turn, taken
from services.games.el_dorado.view import PlayerView, View


def _shuffled(cards: tuple[str, ...], rng: Rng) -> list[str]:
    order = list(cards)
    rng.shuffle(order)
    return order


def _player(view: View, p: PlayerView, seat: int, rng: Rng) -> Player:
    """Seat `p.seat` with a hand drawn uniformly from its hand-and-draw multiset (the viewer's own is known)."""
    hand = view.hand if p.seat == seat else tuple(sorted(_shuffled(p.hand_and_draw, rng)[: p.hand_count]))
    return Player(
        hand=hand,
        draw=taken(p.hand_and_draw, hand),
        discard=p.discard,
        played=p.played,
        removed=p.removed,
        pieces=tuple(None if piece.arrived else (piece.q, piece.r) for piece in p.pieces),
        near_caves=tuple(frozenset(piece.near_caves) for piece in p.pieces),
        blockades=p.blockades,
        tokens=p.tokens,
    )


def _turn(view: View) -> Turn:
    a = view.active
    return Turn(
        active=None if a is None else Active(a.source, a.symbol, a.piece, a.left),
        coins=view.coins_halves,
        bought=view.bought,
        choice=view.choice,
        choice_left=view.choice_left,
        set_aside=view.set_aside,
        any_symbol=view.any_symbol,
        pass_occupied=view.pass_occupied,
        last_item=view.last_item,
    )


def _cave_pile(players: tuple[Player, ...], rng: Rng) -> list[str]:
    held = Counter(t for p in players for t in p.tokens)
    left = Counter(content.token_pile())
    left.subtract(held)
    return _shuffled(tuple(sorted(left.elements())), rng)


def determinize(view: View, seat: int, rng: Rng) -> Determinization[State]:
    """A state `seat` cannot tell from the real one, and every hidden pile's order (top first)."""
    players = tuple(_player(view, p, seat, rng) for p in view.players)
    state = State(
        seats=len(view.players),
        course=view.course,
        caves=view.caves,
        max_rounds=view.max_rounds,
        phase=view.phase,
        players=players,
        stock=tuple(m.count for m in view.market),
        board=tuple(m.card for m in view.market if m.on_board),
        current=view.current,
        round=view.round,
        seams=view.seams,
        caves_ready=view.caves and view.phase is not Phase.SETUP,
        cave_left=view.cave_tokens_left,
        owed=view.owed,
        turn=_turn(view),
        final_round=view.final_round,
        ranking=view.ranking,
    )
    piles = {draw_pile(s): _shuffled(p.draw, rng) for s, p in enumerate(players)}
    if view.caves:
        piles[CAVES_PILE] = _cave_pile(players, rng)
    return Determinization(state, piles)


__all__ = ["determinize"]
