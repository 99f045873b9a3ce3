"""The search bot's heuristic for Discover (docs/bots.md "Discover"): how well a team stands.

`evaluate` reads only what every seat sees (health, supplies, the map, the
quest, resources held), so it is the same for every seat and for every
determinization of one view. It is dense on purpose: the search looks a few
moves ahead and then scores, so every step of the quest must be worth a little
more than the one before: walking toward the landmark the quest needs next
(or, while it is still face down, exploring), holding the beacon's materials on
one survivor, carrying them to landmark 5, and staying there once it burns.
"""

from __future__ import annotations

import heapq
from functools import lru_cache

from services.games.discover import state as st
from services.games.discover.board import board, board_of, neighbours, slot_of
from services.games.discover.content import EnemySpec, load, m_formula
from services.games.discover.effects import card_effects
from services.games.discover.rules import lit_fire, sheltered, targets
from services.games.discover.state import CombatStage, Phase, State, Status, Survivor
from services.games.discover.vocab import Damage, DamageType, Gain, Hex, PlaceItem

DAMAGE_LIMIT = st.HEALTH_DIALS + 1  # the fourth damage makes a casualty
STAMINA_KEPT = 6  # a night gives 6-8 stamina (capped at 12): more than this left at dusk is mostly lost
REACH = 18.0  # stamina (printed terrain costs) beyond which a place counts as far away


# Share of the night cards that ask each upkeep (island-1: food on 4 of 10, clean water on 5 of 10).
UPKEEP = (("food", "meat", 0.4), ("clean_water", "dirty_water", 0.5))


def _upkeep_risk(state: State, s: Survivor) -> float:
    """Expected damage from the coming nights' upkeep: tonight's in full where nothing is held to pay
    it (less with a source of it near), the next two nights' a little; raw meat or dirty water counts
    half. A unit of food or water is so worth less than the damage it would heal now, and paying an
    upkeep beats suffering it."""
    risk = 0.0
    for resource, raw, odds in UPKEEP:
        held = s.resources.get(resource, 0) + 0.5 * s.resources.get(raw, 0)
        if held < 1:
            risk += odds * (1 - held) * (1 - SOURCE_RELIEF * _nearness(state, s.seat, resource))
        risk += 0.2 * odds * max(0.0, 2 - max(held - 1, 0.0))
    return risk


CURES = {DamageType.PHYSICAL: "medicine", DamageType.HUNGER: "food", DamageType.THIRST: "clean_water"}
RELIEF = 0.15  # share of a damage's cost lifted while its cure is at hand (it still costs the cure and stamina)
SOURCE_RELIEF = 0.5  # share of a missing upkeep's or cure's cost lifted by a sure source of it close by


NIGHT_EXPOSURE = 0.2  # about one night card in five harms the survivors out in the open (island-1: 2 of 10)


def _pending(state: State) -> dict[int, float]:
    """Damage the cards being resolved will still deal, by seat (a night's exposure comes after its
    upkeep, a decision the search often stops at; the card is on the table for everyone to see).
    By day, the night to come: a survivor who ends the day away from a lit fire or a shelter risks its
    exposure, which only a fire or a shelter heals; one still to act with the stamina to walk back to
    one is not counted, so that the search may range out and come back."""
    due: dict[int, float] = {}
    if state.phase is Phase.DAY:
        homes = _homes(state)
        costs = _costs_to(state.scenario, _tiles(state), homes) if homes else {}
        for seat in state.active():
            survivor = state.survivors[seat]
            back = costs.get(survivor.space)
            if back == 0 or (back is not None and seat in state.turn_order and back <= survivor.stamina):
                continue
            due[seat] = NIGHT_EXPOSURE
    seat, hurt = _combat_due(state)
    if hurt:
        due[seat] = due.get(seat, 0) + hurt
    for step in state.agenda:
        if not isinstance(step, st.RunEffects):
            continue
        for effect in card_effects(state, step)[step.index :]:
            if isinstance(effect, Damage):
                for seat in targets(state, step.seat, effect.target):
                    due[seat] = due.get(seat, 0) + effect.amount
    return due


def _at_least(face: int) -> float:
    """The chance that a d12 shows `face` or more."""
    return min(1.0, max(0.0, (13 - face) / 12))


def _fight(spec: EnemySpec, damage: int, red: int | None) -> float:
    """Expected damage to the combatant of a fight with `spec` already dealt `damage`; `red` is the red
    die already rolled (with its modifiers), None before the roll. A lethal enemy fights on until
    defeated (rulebook "Enemigos letales"): one hit per round on average over the rounds it takes."""
    hit = 0.0 if spec.attack is None else _at_least(spec.attack)
    now = hit if red is None else float(spec.attack is not None and red >= spec.attack)
    if not spec.lethal:
        return now
    rounds = (spec.health - damage) / max(_at_least(spec.defence), 1 / 12)
    return min(now + max(rounds - 1, 0.0) * hit, float(DAMAGE_LIMIT))


def _combat_due(state: State) -> tuple[int, float]:
    """The combatant and the damage the combat in progress should still deal it, so that a search
    stopping where a fight starts (a Move into a monster's space, a token turned over) does not score
    the fight as free. A face-down monster counts as the mean of the tokens it may be."""
    combat = state.combat
    if combat is None or combat.stage is CombatStage.RETREAT:
        return -1, 0.0
    enemy = state.enemy(combat.enemy)
    content = load(state.scenario)
    rolled = combat.stage is CombatStage.MODIFY or (combat.stage is CombatStage.REROLL and combat.reroll != "red")
    red = combat.red + combat.red_mod if rolled else None
    if enemy.number:
        return combat.seat, _fight(content.enemies[enemy.number], enemy.damage, red)
    tokens = list(content.monster_tokens.values())
    return combat.seat, sum(_fight(content.enemies[n], 0, None) for n in tokens) / max(len(tokens), 1)


def _wounds(state: State, s: Survivor, due: dict[int, float]) -> float:
    """Damage taken or about to be, each taken counted a little less while its cure is at hand (held,
    or for exposure a lit fire or shelter near), so that a wounded survivor walks back to a fire to heal."""
    spare = dict(s.resources)
    total = float(due.get(s.seat, 0))
    home = -1.0
    for damage in s.damage:
        cure = CURES.get(damage)
        if cure is None:  # exposure
            if home < 0:
                home = _closeness(state, _homes(state), (s.seat,))
            total += 1 - RELIEF * home
        elif spare.get(cure, 0) > 0:
            spare[cure] -= 1
            total += 1 - RELIEF
        else:  # walking toward the cure (water, food) is worth a little
            total += 1 - RELIEF * SOURCE_RELIEF * _nearness(state, s.seat, cure)
    return total


def _homes(state: State) -> frozenset[Hex]:
    spaces = board(state).spaces
    return frozenset(h for h in spaces if lit_fire(state, h) or sheltered(state, h))


def _health(state: State, s: Survivor, due: dict[int, float]) -> float:
    """A survivor's standing in [0, 1]: undamaged and stocked for the nights' upkeep is best.

    Damage taken, due, or expected from the nights' upkeep are counted together, each costing
    more than the one before (the fourth is a casualty), so a wounded survivor heals and keeps
    out of harm's way first."""
    if s.status is Status.WON:
        return 1.0
    if s.status is Status.CASUALTY:
        return 0.0
    wounds = _wounds(state, s, due) + _upkeep_risk(state, s)
    return (
        0.9 * (1 - min(wounds / DAMAGE_LIMIT, 1.0) ** 1.5)
        + 0.05 * min(s.resources.get("medicine", 0), 1)
        + 0.05 * min(s.stamina, STAMINA_KEPT) / STAMINA_KEPT
    )


# ---------------------------------------------------------------- distances on the revealed map


@lru_cache(maxsize=256)
def _costs_to(scenario: str, tiles: tuple[tuple[int, int], ...], targets: frozenset[Hex]) -> dict[Hex, int]:
    """Printed stamina cost from every revealed passable space to the nearest target (Dijkstra)."""
    spaces = board_of(scenario, tiles).spaces
    cost_of = load(scenario).terrain_cost
    best = {h: 0 for h in targets if h in spaces}
    frontier = [(0, h.q, h.r) for h in best]
    heapq.heapify(frontier)
    while frontier:
        cost, q, r = heapq.heappop(frontier)
        here = Hex(q, r)
        if cost > best.get(here, cost):
            continue
        # Walking from a neighbour into `here` costs here's terrain: search backwards from the target.
        step = cost_of[spaces[here].terrain]
        if step is None:
            continue
        for n in neighbours(here):
            if n in spaces and cost_of[spaces[n].terrain] is not None:
                total = cost + step
                if total < best.get(n, 1 << 30):
                    best[n] = total
                    heapq.heappush(frontier, (total, n.q, n.r))
    return best


def _tiles(state: State) -> tuple[tuple[int, int], ...]:
    return tuple(sorted(state.tiles.items()))


def _closeness(state: State, targets: frozenset[Hex], seats: tuple[int, ...]) -> float:
    """In [0, 1]: 1 when one of `seats` stands on a target, falling linearly to 0 at REACH stamina away."""
    if not targets or not seats:
        return 0.0
    costs = _costs_to(state.scenario, _tiles(state), targets)
    near = min((costs.get(state.survivors[s].space, 1 << 30) for s in seats), default=1 << 30)
    return max(0.0, 1.0 - near / REACH)


@lru_cache(maxsize=64)
def _edge(scenario: str, tiles: tuple[tuple[int, int], ...]) -> frozenset[Hex]:
    """Revealed passable spaces next to a face-down tile (where Explore can be taken)."""
    spaces = board_of(scenario, tiles).spaces
    cost_of = load(scenario).terrain_cost
    slots = slot_of(scenario)
    shown = {slot for slot, _ in tiles}

    def hidden_next(h: Hex) -> bool:
        return any(n in slots and slots[n] not in shown for n in neighbours(h))

    return frozenset(h for h, s in spaces.items() if cost_of[s.terrain] is not None and hidden_next(h))


def _seek(state: State, landmarks: set[int]) -> float:
    """In [0, 1]: how near the team is to any of `landmarks`; while none is face up, how much is explored."""
    active = state.active()
    found = board(state).landmarks
    known = frozenset(found[lm] for lm in landmarks if lm in found)
    if known:
        return 0.5 + 0.5 * _closeness(state, known, active)
    return 0.5 * _explored(state)


def _explored(state: State) -> float:
    """In [0, 1): the share of the map's tiles face up, and how near a survivor is to a face-down one."""
    slots = len(load(state.scenario).slots)
    explored = (len(state.tiles) - 1) / max(slots - 1, 1)
    edge = _edge(state.scenario, _tiles(state))
    # The first tiles turned count the most (the landmark sought is likelier on them than on the last).
    return 0.8 * (1 - (1 - explored) ** 2) + 0.2 * _closeness(state, edge, state.active()) * (1 - explored)


# ---------------------------------------------------------------- the quest


def _beacon_cost(state: State) -> list[tuple[str, int]]:
    spec = load(state.scenario)
    due = [a for a in sorted(spec.card_actions) if any(isinstance(e, PlaceItem) for e in spec.card_actions[a].effects)]
    if not due:
        return []
    return [(r, m_formula(f, state.players)) for r, f in spec.card_actions[due[0]].cost]


def _materials(state: State) -> tuple[float, int]:
    """Share in [0, 1] of the beacon's cost the team holds (the best-stocked survivor in full, the others'
    goods that could still be handed over at half), and that survivor's seat (-1: nobody is on the map)."""
    active = state.active()
    cost = _beacon_cost(state)
    total = sum(n for _, n in cost) or 1
    if not active:
        return 0.0, -1

    def own(seat: int) -> int:
        held = state.survivors[seat].resources
        return sum(min(held.get(r, 0), n) for r, n in cost)

    carrier = max(active, key=own)
    mine = state.survivors[carrier].resources
    short = {r: max(0, n - mine.get(r, 0)) for r, n in cost}
    others = 0
    for r, n in short.items():
        others += min(n, sum(state.survivors[s].resources.get(r, 0) for s in active if s != carrier))
    return (own(carrier) + 0.5 * others) / total, carrier


@lru_cache(maxsize=8)
def _yields(scenario: str) -> dict[str, dict[str, float]]:
    """By feature pool, the chance that one of its face-down tokens brings each resource: the token's
    face, or a gain on the exploration card it leads to (public content: the pools' make-up is printed)."""
    spec = load(scenario)
    pools: dict[str, list[str]] = {}
    for pool, face in spec.features.values():
        pools.setdefault(pool, []).append(face)
    out: dict[str, dict[str, float]] = {}
    for pool, faces in pools.items():
        chance: dict[str, float] = {}
        for face in faces:
            kind, _, number = face.partition(":")
            gains = {kind}
            if kind == "explore":
                card = spec.exploration[int(number)]
                gains = {e.resource for e in (*card.first_time, *card.always) if isinstance(e, Gain)}
            for resource in gains:
                chance[resource] = chance.get(resource, 0.0) + 1 / len(faces)
        out[pool] = chance
    return out


def _nearness(state: State, seat: int, resource: str) -> float:
    """In [0, 1]: how near `seat` is to where `resource` may be had, weighted by the chance of having it
    there: a face-down token whose pool may bring it, or for water a water source (a dirty one counts
    half: it must be boiled at a fire)."""
    chances = _yields(state.scenario)
    by_chance: dict[float, set[Hex]] = {}
    for space, pool in state.features.items():
        p = chances.get(pool, {}).get(resource, 0.0)
        if p > 0:
            by_chance.setdefault(p, set()).add(space)
    if resource == "clean_water":
        for space, info in board(state).spaces.items():
            if info.water is not None:
                by_chance.setdefault(1.0 if info.water == "clean" else 0.5, set()).add(space)
    return max((p * _closeness(state, frozenset(spaces), (seat,)) for p, spaces in by_chance.items()), default=0.0)


def _prospect(state: State, carrier: int) -> float:
    """In [0, 1): for the beacon's first missing material, the carrier's chance-weighted nearness to
    where it may be had. Worth less than holding the material (the caller weighs it so), so that
    turning a token over pays on average even when it brings nothing."""
    if carrier < 0:
        return 0.0
    held = state.survivors[carrier].resources
    missing = [r for r, n in _beacon_cost(state) if held.get(r, 0) < n]
    if not missing:
        return 0.0
    return _nearness(state, carrier, missing[0]) / max(len(_beacon_cost(state)), 1)


def _stage_progress(state: State) -> float:
    """Progress in [0, 1) within the current stage: reaching a goal counts for less than meeting it."""
    spec = load(state.scenario)
    stage = spec.stages[state.stage]
    goal = stage.win_at_landmark
    landmarks = board(state).landmarks
    if state.stage_complete:  # (already counted in stages_done)
        if goal is None:
            return -0.1
        # The beacon burns: whoever stands on its landmark at dusk escapes.
        return -0.05 + 0.04 * _seek(state, {goal})
    counts = [o.count for o in stage.objectives if o.kind == "landmarks_investigated"]
    if counts:
        need = max(counts[0], 1)
        done = min(len(state.investigated), need)
        fresh = {lm for lm in landmarks if lm not in state.investigated}
        step = _seek(state, fresh) if fresh else _seek(state, {-1})
        return 0.9 * (done + 0.5 * step) / need
    named = {o.landmark for o in stage.objectives if o.landmark and o.kind == "landmark_investigated"}
    if named:
        return 0.6 * _seek(state, named)
    place = [o.landmark for o in stage.objectives if o.kind == "item_at_landmark" and o.landmark]
    if not place:
        return 0.0
    held, carrier = _materials(state)
    target = frozenset(landmarks[lm] for lm in place if lm in landmarks)
    # Find where the beacon goes, gather its materials on one survivor, carry them there.
    found = 1.0 if target else _explored(state)
    carry = _closeness(state, target, (carrier,)) if held >= 1.0 and target else 0.0
    return 0.25 * found + 0.3 * held + 0.15 * carry + 0.3 * _prospect(state, carrier)


_last: tuple[State | None, float] = (None, 0.0)


def evaluate(state: State, seat: int) -> float:
    """The team's shared standing in [0, 1] (the same for every seat: shared fate).

    Two fifths how healthy and supplied the survivors are (a casualty scores 0),
    three fifths the quest: stages done and the progress within the current one,
    worth less with fewer survivors left to carry it; a survivor who escaped is a
    won game.
    """
    global _last
    if _last[0] is state:
        return _last[1]
    if state.won or any(s.status is Status.WON for s in state.survivors):
        value = 1.0
    else:
        due = _pending(state)
        health = sum(_health(state, s, due) for s in state.survivors) / max(len(state.survivors), 1)
        stages = max(len(load(state.scenario).stages), 1)
        progress = state.stages_done + _stage_progress(state)
        if "beacon" not in state.unlocked and state.stages_done + 1 < stages:
            # Materials gathered early shorten the last stage.
            progress += 0.2 * _materials(state)[0]
        clues = min(state.clues, 6) / 200
        value = 0.4 * health + 0.6 * min(progress / stages + clues, 0.999) * (0.3 + 0.7 * _alive(state))
    _last = (state, value)
    return value


def _alive(state: State) -> float:
    """Share of the survivors still on the map: a quest carried by fewer is worth less."""
    return len(state.active()) / max(len(state.survivors), 1)


__all__ = ["evaluate"]
