"""The outcome of a co-operative game: one shared result for every seat."""

from __future__ import annotations

from services.games.common.engine import Outcome
from services.games.discover.state import Phase, State


def result(state: State) -> Outcome | None:
    """Every seat ranks 1 (a shared result); scores are the quest stages completed.

    `cooperative_win` is True when at least one survivor won (completed the final
    stage and left the map); `detail` says who won, who became a casualty, and why
    the game ended.
    """
    if state.phase is not Phase.OVER:
        return None
    seats = len(state.survivors)
    detail = {f"seat_{s.seat}": s.status.value for s in state.survivors}
    detail |= {
        "stages_completed": str(state.stages_done),
        "days": str(state.day),
        "clues": str(state.clues),
        "reason": state.end_reason,
    }
    return Outcome((1,) * seats, (state.stages_done,) * seats, detail, cooperative_win=state.won)
