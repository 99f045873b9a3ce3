"""Who acts next: the pending chance request, the seats to decide, or an automatic step.

Priority follows the rulebook: a combat in progress first (in its dice modification
step, the supporters who played a "may" card decide before the combatant); then sharing the
reward of the combat just won; then monster movement (all monsters move before
any combat); then any survivor sharing a space with an enemy (combat is
immediate); then the agenda; then the day turn (or the partner's answer to a
trade proposal).
"""

from __future__ import annotations

from dataclasses import dataclass

from services.games.common.chance import ChanceRequest, DrawCards, RollDice, ShufflePile
from services.games.common.engine import ToMove
from services.games.common.enums import GameEnum
from services.games.discover import state as st
from services.games.discover.board import board
from services.games.discover.content import load
from services.games.discover.rules import at, enemies_at, order_from, stage_met
from services.games.discover.state import CombatStage, Phase, State, Status
from services.games.discover.vocab import Hex


class Kind(GameEnum):
    OVER = "over"
    CHANCE = "chance"
    DECIDE = "decide"
    AUTO = "auto"


@dataclass(frozen=True)
class Pending:
    kind: Kind
    seats: tuple[int, ...] = ()
    chance: ChanceRequest | None = None
    decision: str = ""


AUTO = Pending(Kind.AUTO)


def decide_by(seat: int, decision: str) -> Pending:
    return Pending(Kind.DECIDE, (seat,), None, decision)


def pending(state: State) -> Pending:
    """What the game waits for now."""
    if state.phase is Phase.OVER:
        return Pending(Kind.OVER)
    if state.phase is not Phase.SETUP and not state.active():
        return AUTO  # nobody left on the map: the game ends
    if state.combat is not None:
        return _combat(state, state.combat)
    head = state.agenda[0] if state.agenda else None
    if isinstance(head, st.ShareRewards | st.MoveMonsters | st.PickMover):
        return _step(state, head)
    encounter = find_encounter(state)
    if encounter is not None:
        return _encounter(state, encounter)
    if head is not None:
        return _step(state, head)
    if state.phase is Phase.DAY and state.turn_order and not (stage_met(state) and not state.stage_complete):
        return _turn(state)
    return AUTO


def _turn(state: State) -> Pending:
    """The survivor whose turn it is; the partner while a trade proposal waits for its answer."""
    trade = state.trade
    if trade is None:
        return decide_by(state.turn_order[0], "turn")
    return decide_by(trade.partner, "trade_answer") if trade.offered else decide_by(state.turn_order[0], "trade")


def to_move(state: State) -> ToMove:
    """The pending chance request or the seats to decide; nobody once the game is over.

    An automatic step is never pending between moves: `decide` runs them all.
    """
    wait = pending(state)
    if wait.kind is Kind.CHANCE:
        return ToMove(chance=wait.chance)
    if wait.kind is Kind.DECIDE:
        return ToMove(seats=wait.seats)
    return ToMove()


def find_encounter(state: State) -> Hex | None:
    """The first space (from the acting survivor, clockwise) where survivors meet an enemy."""
    if state.phase is Phase.SETUP or not state.enemies:
        return None
    first = state.turn_order[0] if state.turn_order else state.leader
    for seat in order_from(state, first):
        space = state.survivors[seat].space
        if enemies_at(state, space):
            return space
    return None


def fighter(state: State, space: Hex) -> int:
    """The survivor who fights in `space`, or -1 while the survivors there have not agreed."""
    here = at(state, space)
    if len(here) == 1:
        return here[0]
    return state.fighter if state.fighter in here else -1


def voters(state: State, space: Hex) -> tuple[int, ...]:
    """Survivors in `space` who have not yet named a fighter."""
    return tuple(s for s in at(state, space) if s not in state.votes)


def _encounter(state: State, space: Hex) -> Pending:
    """The survivors there agree who fights (all at once); if they do not, the leader decides."""
    seat = fighter(state, space)
    if seat < 0:
        waiting = voters(state, space)
        return Pending(Kind.DECIDE, waiting, None, "fighter_vote") if waiting else decide_by(state.leader, "fighter")
    if len(enemies_at(state, space)) > 1:
        return decide_by(seat, "enemy")
    return AUTO


def _combat(state: State, combat: st.Combat) -> Pending:
    stage = combat.stage
    if stage is CombatStage.REVEAL:
        return Pending(Kind.CHANCE, chance=DrawCards("monsters", 1, None))
    if stage is CombatStage.ROLL:
        return Pending(Kind.CHANCE, chance=RollDice(2, 12))
    if stage is CombatStage.REROLL:
        return Pending(Kind.CHANCE, chance=RollDice(1, 12))
    if stage is CombatStage.SUPPORT:
        return decide_by(combat.supporters[0], "support")
    if stage is CombatStage.MODIFY and undecided_support(state, combat):
        return decide_by(support_owner(state, undecided_support(state, combat)[0]), "support_ability")
    return decide_by(combat.seat, stage.value)


def undecided_support(state: State, combat: st.Combat) -> tuple[str, ...]:
    """Played support cards whose ability says "puede", neither used nor declined yet, in the order played.

    Their supporters decide, one at a time, as soon as the dice are rolled (Combate de apoyo:
    "Cada partidario puede usar la habilidad de su tarjeta durante el paso de modificación de
    dados"); the combatant modifies after them, seeing what they did.
    """
    support = load(state.scenario).support
    return tuple(c for c in combat.played if support[c].optional and f"support:{c}" not in combat.used)


def support_owner(state: State, card: str) -> int:
    """The survivor whose combat-support card this is (the card returns to it after the combat)."""
    return next(s.seat for s in state.survivors if card in s.support)


def night_pile(state: State) -> str:
    """Level I cards are drawn first; then the current level II pile."""
    return "night:I" if state.piles.get("night:I", 0) > 0 else state.night_pile


def _step(state: State, step: st.Step) -> Pending:
    match step:
        case st.Shuffle(pile=pile, cards=cards, keep_order=keep):
            return Pending(Kind.CHANCE, chance=ShufflePile(pile, cards, keep))
        case st.RollLeader(seats=seats):
            return Pending(Kind.CHANCE, chance=RollDice(len(seats), 12))
        case st.DealCharacters(seat=seat, count=count):
            return Pending(Kind.CHANCE, chance=DrawCards("characters", count, seat))
        case st.DealProjects(seat=seat, count=count):
            n = min(count, state.piles.get("projects", 0))
            live = state.survivors[seat].status is Status.ACTIVE
            return Pending(Kind.CHANCE, chance=DrawCards("projects", n, seat)) if n and live else AUTO
        case st.ChooseCharacters():
            waiting = tuple(s.seat for s in state.survivors if not s.chosen)
            return Pending(Kind.DECIDE, waiting, None, "character") if waiting else AUTO
        case st.DrawTile(slot=slot):
            group = load(state.scenario).slots[slot].group
            return Pending(Kind.CHANCE, chance=DrawCards(f"tiles:{group}", 1, None))
        case st.RevealFeature(space=space):
            return Pending(Kind.CHANCE, chance=DrawCards(f"feature:{state.features[space]}", 1, None))
        case st.DrawNight():
            pile = night_pile(state)
            return Pending(Kind.CHANCE, chance=DrawCards(pile, 1, None)) if state.piles.get(pile, 0) else AUTO
        case st.DrawThreat(seat=seat):
            ready = state.piles.get(state.threat_pile, 0) and state.survivors[seat].status is Status.ACTIVE
            return Pending(Kind.CHANCE, chance=DrawCards(state.threat_pile, 1, None)) if ready else AUTO
        case st.MoveMonsters(choices=choices):
            return decide_by(state.leader, "monster_step") if choices else AUTO
        case st.PickMover():
            return decide_by(state.leader, "mover")
        case st.PickSpawn():
            return decide_by(state.leader, "spawn")
        case st.FreeGather(seat=seat):
            return decide_by(seat, "free_gather") if _can_gather(state, seat) else AUTO
        case st.OfferKeyItem(seat=seat):
            return decide_by(seat, "key_item") if state.survivors[seat].status is Status.ACTIVE else AUTO
        case st.PassLeader():
            return decide_by(state.leader, "pass_leader")
        case st.PayOrSuffer(seat=seat, pay=pay):
            return decide_by(seat, "pay_or") if can_pay(state, seat, pay) else AUTO
        case st.FeedFire():
            payer = fire_payer(state, step)
            return decide_by(payer, "feed_fire") if payer >= 0 and state.fires.get(step.space) else AUTO
        case st.ShareRewards(seat=seat):
            return decide_by(seat, "share_rewards") if state.survivors[seat].status is Status.ACTIVE else AUTO
        case st.RunEffects() | st.NightHealing() | st.StartDay():
            return AUTO
    raise AssertionError(f"unknown step {step!r}")


def can_pay(state: State, seat: int, pay: tuple[st.Cost, ...]) -> bool:
    """A survivor on the map holding the whole cost (resources, or stamina)."""
    survivor = state.survivors[seat]
    held = {**survivor.resources, "stamina": survivor.stamina}
    return survivor.status is Status.ACTIVE and all(held.get(c.resource, 0) >= c.amount for c in pay)


def fire_payer(state: State, step: st.FeedFire) -> int:
    """The first survivor of the step still in the fire's space and holding the wood, or -1."""
    for seat in step.seats:
        survivor = state.survivors[seat]
        if survivor.space == step.space and can_pay(state, seat, (st.Cost("wood", step.wood),)):
            return seat
    return -1


def _can_gather(state: State, seat: int) -> bool:
    survivor = state.survivors[seat]
    if survivor.status is not Status.ACTIVE:
        return False
    return survivor.space in state.features or board(state).spaces[survivor.space].water is not None
