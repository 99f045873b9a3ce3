"""Validate an action (or chance outcome) against the game's rules, emit its events,
then the automatic ones.

The host (services/games/common/host.py) calls `decide` only with the action
of a seat that `to_move` lists, or with the outcome answering the pending
chance request: the turn and chance checks are its, not this module's.
"""

from __future__ import annotations

from collections.abc import Sequence

from services.games.common.chance import CHANCE_SEAT, OUTCOME_TYPES, ChanceOutcome
from services.games.common.engine import IllegalAction
from services.games.la_isla import chance_flow, explore, steps
from services.games.la_isla.actions import Action, AdvanceMarkers, AssignCards, CollectIncome
from services.games.la_isla.events import Event, GameEnded, RoundEnded
from services.games.la_isla.evolve import evolve
from services.games.la_isla.flow import SECRET_STEPS
from services.games.la_isla.result import final_scores
from services.games.la_isla.rules import END_THRESHOLD, area_sum
from services.games.la_isla.state import Phase, State

EXPECTED = {Phase.ASSIGN: AssignCards, Phase.INCOME: CollectIncome, Phase.ANIMALS: AdvanceMarkers}


def _round_end(state: State) -> list[Event]:
    """End of round: pass the start player, end check (rulebook: Fin del juego)."""
    total = area_sum(state.markers)
    events: list[Event] = [RoundEnded(state.round, total, (state.start + 1) % state.seats)]
    if total >= END_THRESHOLD[state.seats]:
        events.append(GameEnded(final_scores(state)))
    return events


def _automatic(state: State) -> list[Event]:
    """Events that follow without any choice (reveals, round end), or none."""
    if state.phase in SECRET_STEPS and not steps.asked(state):
        if state.phase is Phase.ASSIGN:
            return [steps.reveal_a(state)]
        if state.phase is Phase.INCOME:
            return [steps.reveal_b(state)]
        reveal = steps.reveal_d(state)
        return [reveal, *_round_end(evolve(state, reveal))]
    if state.phase is Phase.DRAW and chance_flow.request(state) is None:
        return [GameEnded(final_scores(state))]  # the cards ran out: decision in RULES.md
    return []


def _follow(state: State, events: list[Event]) -> list[Event]:
    """Append the automatic events that `events` make due."""
    for event in events:
        state = evolve(state, event)
    while more := _automatic(state):
        for event in more:
            state = evolve(state, event)
        events = [*events, *more]
    return events


def decide(state: State, seat: int, action: Action | ChanceOutcome) -> Sequence[Event]:
    """The events `action` causes; raises IllegalAction and changes nothing."""
    if seat == CHANCE_SEAT:
        assert isinstance(action, OUTCOME_TYPES)
        return _follow(state, list(chance_flow.resolve(state, action)))
    assert not isinstance(action, OUTCOME_TYPES)
    if state.phase in SECRET_STEPS:
        if not isinstance(action, EXPECTED[state.phase]):
            raise IllegalAction("la_isla.turn.wrong_step", f"{type(action).__name__} is not asked now")
        return _follow(state, [steps.choose(state, seat, action)])  # type: ignore[arg-type]
    return _follow(state, explore.decide(state, seat, action))
