"""How well a seat stands in The Quest for El Dorado, for the search bots' cut-off rollouts:
its lead over the best rival on the way to El Dorado (the effort the board still asks
of its pieces), its own progress, and a little the strength of its deck."""

from __future__ import annotations

import heapq
import math
from functools import cache

from services.games.el_dorado import content
from services.games.el_dorado.board import board
from services.games.el_dorado.content import Terrain
from services.games.el_dorado.state import Hex, Player, State

# The terrains a path may cross, and the effort of a space no path reaches.
PASSABLE = frozenset({Terrain.MACHETE, Terrain.PADDLE, Terrain.COIN, Terrain.RUBBLE, Terrain.BASECAMP, Terrain.START})
UNREACHABLE = 999


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


__all__ = ["evaluate"]
