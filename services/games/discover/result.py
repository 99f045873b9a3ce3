"""The outcome of a co-operative game: who won, who was still on the map, who fell."""

from __future__ import annotations

from services.games.common.engine import STOPPED_REASON, Outcome
from services.games.discover.state import Phase, State, Status

# Each survivor's fate as a score: winners left the island, casualties lost
# ("Damnificados"), and a survivor still on the map when the safety cap stopped
# the game neither won nor fell.
FATE_SCORE = {Status.WON: 2, Status.ACTIVE: 1, Status.CASUALTY: 0}


def stopped(state: State) -> bool:
    """The safety cap, not the rules, ended the game ("Fin del juego" has no day limit)."""
    return state.end_reason == STOPPED_REASON


def result(state: State) -> Outcome | None:
    """Winners rank first, casualties last.

    `ranking[i]` is 1 + the number of seats with a better fate (ties share a
    place); `scores[i]` is the fate's score (2 won, 1 still on the map, 0
    casualty). A survivor still on the map when the cap stopped the game is
    placed with the winners: the cap decides nothing, so nobody it stopped is
    ranked below anyone. `cooperative_win` is True when at least one survivor
    won; a stopped game without a winner has no verdict (None). `detail` gives
    each seat's fate, the quest stages completed, days, clues and why the game
    ended (`stopped_by_cap` when the cap stopped it).
    """
    if state.phase is not Phase.OVER:
        return None
    scores = tuple(FATE_SCORE[s.status] for s in state.survivors)
    placed = {**FATE_SCORE, Status.ACTIVE: FATE_SCORE[Status.WON]} if stopped(state) else FATE_SCORE
    keys = tuple(placed[s.status] for s in state.survivors)
    ranking = tuple(1 + sum(1 for other in keys if other > mine) for mine in keys)
    detail = {f"seat_{s.seat}": s.status.value for s in state.survivors}
    detail |= {
        "stages_completed": str(state.stages_done),
        "days": str(state.day),
        "clues": str(state.clues),
        "reason": state.end_reason,
    }
    verdict = None if stopped(state) and not state.won else state.won
    return Outcome(ranking, scores, detail, cooperative_win=verdict)
