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

import heapq
import math
from collections import Counter
from functools import cache

from services.games.common.host import Determinization, Rng
from services.games.el_dorado import content
from services.games.el_dorado.board import board
from services.games.el_dorado.content import Terrain
from services.games.el_dorado.flow import CAVES_PILE, draw_pile
from services.games.el_dorado.state import Active, Hex, Phase, Player, State, Turn, taken
from services.games.el_dorado.view import PlayerView, View

PASSABLE = frozenset({Terrain.MACHETE, Terrain.PADDLE, Terrain.COIN, Terrain.RUBBLE, Terrain.BASECAMP, Terrain.START})
UNREACHABLE = 999


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


@cache
def _effort_map(course: str, seams: tuple[int, ...]) -> dict[Hex, int]:
    """Card power still needed from each space to a finish space: entering a space costs its
    power (rubble and base camps the cards they take), crossing an intact blockade its power."""
    b = board(course)
    powers = {blockade.id: blockade.power for blockade in content.blockades()}
    effort = {h: 0 for h, s in b.spaces.items() if s.finish}
    queue = [(0, h) for h in effort]
    while queue:
        cost, here = heapq.heappop(queue)
        if cost > effort[here]:
            continue
        for there in b.neighbours[here]:
            if there not in b.spaces or b.spaces[there].terrain not in PASSABLE:
                continue
            seam = b.seam_of.get((there, here))
            step = max(1, b.spaces[here].power) + (powers[seams[seam]] if seam is not None and seams[seam] else 0)
            if cost + step < effort.get(there, UNREACHABLE):
                effort[there] = cost + step
                heapq.heappush(queue, (cost + step, there))
    return effort


def _effort(state: State, player: Player) -> int:
    efforts = _effort_map(state.course, state.seams)
    return sum(efforts.get(p, UNREACHABLE) for p in player.pieces if p is not None)


def _progress(state: State, player: Player, start: int) -> float:
    """Share of the way to El Dorado covered, 0 at the start, 1 once every piece arrived."""
    return 1.0 - min(_effort(state, player), start) / start if start else 1.0


def _strength(player: Player) -> float:
    """Mean power of the seat's cards: a richer deck moves further every turn."""
    cards = (*player.hand, *player.draw, *player.discard, *player.played)
    specs = content.cards()
    return sum(specs[c].power for c in cards) / len(cards) / 4 if cards else 0.0


def evaluate(state: State, seat: int) -> float:
    """How well `seat` stands, in (0, 1): its lead over the best rival and its own progress
    (which keeps pulling it forward once far ahead), and a little the strength of its deck."""
    efforts = _effort_map(state.course, state.seams)
    start = sum(efforts.get(h, 0) for h in board(state.course).starts[: len(state.players[seat].pieces)])
    progress = [_progress(state, p, start) for p in state.players]
    rivals = max((x for s, x in enumerate(progress) if s != seat), default=0.0)
    x = 5 * (progress[seat] - rivals) + 2 * progress[seat] - 1 + _strength(state.players[seat]) - 0.5
    return 1 / (1 + math.exp(-x))


__all__ = ["determinize", "evaluate"]
