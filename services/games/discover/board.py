"""Map geometry: hex spaces of the placed tiles, adjacency, distances and the compass."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from services.games.common.values import keep_last, replace
from services.games.discover.content import Content, SpaceSpec, load
from services.games.discover.state import State
from services.games.discover.vocab import Hex

DIRECTIONS = (Hex(0, -1), Hex(1, -1), Hex(1, 0), Hex(0, 1), Hex(-1, 1), Hex(-1, 0))  # N NE SE S SW NW


@cache
def neighbours(h: Hex) -> tuple[Hex, ...]:
    return tuple(h + d for d in DIRECTIONS)


@cache
def slot_of(scenario: str) -> dict[Hex, int]:
    """Every hex on the map -> the slot whose tile covers it."""
    content = load(scenario)
    offsets = [s.hex for s in next(iter(content.tiles.values())).spaces]
    return {slot.centre + o: slot.index for slot in content.slots for o in offsets}


@dataclass(frozen=True)
class Board:
    """The revealed spaces of a map, with their printed features."""

    spaces: dict[Hex, SpaceSpec]
    landmarks: dict[int, Hex]
    camp: Hex | None


@cache
def _board(scenario: str, tiles: tuple[tuple[int, int], ...]) -> Board:
    content = load(scenario)
    spaces: dict[Hex, SpaceSpec] = {}
    for slot_index, tile_id in tiles:
        centre = content.slots[slot_index].centre
        for spec in content.tiles[tile_id].spaces:
            spaces[centre + spec.hex] = replace(spec, hex=centre + spec.hex)
    landmarks = {s.landmark: h for h, s in spaces.items() if s.landmark is not None}
    camp = next((h for h, s in spaces.items() if s.camp), None)
    return Board(spaces, landmarks, camp)


def board_of(scenario: str, tiles: tuple[tuple[int, int], ...]) -> Board:
    """The revealed part of a map from its (slot, tile) pairs, sorted (cached)."""
    return _board(scenario, tiles)


def board(state: State) -> Board:
    """The revealed part of the map (cached per set of revealed tiles)."""
    return _revealed(state.scenario, state.tiles)


# By the tiles' dictionary itself (never changed: a reveal makes a new one): a decision,
# and every candidate action a seat's legal actions try, asks for one state's board again
# and again, which then neither sorts nor hashes the tiles.
@keep_last
def _revealed(scenario: str, tiles: dict[int, int]) -> Board:
    return _board(scenario, tuple(sorted(tiles.items())))


def content(state: State) -> Content:
    return load(state.scenario)


def explorable_slots(state: State, at: Hex) -> tuple[int, ...]:
    """Face-down tiles with a space next to `at` (Explore)."""
    slots = slot_of(state.scenario)
    found = {slots[n] for n in neighbours(at) if n in slots and slots[n] not in state.tiles}
    return tuple(sorted(found))


def distances(state: State, sources: Iterable[Hex]) -> dict[Hex, int]:
    """Steps from the nearest source over revealed spaces, ignoring terrain (monster movement)."""
    spaces = board(state).spaces
    dist = {h: 0 for h in sources if h in spaces}
    queue = deque(dist)
    while queue:
        h = queue.popleft()
        for n in neighbours(h):
            if n in spaces and n not in dist:
                dist[n] = dist[h] + 1
                queue.append(n)
    return dist


def walk_distances(state: State, start: Hex, limit: int) -> dict[Hex, int]:
    """Steps from `start` over revealed spaces, up to `limit` (support range)."""
    spaces = board(state).spaces
    dist = {start: 0}
    queue = deque([start])
    while queue:
        h = queue.popleft()
        if dist[h] == limit:
            continue
        for n in neighbours(h):
            if n in spaces and n not in dist:
                dist[n] = dist[h] + 1
                queue.append(n)
    return dist


def compass_step(state: State, at: Hex, red_face: int) -> Hex:
    """The space next to `at` in the compass direction of a red die face."""
    return at + DIRECTIONS[content(state).compass[red_face]]
