"""The state of a La Isla match (frozen, replaced by `evolve`)."""

from __future__ import annotations

from dataclasses import dataclass

from services.games.common.enums import GameEnum
from services.games.la_isla.actions import AdvanceMarkers, CollectIncome
from services.games.la_isla.content import Animal


class Phase(GameEnum):
    """Where the round stands (rulebook: Como se Juega)."""

    SETUP = "setup"
    DRAW = "draw"  # card phase: drawing
    ASSIGN = "assign"  # card phase assignment together with action A
    INCOME = "income"  # action B
    EXPLORE = "explore"  # action C
    ANIMALS = "animals"  # action D
    OVER = "over"


@dataclass(frozen=True)
class Assignment:
    """A seat's secret A/B/D cards and the slot its A card goes to."""

    a: str
    b: str
    d: str
    slot: int


@dataclass(frozen=True)
class Player:
    """One seat's pieces; `slots` are stacks, bottom first, () for a free slot."""

    hand: tuple[str, ...]
    slots: tuple[tuple[str, ...], ...]
    explorers_left: int
    explorers_gained: int
    explorers: frozenset[int]
    resources: tuple[int, ...]
    score: int
    tiles: tuple[int, ...]
    large: Animal | None
    assignment: Assignment | None
    choice: CollectIncome | AdvanceMarkers | None


@dataclass(frozen=True)
class State:
    """The whole match; `pending_*` are placement rewards the C seat still chooses."""

    seats: int
    deck: str
    phase: Phase
    round: int
    start: int
    turn: int
    layout: tuple[int, ...] | None
    region_tiles: tuple[Animal | None, ...] | None
    markers: tuple[int, ...]
    players: tuple[Player, ...]
    pile: str
    pile_size: int
    pile_number: int
    discard: tuple[str, ...]
    drawn: int
    pending_resources: int
    pending_markers: int

    def player(self, seat: int) -> Player:
        """The pieces of `seat`."""
        return self.players[seat]

    def order(self) -> tuple[int, ...]:
        """Seats clockwise from the start player (rulebook: Acción C)."""
        return tuple((self.start + i) % self.seats for i in range(self.seats))
