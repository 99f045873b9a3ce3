"""The outcome of a co-operative game: who won, who was still on the map, who fell."""

from __future__ import annotations

from services.games.common.engine import Outcome
from services.games.discover.state import Phase, State, Status

# Each survivor's fate as a score: winners left the island, casualties lost
# ("Damnificados"), and a survivor still on the map when the day cap ended the
# game neither won nor fell.
FATE_SCORE = {Status.WON: 2, Status.ACTIVE: 1, Status.CASUALTY: 0}


def result(state: State) -> Outcome | None:
    """Winners rank first, survivors still on the map next, casualties last.

    `ranking[i]` is 1 + the number of seats with a better fate (ties share a
    place); `scores[i]` is the fate's score (2 won, 1 still on the map, 0
    casualty). `cooperative_win` is True when at least one survivor won;
    `detail` gives each seat's fate, the quest stages completed, days, clues
    and why the game ended.
    """
    if state.phase is not Phase.OVER:
        return None
    scores = tuple(FATE_SCORE[s.status] for s in state.survivors)
    ranking = tuple(1 + sum(1 for other in scores if other > mine) for mine in scores)
    detail = {f"seat_{s.seat}": s.status.value for s in state.survivors}
    detail |= {
        "stages_completed": str(state.stages_done),
        "days": str(state.day),
        "clues": str(state.clues),
        "reason": state.end_reason,
    }
    return Outcome(ranking, scores, detail, cooperative_win=state.won)
