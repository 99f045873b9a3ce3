"""What happened in a La Isla match (past tense)."""

from __future__ import annotations

from dataclasses import dataclass

from services.games.common.enums import GameEnum
from services.games.la_isla.content import Animal, Colour


class Step(GameEnum):
    """A simultaneous decision (rulebook: A, B and D are played at once)."""

    ASSIGN = "assign"
    INCOME = "income"
    ANIMALS = "animals"


@dataclass(frozen=True)
class IslandBuilt:
    """The teeth were laid around the centre: `order[k]` is the tooth in slot k."""

    order: tuple[int, ...]


@dataclass(frozen=True)
class TilesPlaced:
    """Small animal tiles on the regions, one per region in region order."""

    tiles: tuple[Animal, ...]


@dataclass(frozen=True)
class LargeTilesDealt:
    """Each seat's large animal tile, by seat."""

    animals: tuple[Animal, ...]


@dataclass(frozen=True)
class DrawPileShuffled:
    """A new face-down draw pile of `size` cards; `from_discard` empties the discard."""

    pile: str
    size: int
    from_discard: bool  # the discard pile was shuffled into it and is now empty


@dataclass(frozen=True)
class CardsDrawnToHand:
    """`seat` drew `cards` from `pile` (seen by that seat only)."""

    seat: int
    pile: str
    cards: tuple[str, ...]


@dataclass(frozen=True)
class HandRefilled:
    """What others see of CardsDrawnToHand."""

    seat: int
    pile: str
    count: int


@dataclass(frozen=True)
class CardsAssigned:
    """`seat`'s secret A/B/D cards and A slot (seen by that seat only)."""

    seat: int
    a: str
    b: str
    d: str
    slot: int


@dataclass(frozen=True)
class IncomeChosen:
    """`seat`'s secret phase B choices (seen by that seat only)."""

    seat: int
    colours: tuple[Colour, ...]
    markers: tuple[Animal, ...]


@dataclass(frozen=True)
class MarkerMovesChosen:
    """`seat`'s secret number of extra phase D moves (seen by that seat only)."""

    seat: int
    extra: int


@dataclass(frozen=True)
class ChoiceMade:
    """What others see of a secret choice: only that `seat` has chosen."""

    seat: int
    step: Step


@dataclass(frozen=True)
class Insertion:
    """One seat's action A: `card` into `slot` (covering whatever was visible there)."""

    seat: int
    card: str
    slot: int
    explorer_gained: bool  # an explorer came from the general supply
    slot_gained: bool  # the cardholder gained a free slot


@dataclass(frozen=True)
class FunctionsInserted:
    """Reveal of action A for every seat at once."""

    insertions: tuple[Insertion, ...]


@dataclass(frozen=True)
class MarkerAdvanced:
    """`seat` moved the `animal` marker (unless at the top: `moved` false) and scored."""

    seat: int
    animal: Animal
    moved: bool  # false when the marker already stood on the top space
    points: int


@dataclass(frozen=True)
class Income:
    """One seat's action B: the B `card` and every resource it gained."""

    seat: int
    card: str  # the B card, now on the discard pile
    colours: tuple[Colour, ...]  # every resource gained


@dataclass(frozen=True)
class IncomeCollected:
    """Reveal of action B for every seat at once, with the markers moved."""

    incomes: tuple[Income, ...]
    moves: tuple[MarkerAdvanced, ...]


@dataclass(frozen=True)
class ExplorerPlaced:
    """`seat` put an explorer on `space`, from `source` if moved, else from under C."""

    seat: int
    space: int
    payment: tuple[Colour, ...]
    source: int | None  # the space a placed explorer left; None (unset) when it came from under C


@dataclass(frozen=True)
class RegionClaimed:
    """`seat` surrounded `region` and took its `animal` tile, scoring `points`."""

    seat: int
    region: int
    animal: Animal
    points: int


@dataclass(frozen=True)
class PlacementRewarded:
    """Visible functions fired on a placement: points now, choices still to make."""

    seat: int
    points: int
    resources: int  # resources of choice pending
    markers: int  # marker moves pending


@dataclass(frozen=True)
class ResourceGained:
    """`seat` took one resource of `colour`; `reward` if it settles a placement reward."""

    seat: int
    colour: Colour
    reward: bool  # settles a pending placement reward


@dataclass(frozen=True)
class MarkerDeclined:
    """`seat` chose not to use one pending marker move."""

    seat: int


@dataclass(frozen=True)
class TurnEnded:
    """`seat` finished its action C."""

    seat: int


@dataclass(frozen=True)
class SeatCard:
    """A card a seat played or discarded."""

    seat: int
    card: str


@dataclass(frozen=True)
class AnimalsAdvanced:
    """Reveal of action D for every seat at once; `discarded` are unassigned hand cards."""

    cards: tuple[SeatCard, ...]
    moves: tuple[MarkerAdvanced, ...]
    discarded: tuple[SeatCard, ...]  # unassigned hand cards


@dataclass(frozen=True)
class RoundEnded:
    """End of `round`: markers' areas summed to `area_sum`; `start` is the next start player."""

    round: int
    area_sum: int  # sum of the five markers' areas, checked against the end threshold
    start: int  # start player of the next round


@dataclass(frozen=True)
class FinalScore:
    """One seat's final scoring (rulebook: Puntuación final)."""

    seat: int
    sets: int
    tiles: int
    resources: int  # points for leftover resources
    total: int
    resources_left: int  # the tie-breaker


@dataclass(frozen=True)
class GameEnded:
    """The game is over; final scoring of every seat."""

    scores: tuple[FinalScore, ...]


Event = (
    IslandBuilt
    | TilesPlaced
    | LargeTilesDealt
    | DrawPileShuffled
    | CardsDrawnToHand
    | HandRefilled
    | CardsAssigned
    | IncomeChosen
    | MarkerMovesChosen
    | ChoiceMade
    | FunctionsInserted
    | IncomeCollected
    | ExplorerPlaced
    | RegionClaimed
    | PlacementRewarded
    | ResourceGained
    | MarkerDeclined
    | MarkerAdvanced
    | TurnEnded
    | AnimalsAdvanced
    | RoundEnded
    | GameEnded
)
