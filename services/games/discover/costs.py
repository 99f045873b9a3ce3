"""Costs a survivor may refuse: "pay or suffer" upkeep, and the wood that keeps a fire lit.

The rulebook leaves both to the players: a night card's upkeep is paid or its
damage suffered, and the survivors at a fire may let it go out. Each is an
agenda step that waits for the survivor it asks (flow.pending), one survivor at
a time from the tribe leader clockwise, like threat cards ("Cartas de amenaza").
"""

from __future__ import annotations

from services.games.common.engine import IllegalAction
from services.games.common.values import replace
from services.games.discover import actions as act
from services.games.discover import events as ev
from services.games.discover import state as st
from services.games.discover.flow import fire_payer
from services.games.discover.rules import at, damage_events, order_from, stamina_events
from services.games.discover.state import State, Status
from services.games.discover.vocab import Hex


def decide_pay_or(state: State, seat: int, action: act.Action) -> list[ev.Event]:
    """The survivor pays the card's cost, or refuses it and suffers the damage."""
    step = state.agenda[0]
    assert isinstance(step, st.PayOrSuffer)
    match action:
        case act.PayCost():
            return [ev.StepDone(), *_payment(state, seat, step.pay)]
        case act.DeclineCost():
            return [ev.StepDone(), ev.CostDeclined(seat), *damage_events(state, seat, step.damage, step.amount)]
    raise IllegalAction("discover.night.pay_or", "pay the cost or suffer the damage")


def pay_or_auto(state: State, step: st.PayOrSuffer) -> list[ev.Event]:
    """A survivor who cannot pay suffers the damage (a survivor off the map, nothing)."""
    if state.survivors[step.seat].status is not Status.ACTIVE:
        return [ev.StepDone()]
    return [ev.StepDone(), *damage_events(state, step.seat, step.damage, step.amount)]


def _payment(state: State, seat: int, pay: tuple[st.Cost, ...]) -> list[ev.Event]:
    out: list[ev.Event] = []
    for cost in pay:
        if cost.resource == "stamina":
            out += stamina_events(state, seat, -cost.amount)
        else:
            out.append(ev.ResourceChanged(seat, cost.resource, -cost.amount))
    return out


def fire_step(state: State, space: Hex, wood: int) -> st.FeedFire:
    """Ask the survivors at the fire, from the leader, whether one of them pays the wood."""
    here = set(at(state, space))
    return st.FeedFire(space, wood, tuple(s for s in order_from(state, state.leader) if s in here))


def decide_feed_fire(state: State, seat: int, action: act.Action) -> list[ev.Event]:
    """Pay the wood (the fire stays lit) or pass the choice to the next survivor there."""
    step = state.agenda[0]
    assert isinstance(step, st.FeedFire)
    match action:
        case act.PayCost():
            return [ev.StepDone(), ev.ResourceChanged(seat, "wood", -step.wood)]
        case act.DeclineCost():
            rest = step.seats[step.seats.index(seat) + 1 :]
            return [ev.StepDone(), ev.CostDeclined(seat), ev.StepsQueued((replace(step, seats=rest),))]
    raise IllegalAction("discover.night.feed_fire", "pay the wood or let the fire go out")


def fire_auto(state: State, step: st.FeedFire) -> list[ev.Event]:
    """Nobody left to pay: the fire goes out."""
    assert fire_payer(state, step) < 0 or not state.fires.get(step.space)
    out: list[ev.Event] = [ev.StepDone()]
    return out + ([ev.FireChanged(step.space, False)] if state.fires.get(step.space) else [])
