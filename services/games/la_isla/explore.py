"""Action C: place or move an explorer, or take a resource (rulebook: Acción C)."""

from __future__ import annotations

from services.games.common.engine import IllegalAction
from services.games.la_isla.actions import (
    Action,
    ChooseMarker,
    ChooseResource,
    DeclineMarker,
    MoveExplorer,
    PlaceExplorer,
    TakeResource,
)
from services.games.la_isla.content import ANIMALS, COLOURS, Colour
from services.games.la_isla.events import (
    Event,
    ExplorerPlaced,
    MarkerDeclined,
    PlacementRewarded,
    RegionClaimed,
    ResourceGained,
    TurnEnded,
)
from services.games.la_isla.rules import (
    advance,
    claims,
    island,
    payments,
    payments_of,
    placement_cost,
    placement_rewards,
    visible,
)
from services.games.la_isla.state import State


def current(state: State) -> int:
    """The seat whose action C it is."""
    return state.order()[state.turn]


def _placements(state: State, seat: int) -> list[Action]:
    p = state.player(seat)
    functions = visible(p)
    faces = island(state).faces
    # What a space costs depends only on its colour and symbol, which few kinds of
    # space share, and its payments only on its colour and that cost: each is worked
    # out once per kind, not once per space.
    kinds: dict[tuple[object, object], tuple[tuple[Colour, ...], ...]] = {}
    priced: dict[tuple[Colour, int], tuple[tuple[Colour, ...], ...]] = {}
    affordable: list[tuple[int, tuple[tuple[Colour, ...], ...]]] = []
    for space, face in enumerate(faces):
        if space in p.explorers:
            continue
        kind = (face.colour, face.symbol)
        pays = kinds.get(kind)
        if pays is None:
            price = (face.colour, placement_cost(functions, face))
            pays = priced.get(price)
            if pays is None:
                pays = priced[price] = tuple(payments_of(p, functions, *price))
            kinds[kind] = pays
        affordable.append((space, pays))
    if p.explorers_left > 0:
        return [PlaceExplorer(space, pay) for space, pays in affordable for pay in pays]
    return [MoveExplorer(src, space, pay) for src in sorted(p.explorers) for space, pays in affordable for pay in pays]


def legal(state: State, seat: int) -> list[Action]:
    """Every action C of `seat`: pending rewards first, else place/move or take a resource."""
    if state.pending_resources or state.pending_markers:
        rewards: list[Action] = []
        if state.pending_resources:
            rewards += [ChooseResource(c) for c in COLOURS]
        if state.pending_markers:
            rewards += [*(ChooseMarker(a) for a in ANIMALS), DeclineMarker()]
        return rewards
    return [*_placements(state, seat), *(TakeResource(c) for c in COLOURS)]


def _check_placement(state: State, seat: int, action: PlaceExplorer | MoveExplorer) -> None:
    p = state.player(seat)
    faces = island(state).faces
    if not 0 <= action.space < len(faces):
        raise IllegalAction("la_isla.c.unknown_space", f"no space {action.space}")
    if isinstance(action, PlaceExplorer) and p.explorers_left == 0:
        raise IllegalAction("la_isla.c.no_explorer_under_c", "move a placed explorer instead")
    if isinstance(action, MoveExplorer):
        if p.explorers_left > 0:
            raise IllegalAction("la_isla.c.explorers_under_c", "place explorers from under C first")
        if action.source not in p.explorers:
            raise IllegalAction("la_isla.c.not_your_explorer", f"no explorer of yours on {action.source}")
    if action.space in p.explorers:
        raise IllegalAction("la_isla.c.same_colour_on_space", "never two explorers of one colour on a space")
    if action.payment not in set(payments(p, visible(p), faces[action.space])):
        raise IllegalAction("la_isla.c.payment", "pay 2 resources of the space's colour (or what cards allow)")


def place(state: State, seat: int, action: PlaceExplorer | MoveExplorer) -> list[Event]:
    """Pay, place, claim surrounded regions, then fire placement functions (Acción C)."""
    _check_placement(state, seat, action)
    p = state.player(seat)
    source = action.source if isinstance(action, MoveExplorer) else None
    explorers = (p.explorers - {source} if source is not None else p.explorers) | {action.space}
    events: list[Event] = [ExplorerPlaced(seat, action.space, action.payment, source)]
    events += [
        RegionClaimed(seat, r, animal, value) for r, animal, value in claims(state, seat, action.space, explorers)
    ]
    points, resources, markers = placement_rewards(visible(p), island(state).faces[action.space])
    if points or resources or markers:
        events.append(PlacementRewarded(seat, points, resources, markers))
    if not (resources or markers):
        events.append(TurnEnded(seat))
    return events


def _reward(state: State, seat: int, action: Action) -> list[Event]:
    match action:
        case ChooseResource(colour=colour) if state.pending_resources:
            event: Event = ResourceGained(seat, colour, True)
        case ChooseMarker(animal=animal) if state.pending_markers:
            event = advance(state, list(state.markers), seat, animal)
        case DeclineMarker() if state.pending_markers:
            event = MarkerDeclined(seat)
        case _:
            raise IllegalAction("la_isla.c.no_pending_reward", "no such placement reward is pending")
    left = state.pending_resources + state.pending_markers - 1
    return [event] if left else [event, TurnEnded(seat)]


def decide(state: State, seat: int, action: Action) -> list[Event]:
    """Events of one action C step by the current seat."""
    if state.pending_resources or state.pending_markers:
        if isinstance(action, (PlaceExplorer, MoveExplorer, TakeResource)):
            raise IllegalAction("la_isla.c.pending_reward", "choose your placement rewards first")
        return _reward(state, seat, action)
    match action:
        case PlaceExplorer() | MoveExplorer():
            return place(state, seat, action)
        case TakeResource(colour=colour):
            return [ResourceGained(seat, colour, False), TurnEnded(seat)]
    raise IllegalAction("la_isla.c.not_now", f"{type(action).__name__} is not an action C")
