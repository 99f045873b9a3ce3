"""Typed content of The Quest for El Dorado, loaded from content/*.json.

Rules read these fields (symbol, power, cost, single_use, effects) and never
branch on a card's name. Sources are cited inside each JSON file.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from services.games.common.content import as_object, from_row, load_rows, read_json, typed
from services.games.common.enums import GameEnum

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
    """One hex of a map piece in the piece's local frame (pieces.json leaves out what is 0 or false)."""

    q: int
    r: int
    terrain: Terrain
    power: int = 0
    cave: bool = False
    start: int = 0  # "start_number" in pieces.json
    finish: bool = False


def _file(name: str) -> dict[str, object]:
    return read_json(CONTENT / name)


@cache
def cards() -> dict[str, CardSpec]:
    """Every card type by id, in the catalogue's order."""
    return {c.id: c for c in load_rows(_file("cards.json")["cards"], CardSpec, where="cards.json cards")}


@cache
def board_slots() -> int:
    """How many piles the market board holds (RB p.4)."""
    return typed(_file("cards.json")["board_slots"], int, where="cards.json board_slots")


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
    return {t.id: t for t in load_rows(_file("caves.json")["tokens"], TokenSpec, where="caves.json tokens")}


@cache
def token_pile() -> tuple[str, ...]:
    """All 36 cave tokens, sorted."""
    return tuple(sorted(t.id for t in tokens().values() for _ in range(t.count)))


@cache
def cave_pile_size() -> int:
    """Tokens stacked on each cave (RB p.7)."""
    return typed(_file("caves.json")["pile_size"], int, where="caves.json pile_size")


@cache
def blockades() -> tuple[BlockadeSpec, ...]:
    """The six blockades, in their numbered order."""
    return load_rows(_file("blockades.json")["blockades"], BlockadeSpec, where="blockades.json blockades")


@cache
def courses() -> dict[str, CourseSpec]:
    """The seven courses by config id; the first is the first-game course."""
    return {c.id: c for c in load_rows(_file("courses.json")["courses"], CourseSpec, where="courses.json courses")}


def _hex(row: object, where: str) -> HexSpec:
    """A hex of pieces.json, whose "start_number" is the spec's `start`."""
    fields = as_object(row, where)
    if "start_number" in fields:
        fields = {("start" if k == "start_number" else k): v for k, v in fields.items()}
    elif "start" in fields:
        raise ValueError(f"{where}: unknown field 'start' for HexSpec (pieces.json says start_number)")
    return from_row(HexSpec, fields, where=where)


@cache
def pieces() -> dict[str, tuple[HexSpec, ...]]:
    """Tiles A-N, strips O-R and both El Dorado end tiles, hex by hex."""
    out: dict[str, tuple[HexSpec, ...]] = {}
    for name, raw in as_object(_file("pieces.json")["pieces"], "pieces.json pieces").items():
        where = f"pieces.json pieces.{name}"
        hexes = typed(as_object(raw, where).get("hexes"), list[object], where=f"{where}.hexes")
        out[name] = tuple(_hex(h, f"{where}.hexes[{i}]") for i, h in enumerate(hexes))
    return out
