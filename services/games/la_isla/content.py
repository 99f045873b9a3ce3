"""Typed content of La Isla: cards, special functions, island pieces, animal track.

Everything here is read from content/*.json; rules read these fields and never
branch on a card or space id, so the stand-in files can be swapped for the
printed content without code changes.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from services.games.common.enums import GameEnum
from services.games.la_isla.content_rows import CardsFile, FaceRow, FunctionRow, IslandFile


class Colour(GameEnum):
    """A resource colour, which is also a landscape colour (facts §3)."""

    WHITE = "white"
    YELLOW = "yellow"
    GREEN = "green"
    BROWN = "brown"
    GREY = "grey"


class Symbol(GameEnum):
    """The symbol printed on a landscape space."""

    TENT = "tent"
    HAT = "hat"
    ROPE = "rope"
    BOTTLE = "bottle"
    BACKPACK = "backpack"


class Animal(GameEnum):
    """The five animals, in the order of the animal tracks."""

    DODO = "dodo"
    GIANT_FOSSA = "giant_fossa"
    GOLDEN_TOAD = "golden_toad"
    SARDINIAN_PIKA = "sardinian_pika"
    OWLET_MOTH = "owlet_moth"


COLOURS = tuple(Colour)
ANIMALS = tuple(Animal)


@dataclass(frozen=True)
class SpaceFilter:
    """Which spaces a placement function reacts to (None matches anything)."""

    colour: Colour | None = None
    symbol: Symbol | None = None

    def matches(self, colour: Colour, symbol: Symbol) -> bool:
        """True if a space of `colour` showing `symbol` passes the filter."""
        return (self.colour in (None, colour)) and (self.symbol in (None, symbol))


@dataclass(frozen=True)
class PlacementPoints:
    """Placing an explorer on a matching space scores `points` (Peter's example)."""

    where: SpaceFilter
    points: int


@dataclass(frozen=True)
class PlacementResource:
    """Placing on a matching space gives `count` resources of the player's choice."""

    where: SpaceFilter
    count: int


@dataclass(frozen=True)
class PlacementDiscount:
    """Placing on a matching space costs `cost` resources instead of 2."""

    where: SpaceFilter
    cost: int


@dataclass(frozen=True)
class PlacementMarker:
    """Placing on a matching space lets the player move any marker `steps` times."""

    where: SpaceFilter
    steps: int


@dataclass(frozen=True)
class IncomeResource:
    """Phase B: `count` extra resources of `colour` (None: of the player's choice)."""

    colour: Colour | None
    count: int


@dataclass(frozen=True)
class IncomeMarker:
    """Phase B: the player may move the marker of `animal` `steps` times."""

    animal: Animal
    steps: int


@dataclass(frozen=True)
class ExtraMarkerMove:
    """Phase D: the player may move the D card's marker `steps` more times."""

    steps: int


@dataclass(frozen=True)
class Joker:
    """Resources of `colour` pay for a space of any colour."""

    colour: Colour


@dataclass(frozen=True)
class ExtraExplorer:
    """On insertion: one explorer from the general supply; kept when covered."""


@dataclass(frozen=True)
class ExtraSlot:
    """On insertion: one more cardholder slot; kept when covered."""


@dataclass(frozen=True)
class LargerDraw:
    """Card phase: draw `extra` more cards, assign three, discard the rest."""

    extra: int


Function = (
    PlacementPoints
    | PlacementResource
    | PlacementDiscount
    | PlacementMarker
    | IncomeResource
    | IncomeMarker
    | ExtraMarkerMove
    | Joker
    | ExtraExplorer
    | ExtraSlot
    | LargerDraw
)


@dataclass(frozen=True)
class Card:
    """One card: deck `value` (1 or 2), A function, B resource, D animal."""

    id: str
    value: int
    function: Function
    resource: Colour
    animal: Animal


@dataclass(frozen=True)
class Face:
    """What a landscape space shows."""

    colour: Colour
    symbol: Symbol


@dataclass(frozen=True)
class SpaceSpec:
    """A landscape space: on the centre (`slot` None) or on the tooth in `slot`."""

    id: str
    slot: int | None
    local: str


@dataclass(frozen=True)
class RegionSpec:
    """A jungle region and the indexes of the spaces surrounding it."""

    id: str
    value: int
    spaces: tuple[int, ...]


@dataclass(frozen=True)
class IslandSpec:
    """The island's fixed graph plus the faces each piece paints on it."""

    slots: int
    spaces: tuple[SpaceSpec, ...]
    regions: tuple[RegionSpec, ...]
    centre: tuple[tuple[str, Face], ...]
    teeth: tuple[tuple[tuple[str, Face], ...], ...]
    track: tuple[int, ...]


@dataclass(frozen=True)
class Content:
    """Every piece of content the rules read."""

    cards: tuple[Card, ...]
    island: IslandSpec
    by_id: Mapping[str, Card] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        # An index built once: hashing the whole content per lookup would dominate a game.
        object.__setattr__(self, "by_id", {card.id: card for card in self.cards})

    def card(self, card_id: str) -> Card:
        """The card with `card_id`."""
        return self.by_id[card_id]


def _filter(raw: FunctionRow) -> SpaceFilter:
    colour, symbol = raw.get("colour"), raw.get("symbol")
    return SpaceFilter(Colour(colour) if colour else None, Symbol(symbol) if symbol else None)


def parse_function(raw: FunctionRow) -> Function:
    """The typed function of a card's A part."""
    kind = raw["kind"]
    builders: dict[str, Callable[[], Function]] = {
        "placement_points": lambda: PlacementPoints(_filter(raw), raw["points"]),
        "placement_resource": lambda: PlacementResource(_filter(raw), raw["count"]),
        "placement_discount": lambda: PlacementDiscount(_filter(raw), raw["cost"]),
        "placement_marker": lambda: PlacementMarker(_filter(raw), raw["steps"]),
        "income_resource": lambda: IncomeResource(Colour(raw["colour"]) if raw.get("colour") else None, raw["count"]),
        "income_marker": lambda: IncomeMarker(Animal(raw["animal"]), raw["steps"]),
        "extra_marker_move": lambda: ExtraMarkerMove(raw["steps"]),
        "joker": lambda: Joker(Colour(raw["colour"])),
        "extra_explorer": ExtraExplorer,
        "extra_slot": ExtraSlot,
        "larger_draw": lambda: LargerDraw(raw["extra"]),
    }
    if kind not in builders:
        raise ValueError(f"unknown function kind {kind}")
    return builders[kind]()


def _face(raw: FaceRow) -> Face:
    return Face(Colour(raw["colour"]), Symbol(raw["symbol"]))


def parse_island(raw: IslandFile) -> IslandSpec:
    """The island spec; checks that a region's value is its number of spaces."""
    spaces = tuple(SpaceSpec(s["id"], s["slot"], s["local"]) for s in raw["spaces"])
    index = {s.id: i for i, s in enumerate(spaces)}
    regions = []
    for r in raw["regions"]:
        if r["value"] != len(r["spaces"]):
            raise ValueError(f"region {r['id']}: value differs from its surrounding spaces")
        regions.append(RegionSpec(r["id"], r["value"], tuple(index[s] for s in r["spaces"])))
    centre = tuple((k, _face(v)) for k, v in sorted(raw["centre"].items()))
    teeth = tuple(tuple((k, _face(v)) for k, v in sorted(t["faces"].items())) for t in raw["teeth"])
    if len(teeth) != raw["slots"]:
        raise ValueError("one tooth per slot is needed")
    return IslandSpec(raw["slots"], spaces, tuple(regions), centre, teeth, tuple(raw["animal_track"]["area_of_space"]))


def _read(name: str) -> str:
    return (Path(__file__).parent / "content" / name).read_text()


@cache
def load() -> Content:
    """The shipped content (stand-ins, see the files' stand_in_reason)."""
    cards_file: CardsFile = json.loads(_read("cards.json"))
    island_file: IslandFile = json.loads(_read("island.json"))
    cards = tuple(
        Card(c["id"], c["value"], parse_function(c["function"]), Colour(c["resource"]), Animal(c["animal"]))
        for c in cards_file["cards"]
    )
    return Content(cards, parse_island(island_file))
