"""Every legal action of a seat: candidates per pending decision, kept if the rules accept them.

Filtering candidates through the same section deciders that `decide` uses keeps
the list and the refusals in step by construction.
"""

from __future__ import annotations

from collections.abc import Iterator

from services.games.common.engine import IllegalAction
from services.games.discover import actions as act
from services.games.discover import state as st
from services.games.discover.board import explorable_slots, neighbours
from services.games.discover.combat import escape_spaces, retreat_spaces
from services.games.discover.decide import DECIDERS
from services.games.discover.flow import find_encounter, pending
from services.games.discover.rules import at, enemies_at
from services.games.discover.state import State, Status

COMBAT_RESOURCES = ("wood", "stone", "poison", "salvage")


def legal_actions(state: State, seat: int) -> list[act.Action]:
    """The complete, finite list of what `seat`, a seat asked to decide (the host sees to that), may do now."""
    wait = pending(state)
    decider = DECIDERS[wait.decision]
    legal: list[act.Action] = []
    for action in _candidates(state, seat, wait.decision):
        try:
            decider(state, seat, action)
        except IllegalAction:
            continue
        legal.append(action)
    return legal


def _candidates(state: State, seat: int, decision: str) -> Iterator[act.Action]:
    survivor = state.survivors[seat]
    if decision == "character":
        yield from (act.ChooseCharacter(c) for c in survivor.offer)
    elif decision == "turn":
        yield from _turn(state, seat)
    elif decision == "trade":
        yield from _trade(state, seat)
    elif decision == "trade_answer":
        yield from (act.AcceptTrade(), act.DeclineTrade())
    elif decision in ("pay_or", "feed_fire"):
        yield from (act.PayCost(), act.DeclineCost())
    elif decision == "share_rewards":
        yield from _share(state.agenda[0])
    elif decision == "free_gather":
        yield from (act.Gather(), act.SkipGather())
    elif decision == "key_item":
        yield from (act.UseKeyItem(i) for i in survivor.items)
        yield act.DeclineKeyItem()
    elif decision == "pass_leader":
        yield from (act.PassLeadership(s) for s in state.active())
    elif decision in ("fighter_vote", "fighter", "enemy"):
        space = find_encounter(state)
        assert space is not None
        yield from (act.ChooseFighter(s) for s in at(state, space))
        yield from (act.ChooseEnemy(e) for e in enemies_at(state, space))
    elif decision in ("monster_step", "mover", "spawn"):
        yield from _tie(state.agenda[0])
    else:
        yield from _combat(state, seat, decision)


def _turn(state: State, seat: int) -> Iterator[act.Action]:
    survivor = state.survivors[seat]
    held = survivor.resources
    yield act.Gather()
    yield from (act.Move(n) for n in neighbours(survivor.space))
    yield from (act.Explore(slot) for slot in explorable_slots(state, survivor.space))
    for meat in range(held.get("meat", 0) + 1):
        yield from (act.Cook(meat, water) for water in range(held.get("dirty_water", 0) + 1))
    yield act.RestartFire()
    yield from (act.Craft(p) for p in sorted({*survivor.hand, *state.table}))
    yield from (act.Trade(p) for p in at(state, survivor.space) if p != seat)
    yield act.Investigate()
    yield from (act.Recover(d) for d in sorted(set(survivor.damage), key=lambda d: d.value))
    yield from (act.UseItem(i) for i in survivor.items)
    yield from (act.UseQuestAction(a) for a in sorted(state.unlocked))
    for body in state.survivors:
        if body.status is Status.CASUALTY and body.space == survivor.space:
            yield from (act.Loot(body.seat, r, 0) for r in sorted(body.resources))
            yield from (act.Loot(body.seat, "", i) for i in body.items)
    yield act.EndTurn()


def _trade(state: State, seat: int) -> Iterator[act.Action]:
    assert state.trade is not None
    mine = state.survivors[seat]
    theirs = state.survivors[state.trade.partner]
    yield from (act.TradeGive(r, 0) for r in sorted(mine.resources))
    yield from (act.TradeGive("", i) for i in mine.items)
    yield from (act.TradeTake(r, 0) for r in sorted(theirs.resources))
    yield from (act.TradeTake("", i) for i in theirs.items)
    yield act.OfferTrade()
    yield act.EndTrade()


def _share(step: st.Step) -> Iterator[act.Action]:
    assert isinstance(step, st.ShareRewards)
    for resource in sorted(set(step.goods)):
        yield from (act.GiveReward(s, resource) for s in step.supporters)
    yield act.KeepRewards()


def _tie(step: st.Step) -> Iterator[act.Action]:
    if isinstance(step, st.MoveMonsters):
        yield from (act.ChooseSpace(h) for h in step.choices)
    elif isinstance(step, st.PickMover):
        yield from (act.ChooseEnemy(e) for e in step.candidates)
    elif isinstance(step, st.PickSpawn):
        yield from (act.ChooseSpace(h) for h in step.candidates)


def _combat(state: State, seat: int, decision: str) -> Iterator[act.Action]:
    combat = state.combat
    assert combat is not None
    if decision == "support":
        yield from (act.PlaySupport(c) for c in state.survivors[seat].support)
        yield act.DeclineSupport()
    elif decision == "ready":
        yield act.RollCombat()
        yield from (act.Escape(h) for h in escape_spaces(state, combat))
    elif decision == "modify":
        yield from (act.SpendResource(r) for r in COMBAT_RESOURCES)
        yield from (act.UseCombatItem(i) for i in state.survivors[seat].items)
        yield act.ResolveCombat()
    elif decision == "support_ability":
        yield from (act.UseSupportCard(c) for c in combat.played)
        yield act.DeclineSupport()
    elif decision == "retreat":
        yield from (act.ChooseSpace(h) for h in retreat_spaces(state, combat))
