"""Typed content of La Isla: cards, special functions, island pieces, animal track.

Everything here is read from content/*.json; rules read these fields and never
branch on a card or space id, so the stand-in files can be swapped for the
printed content without code changes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from functools import cache
from pathlib import Path

from services.games.common.content import as_object, from_row, load_rows, read_json, typed
from services.games.common.enums import GameEnum

CONTENT = Path(__file__).parent / "content"


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


FUNCTIONS: dict[str, type[Function]] = {
    "placement_points": PlacementPoints,
    "placement_resource": PlacementResource,
    "placement_discount": PlacementDiscount,
    "placement_marker": PlacementMarker,
    "income_resource": IncomeResource,
    "income_marker": IncomeMarker,
    "extra_marker_move": ExtraMarkerMove,
    "joker": Joker,
    "extra_explorer": ExtraExplorer,
    "extra_slot": ExtraSlot,
    "larger_draw": LargerDraw,
}
Faces = tuple[tuple[str, Face], ...]


def parse_function(raw: object, where: str = "function") -> Function:
    """The typed function of a card's A part {"kind": ..., ...}; a placement's colour and
    symbol, written beside its number, are its `where` filter."""
    row = dict(as_object(raw, where))
    kind = row.pop("kind", None)
    if not isinstance(kind, str) or kind not in FUNCTIONS:
        raise ValueError(f"{where}: unknown function kind {kind}")
    spec = FUNCTIONS[kind]
    if any(f.name == "where" for f in fields(spec)):
        row["where"] = {key: row.pop(key) for key in ("colour", "symbol") if key in row}
    return from_row(spec, row, where=f"{where} ({kind})")


def parse_island(raw: object, where: str = "island.json") -> IslandSpec:
    """The island spec; checks that a region's value is its number of spaces."""
    island = as_object(raw, where)
    spaces = load_rows(island["spaces"], SpaceSpec, where=f"{where} spaces")
    index = {s.id: i for i, s in enumerate(spaces)}
    regions = []
    for i, region in enumerate(typed(island["regions"], list[object], where=f"{where} regions")):
        at = f"{where} regions[{i}]"
        row = as_object(region, at)
        ids = typed(row.get("spaces"), list[str], where=f"{at}.spaces")
        unknown = [s for s in ids if s not in index]
        if unknown:
            raise ValueError(f"{at}.spaces: no space {unknown[0]!r}")
        spec = from_row(RegionSpec, {**row, "spaces": [index[s] for s in ids]}, where=at)
        if spec.value != len(spec.spaces):
            raise ValueError(f"region {spec.id}: value differs from its surrounding spaces")
        regions.append(spec)
    centre = typed(island["centre"], Faces, where=f"{where} centre")
    teeth = tuple(
        typed(as_object(tooth, f"{where} teeth[{i}]").get("faces"), Faces, where=f"{where} teeth[{i}].faces")
        for i, tooth in enumerate(typed(island["teeth"], list[object], where=f"{where} teeth"))
    )
    slots = typed(island["slots"], int, where=f"{where} slots")
    if len(teeth) != slots:
        raise ValueError("one tooth per slot is needed")
    track = as_object(island["animal_track"], f"{where} animal_track")
    area = typed(track.get("area_of_space"), tuple[int, ...], where=f"{where} animal_track.area_of_space")
    return IslandSpec(slots, spaces, tuple(regions), centre, teeth, area)


@cache
def load() -> Content:
    """The shipped content (stand-ins, see the files' stand_in_reason)."""
    cards = load_rows(
        read_json(CONTENT / "cards.json")["cards"], Card, where="cards.json cards", hooks={Function: parse_function}
    )
    return Content(cards, parse_island(read_json(CONTENT / "island.json")))
