"""Shared rule queries and event builders used by every rulebook section."""

from __future__ import annotations

from collections.abc import Iterator

from services.games.discover import events as ev
from services.games.discover.board import board, neighbours
from services.games.discover.content import load
from services.games.discover.state import HEALTH_DIALS, STAMINA_MAX, State, Status
from services.games.discover.vocab import Ability, CleanWater, DamageType, Hex, Target


def abilities(state: State, seat: int) -> Iterator[Ability]:
    """The character's abilities and the passive abilities of carried items."""
    content = load(state.scenario)
    survivor = state.survivors[seat]
    if survivor.character:
        yield from content.characters[survivor.character].abilities
    for item in survivor.items:
        yield from content.items[item].passive


def ability_sum(state: State, seat: int, kind: type, **match: object) -> int:
    """Total `amount` of the seat's abilities of `kind` whose fields equal `match`."""
    total = 0
    for a in abilities(state, seat):
        if isinstance(a, kind) and all(getattr(a, k) == val for k, val in match.items()):
            total += getattr(a, "amount", 1)
    return total


def order_from(state: State, first: int) -> tuple[int, ...]:
    """Active seats clockwise (ascending seat numbers) starting at `first`."""
    n = len(state.survivors)
    seats = ((first + i) % n for i in range(n))
    return tuple(s for s in seats if state.survivors[s].status is Status.ACTIVE)


def left_of(state: State, seat: int, among: tuple[int, ...]) -> int:
    """The first seat of `among` clockwise after `seat` (itself when alone)."""
    n = len(state.survivors)
    for i in range(1, n + 1):
        if (seat + i) % n in among:
            return (seat + i) % n
    return seat


def at(state: State, space: Hex) -> tuple[int, ...]:
    """Active survivors in `space`, in seat order."""
    return tuple(s.seat for s in state.survivors if s.status is Status.ACTIVE and s.space == space)


def enemies_at(state: State, space: Hex) -> tuple[str, ...]:
    return tuple(e.id for e in state.enemies if e.space == space)


def lit_fire(state: State, space: Hex) -> bool:
    return state.fires.get(space, False)


def sheltered(state: State, space: Hex) -> bool:
    items = load(state.scenario).items
    return space in state.shelters or any(items[i].shelter and h == space for i, h in state.placed.items())


def terrain(state: State, space: Hex) -> str:
    return board(state).spaces[space].terrain


def targets(state: State, seat: int, target: Target) -> tuple[int, ...]:
    """The survivors an effect touches, from the leader clockwise."""
    seats = order_from(state, state.leader)
    if target is Target.SELF:
        return (seat,) if seat in seats else ()
    if target is Target.EACH_OTHER:
        return tuple(s for s in seats if s != seat)
    space = {s: state.survivors[s].space for s in seats}
    if target is Target.EACH_EXPOSED:
        return tuple(s for s in seats if not (lit_fire(state, space[s]) or sheltered(state, space[s])))
    if target is Target.EACH_IN_UNDERBRUSH:
        return tuple(s for s in seats if terrain(state, space[s]) == "underbrush")
    if target is Target.EACH_ON_MOUNTAIN:
        return tuple(s for s in seats if terrain(state, space[s]) == "mountain")
    return seats


def stamina_events(state: State, seat: int, delta: int) -> list[ev.Event]:
    """Stamina changes, kept within 0..12 (rulebook, night phase)."""
    now = state.survivors[seat].stamina
    new = max(0, min(STAMINA_MAX, now + delta))
    return [ev.StaminaChanged(seat, new)] if new != now else []


def damage_events(state: State, seat: int, damage: DamageType, amount: int) -> list[ev.Event]:
    """Damage; the fourth makes a casualty, and a casualty leader passes the marker left."""
    survivor = state.survivors[seat]
    out: list[ev.Event] = []
    taken = len(survivor.damage)
    for _ in range(amount):
        if taken == HEALTH_DIALS:
            out.append(ev.SurvivorEliminated(seat))
            others = tuple(s for s in state.active() if s != seat)
            if state.leader == seat and others:
                out.append(ev.LeaderChanged(left_of(state, seat, others)))
            return out
        out.append(ev.DamageTaken(seat, damage))
        taken += 1
    return out


def gain_events(state: State, seat: int, resource: str, amount: int) -> list[ev.Event]:
    """Gaining a resource; a water filter turns dirty water clean."""
    if resource == "dirty_water" and ability_sum(state, seat, CleanWater):
        resource = "clean_water"
    return [ev.ResourceChanged(seat, resource, amount)] if amount else []


def item_available(state: State, item: int) -> bool:
    """An item card still in its numeric deck (not carried, not placed)."""
    carried = any(item in s.items for s in state.survivors)
    return not carried and item not in state.placed


def stage_met(state: State) -> bool:
    """The current quest stage's objectives all hold."""
    stage = load(state.scenario).stages[state.stage]
    return all(_objective(state, o.kind, o.item, o.count, o.landmark) for o in stage.objectives)


def _objective(state: State, kind: str, item: int, count: int, landmark: int) -> bool:
    if kind == "item_in_play":
        return not item_available(state, item)
    if kind == "landmarks_investigated":
        return len(state.investigated) >= count
    if kind == "landmark_investigated":
        return landmark in state.investigated
    if kind == "item_at_landmark":
        space = board(state).landmarks.get(landmark)
        return space is not None and state.placed.get(item) == space
    raise ValueError(f"unknown objective {kind}")


def adjacent_spaces(state: State, space: Hex) -> tuple[Hex, ...]:
    """Revealed spaces next to `space`."""
    spaces = board(state).spaces
    return tuple(n for n in neighbours(space) if n in spaces)
