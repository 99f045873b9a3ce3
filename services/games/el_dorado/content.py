"""Typed content of The Quest for El Dorado, loaded from content/*.json.

Rules read these fields (symbol, power, cost, single_use, effects) and never
branch on a card's name. Sources are cited inside each JSON file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from services.games.common.enums import GameEnum
from services.games.el_dorado.content_rows import (
    BlockadesFile,
    CardsFile,
    CavesFile,
    CoursesFile,
    EffectRow,
    PiecesFile,
    PlacementRow,
)

CONTENT = Path(__file__).parent / "content"


class Symbol(GameEnum):
    """A card's or space's symbol; JOKER and ACTION exist only on cards."""

    MACHETE = "machete"
    PADDLE = "paddle"
    COIN = "coin"
    JOKER = "joker"
    ACTION = "action"


LANDSCAPE = (Symbol.MACHETE, Symbol.PADDLE, Symbol.COIN)


class Terrain(GameEnum):
    """What a hex is; landscape hexes carry the symbol of the same name."""

    MACHETE = "machete"
    PADDLE = "paddle"
    COIN = "coin"
    RUBBLE = "rubble"
    BASECAMP = "basecamp"
    MOUNTAIN = "mountain"
    START = "start"
    EL_DORADO = "el_dorado"


class EffectKind(GameEnum):
    """The vocabulary of action-card and cave-token effects (RB p.7-8)."""

    DRAW = "draw"
    REMOVE = "remove"
    TAKE_FREE = "take_free"
    NATIVE_MOVE = "native_move"
    REPLACE_HAND = "replace_hand"
    KEEP_ITEM = "keep_item"
    PASS_OCCUPIED = "pass_occupied"
    CHANGE_SYMBOL = "change_symbol"


@dataclass(frozen=True)
class Effect:
    """One effect; `n` counts cards where the kind needs a number."""

    kind: EffectKind
    n: int = 0


@dataclass(frozen=True)
class CardSpec:
    """An expedition card type (RB p.8 glossary)."""

    id: str
    name: str
    symbol: Symbol
    power: int
    cost: int
    copies: int
    starting: int
    single_use: bool
    market: str
    effects: tuple[Effect, ...]


@dataclass(frozen=True)
class TokenSpec:
    """A cave token type (RB p.7); terrain tokens have a symbol and power."""

    id: str
    symbol: Symbol
    power: int
    count: int
    effects: tuple[Effect, ...]


@dataclass(frozen=True)
class BlockadeSpec:
    """A blockade: a landscape requirement, or rubble paid in cards (RB p.5)."""

    id: int
    terrain: Terrain
    power: int


@dataclass(frozen=True)
class Placement:
    """A map piece placed on a course: rotated `rotation` x 60 degrees, then moved."""

    piece: str
    rotation: int
    at: tuple[int, int]


@dataclass(frozen=True)
class CourseSpec:
    """One of the seven documented routes (facts.md section 5)."""

    id: str
    name: str
    pieces: tuple[Placement, ...]
    end: Placement


@dataclass(frozen=True)
class HexSpec:
    """One hex of a map piece in the piece's local frame."""

    q: int
    r: int
    terrain: Terrain
    power: int
    cave: bool
    start: int
    finish: bool


def _text(name: str) -> str:
    return (CONTENT / name).read_text()


def _cards_file() -> CardsFile:
    file: CardsFile = json.loads(_text("cards.json"))
    return file


def _caves_file() -> CavesFile:
    file: CavesFile = json.loads(_text("caves.json"))
    return file


def _effects(raw: list[EffectRow]) -> tuple[Effect, ...]:
    return tuple(Effect(EffectKind(e["kind"]), e.get("n", 0)) for e in raw)


@cache
def cards() -> dict[str, CardSpec]:
    """Every card type by id, in the catalogue's order."""
    out: dict[str, CardSpec] = {}
    for c in _cards_file()["cards"]:
        out[c["id"]] = CardSpec(
            c["id"], c["name"], Symbol(c["symbol"]), c["power"], c["cost"], c["copies"],
            c["starting"], c["single_use"], c["market"], _effects(c["effects"]),
        )
    return out


@cache
def board_slots() -> int:
    """How many piles the market board holds (RB p.4)."""
    return int(_cards_file()["board_slots"])


@cache
def market_types() -> tuple[str, ...]:
    """The 18 expedition card types sold at the market, in catalogue order."""
    return tuple(c.id for c in cards().values() if c.market != "none")


@cache
def starting_deck() -> tuple[str, ...]:
    """One player's starting deck, sorted (RB p.2: 3 Explorers, 4 Travelers, 1 Sailor)."""
    return tuple(sorted(c.id for c in cards().values() for _ in range(c.starting)))


@cache
def tokens() -> dict[str, TokenSpec]:
    """Every cave token type by id."""
    raw = _caves_file()["tokens"]
    return {
        t["id"]: TokenSpec(t["id"], Symbol(t["symbol"]), t["power"], t["count"], _effects(t["effects"]))
        for t in raw
    }


@cache
def token_pile() -> tuple[str, ...]:
    """All 36 cave tokens, sorted."""
    return tuple(sorted(t.id for t in tokens().values() for _ in range(t.count)))


@cache
def cave_pile_size() -> int:
    """Tokens stacked on each cave (RB p.7)."""
    return int(_caves_file()["pile_size"])


@cache
def blockades() -> tuple[BlockadeSpec, ...]:
    """The six blockades, in their numbered order."""
    file: BlockadesFile = json.loads(_text("blockades.json"))
    raw = file["blockades"]
    return tuple(BlockadeSpec(b["id"], Terrain(b["terrain"]), b["power"]) for b in raw)


def _placement(raw: PlacementRow) -> Placement:
    return Placement(raw["piece"], raw["rotation"], (raw["at"][0], raw["at"][1]))


@cache
def courses() -> dict[str, CourseSpec]:
    """The seven courses by config id; the first is the first-game course."""
    out: dict[str, CourseSpec] = {}
    file: CoursesFile = json.loads(_text("courses.json"))
    for c in file["courses"]:
        out[c["id"]] = CourseSpec(
            c["id"], c["name"], tuple(_placement(p) for p in c["pieces"]), _placement(c["end"])
        )
    return out


@cache
def pieces() -> dict[str, tuple[HexSpec, ...]]:
    """Tiles A-N, strips O-R and both El Dorado end tiles, hex by hex."""
    out: dict[str, tuple[HexSpec, ...]] = {}
    file: PiecesFile = json.loads(_text("pieces.json"))
    for name, piece in file["pieces"].items():
        out[name] = tuple(
            HexSpec(
                h["q"], h["r"], Terrain(h["terrain"]), h.get("power", 0), bool(h.get("cave")),
                h.get("start_number", 0), bool(h.get("finish")),
            )
            for h in piece["hexes"]
        )
    return out
