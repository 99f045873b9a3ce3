"""What a player may do: fine-grained, one card, one step or one choice at a time."""

from __future__ import annotations

from dataclasses import dataclass

from services.games.el_dorado.content import Symbol


@dataclass(frozen=True)
class PlayCard:
    """Play `card` to move `piece` with `symbol` (a joker's chosen symbol); RB p.3."""

    card: str
    symbol: Symbol
    piece: int


@dataclass(frozen=True)
class PlayToken:
    """Play a terrain cave token to move `piece`, like a card (RB p.7)."""

    token: str
    symbol: Symbol
    piece: int


@dataclass(frozen=True)
class MoveTo:
    """One step of the active card's piece onto the adjacent landscape hex (q, r)."""

    q: int
    r: int


@dataclass(frozen=True)
class StopMoving:
    """Stop the active card's move now; its leftover power is lost (RB p.3)."""


@dataclass(frozen=True)
class BreakBlockade:
    """Pay a landscape blockade next to the active piece from the active card's power."""

    seam: int


@dataclass(frozen=True)
class ClearSpace:
    """Enter an adjacent rubble or base-camp hex by giving up `cards` (RB p.3)."""

    piece: int
    q: int
    r: int
    cards: tuple[str, ...]


@dataclass(frozen=True)
class ClearBlockade:
    """Take an adjacent rubble blockade by giving up `cards` (RB p.5)."""

    piece: int
    seam: int
    cards: tuple[str, ...]


@dataclass(frozen=True)
class SpendCard:
    """Put `card` towards this turn's purchase (RB p.4)."""

    card: str


@dataclass(frozen=True)
class SpendToken:
    """Put a coin cave token towards this turn's purchase (RB p.7)."""

    token: str


@dataclass(frozen=True)
class BuyCard:
    """Buy one card of type `card` with the coins spent this turn (RB p.4)."""

    card: str


@dataclass(frozen=True)
class PlayAction:
    """Play a purple action card for its effect (RB p.8)."""

    card: str


@dataclass(frozen=True)
class UseToken:
    """Use a cave token for its effect (RB p.7)."""

    token: str


@dataclass(frozen=True)
class TakeCard:
    """Take a market card for free (the Transmitter's choice)."""

    card: str


@dataclass(frozen=True)
class NativeMove:
    """Move `piece` onto the adjacent hex (q, r) ignoring its requirement (the Native)."""

    piece: int
    q: int
    r: int


@dataclass(frozen=True)
class RemoveCard:
    """Remove `card` in hand from the game (Scientist, Travel Log, remove token)."""

    card: str


@dataclass(frozen=True)
class SetAsideCard:
    """Put `card` from hand onto the play area, to draw a new one (replace-hand token)."""

    card: str


@dataclass(frozen=True)
class Done:
    """Finish the open choice (stop removing, setting aside, or keep the rest of the hand)."""


@dataclass(frozen=True)
class EndTurn:
    """End phase 1: played cards go to the discard pile (RB p.5)."""


@dataclass(frozen=True)
class DiscardCard:
    """Discard `card` from hand at the end of the turn instead of keeping it (RB p.5)."""

    card: str


Action = (
    PlayCard | PlayToken | MoveTo | StopMoving | BreakBlockade | ClearSpace | ClearBlockade | SpendCard | SpendToken
    | BuyCard | PlayAction | UseToken | TakeCard | NativeMove | RemoveCard | SetAsideCard | Done
    | EndTurn | DiscardCard
)
