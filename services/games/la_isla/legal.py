"""Every legal action of a seat now."""

from __future__ import annotations

from collections.abc import Sequence

from services.games.la_isla import explore, steps
from services.games.la_isla.actions import Action
from services.games.la_isla.flow import to_move
from services.games.la_isla.state import Phase, State


def legal_actions(state: State, seat: int) -> Sequence[Action]:
    """Every legal action of `seat` now (empty when it is not asked to act)."""
    if seat not in to_move(state).seats:
        return ()
    player = state.player(seat)
    if state.phase is Phase.ASSIGN:
        return steps.assignments(player)
    if state.phase is Phase.INCOME:
        return steps.incomes(player)
    if state.phase is Phase.ANIMALS:
        return steps.animal_moves(player)
    return explore.legal(state, seat)
