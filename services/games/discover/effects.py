"""The interpreter of card effects: one effect per step, so combats can interleave."""

from __future__ import annotations

from dataclasses import dataclass, field

from services.games.common.values import replace
from services.games.discover import events as ev
from services.games.discover import state as st
from services.games.discover import vocab as v
from services.games.discover.board import board
from services.games.discover.content import load, m_formula
from services.games.discover.costs import fire_step
from services.games.discover.evolve import evolve
from services.games.discover.flow import fire_payer
from services.games.discover.monsters import plan_move, spawn
from services.games.discover.rules import (
    damage_events,
    gain_events,
    item_available,
    order_from,
    stamina_events,
    targets,
)
from services.games.discover.state import Source, State

FIRE_TOKENS = 4


@dataclass
class Acc:
    """Events built one at a time against the state they lead to (local to one decide call)."""

    state: State
    events: list[ev.Event] = field(default_factory=list)
    steps: list[st.Step] = field(default_factory=list)

    def add(self, *events: ev.Event) -> None:
        for event in events:
            self.state = evolve(self.state, event)
            self.events.append(event)


def card_effects(state: State, step: st.RunEffects) -> tuple[v.Effect, ...]:
    """The effect list a RunEffects step walks through."""
    content = load(state.scenario)
    key = step.key
    if step.source is Source.EXPLORATION:
        card = content.exploration[int(key)]
        return (card.first_time if step.first else card.later) + card.always
    if step.source is Source.NIGHT:
        return content.night[key].effects
    if step.source is Source.THREAT:
        return content.threats[key].effects
    if step.source is Source.STAGE:
        return content.stages[int(key)].on_complete
    if step.source is Source.ITEM:
        action = content.items[int(key)].action
        return action.effects if action else ()
    return content.card_actions[key].effects


def run_effects(state: State, step: st.RunEffects) -> list[ev.Event]:
    """Resolve the next effect of a card (top to bottom), or finish the card."""
    effects = card_effects(state, step)
    if step.index >= len(effects):
        return [ev.StepDone(), *_finish(state, step)]
    acc = Acc(state)
    acc.add(ev.StepDone())
    apply_effect(acc, step.seat, effects[step.index], step.source)
    acc.add(ev.StepsQueued((*acc.steps, replace(step, index=step.index + 1))))
    return acc.events


def _finish(state: State, step: st.RunEffects) -> list[ev.Event]:
    if step.source is Source.EXPLORATION:
        return [ev.CardResolved(step.seat, int(step.key))]
    if step.source is Source.NIGHT:
        return [ev.CardDiscarded("night", step.key)]
    if step.source is Source.THREAT and not load(state.scenario).threats[step.key].ongoing:
        return [ev.CardDiscarded("threat", step.key)]
    return []


def apply_effect(acc: Acc, seat: int, effect: v.Effect, source: Source) -> None:
    """Add the events (and follow-up steps) of one effect for `seat`, printed on a card of `source`."""
    state = acc.state
    match effect:
        case v.Gain(resource=resource, amount=amount, target=target):
            for t in targets(state, seat, target):
                acc.add(*gain_events(acc.state, t, resource, amount))
        case v.Spend(resource=resource, amount=amount, target=target):
            for t in targets(state, seat, target):
                held = acc.state.survivors[t].resources.get(resource, 0)
                if held:
                    acc.add(ev.ResourceChanged(t, resource, -min(held, amount)))
        case v.PayOr():
            # Each survivor chooses to pay or to suffer, in order from the leader (costs.py).
            pay = tuple(st.Cost(k, n) for k, n in effect.pay)
            for t in targets(state, seat, effect.target):
                acc.steps.append(st.PayOrSuffer(t, pay, effect.damage, effect.amount))
        case v.Damage(damage=damage, amount=amount, target=target):
            for t in targets(state, seat, target):
                acc.add(*damage_events(acc.state, t, damage, amount))
        case v.Stamina(amount=amount, target=target):
            for t in targets(state, seat, target):
                acc.add(*stamina_events(acc.state, t, amount))
        case _:
            _apply_more(acc, seat, effect, source)


def _apply_more(acc: Acc, seat: int, effect: v.Effect, source: Source) -> None:
    state = acc.state
    space = state.survivors[seat].space
    match effect:
        case v.Heal(damage=damage, amount=amount):
            wounds = [d for d in state.survivors[seat].damage if damage is None or d == damage]
            acc.add(*(ev.DamageHealed(seat, d) for d in wounds[:amount]))
        case v.GainItem(item=item) if item_available(state, item):
            acc.add(ev.ItemGained(seat, item))
        case v.PlaceItem(item=item) if item_available(state, item):
            acc.add(ev.ItemPlaced(item, space))
        case v.SpawnMonster():
            events, steps = spawn(state, seat, effect)
            acc.add(*events)
            acc.steps.extend(steps)
        case v.MoveMonsters():
            acc.steps.extend(plan_move(state, seat, effect, source))
        case v.ExtinguishFires():
            _extinguish(acc, effect)
        case v.PlaceFire(lit=lit) if len(state.fires) < FIRE_TOKENS and space not in state.fires:
            acc.add(ev.FireChanged(space, lit))
        case v.Clue(amount=amount):
            acc.add(ev.CluesGained(amount))
        case v.DrawProject(amount=amount):
            acc.steps.append(st.DealProjects(seat, amount))
        case v.AdvanceQuest(if_stage=if_stage, to_stage=to_stage) if state.stage == if_stage:
            acc.add(ev.StageBegan(to_stage))
        case v.ResolveCard(number=number):
            first = number not in state.resolved
            acc.steps.append(st.RunEffects(seat, Source.EXPLORATION, str(number), 0, first))
        case v.Shelter():
            acc.add(ev.ShelterMarked(space))
        case v.UnlockAction(action=action) if action not in state.unlocked:
            acc.add(ev.QuestActionUnlocked(action))
        case v.Threats(count=count):
            acc.steps.extend(threat_steps(state, m_formula(count, state.players)))


def threat_steps(state: State, count: int) -> list[st.Step]:
    """Threat cards are drawn one at a time, from the leader clockwise (rulebook, threat cards)."""
    seats = order_from(state, state.leader)
    return [st.DrawThreat(seats[i % len(seats)]) for i in range(count)] if seats else []


def _extinguish(acc: Acc, effect: v.ExtinguishFires) -> None:
    """A lit fire goes out unless a survivor there chooses to pay the wood (costs.py)."""
    state = acc.state
    camp = board(state).camp
    for space, lit in sorted(state.fires.items()):
        if not lit or (effect.camp_only and space != camp):
            continue
        step = fire_step(state, space, effect.unless_wood)
        if effect.unless_wood and fire_payer(state, step) >= 0:
            acc.steps.append(step)
        else:
            acc.add(ev.FireChanged(space, False))
