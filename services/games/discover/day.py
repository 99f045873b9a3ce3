"""The day phase (rulebook "Fase de día" and the actions reference): one action at a time."""

from __future__ import annotations

from services.games.common.engine import IllegalAction
from services.games.discover import actions as act
from services.games.discover import events as ev
from services.games.discover import state as st
from services.games.discover.board import board, explorable_slots, neighbours
from services.games.discover.content import load, m_formula
from services.games.discover.keyitems import exploration_step
from services.games.discover.rules import (
    abilities,
    ability_sum,
    adjacent_spaces,
    at,
    gain_events,
    item_available,
    lit_fire,
    sheltered,
    terrain,
)
from services.games.discover.state import Source, State, Status
from services.games.discover.vocab import (
    ActionDiscount,
    DamageType,
    FreeFire,
    GatherBonus,
    Hex,
    MoveDiscount,
    PlaceItem,
    PortableFire,
    RecipeDiscount,
)

CURES = {DamageType.HUNGER: "food", DamageType.THIRST: "clean_water", DamageType.PHYSICAL: "medicine"}


def pay(state: State, seat: int, cost: int, action: str) -> list[ev.Event]:
    """Spend stamina for an action; an action you cannot pay for is refused."""
    stamina = state.survivors[seat].stamina
    if stamina < cost:
        raise IllegalAction(f"discover.day.{action}.stamina", f"needs {cost} stamina, you have {stamina}")
    return [ev.StaminaChanged(seat, stamina - cost)] if cost else []


def action_cost(state: State, seat: int, action: str, base: int = 1) -> int:
    return max(0, base - ability_sum(state, seat, ActionDiscount, action=action))


def decide_turn(state: State, seat: int, action: act.Action) -> list[ev.Event]:
    """One action of the survivor whose turn it is."""
    match action:
        case act.Gather():
            return gather(state, seat, action_cost(state, seat, "gather"))
        case act.Move(to=to):
            return _move(state, seat, to)
        case act.Explore(slot=slot):
            return _explore(state, seat, slot)
        case act.Cook(meat=meat, dirty_water=water):
            return _cook(state, seat, meat, water)
        case act.RestartFire():
            return _restart_fire(state, seat)
        case act.Craft(project=project):
            return _craft(state, seat, project)
        case act.Trade(partner=partner):
            return _trade(state, seat, partner)
        case act.EndTurn():
            return [ev.TurnEnded(seat)]
        case _:
            return _decide_more(state, seat, action)


def _decide_more(state: State, seat: int, action: act.Action) -> list[ev.Event]:
    match action:
        case act.Investigate():
            return _investigate(state, seat)
        case act.Recover(damage=damage):
            return _recover(state, seat, damage)
        case act.UseItem(item=item):
            return _use_item(state, seat, item)
        case act.UseQuestAction(action=name):
            return _quest_action(state, seat, name)
        case act.Loot(seat=victim, resource=resource, item=item):
            return _loot(state, seat, victim, resource, item)
    raise IllegalAction("discover.day.not_a_day_action", type(action).__name__)


def gather(state: State, seat: int, cost: int) -> list[ev.Event]:
    """Gather: flip the feature token here, or take water from the source here."""
    space = state.survivors[seat].space
    if space in state.features:
        return [*pay(state, seat, cost, "gather"), ev.StepsQueued((st.RevealFeature(seat, space),))]
    water = board(state).spaces[space].water
    if water is None:
        raise IllegalAction("discover.day.gather.nothing_here", "no token to gather in your space")
    kind = "clean_water" if water == "clean" else "dirty_water"
    out = pay(state, seat, cost, "gather")
    out += gain_events(state, seat, kind, 1 + ability_sum(state, seat, GatherBonus, source="water", resource="water"))
    for a in _bonuses(state, seat, "water"):
        if a.resource != "water":
            out += gain_events(state, seat, a.resource, a.amount)
    return out


def _bonuses(state: State, seat: int, source: str) -> list[GatherBonus]:
    return [a for a in abilities(state, seat) if isinstance(a, GatherBonus) and a.source == source]


def feature_bonus(state: State, seat: int, resource: str) -> int:
    """Extra resources when a flipped feature token shows `resource`."""
    return sum(a.amount for a in _bonuses(state, seat, "feature") if a.resource == resource)


def decide_free_gather(state: State, seat: int, action: act.Action) -> list[ev.Event]:
    """After Move and Gather: one Gather for 0 stamina, or none."""
    match action:
        case act.Gather():
            return [ev.StepDone(), *gather(state, seat, 0)]
        case act.SkipGather():
            return [ev.StepDone()]
    raise IllegalAction("discover.day.free_gather", "gather for free or skip it")


def move_cost(state: State, seat: int, to: str) -> int | None:
    base = load(state.scenario).terrain_cost[to]
    if base is None:
        return None
    # Every move costs at least 1 stamina: free moves would let a survivor walk forever.
    return max(1, base - ability_sum(state, seat, MoveDiscount, terrain=to))


def _move(state: State, seat: int, to: Hex) -> list[ev.Event]:
    """Move and Gather: an adjacent revealed space, paying the terrain cost of the space entered."""
    here = state.survivors[seat].space
    if to not in neighbours(here) or to not in board(state).spaces:
        raise IllegalAction("discover.day.move.not_adjacent_revealed", "move to a revealed adjacent space")
    cost = move_cost(state, seat, terrain(state, to))
    if cost is None:
        raise IllegalAction("discover.day.move.impassable", "that terrain cannot be entered")
    out = pay(state, seat, cost, "move")
    return [*out, ev.SurvivorMoved(seat, to), ev.StepsQueued((st.FreeGather(seat),))]


def explore_cost(state: State, seat: int) -> int:
    threats = load(state.scenario).threats
    extra = sum(threats[card].explore_extra for card, _ in state.survivors[seat].ongoing)
    return action_cost(state, seat, "explore") + extra


def _explore(state: State, seat: int, slot: int) -> list[ev.Event]:
    """Explore: turn face up a face-down tile next to your space."""
    if slot not in explorable_slots(state, state.survivors[seat].space):
        raise IllegalAction("discover.day.explore.not_adjacent", "explore a face-down tile next to you")
    return [*pay(state, seat, explore_cost(state, seat), "explore"), ev.StepsQueued((st.DrawTile(slot),))]


def _cook(state: State, seat: int, meat: int, water: int) -> list[ev.Event]:
    """Cook Meat at a lit fire: meat to food one for one (and dirty water to clean, stand-in)."""
    survivor = state.survivors[seat]
    if not (lit_fire(state, survivor.space) or ability_sum(state, seat, PortableFire)):
        raise IllegalAction("discover.day.cook.no_fire", "cooking needs a lit fire")
    held = survivor.resources
    if meat < 0 or water < 0 or meat + water == 0 or meat > held.get("meat", 0) or water > held.get("dirty_water", 0):
        raise IllegalAction("discover.day.cook.amounts", "cook some of the meat or dirty water you hold")
    out = pay(state, seat, action_cost(state, seat, "cook"), "cook")
    if meat:
        out += [ev.ResourceChanged(seat, "meat", -meat), ev.ResourceChanged(seat, "food", meat)]
    if water:
        out += [
            ev.ResourceChanged(seat, "dirty_water", -water),
            ev.ResourceChanged(seat, "clean_water", water),
        ]
    return out


def _restart_fire(state: State, seat: int) -> list[ev.Event]:
    space = state.survivors[seat].space
    if state.fires.get(space, True):
        raise IllegalAction("discover.day.restart_fire.no_unlit_fire", "no unlit fire in your space")
    free = ability_sum(state, seat, FreeFire)
    if not free and not state.survivors[seat].resources.get("wood"):
        raise IllegalAction("discover.day.restart_fire.no_wood", "restarting a fire costs 1 wood")
    out = pay(state, seat, action_cost(state, seat, "restart_fire"), "restart_fire")
    wood: list[ev.Event] = [] if free else [ev.ResourceChanged(seat, "wood", -1)]
    return [*out, *wood, ev.FireChanged(space, True)]


def recipe(state: State, seat: int, project: int) -> tuple[tuple[str, int], ...]:
    cost = load(state.scenario).projects[project].cost
    return tuple((r, max(0, n - ability_sum(state, seat, RecipeDiscount, resource=r))) for r, n in cost)


def _craft(state: State, seat: int, project: int) -> list[ev.Event]:
    """Craft from a project in hand (it then goes to the table, and you draw another) or on the table."""
    survivor = state.survivors[seat]
    from_hand = project in survivor.hand
    if not from_hand and project not in state.table:
        raise IllegalAction("discover.day.craft.unknown_project", "craft from your hand or the table")
    item = load(state.scenario).projects[project].makes_item
    if not item_available(state, item):
        raise IllegalAction("discover.day.craft.item_taken", "that item card is not in the deck")
    cost = [(r, n) for r, n in recipe(state, seat, project) if n]
    if any(survivor.resources.get(r, 0) < n for r, n in cost):
        raise IllegalAction("discover.day.craft.resources", "not enough resources for the recipe")
    out = pay(state, seat, action_cost(state, seat, "craft"), "craft")
    out += [ev.ResourceChanged(seat, r, -n) for r, n in cost]
    out.append(ev.ProjectCrafted(seat, project, from_hand))
    placed = load(state.scenario).items[item].placed
    out.append(ev.ItemPlaced(item, survivor.space) if placed else ev.ItemGained(seat, item))
    return out + ([ev.StepsQueued((st.DealProjects(seat, 1),))] if from_hand else [])


def _trade(state: State, seat: int, partner: int) -> list[ev.Event]:
    if partner == seat or partner not in at(state, state.survivors[seat].space):
        raise IllegalAction("discover.day.trade.partner", "trade with a survivor in your space")
    # At least 1 stamina per proposal, whatever the discounts: a free trade could be proposed and declined forever.
    cost = max(1, action_cost(state, seat, "trade"))
    return [*pay(state, seat, cost, "trade"), ev.TradeOpened(seat, partner)]


def decide_trade(state: State, seat: int, action: act.Action) -> list[ev.Event]:
    """The active survivor builds a proposal one good at a time, then offers it or withdraws."""
    trade = state.trade
    assert trade is not None
    match action:
        case act.TradeGive(resource=resource, item=item) if _spare(state, seat, trade.gives, resource, item):
            return [ev.TradeGoodListed(seat, resource, item)]
        case act.TradeTake(resource=resource, item=item) if _spare(state, trade.partner, trade.asks, resource, item):
            return [ev.TradeGoodListed(trade.partner, resource, item)]
        case act.OfferTrade() if trade.gives or trade.asks:
            return [ev.TradeOffered(seat, trade.partner)]
        case act.EndTrade():
            return [ev.TradeClosed(seat)]
    raise IllegalAction("discover.day.trade.goods", "list goods that are held, offer a proposal, or end the trade")


def decide_trade_answer(state: State, seat: int, action: act.Action) -> list[ev.Event]:
    """The partner accepts (the goods change hands) or declines (nothing does; the stamina stays spent)."""
    trade = state.trade
    assert trade is not None
    proposer = state.turn_order[0]
    match action:
        case act.AcceptTrade():
            moved = [_good_moved(proposer, seat, good) for good in trade.gives]
            moved += [_good_moved(seat, proposer, good) for good in trade.asks]
            return [ev.TradeAnswered(seat, True), *moved, ev.TradeClosed(proposer)]
        case act.DeclineTrade():
            return [ev.TradeAnswered(seat, False), ev.TradeClosed(proposer)]
    raise IllegalAction("discover.day.trade.answer", "accept or decline the proposal")


def _good_moved(giver: int, taker: int, good: str) -> ev.GoodsTransferred:
    """A listed good ("wood", "item:3") changing hands."""
    kind, _, number = good.partition(":")
    if kind == "item":
        return ev.GoodsTransferred(giver, taker, "", int(number))
    return ev.GoodsTransferred(giver, taker, good, 0)


def _spare(state: State, seat: int, listed: tuple[str, ...], resource: str, item: int) -> bool:
    """`seat` holds one more of the good than the proposal already lists."""
    if not _holds(state, seat, resource, item):
        return False
    if item:
        return f"item:{item}" not in listed
    return listed.count(resource) < state.survivors[seat].resources.get(resource, 0)


def _holds(state: State, seat: int, resource: str, item: int) -> bool:
    """One good named exactly: a resource (item 0) or an item (resource "")."""
    survivor = state.survivors[seat]
    if item:
        return not resource and item in survivor.items
    return survivor.resources.get(resource, 0) > 0


def _investigate(state: State, seat: int) -> list[ev.Event]:
    """Investigate: resolve the exploration card numbered like the landmark in your space."""
    landmark = board(state).spaces[state.survivors[seat].space].landmark
    if landmark is None:
        raise IllegalAction("discover.day.investigate.no_landmark", "no landmark in your space")
    run = exploration_step(state, seat, landmark)
    out = pay(state, seat, action_cost(state, seat, "investigate"), "investigate")
    return [*out, ev.LandmarkInvestigated(seat, landmark), ev.StepsQueued((run,))]


def _recover(state: State, seat: int, damage: DamageType) -> list[ev.Event]:
    """Recover one damage, paying its cure; exposure needs a lit fire or a shelter (stand-in)."""
    survivor = state.survivors[seat]
    if damage not in survivor.damage:
        raise IllegalAction("discover.day.recover.no_such_damage", "you have no damage of that type")
    cure = CURES.get(damage)
    if cure is None and not (lit_fire(state, survivor.space) or sheltered(state, survivor.space)):
        raise IllegalAction("discover.day.recover.needs_fire", "exposure heals at a lit fire or in a shelter")
    if cure is not None and not survivor.resources.get(cure):
        raise IllegalAction("discover.day.recover.needs_cure", f"healing {damage.value} costs 1 {cure}")
    out = pay(state, seat, action_cost(state, seat, "recover"), "recover")
    spend: list[ev.Event] = [ev.ResourceChanged(seat, cure, -1)] if cure else []
    return [*out, *spend, ev.DamageHealed(seat, damage)]


def _use_item(state: State, seat: int, item: int) -> list[ev.Event]:
    """Card Action printed on a carried item."""
    spec = load(state.scenario).items.get(item)
    survivor = state.survivors[seat]
    if spec is None or spec.action is None or item not in survivor.items:
        raise IllegalAction("discover.day.card_action.no_action", "that item has no card action")
    near = spec.action.near_terrain
    spaces = (survivor.space, *adjacent_spaces(state, survivor.space))
    if near is not None and all(terrain(state, h) != near for h in spaces):
        raise IllegalAction("discover.day.card_action.terrain", f"needs {near} next to you")
    out = pay(state, seat, spec.action.stamina, "card_action")
    lost: list[ev.Event] = [ev.ItemLost(seat, item)] if spec.action.discard else []
    run = st.RunEffects(seat, Source.ITEM, str(item), 0, False)
    return [*out, *lost, ev.StepsQueued((run,))]


def quest_cost(state: State, name: str) -> tuple[tuple[str, int], ...]:
    spec = load(state.scenario).card_actions[name]
    return tuple((r, m_formula(f, state.players)) for r, f in spec.cost)


def _quest_action(state: State, seat: int, name: str) -> list[ev.Event]:
    """Card Action unlocked by a quest card, at its landmark, paying resources that scale with M."""
    spec = load(state.scenario).card_actions.get(name)
    survivor = state.survivors[seat]
    if spec is None or name not in state.unlocked:
        raise IllegalAction("discover.day.card_action.locked", "that card action is not available")
    if board(state).landmarks.get(spec.landmark) != survivor.space:
        raise IllegalAction("discover.day.card_action.place", f"go to landmark {spec.landmark}")
    if any(isinstance(e, PlaceItem) and not item_available(state, e.item) for e in spec.effects):
        raise IllegalAction("discover.day.card_action.done", "already done")
    cost = quest_cost(state, name)
    if any(survivor.resources.get(r, 0) < n for r, n in cost):
        raise IllegalAction("discover.day.card_action.resources", "not enough resources")
    out = pay(state, seat, spec.stamina, "card_action") + [ev.ResourceChanged(seat, r, -n) for r, n in cost]
    return [*out, ev.StepsQueued((st.RunEffects(seat, Source.QUEST_ACTION, name, 0, False),))]


def _loot(state: State, seat: int, victim: int, resource: str, item: int) -> list[ev.Event]:
    """Looting: as an action, take one resource or item from a casualty in your space."""
    if not 0 <= victim < len(state.survivors):
        raise IllegalAction("discover.casualties.loot.no_casualty", "no such casualty")
    body = state.survivors[victim]
    if body.status is not Status.CASUALTY or body.space != state.survivors[seat].space:
        raise IllegalAction("discover.casualties.loot.no_casualty", "loot a casualty in your space")
    if not _holds(state, victim, resource, item):
        raise IllegalAction("discover.casualties.loot.nothing", "the casualty does not hold that")
    out = pay(state, seat, action_cost(state, seat, "loot"), "loot")
    return [*out, ev.GoodsTransferred(victim, seat, resource, item)]
