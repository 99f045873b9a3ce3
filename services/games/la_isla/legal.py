"""Every legal action of a seat now."""

from __future__ import annotations

from collections.abc import Sequence

from services.games.la_isla import explore, steps
from services.games.la_isla.actions import Action
from services.games.la_isla.state import Phase, State


def legal_actions(state: State, seat: int) -> Sequence[Action]:
    """Every legal action of `seat`, a seat asked to act (the host sees to that)."""
    player = state.player(seat)
    if state.phase is Phase.ASSIGN:
        return steps.assignments(player)
    if state.phase is Phase.INCOME:
        return steps.incomes(player)
    if state.phase is Phase.ANIMALS:
        return steps.animal_moves(player)
    return explore.legal(state, seat)
