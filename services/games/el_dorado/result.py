"""Ranking at the end (RB p.5): arrivals first, by blockades, then strongest blockade."""

from __future__ import annotations

from services.games.common.engine import Outcome
from services.games.el_dorado import content
from services.games.el_dorado.board import board
from services.games.el_dorado.state import Phase, Player, State


def _strongest(player: Player) -> int:
    powers = {b.id: b.power for b in content.blockades()}
    return max((powers[b] for b in player.blockades), default=0)


def distance(state: State, player: Player) -> int:
    """Steps left to El Dorado, summed over the player's pieces (the progress measure)."""
    dist = board(state.course).distance
    return sum(dist.get(p, 99) for p in player.pieces if p is not None)


def _key(state: State, player: Player) -> tuple[int, int, int]:
    """Bigger is better. Non-arrivals rank by progress (decision, RULES.md)."""
    if player.arrived:
        return (1, len(player.blockades), _strongest(player))
    return (0, -distance(state, player), 0)


def ranking(state: State) -> tuple[int, ...]:
    """Place of each seat, 1 = first; equal keys share a place."""
    keys = [_key(state, p) for p in state.players]
    return tuple(1 + sum(1 for other in keys if other > mine) for mine in keys)


def result(state: State) -> Outcome | None:
    """The outcome once the game is over.

    A game the round cap stopped (`reason` "stopped_by_cap") ranks every seat first: nobody
    reached El Dorado, so nobody won or lost; `distance` still shows how far each got.
    """
    if state.phase is not Phase.OVER:
        return None
    scores = tuple(len(p.blockades) for p in state.players)
    detail = {
        "reason": state.end_reason,
        "arrived": ",".join(str(i) for i, p in enumerate(state.players) if p.arrived),
        "distance": ",".join(str(distance(state, p)) for p in state.players),
    }
    return Outcome(state.ranking, scores, detail)
