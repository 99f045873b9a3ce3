"""What a player may do in La Isla (imperative names)."""

from __future__ import annotations

from dataclasses import dataclass

from services.games.la_isla.content import Animal, Colour


@dataclass(frozen=True)
class AssignCards:
    """Card phase + action A: put one hand card under A, B and D; A goes into `slot`.

    `slot` is a free slot to fill or a visible card to cover (rulebook: Acción A).
    """

    a: str  # card id whose special function goes into the cardholder
    b: str  # card id whose resource is taken in action B
    d: str  # card id whose animal marker advances in action D
    slot: int  # cardholder slot for the A card: a free slot, or a visible card to cover


@dataclass(frozen=True)
class CollectIncome:
    """Action B choices: a colour per resource of choice, and the markers to move."""

    colours: tuple[Colour, ...]  # one colour per "resource of your choice" function
    markers: tuple[Animal, ...]  # markers moved through phase B functions (optional)


@dataclass(frozen=True)
class PlaceExplorer:
    """Action C: an explorer from under C onto `space`, paying `payment`."""

    space: int  # index into View.spaces
    payment: tuple[Colour, ...]  # resources paid, sorted by colour


@dataclass(frozen=True)
class MoveExplorer:
    """Action C once no explorer is left under C: move one from `source` to `space`."""

    source: int  # space the explorer leaves
    space: int  # space it moves to
    payment: tuple[Colour, ...]


@dataclass(frozen=True)
class TakeResource:
    """Action C instead of placing: one resource of the player's choice."""

    colour: Colour


@dataclass(frozen=True)
class ChooseResource:
    """Resolve one pending placement reward: a resource of `colour`."""

    colour: Colour


@dataclass(frozen=True)
class ChooseMarker:
    """Resolve one pending placement reward: move the marker of `animal`."""

    animal: Animal


@dataclass(frozen=True)
class DeclineMarker:
    """Resolve one pending placement reward by not moving any marker (effects are optional)."""


@dataclass(frozen=True)
class AdvanceMarkers:
    """Action D: move the D card's marker, plus `extra` more times from card functions."""

    extra: int


Action = (
    AssignCards
    | CollectIncome
    | PlaceExplorer
    | MoveExplorer
    | TakeResource
    | ChooseResource
    | ChooseMarker
    | DeclineMarker
    | AdvanceMarkers
)
