"""Who acts now: chance, the seats owing a secret choice, or the seat of action C."""

from __future__ import annotations

from services.games.common.engine import ToMove
from services.games.la_isla import chance_flow, explore, steps
from services.games.la_isla.state import Phase, State

SECRET_STEPS = (Phase.ASSIGN, Phase.INCOME, Phase.ANIMALS)


def to_move(state: State) -> ToMove:
    """Who acts now: chance, the seats owing a secret choice, or the C seat."""
    if state.phase in (Phase.SETUP, Phase.DRAW):
        asked = chance_flow.request(state)
        return ToMove(chance=asked) if asked is not None else ToMove()
    if state.phase in SECRET_STEPS:
        return ToMove(seats=steps.asked(state))
    if state.phase is Phase.EXPLORE:
        return ToMove(seats=(explore.current(state),))
    return ToMove()
