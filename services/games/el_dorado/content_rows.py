"""The shape of El Dorado's content/*.json as the loaders in content.py read them.

These describe the JSON, not the game: content.py turns each row into its
frozen spec. json.loads does not check them; the content tests do, by loading
every file. Keys the loaders do not read (sources, notes) are left out.
"""

from __future__ import annotations

from typing import Required, TypedDict


class EffectRow(TypedDict, total=False):
    kind: Required[str]
    n: int


class CardRow(TypedDict):
    id: str
    name: str
    symbol: str
    power: int
    cost: int
    copies: int
    starting: int
    single_use: bool
    market: str
    effects: list[EffectRow]


class CardsFile(TypedDict):
    board_slots: int
    cards: list[CardRow]


class TokenRow(TypedDict):
    id: str
    symbol: str
    power: int
    count: int
    effects: list[EffectRow]


class CavesFile(TypedDict):
    pile_size: int
    tokens: list[TokenRow]


class BlockadeRow(TypedDict):
    id: int
    terrain: str
    power: int


class BlockadesFile(TypedDict):
    blockades: list[BlockadeRow]


class PlacementRow(TypedDict):
    piece: str
    rotation: int
    at: list[int]  # [q, r]


class CourseRow(TypedDict):
    id: str
    name: str
    pieces: list[PlacementRow]
    end: PlacementRow


class CoursesFile(TypedDict):
    courses: list[CourseRow]


class HexRow(TypedDict, total=False):
    q: Required[int]
    r: Required[int]
    terrain: Required[str]
    power: int
    cave: bool
    start_number: int
    finish: bool


class PieceRow(TypedDict):
    kind: str
    hexes: list[HexRow]


class PiecesFile(TypedDict):
    pieces: dict[str, PieceRow]
