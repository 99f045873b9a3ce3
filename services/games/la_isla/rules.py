"""Shared rule helpers: visible functions, costs, payments, markers, claims."""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from itertools import combinations_with_replacement

from services.games.la_isla.content import (
    ANIMALS,
    COLOURS,
    Animal,
    Colour,
    Content,
    ExtraMarkerMove,
    Face,
    Function,
    IncomeMarker,
    IncomeResource,
    Joker,
    LargerDraw,
    PlacementDiscount,
    PlacementMarker,
    PlacementPoints,
    PlacementResource,
    load,
)
from services.games.la_isla.events import MarkerAdvanced
from services.games.la_isla.island import Island, build
from services.games.la_isla.state import Player, State

CONTENT: Content = load()
HAND_DRAW = 3
BASE_COST = 2
BASE_SLOTS = 3
EXPLORERS_UNDER_C = 5
SUPPLY_EXPLORERS = 2
END_THRESHOLD = {2: 7, 3: 9, 4: 11}
SET_POINTS = 10


def island(state: State) -> Island:
    """The precomputed island of this match (built once per layout)."""
    assert state.layout is not None
    return island_of(state.layout)


# Every match lays out its own island: kept for the matches a process has in play, not for ever.
ISLANDS_KEPT = 1024


@lru_cache(maxsize=ISLANDS_KEPT)
def island_of(order: tuple[int, ...]) -> Island:
    """The island laid out in `order` (precomputed once per layout)."""
    return build(CONTENT.island, order)


def visible(player: Player) -> tuple[Function, ...]:
    """Functions of the top cards in the cardholder (rulebook: Acción A)."""
    return tuple(CONTENT.card(stack[-1]).function for stack in player.slots if stack)


def placement_cost(functions: tuple[Function, ...], face: Face) -> int:
    """Resources a placement on `face` costs: 2, or less with a discount function."""
    costs = [
        f.cost for f in functions if isinstance(f, PlacementDiscount) and f.where.matches(face.colour, face.symbol)
    ]
    return min([BASE_COST, *costs])


def payments(player: Player, functions: tuple[Function, ...], face: Face) -> Iterator[tuple[Colour, ...]]:
    """Every affordable payment for `face`, jokers standing in for its colour."""
    return payments_of(player, functions, face.colour, placement_cost(functions, face))


def payments_of(
    player: Player, functions: tuple[Function, ...], colour: Colour, cost: int
) -> Iterator[tuple[Colour, ...]]:
    """Every affordable payment of `cost` resources for a space of `colour`, jokers
    standing in for it: what a payment for a space depends on, beside its cost."""
    allowed = {colour} | {f.colour for f in functions if isinstance(f, Joker)}
    ordered = [c for c in COLOURS if c in allowed]
    for payment in combinations_with_replacement(ordered, cost):
        if all(payment.count(c) <= player.resources[COLOURS.index(c)] for c in set(payment)):
            yield payment


def placement_rewards(functions: tuple[Function, ...], face: Face) -> tuple[int, int, int]:
    """Points, resources of choice and marker moves a placement on `face` earns."""
    points = resources = markers = 0
    for f in functions:
        if isinstance(f, PlacementPoints) and f.where.matches(face.colour, face.symbol):
            points += f.points
        elif isinstance(f, PlacementResource) and f.where.matches(face.colour, face.symbol):
            resources += f.count
        elif isinstance(f, PlacementMarker) and f.where.matches(face.colour, face.symbol):
            markers += f.steps
    return points, resources, markers


def income_fixed(functions: tuple[Function, ...]) -> tuple[Colour, ...]:
    """Extra phase B resources of a fixed colour."""
    return tuple(f.colour for f in functions if isinstance(f, IncomeResource) and f.colour for _ in range(f.count))


def income_choices(functions: tuple[Function, ...]) -> int:
    """Extra phase B resources whose colour the player picks."""
    return sum(f.count for f in functions if isinstance(f, IncomeResource) and f.colour is None)


def income_markers(functions: tuple[Function, ...]) -> tuple[Animal, ...]:
    """Markers a player may move in phase B, one entry per step, in track order."""
    steps = {a: 0 for a in ANIMALS}
    for f in functions:
        if isinstance(f, IncomeMarker):
            steps[f.animal] += f.steps
    return tuple(a for a in ANIMALS for _ in range(steps[a]))


def extra_moves(functions: tuple[Function, ...]) -> int:
    """Extra phase D moves of the D card's marker."""
    return sum(f.steps for f in functions if isinstance(f, ExtraMarkerMove))


def draw_count(player: Player) -> int:
    """Cards drawn in the card phase: 3, more with a larger-draw function."""
    return HAND_DRAW + sum(f.extra for f in visible(player) if isinstance(f, LargerDraw))


def tile_worth(player: Player, animal: Animal) -> int:
    """Tiles of `animal` the player owns, the large tile counting 2 (rulebook: Acción D)."""
    return player.tiles[ANIMALS.index(animal)] + (2 if player.large is animal else 0)


def advance(state: State, markers: list[int], seat: int, animal: Animal) -> MarkerAdvanced:
    """Move a marker one space (not past the top) and score for `seat` only (Acción D)."""
    top = len(CONTENT.island.track) - 1
    index = ANIMALS.index(animal)
    moved = markers[index] < top
    if moved:
        markers[index] += 1
    return MarkerAdvanced(seat, animal, moved, tile_worth(state.player(seat), animal))


def area(position: int) -> int:
    """The area value (0-5) of a track space (rulebook: Fin del juego)."""
    return CONTENT.island.track[position]


def area_sum(markers: tuple[int, ...]) -> int:
    """The end-check sum of the five markers' areas."""
    return sum(area(m) for m in markers)


def claims(state: State, seat: int, space: int, explorers: frozenset[int]) -> Iterator[tuple[int, Animal, int]]:
    """Regions around `space` that `seat` now surrounds and that still hold a tile."""
    assert state.region_tiles is not None
    for r in island(state).regions_of[space]:
        tile = state.region_tiles[r]
        region = CONTENT.island.regions[r]
        if tile is not None and all(s in explorers for s in region.spaces):
            yield r, tile, region.value
