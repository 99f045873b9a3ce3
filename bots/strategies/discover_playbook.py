"""A goal-directed plan for one survivor (docs/bots.md "Discover"): look after the
survivor's needs first (pay upkeep, heal, cook, fetch food and water when out of them),
then follow the quest (explore toward the landmark it needs, investigate, pool the
beacon's materials with one survivor, walk to landmark 5 once the beacon burns).

It reads a whole state, so the search bot asks it about a determinization of its
seat's view (never the real state): the plan is a prior the search checks, not the
bot's choice. `tools/discover_rates.py` plays it on its own to calibrate the content.
Pure: no service imports.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from services.games.common.host import Rng
from services.games.discover import actions as act
from services.games.discover import vocab as v
from services.games.discover.board import board, explorable_slots, neighbours
from services.games.discover.content import load
from services.games.discover.day import move_cost, quest_cost
from services.games.discover.flow import pending
from services.games.discover.rules import lit_fire, sheltered
from services.games.discover.state import State
from services.games.discover.vocab import Hex

FOOD_WANTED = 2  # per survivor: enough for two hungry nights
WATER_WANTED = 2
STOCKED = 4  # food (or meat) and water held beyond which a survivor stops gathering features and explores


Plan = Callable[[State, int, Sequence[act.Action]], act.Action]


def goal_policy(rng: Rng) -> Plan:
    """A survivor who looks after their needs first, then follows the quest."""

    def choose(state: State, seat: int, legal: Sequence[act.Action]) -> act.Action:
        decision = pending(state).decision
        if decision == "turn":
            return _turn(state, seat, legal)
        return _other(state, seat, decision, legal, rng)

    return choose


def _first(legal: Sequence[act.Action], kind: type) -> act.Action | None:
    return next((a for a in legal if isinstance(a, kind)), None)


def _other(state: State, seat: int, decision: str, legal: Sequence[act.Action], rng: Rng) -> act.Action:
    """Every decision but the day turn: simple fixed preferences."""
    prefer: dict[str, tuple[type, ...]] = {
        "free_gather": (act.Gather,),
        "support": (act.PlaySupport,),
        "ready": (act.RollCombat,),
        "key_item": (act.DeclineKeyItem,),
        "pay_or": (act.PayCost,),  # the upkeep's damage is worse than its food or water
        "feed_fire": (act.PayCost,),
        "trade_answer": (act.AcceptTrade,),  # only beacon materials are ever offered
        "share_rewards": (act.KeepRewards,),
    }
    if decision == "feed_fire" and not _spare_wood(state, seat):
        return act.DeclineCost() if act.DeclineCost() in legal else legal[0]
    if decision == "trade":
        return _pool(state, seat, legal)
    if decision == "modify":
        return _modify(state, seat, legal)
    if decision == "support_ability":
        return _support_ability(state, legal)
    if decision == "pass_leader":
        return act.PassLeadership(state.leader) if act.PassLeadership(state.leader) in legal else legal[0]
    for kind in prefer.get(decision, ()):
        found = _first(legal, kind)
        if found is not None:
            return found
    return legal[rng.randrange(len(legal))]


def _modify(state: State, seat: int, legal: Sequence[act.Action]) -> act.Action:
    """Use every combat item once; spend a poison or salvage when it turns the result."""
    combat = state.combat
    assert combat is not None
    spec = load(state.scenario).enemies[state.enemy(combat.enemy).number]
    for a in legal:
        if isinstance(a, act.UseCombatItem):
            return a
    grey = combat.grey + combat.grey_mod
    red = combat.red + combat.red_mod
    held = state.survivors[seat].resources
    if grey < spec.defence:
        if grey + 1 >= spec.defence and held.get("poison"):
            return act.SpendResource("poison")
        if held.get("wood", 0) > 3 and spec.defence <= 8:
            return act.SpendResource("wood")
    if spec.attack is not None and red >= spec.attack:
        if red - 1 < spec.attack and held.get("salvage", 0) > 2:
            return act.SpendResource("salvage")
        if held.get("stone", 0) > 1 and spec.attack >= 7:
            return act.SpendResource("stone")
    return act.ResolveCombat()


def _support_ability(state: State, legal: Sequence[act.Action]) -> act.Action:
    """A supporter re-rolls the die its card names only when that die now goes against the combatant."""
    combat = state.combat
    assert combat is not None
    spec = load(state.scenario).enemies[state.enemy(combat.enemy).number]
    use = _first(legal, act.UseSupportCard)
    if not isinstance(use, act.UseSupportCard):
        return act.DeclineSupport()
    die = load(state.scenario).support[use.card].reroll
    red_hits = spec.attack is not None and combat.red + combat.red_mod >= spec.attack
    grey_misses = combat.grey + combat.grey_mod < spec.defence
    return use if (die == "red" and red_hits) or (die == "grey" and grey_misses) else act.DeclineSupport()


def _turn(state: State, seat: int, legal: Sequence[act.Action]) -> act.Action:
    me = state.survivors[seat]
    for a in legal:  # heal what can be healed
        if isinstance(a, act.Recover):
            return a
    for a in legal:  # card actions that heal or feed
        if isinstance(a, act.UseItem) and _useful_item(state, seat, a.item):
            return a
    cook = [a for a in legal if isinstance(a, act.Cook)]
    if cook:
        return max(cook, key=lambda a: a.meat + a.dirty_water)
    hand_over = _hand_over(state, seat, legal)
    if hand_over is not None:
        return hand_over
    quest = [a for a in legal if isinstance(a, act.UseQuestAction) and _worth_quest_action(state, seat, a.action)]
    if quest:
        return max(quest, key=lambda a: a.action == "beacon")
    loot = [a for a in legal if isinstance(a, act.Loot) and _worth_looting(state, seat, a)]
    if loot:
        return loot[0]
    if act.RestartFire() in legal and _spare_wood(state, seat):
        return act.RestartFire()
    crafts = [a for a in legal if isinstance(a, act.Craft)]
    if crafts and not _beacon_due(state):  # crafting would burn the beacon's wood and salvage
        return _best_craft(state, crafts)
    landmark = board(state).spaces[me.space].landmark
    if act.Investigate() in legal and landmark is not None and _worth_investigating(state, landmark):
        return act.Investigate()
    feature_here = me.space in state.features and _wants_feature(state, seat)
    if act.Gather() in legal and (feature_here or _short_of_water(state, seat)):
        return act.Gather()
    if act.Gather() in legal and _water_here(state, me.space) and me.stamina > 8:
        return act.Gather()
    return _travel(state, seat, legal)


BEACON_GOODS = ("wood", "salvage", "stone")


def _beacon_due(state: State) -> bool:
    """The beacon may be built and is not yet."""
    return "beacon" in state.unlocked and 20 not in state.placed


def _carrier(state: State) -> int:
    """The survivor who pools the beacon's materials: the first still on the map."""
    return state.active()[0]


def _missing(state: State, seat: int) -> dict[str, int]:
    """What the carrier still lacks for the beacon, counting what `seat` holds if it is not the carrier."""
    carrier = state.survivors[_carrier(state)].resources
    mine = state.survivors[seat].resources if seat != _carrier(state) else {}
    cost = dict(quest_cost(state, "beacon"))
    short = {r: n - carrier.get(r, 0) - mine.get(r, 0) for r, n in cost.items()}
    return {r: n for r, n in short.items() if n > 0}


def _spare_wood(state: State, seat: int) -> bool:
    """Wood may feed a fire unless the beacon still needs it."""
    return not _beacon_due(state) or "wood" not in _missing(state, seat)


def _worth_looting(state: State, seat: int, loot: act.Loot) -> bool:
    """Beacon materials while it is due, and food, water and medicine always."""
    wanted = ("food", "clean_water", "medicine") + (BEACON_GOODS if _beacon_due(state) else ())
    return not loot.item and loot.resource in wanted and state.survivors[seat].stamina > 3


def _hand_over(state: State, seat: int, legal: Sequence[act.Action]) -> act.Action | None:
    """Open a trade with the carrier to give it beacon materials."""
    if not _beacon_due(state) or seat == _carrier(state):
        return None
    held = state.survivors[seat].resources
    trade = act.Trade(_carrier(state))
    if trade in legal and any(held.get(r, 0) for r in BEACON_GOODS):
        return trade
    return None


def _pool(state: State, seat: int, legal: Sequence[act.Action]) -> act.Action:
    """Give every beacon material held, then offer."""
    trade = state.trade
    assert trade is not None
    held = state.survivors[seat].resources
    gives = [a for a in legal if isinstance(a, act.TradeGive) and not a.item and a.resource in BEACON_GOODS]
    for a in gives:
        if trade.gives.count(a.resource) < held.get(a.resource, 0):
            return a
    return act.OfferTrade() if trade.gives and act.OfferTrade() in legal else act.EndTrade()


def _useful_item(state: State, seat: int, item: int) -> bool:
    action = load(state.scenario).items[item].action
    if action is None:
        return False
    heals = any(isinstance(e, v.Heal) for e in action.effects)
    if heals:
        return bool(state.survivors[seat].damage)
    return state.survivors[seat].stamina > 4 and not action.discard


def _best_craft(state: State, crafts: Sequence[act.Craft]) -> act.Action:
    """The quest's shelter first, then anything (crafting also cycles project cards)."""
    projects = load(state.scenario).projects
    quest_items = {o.item for s in load(state.scenario).stages.values() for o in s.objectives if o.item}
    return max(crafts, key=lambda a: projects[a.project].makes_item in quest_items)


def _worth_investigating(state: State, landmark: int) -> bool:
    stage = load(state.scenario).stages[state.stage]
    wanted = {o.landmark for o in stage.objectives if o.landmark}
    return landmark not in state.investigated or landmark in wanted


def _wants_feature(state: State, seat: int) -> bool:
    """Gather features while supplies are short or the beacon wants materials; a stocked survivor explores."""
    held = state.survivors[seat].resources
    food = held.get("food", 0) + held.get("meat", 0)
    water = held.get("clean_water", 0) + held.get("dirty_water", 0)
    return food < STOCKED or water < STOCKED or _beacon_due(state)


def _water_here(state: State, space: Hex) -> bool:
    return board(state).spaces[space].water is not None


def _short_of_water(state: State, seat: int) -> bool:
    me = state.survivors[seat]
    return _water_here(state, me.space) and me.resources.get("clean_water", 0) < WATER_WANTED


def _travel(state: State, seat: int, legal: Sequence[act.Action]) -> act.Action:
    """Head for the most pressing place; explore when nothing known is worth walking to."""
    me = state.survivors[seat]
    home = _home(state, seat)
    wounded = len(me.damage) >= 1  # exposure at night adds to every wound
    if wounded and home is not None and home[0] != me.space and me.stamina <= home[1] + 2:
        step = _next_step(state, seat, home[0])  # dusk: back to a fire or a shelter
        if step is not None and act.Move(step) in legal:
            return act.Move(step)
        return act.EndTurn()
    goal = _goal(state, seat)
    if goal is not None and goal != me.space:
        step = _next_step(state, seat, goal)
        if step is not None and act.Move(step) in legal:
            return act.Move(step)
    explore = [a for a in legal if isinstance(a, act.Explore)]
    if explore and me.stamina >= 4:
        return explore[0]
    if goal is None:
        near = _nearest_unexplored(state, seat)
        if near is not None and near != me.space:
            step = _next_step(state, seat, near)
            if step is not None and act.Move(step) in legal and me.stamina >= 5:
                return act.Move(step)
    return act.EndTurn()


def _goal(state: State, seat: int) -> Hex | None:
    """Quest place when ready, supplies when out of them, the quest's needs, else features and landmarks nearby."""
    me = state.survivors[seat]
    landmarks = board(state).landmarks
    stage = load(state.scenario).stages[state.stage]
    costs = _costs(state, seat, me.space)
    if stage.win_at_landmark and state.stage_complete and stage.win_at_landmark in landmarks:
        return landmarks[stage.win_at_landmark]
    for action in sorted(state.unlocked, key=lambda a: a != "beacon"):
        spec = load(state.scenario).card_actions[action]
        if spec.landmark in landmarks and _worth_quest_action(state, seat, action):
            return landmarks[spec.landmark]
    out_of = not me.resources.get("food", 0) or not me.resources.get("clean_water", 0)
    supplies = _supplies_goal(state, seat, costs)
    if out_of and supplies is not None:
        return supplies  # tonight's upkeep comes before the quest
    sought = _sought_landmark(state)
    if sought is not None and sought not in landmarks:
        edge = _nearest_unexplored(state, seat)
        if edge is not None:
            return edge
    if _beacon_due(state):
        found = _beacon_goal(state, seat, costs)
        if found is not None:
            return found
    if supplies is not None:
        return supplies
    wanted = [o.landmark for o in stage.objectives if o.landmark and o.landmark in landmarks]
    fresh = [h for lm, h in landmarks.items() if lm not in state.investigated and h in costs]
    targets = [landmarks[w] for w in wanted if landmarks[w] in costs] + fresh
    features = [h for h in costs if h in state.features and not _enemy_at(state, h)]
    features = features if _wants_feature(state, seat) else []
    pool = features + targets
    if pool:
        return min(pool, key=lambda h: costs[h])
    return None


def _supplies_goal(state: State, seat: int, costs: dict[Hex, int]) -> Hex | None:
    """A fire to cook at, water, or a shrub (food) when short of them."""
    held = state.survivors[seat].resources
    spaces = board(state).spaces
    food = held.get("food", 0)
    if held.get("meat", 0) + held.get("dirty_water", 0) and food < FOOD_WANTED:
        fires = [h for h in costs if lit_fire(state, h)]
        if fires:
            return min(fires, key=lambda h: costs[h])
    if held.get("clean_water", 0) + held.get("dirty_water", 0) < WATER_WANTED:
        water = [h for h in costs if spaces[h].water is not None]
        if water:
            return min(water, key=lambda h: costs[h])
    if food < FOOD_WANTED:
        shrubs = [h for h, pool in state.features.items() if pool == "shrub" and h in costs and not _enemy_at(state, h)]
        if shrubs:
            return min(shrubs, key=lambda h: costs[h])
    return None


def _sought_landmark(state: State) -> int | None:
    """The landmark the quest needs next: the current stage's, or where the beacon is built."""
    stage = load(state.scenario).stages[state.stage]
    named = [o.landmark for o in stage.objectives if o.landmark]
    if _beacon_due(state):
        return load(state.scenario).card_actions["beacon"].landmark
    return named[0] if named else stage.win_at_landmark


POOL_GIVES = {"tree": "wood", "rocks": "stone", "wreck": "salvage"}


def _beacon_goal(state: State, seat: int, costs: dict[Hex, int]) -> Hex | None:
    """Features that may give a missing beacon material; else, holding some, the carrier."""
    missing = _missing(state, seat)
    carrier = _carrier(state)
    if not missing:
        return state.survivors[carrier].space if seat != carrier else None
    wanted = [h for h, pool in state.features.items() if POOL_GIVES.get(pool) in missing and h in costs]
    wanted = [h for h in wanted if not _enemy_at(state, h)]
    return min(wanted, key=lambda h: costs[h]) if wanted else None


def _home(state: State, seat: int) -> tuple[Hex, int] | None:
    """The cheapest lit fire or shelter to spend the night at, and its cost."""
    costs = _costs(state, seat, state.survivors[seat].space)
    homes = [h for h in costs if lit_fire(state, h) or sheltered(state, h)]
    if not homes:
        return None
    best = min(homes, key=lambda h: costs[h])
    return best, costs[best]


def _worth_quest_action(state: State, seat: int, action: str) -> bool:
    """Affordable, and (but for the beacon) paid without what the beacon still needs."""
    if not _can_afford_quest(state, seat, action):
        return False
    if action == "beacon" or not _beacon_due(state):
        return True
    return not any(r in BEACON_GOODS for r, _ in quest_cost(state, action))


def _can_afford_quest(state: State, seat: int, action: str) -> bool:
    held = state.survivors[seat].resources
    return all(held.get(r, 0) >= n for r, n in quest_cost(state, action))


def _enemy_at(state: State, space: Hex) -> bool:
    return any(e.space == space for e in state.enemies)


def _nearest_unexplored(state: State, seat: int) -> Hex | None:
    costs = _costs(state, seat, state.survivors[seat].space)
    edge = [h for h in costs if explorable_slots(state, h)]
    return min(edge, key=lambda h: costs[h]) if edge else None


def _costs(state: State, seat: int, start: Hex) -> dict[Hex, int]:
    """Stamina to reach every revealed passable space (Dijkstra over terrain costs)."""
    spaces = board(state).spaces
    best = {start: 0}
    frontier = [(0, start)]
    while frontier:
        frontier.sort()
        cost, here = frontier.pop(0)
        if cost > best.get(here, 1 << 30):
            continue
        for n in neighbours(here):
            if n not in spaces:
                continue
            step = move_cost(state, seat, spaces[n].terrain)
            if step is not None and _enemy_at(state, n):
                step += 20  # walk around monsters: a fight costs more than a detour
            if step is None or cost + step >= best.get(n, 1 << 30):
                continue
            best[n] = cost + step
            frontier.append((cost + step, n))
    return best


def _next_step(state: State, seat: int, goal: Hex) -> Hex | None:
    """The neighbour on a cheapest path to `goal` (the goal itself on ties)."""
    here = state.survivors[seat].space
    spaces = board(state).spaces
    options = []
    for n in neighbours(here):
        step = move_cost(state, seat, spaces[n].terrain) if n in spaces else None
        if step is None:
            continue
        if _enemy_at(state, n):
            step += 20
        rest = _costs(state, seat, n).get(goal)
        if rest is not None:
            options.append((step + rest, n != goal, n))
    return min(options)[2] if options else None


def plan(state: State, seat: int, legal: Sequence[act.Action], rng: Rng) -> act.Action:
    """The plan's action for `seat` among `legal` in `state` (a determinization, for the search)."""
    return goal_policy(rng)(state, seat, legal)
