"""How well a seat stands in La Isla, for the search bots' cut-off rollouts."""

from __future__ import annotations

import math

from services.games.la_isla.result import score
from services.games.la_isla.state import State


def evaluate(state: State, seat: int) -> float:
    """How well `seat` stands, in (0, 1): its final score if the game ended now against the best rival's."""
    totals = [score(state, s, p).total for s, p in enumerate(state.players)]
    rival = max((t for s, t in enumerate(totals) if s != seat), default=0)
    return 1 / (1 + math.exp(-(totals[seat] - rival) / 8))


__all__ = ["evaluate"]
