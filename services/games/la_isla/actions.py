"""What a player may do in La Isla (imperative names)."""

from __future__ import annotations

from dataclasses import dataclass

from services.games.la_isla.content import Animal, Colour


@dataclass(frozen=True)
class AssignCards:
    """Card phase + action A: put one hand card under A, B and D; A goes into `slot`.

    `slot` is a free slot to fill or a visible card to cover (rulebook: Acción A).
    """

    a: str
    b: str
    d: str
    slot: int


@dataclass(frozen=True)
class CollectIncome:
    """Action B choices: a colour per resource of choice, and the markers to move."""

    colours: tuple[Colour, ...]
    markers: tuple[Animal, ...]


@dataclass(frozen=True)
class PlaceExplorer:
    """Action C: an explorer from under C onto `space`, paying `payment`."""

    space: int
    payment: tuple[Colour, ...]


@dataclass(frozen=True)
class MoveExplorer:
    """Action C once no explorer is left under C: move one from `source` to `space`."""

    source: int
    space: int
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
