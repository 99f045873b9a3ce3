"""Validate an action (or chance outcome), emit its events, then the automatic ones."""

from __future__ import annotations

from collections.abc import Sequence

from services.games.common.chance import CHANCE_SEAT, OUTCOME_TYPES, ChanceOutcome
from services.games.common.engine import IllegalAction, ToMove
from services.games.la_isla import chance_flow, explore, steps
from services.games.la_isla.actions import Action, AdvanceMarkers, AssignCards, CollectIncome
from services.games.la_isla.events import Event, GameEnded, RoundEnded
from services.games.la_isla.evolve import evolve
from services.games.la_isla.result import final_scores
from services.games.la_isla.rules import END_THRESHOLD, area_sum
from services.games.la_isla.state import Phase, State

SECRET_STEPS = (Phase.ASSIGN, Phase.INCOME, Phase.ANIMALS)
OUTCOMES = OUTCOME_TYPES


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


def _check_turn(state: State, seat: int) -> None:
    turn = to_move(state)
    if seat not in turn.seats:
        if seat in range(state.seats) and state.phase in SECRET_STEPS:
            raise IllegalAction("la_isla.turn.already_chosen", "you have nothing to choose now")
        raise IllegalAction("la_isla.turn.not_your_turn", f"seat {seat} is not to move")


def decide(state: State, seat: int, action: Action | ChanceOutcome) -> Sequence[Event]:
    """The events `action` causes; raises IllegalAction and changes nothing."""
    if seat == CHANCE_SEAT:
        if not isinstance(action, OUTCOMES):
            raise IllegalAction("la_isla.chance.unexpected", "the chance seat only answers requests")
        return _follow(state, list(chance_flow.resolve(state, action)))
    if isinstance(action, OUTCOMES):
        raise IllegalAction("la_isla.chance.unexpected", "only the chance seat resolves chance")
    _check_turn(state, seat)
    expected = {Phase.ASSIGN: AssignCards, Phase.INCOME: CollectIncome, Phase.ANIMALS: AdvanceMarkers}
    if state.phase in SECRET_STEPS:
        if not isinstance(action, expected[state.phase]):
            raise IllegalAction("la_isla.turn.wrong_step", f"{type(action).__name__} is not asked now")
        return _follow(state, [steps.choose(state, seat, action)])  # type: ignore[arg-type]
    return _follow(state, explore.decide(state, seat, action))


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
