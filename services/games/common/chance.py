"""Chance nodes: what an engine asks the platform to randomise, and the answers.

An engine never draws randomness itself. When its state needs dice, a shuffle or
a hidden draw, `to_move` returns one of the requests below; the match service has
the dice or deck service resolve it and hands the outcome back to `decide` as the
move of the chance seat. The outcome then becomes ordinary game events, so a
replay never needs the dice or the deck again.
"""

from __future__ import annotations

from dataclasses import dataclass

CHANCE_SEAT = -1
"""The seat number under which chance outcomes are submitted to `decide`."""


@dataclass(frozen=True)
class RollDice:
    """Roll `count` dice with faces 1..`faces`; the outcome lists the values."""

    count: int
    faces: int


@dataclass(frozen=True)
class Permute:
    """A public uniform permutation of range(n) (random setup: tiles, blockades)."""

    n: int


@dataclass(frozen=True)
class ShufflePile:
    """Make `pile` hold exactly `cards`, shuffled unless `keep_order`.

    `cards` are public at this moment (a starting deck, a discard pile) and listed
    in a canonical order; only the resulting order is hidden, and the deck
    service alone keeps it. `keep_order` serves decks that are dealt in numeric
    order: then `cards` is the order, top card first.
    """

    pile: str
    cards: tuple[str, ...]
    keep_order: bool = False


@dataclass(frozen=True)
class DrawCards:
    """Take the top `count` cards of `pile`; only `seat` sees them (None: everyone)."""

    pile: str
    count: int
    seat: int | None


@dataclass(frozen=True)
class PutCards:
    """Put `cards` on top of `pile` (or at its bottom), in this order, top first.

    Only `seat` (None: everyone) learns which cards went in; the rest of the
    pile keeps its hidden order. A pile that does not exist yet is created.
    """

    pile: str
    cards: tuple[str, ...]
    bottom: bool
    seat: int | None


ChanceRequest = RollDice | Permute | ShufflePile | DrawCards | PutCards


@dataclass(frozen=True)
class DiceRolled:
    """Outcome of RollDice."""

    values: tuple[int, ...]


@dataclass(frozen=True)
class Permuted:
    """Outcome of Permute: `order[i]` is the item placed at position i."""

    order: tuple[int, ...]


@dataclass(frozen=True)
class PileShuffled:
    """Outcome of ShufflePile: the pile now holds `size` cards in a hidden order."""

    pile: str
    size: int


@dataclass(frozen=True)
class CardsDrawn:
    """Outcome of DrawCards: the cards taken from the top, top card first."""

    pile: str
    cards: tuple[str, ...]


@dataclass(frozen=True)
class CardsPut:
    """Outcome of PutCards: the pile now holds `size` cards."""

    pile: str
    size: int


ChanceOutcome = DiceRolled | Permuted | PileShuffled | CardsDrawn | CardsPut

REQUEST_TYPES = (RollDice, Permute, ShufflePile, DrawCards, PutCards)
OUTCOME_TYPES = (DiceRolled, Permuted, PileShuffled, CardsDrawn, CardsPut)
"""The members of the two unions, for isinstance checks and decoding."""
