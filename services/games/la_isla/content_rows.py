"""The shape of La Isla's content/*.json as the loaders in content.py read them.

These describe the JSON, not the game: content.py turns each row into its
frozen spec. json.loads does not check them; the content tests do, by loading
every file. Keys the loaders do not read (sources, notes) are left out.
"""

from __future__ import annotations

from typing import Required, TypedDict


class FunctionRow(TypedDict, total=False):
    """A card's A part {"kind": ..., ...}: the keys a kind reads (see content.parse_function)."""

    kind: Required[str]
    colour: str | None
    symbol: str
    points: int
    count: int
    cost: int
    steps: int
    extra: int
    animal: str


class CardRow(TypedDict):
    id: str
    value: int
    resource: str
    animal: str
    function: FunctionRow


class CardsFile(TypedDict):
    cards: list[CardRow]


class SpaceRow(TypedDict):
    id: str
    slot: int | None
    local: str


class RegionRow(TypedDict):
    id: str
    value: int
    spaces: list[str]


class FaceRow(TypedDict):
    colour: str
    symbol: str


class ToothRow(TypedDict):
    id: str
    faces: dict[str, FaceRow]


class AnimalTrackRow(TypedDict):
    area_of_space: list[int]


class IslandFile(TypedDict):
    slots: int
    spaces: list[SpaceRow]
    regions: list[RegionRow]
    centre: dict[str, FaceRow]
    teeth: list[ToothRow]
    animal_track: AnimalTrackRow
