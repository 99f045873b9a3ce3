"""Combat (rulebook "Combate"): support, dice, modifiers, damage, retreat, escape, lethal enemies."""

from __future__ import annotations

from services.games.common.chance import CardsDrawn, ChanceOutcome, DiceRolled
from services.games.common.engine import IllegalAction
from services.games.common.values import replace
from services.games.discover import actions as act
from services.games.discover import events as ev
from services.games.discover import state as st
from services.games.discover.board import board, compass_step, walk_distances
from services.games.discover.content import EnemySpec, load
from services.games.discover.effects import Acc
from services.games.discover.flow import fighter, undecided_support
from services.games.discover.rules import (
    abilities,
    ability_sum,
    adjacent_spaces,
    at,
    damage_events,
    enemies_at,
    gain_events,
    left_of,
    order_from,
    stamina_events,
)
from services.games.discover.state import Combat, CombatStage, State, Status
from services.games.discover.vocab import CombatBonus, DamageType, DefeatBonus, EscapeCombat, Hex, PoisonBonus

SUPPORT_RANGE = 2


def partisans(state: State, seat: int, space: Hex) -> tuple[int, ...]:
    """Every other survivor within two spaces of the combat ("partidario"), from the combatant's left."""
    near = walk_distances(state, space, SUPPORT_RANGE)
    order = order_from(state, left_of(state, seat, state.active()))
    return tuple(s for s in order if s != seat and state.survivors[s].space in near)


def supporters(state: State, seat: int, space: Hex) -> tuple[int, ...]:
    """The supporters who hold combat-support cards: they choose to play one or not."""
    return tuple(s for s in partisans(state, seat, space) if state.survivors[s].support)


def start_combat(state: State, seat: int, enemy: str) -> list[ev.Event]:
    return [ev.CombatStarted(seat, enemy, supporters(state, seat, state.survivors[seat].space))]


def start_encounter(state: State, space: Hex) -> list[ev.Event]:
    """The one survivor (or the leader's pick) fights the one enemy in the space."""
    return start_combat(state, fighter(state, space), enemies_at(state, space)[0])


def decide_encounter(state: State, seat: int, action: act.Action, space: Hex) -> list[ev.Event]:
    """The leader decides the fighter when the survivors disagree; the fighter picks which enemy first."""
    match action:
        case act.ChooseFighter(seat=chosen) if chosen in at(state, space) and seat == state.leader:
            return [ev.FighterChosen(chosen)]
        case act.ChooseEnemy(enemy=enemy) if enemy in enemies_at(state, space):
            return start_combat(state, seat, enemy)
    raise IllegalAction("discover.monsters.encounter_choice", "choose a survivor or an enemy in that space")


def decide_vote(state: State, seat: int, action: act.Action, space: Hex) -> list[ev.Event]:
    """Each survivor in the space names who fights; when all name the same survivor, it is agreed."""
    match action:
        case act.ChooseFighter(seat=chosen) if chosen in at(state, space) and seat not in state.votes:
            votes = {**state.votes, seat: chosen}
            agreed = set(votes.values()) == {chosen} and set(votes) == set(at(state, space))
            return [ev.FighterVoted(seat, chosen), *([ev.FighterChosen(chosen)] if agreed else [])]
    raise IllegalAction("discover.monsters.fighter_vote", "name a survivor in that space to fight")


def combat_chance(state: State, combat: Combat, outcome: ChanceOutcome) -> list[ev.Event]:
    """Reveal a monster token, roll both dice (applying fixed bonuses), or re-roll one die."""
    match combat.stage, outcome:
        case CombatStage.REVEAL, CardsDrawn(cards=(token,)):
            number = load(state.scenario).monster_tokens[token]
            stage = CombatStage.SUPPORT if combat.supporters else CombatStage.READY
            return [ev.MonsterRevealed(combat.enemy, number), ev.CombatStageSet(stage)]
        case CombatStage.ROLL, DiceRolled(values=(grey, red)):
            return [ev.CombatRolled(grey, red), *_fixed_modifiers(state, combat)]
        case CombatStage.REROLL, DiceRolled(values=(value,)):
            return [ev.DieRerolled(combat.reroll, value)]
    raise IllegalAction("discover.chance.unexpected", "outcome does not answer the combat request")


def _fixed_modifiers(state: State, combat: Combat) -> list[ev.Event]:
    """Character bonuses and the modifiers of played support cards apply without a choice:
    "Los partidarios deben usar la habilidad a menos que use la palabra 'puede'"."""
    out: list[ev.Event] = []
    for a in abilities(state, combat.seat):
        if isinstance(a, CombatBonus):
            out += [ev.DieModified(d, n, "character") for d, n in (("grey", a.grey), ("red", a.red)) if n]
    support = load(state.scenario).support
    for card in combat.played:
        spec = support[card]
        out += [ev.DieModified(d, n, f"support:{card}") for d, n in (("grey", spec.grey), ("red", spec.red)) if n]
    return out


def decide_combat(state: State, seat: int, action: act.Action) -> list[ev.Event]:
    """A supporter's card, the combatant's roll or escape, a modifier, or the retreat space."""
    combat = state.combat
    assert combat is not None
    match combat.stage, action:
        case CombatStage.SUPPORT, act.PlaySupport(card=card) if card in state.survivors[seat].support:
            return [ev.SupportPlayed(seat, card)]
        case CombatStage.SUPPORT, act.DeclineSupport():
            return [ev.SupportDeclined(seat)]
        case CombatStage.READY, act.RollCombat():
            return [ev.CombatStageSet(CombatStage.ROLL)]
        case CombatStage.READY, act.Escape(to=to) if to in escape_spaces(state, combat):
            return _escape(state, combat, to)
        case CombatStage.MODIFY, act.ResolveCombat():
            return resolve(state, combat)
        case CombatStage.MODIFY, _:
            return _modify(state, combat, action)
        case CombatStage.RETREAT, act.ChooseSpace(space=space) if space in retreat_spaces(state, combat):
            return [ev.EnemyRetreated(combat.enemy, space), ev.CombatEnded(combat.seat)]
    raise IllegalAction(f"discover.combat.{combat.stage.value}", "not a legal combat step now")


def escape_cost(state: State, seat: int) -> int | None:
    """The stamina of the cheapest escape the survivor's cards allow; None without such a card."""
    costs = [a.stamina for a in abilities(state, seat) if isinstance(a, EscapeCombat)]
    return min(costs) if costs else None


def escape_spaces(state: State, combat: Combat) -> tuple[Hex, ...]:
    """Escape (only with a card that allows it): adjacent passable spaces without a monster;
    against a lethal enemy, no move."""
    survivor = state.survivors[combat.seat]
    cost = escape_cost(state, combat.seat)
    if cost is None or survivor.stamina < cost:
        return ()
    if _spec(state, combat).lethal:
        return (survivor.space,)
    costs = load(state.scenario).terrain_cost
    spaces = board(state).spaces
    return tuple(
        h
        for h in adjacent_spaces(state, survivor.space)
        if costs[spaces[h].terrain] is not None and not enemies_at(state, h)
    )


def _escape(state: State, combat: Combat, to: Hex) -> list[ev.Event]:
    """Skipped steps: no damage, no retreat; a lethal enemy fights on against the next survivor."""
    cost = escape_cost(state, combat.seat)
    assert cost is not None
    out: list[ev.Event] = [*stamina_events(state, combat.seat, -cost)]
    if _spec(state, combat).lethal:
        out.append(ev.CombatEnded(combat.seat))
        nxt = _lethal_next(state, combat.seat, state.enemy(combat.enemy).space)
        return out + start_combat(state, nxt, combat.enemy)
    return [*out, ev.SurvivorEscaped(combat.seat, to), ev.CombatEnded(combat.seat)]


def _modify(state: State, combat: Combat, action: act.Action) -> list[ev.Event]:
    seat = combat.seat
    held = state.survivors[seat].resources
    match action:
        case act.SpendResource(resource="wood") if held.get("wood"):
            return [ev.ResourceChanged(seat, "wood", -1), ev.RerollRequested("grey", "wood")]
        case act.SpendResource(resource="stone") if held.get("stone"):
            return [ev.ResourceChanged(seat, "stone", -1), ev.RerollRequested("red", "stone")]
        case act.SpendResource(resource="poison") if held.get("poison"):
            bonus = 1 + ability_sum(state, seat, PoisonBonus)
            return [ev.ResourceChanged(seat, "poison", -1), ev.DieModified("grey", bonus, "poison")]
        case act.SpendResource(resource="salvage") if held.get("salvage"):
            return [ev.ResourceChanged(seat, "salvage", -1), ev.DieModified("red", -1, "salvage")]
        case act.UseCombatItem(item=item) if item in usable_items(state, combat):
            return _item_use(state, item)
    raise IllegalAction("discover.combat.modify", "that modifier is not available")


def decide_support_ability(state: State, seat: int, action: act.Action) -> list[ev.Event]:
    """The supporter of a "may" card uses its ability or declines it (Combate de apoyo).

    The ability is the supporter's, not the combatant's: only the card's owner is asked.
    """
    combat = state.combat
    assert combat is not None
    card = undecided_support(state, combat)[0]
    match action:
        case act.UseSupportCard(card=used) if used == card:
            die = load(state.scenario).support[card].reroll or "red"
            return [ev.RerollRequested(die, f"support:{card}")]
        case act.DeclineSupport():
            return [ev.SupportDeclined(seat)]
    raise IllegalAction("discover.combat.support_ability", f"use the ability of {card} or decline it")


def usable_items(state: State, combat: Combat) -> tuple[int, ...]:
    """Combat items carried and not yet used in this combat (each item once per combat)."""
    items = load(state.scenario).items
    return tuple(i for i in state.survivors[combat.seat].items if items[i].combat and f"item:{i}" not in combat.used)


def _item_use(state: State, item: int) -> list[ev.Event]:
    use = load(state.scenario).items[item].combat
    assert use is not None
    source = f"item:{item}"
    if use.reroll:
        return [ev.RerollRequested(use.reroll, source)]
    return [ev.DieModified(d, n, source) for d, n in (("grey", use.grey), ("red", use.red)) if n]


def _spec(state: State, combat: Combat) -> EnemySpec:
    return load(state.scenario).enemies[state.enemy(combat.enemy).number]


def resolve(state: State, combat: Combat) -> list[ev.Event]:
    """Inflict damage: grey >= defence hurts the enemy, red >= attack hurts the combatant."""
    enemy = state.enemy(combat.enemy)
    spec = _spec(state, combat)
    acc = Acc(state)
    defeated = False
    goods: tuple[str, ...] = ()
    if combat.grey + combat.grey_mod >= spec.defence:
        acc.add(ev.EnemyDamaged(enemy.id, enemy.damage + 1))
        defeated = enemy.damage + 1 >= spec.health
        if defeated:
            acc.add(ev.EnemyRemoved(enemy.id, combat.seat))
            goods = _reward(acc, combat.seat, spec.rewards)
    if spec.attack is not None and combat.red + combat.red_mod >= spec.attack:
        acc.add(*damage_events(acc.state, combat.seat, DamageType.PHYSICAL, 1))
    if defeated:
        acc.add(ev.CombatEnded(combat.seat))
        _offer_share(acc, combat.seat, enemy.space, goods)
    elif spec.lethal:
        acc.add(ev.CombatEnded(combat.seat))
        nxt = _lethal_next(acc.state, combat.seat, enemy.space)
        if nxt >= 0:
            acc.add(*start_combat(acc.state, nxt, enemy.id))
    else:
        _retreat(acc, combat, enemy.space)
    return acc.events


def _reward(acc: Acc, seat: int, rewards: tuple[tuple[str, int], ...]) -> tuple[str, ...]:
    """The combatant gains the card's reward (and its own defeat bonus); returns the reward's goods."""
    goods: list[str] = []
    for resource, amount in rewards:
        if resource == "clue":
            acc.add(ev.CluesGained(amount))
            continue
        gained = gain_events(acc.state, seat, resource, amount)
        acc.add(*gained)
        goods += [e.resource for e in gained if isinstance(e, ev.ResourceChanged) for _ in range(e.amount)]
    for a in abilities(acc.state, seat):
        if isinstance(a, DefeatBonus):
            acc.add(*gain_events(acc.state, seat, a.resource, a.amount))
    return tuple(goods)


def _offer_share(acc: Acc, seat: int, space: Hex, goods: tuple[str, ...]) -> None:
    """The combatant may give some (or all) of the reward to its supporters (Combate de apoyo)."""
    state = acc.state
    if not goods or state.survivors[seat].status is not Status.ACTIVE:
        return  # a casualty keeps what it won, for looting
    near = partisans(state, seat, space)
    if near:
        acc.add(ev.StepsQueued((st.ShareRewards(seat, near, goods),)))


def decide_share(state: State, seat: int, action: act.Action) -> list[ev.Event]:
    """Give one reward resource to a supporter, or keep the rest."""
    step = state.agenda[0]
    assert isinstance(step, st.ShareRewards)
    match action:
        case act.GiveReward(seat=to, resource=resource) if (
            to in step.supporters
            and state.survivors[to].status is Status.ACTIVE
            and resource in step.goods
            and state.survivors[seat].resources.get(resource, 0) > 0
        ):
            rest = list(step.goods)
            rest.remove(resource)
            more: list[ev.Event] = [ev.StepsQueued((replace(step, goods=tuple(rest)),))] if rest else []
            return [ev.StepDone(), ev.GoodsTransferred(seat, to, resource, 0), *more]
        case act.KeepRewards():
            return [ev.StepDone()]
    raise IllegalAction("discover.combat.share_rewards", "give a reward resource to a supporter, or keep the rest")


def _lethal_next(state: State, seat: int, space: Hex) -> int:
    """The survivor in the space to the left of the last combatant; else the same one; else none."""
    here = at(state, space)
    if not here:
        return -1
    return left_of(state, seat, here)


def retreat_spaces(state: State, combat: Combat) -> tuple[Hex, ...]:
    """Fallback retreat: adjacent revealed spaces without a survivor."""
    space = state.enemy(combat.enemy).space
    return tuple(h for h in adjacent_spaces(state, space) if not at(state, h))


def _retreat(acc: Acc, combat: Combat, space: Hex) -> None:
    """Retreat by the compass direction of the red die; else the combatant picks a space."""
    state = acc.state
    target = compass_step(state, space, combat.red)
    if target in board(state).spaces and not at(state, target):
        acc.add(ev.EnemyRetreated(combat.enemy, target), ev.CombatEnded(combat.seat))
        return
    options = retreat_spaces(state, combat)
    alive = state.survivors[combat.seat].status is Status.ACTIVE
    if len(options) > 1 and alive:
        acc.add(ev.CombatStageSet(CombatStage.RETREAT))
    elif options:
        acc.add(ev.EnemyRetreated(combat.enemy, options[0]), ev.CombatEnded(combat.seat))
    else:
        acc.add(ev.CombatEnded(combat.seat))  # nowhere to go: the token stays (RULES.md)
