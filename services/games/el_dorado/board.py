"""A course assembled hex by hex, with adjacency precomputed once per course."""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

from services.games.el_dorado import content
from services.games.el_dorado.content import Placement, Terrain

Hex = tuple[int, int]
DIRECTIONS: tuple[Hex, ...] = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1))
ENTERABLE = frozenset(
    {Terrain.MACHETE, Terrain.PADDLE, Terrain.COIN, Terrain.RUBBLE, Terrain.BASECAMP}
)


@dataclass(frozen=True)
class Space:
    """One hex of the assembled course; `piece` indexes the course's pieces."""

    hex: Hex
    terrain: Terrain
    power: int
    piece: int
    cave: bool
    start: int
    finish: bool


@dataclass(frozen=True)
class Board:
    """Everything the rules ask about the map, computed once per course."""

    course: str
    spaces: Mapping[Hex, Space]
    neighbours: Mapping[Hex, tuple[Hex, ...]]
    seam_of: Mapping[tuple[Hex, Hex], int]
    seam_count: int
    starts: tuple[Hex, ...]
    caves: tuple[Hex, ...]
    caves_near: Mapping[Hex, tuple[int, ...]]
    distance: Mapping[Hex, int]

    def enterable(self, hex_: Hex) -> bool:
        """Mountains, start spaces and the city are never entered (RB p.3)."""
        space = self.spaces.get(hex_)
        return space is not None and space.terrain in ENTERABLE


def rotate(q: int, r: int, steps: int) -> Hex:
    """Rotate a local hex by `steps` x 60 degrees: (q, r) -> (-r, q + r)."""
    for _ in range(steps % 6):
        q, r = -r, q + r
    return q, r


def _place(placement: Placement, index: int) -> list[Space]:
    out = []
    for h in content.pieces()[placement.piece]:
        q, r = rotate(h.q, h.r, placement.rotation)
        at = (q + placement.at[0], r + placement.at[1])
        out.append(Space(at, h.terrain, h.power, index, h.cave, h.start, h.finish))
    return out


def _spaces(course: content.CourseSpec) -> dict[Hex, Space]:
    spaces: dict[Hex, Space] = {}
    for index, placement in enumerate((*course.pieces, course.end)):
        for space in _place(placement, index):
            if space.hex in spaces:
                raise ValueError(f"course {course.id}: pieces overlap at {space.hex}")
            spaces[space.hex] = space
    return spaces


def _neighbours(spaces: Mapping[Hex, Space]) -> dict[Hex, tuple[Hex, ...]]:
    return {
        (q, r): tuple((q + dq, r + dr) for dq, dr in DIRECTIONS if (q + dq, r + dr) in spaces)
        for q, r in spaces
    }


def _seams(spaces: Mapping[Hex, Space], nbrs: Mapping[Hex, tuple[Hex, ...]], last: int) -> dict[
    tuple[Hex, Hex], int
]:
    """Blockades sit between consecutive terrain pieces, not before the end tile (facts.md 6)."""
    seams: dict[tuple[Hex, Hex], int] = {}
    for a, around in nbrs.items():
        for b in around:
            pa, pb = spaces[a].piece, spaces[b].piece
            if abs(pa - pb) == 1 and max(pa, pb) < last:
                seams[(a, b)] = min(pa, pb)
    return seams


def _distance(board_spaces: Mapping[Hex, Space], nbrs: Mapping[Hex, tuple[Hex, ...]]) -> dict[Hex, int]:
    """Steps to the nearest finish space, ignoring costs and pieces (progress measure)."""
    passable = ENTERABLE | {Terrain.START}
    dist = {h: 0 for h, s in board_spaces.items() if s.finish}
    queue = deque(dist)
    while queue:
        here = queue.popleft()
        for there in nbrs[here]:
            if there not in dist and board_spaces[there].terrain in passable:
                dist[there] = dist[here] + 1
                queue.append(there)
    return dist


@cache
def board(course_id: str) -> Board:
    """The assembled course `course_id`."""
    course = content.courses()[course_id]
    spaces = _spaces(course)
    nbrs = _neighbours(spaces)
    last = len(course.pieces)
    seams = _seams(spaces, nbrs, last)
    starts = tuple(sorted((s for s in spaces.values() if s.start), key=lambda s: s.start))
    caves = tuple(sorted(h for h, s in spaces.items() if s.cave))
    near = {h: tuple(i for i, c in enumerate(caves) if c in nbrs[h]) for h in spaces}
    return Board(
        course_id, spaces, nbrs, seams, last - 1, tuple(s.hex for s in starts), caves,
        near, _distance(spaces, nbrs),
    )
