"""decide: validate a seat's action or a chance outcome against the game's rules, then emit.

After the events of the move itself, every automatic step that follows is run
too, so the returned events always end where a seat or the chance seat must act.
"""

from __future__ import annotations

from collections.abc import Callable

from services.games.common.chance import CHANCE_SEAT, OUTCOME_TYPES, ChanceOutcome
from services.games.common.engine import IllegalAction
from services.games.discover import actions as act
from services.games.discover import events as ev
from services.games.discover.auto import auto_events
from services.games.discover.combat import (
    combat_chance,
    decide_combat,
    decide_encounter,
    decide_share,
    decide_support_ability,
    decide_vote,
)
from services.games.discover.costs import decide_feed_fire, decide_pay_or
from services.games.discover.day import decide_free_gather, decide_trade, decide_trade_answer, decide_turn
from services.games.discover.evolve import evolve
from services.games.discover.flow import Kind, find_encounter, pending
from services.games.discover.keyitems import decide_key_item
from services.games.discover.monsters import decide_monster_choice
from services.games.discover.outcomes import choose_character, pass_leadership, step_outcome
from services.games.discover.state import State

AUTO_LIMIT = 100_000  # automatic steps per decision; more means a rules bug, not a long game

Decider = Callable[[State, int, act.Action], list[ev.Event]]


def _encounter(state: State, seat: int, action: act.Action) -> list[ev.Event]:
    space = find_encounter(state)
    assert space is not None
    wanted = act.ChooseFighter if pending(state).decision == "fighter" else act.ChooseEnemy
    if not isinstance(action, wanted):
        raise IllegalAction("discover.monsters.encounter_choice", f"expected {wanted.__name__}")
    return decide_encounter(state, seat, action, space)


def _vote(state: State, seat: int, action: act.Action) -> list[ev.Event]:
    space = find_encounter(state)
    assert space is not None
    return decide_vote(state, seat, action, space)


DECIDERS: dict[str, Decider] = {
    "character": choose_character,
    "turn": decide_turn,
    "trade": decide_trade,
    "trade_answer": decide_trade_answer,
    "free_gather": decide_free_gather,
    "pass_leader": pass_leadership,
    "key_item": decide_key_item,
    "fighter_vote": _vote,
    "fighter": _encounter,
    "enemy": _encounter,
    "support": decide_combat,
    "ready": decide_combat,
    "modify": decide_combat,
    "support_ability": decide_support_ability,
    "retreat": decide_combat,
    "share_rewards": decide_share,
    "pay_or": decide_pay_or,
    "feed_fire": decide_feed_fire,
    "monster_step": lambda s, _seat, a: decide_monster_choice(s, a),
    "mover": lambda s, _seat, a: decide_monster_choice(s, a),
    "spawn": lambda s, _seat, a: decide_monster_choice(s, a),
}


def decide(state: State, seat: int, action: act.Action | ChanceOutcome) -> list[ev.Event]:
    """Events that `action` causes, through every automatic step after it."""
    events = decide_only(state, seat, action)
    return events + advance(fold(state, events))


def decide_only(state: State, seat: int, action: act.Action | ChanceOutcome) -> list[ev.Event]:
    """The events of the move itself (no automatic steps after it).

    The host (services/games/common/host.py) calls it only with the action of a
    seat asked to decide, or with the outcome answering the pending chance request.
    """
    if seat == CHANCE_SEAT:
        assert isinstance(action, OUTCOME_TYPES)
        return _chance(state, action)
    if not isinstance(action, act.Action):
        raise IllegalAction("discover.turn.unknown_action", type(action).__name__)
    return DECIDERS[pending(state).decision](state, seat, action)


def _chance(state: State, outcome: ChanceOutcome) -> list[ev.Event]:
    if state.combat is not None:
        return combat_chance(state, state.combat, outcome)
    return step_outcome(state, state.agenda[0], outcome)


def fold(state: State, events: list[ev.Event]) -> State:
    for event in events:
        state = evolve(state, event)
    return state


def advance(state: State) -> list[ev.Event]:
    """Run automatic steps until a seat or the chance seat must act, or the game is over."""
    out: list[ev.Event] = []
    for _ in range(AUTO_LIMIT):
        if pending(state).kind is not Kind.AUTO:
            return out
        events = auto_events(state)
        state = fold(state, events)
        out.extend(events)
    raise RuntimeError("discover: automatic steps did not settle")
