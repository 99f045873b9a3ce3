"""What happened, in the past tense; `evolve` folds these into the state."""

from __future__ import annotations

from dataclasses import dataclass

from services.games.el_dorado.content import Symbol
from services.games.el_dorado.state import Choice


@dataclass(frozen=True)
class BlockadesPlaced:
    """Setup: `seams[i]` is the blockade id placed on join i (RB p.2)."""

    seams: tuple[int, ...]


@dataclass(frozen=True)
class CaveTokensShuffled:
    """Setup (caves variant): the tokens were shuffled face down, `per_cave` on each cave."""

    caves: int
    per_cave: int


@dataclass(frozen=True)
class DeckShuffled:
    """`seat`'s discard pile (`cards`, public) became its new draw pile (RB p.5)."""

    seat: int
    cards: tuple[str, ...]


@dataclass(frozen=True)
class CardsDrawnToHand:
    """`seat` drew `cards` (seen by that seat only)."""

    seat: int
    cards: tuple[str, ...]


@dataclass(frozen=True)
class CardsDrawnUnseen:
    """What others see of CardsDrawnToHand: only how many cards were drawn."""

    seat: int
    count: int


@dataclass(frozen=True)
class TurnStarted:
    """`seat` begins its turn in round `round` (rounds count from 1)."""

    seat: int
    round: int


@dataclass(frozen=True)
class CardPlayed:
    """`card` was played to move `piece` as `symbol`; `removed` if it is a used item."""

    seat: int
    card: str
    symbol: Symbol
    piece: int
    power: int
    removed: bool


@dataclass(frozen=True)
class TokenPlayed:
    """A terrain cave token was played to move `piece`; it leaves the game."""

    seat: int
    token: str
    symbol: Symbol
    piece: int
    power: int


@dataclass(frozen=True)
class PieceMoved:
    """`piece` entered hex (q, r), spending `power` of the active card (0 when paid in cards)."""

    seat: int
    piece: int
    q: int
    r: int
    power: int


@dataclass(frozen=True)
class MoveEnded:
    """The active card's leftover power is lost (RB p.3)."""

    seat: int


@dataclass(frozen=True)
class PieceStopped:
    """Caves variant: `piece` stopped next to `near`; `explores` are the caves it explores (RB p.7)."""

    seat: int
    piece: int
    near: tuple[int, ...]
    explores: tuple[int, ...]


@dataclass(frozen=True)
class CaveExplored:
    """`seat` took the top token of cave `cave`, face up."""

    seat: int
    cave: int
    token: str


@dataclass(frozen=True)
class CardsGivenUp:
    """`cards` paid for rubble or a base camp; base-camp cards are `removed` (RB p.3)."""

    seat: int
    cards: tuple[str, ...]
    removed: bool


@dataclass(frozen=True)
class BlockadeTaken:
    """`seat` took blockade `blockade` off join `seam`; the join is open to all (RB p.5).

    `power` is what the active card spent on it (0 when paid in cards or by the Native).
    """

    seat: int
    seam: int
    blockade: int
    power: int


@dataclass(frozen=True)
class CardSpent:
    """`card` added `halves` half-coins to this turn's purchase; `removed` if an item used."""

    seat: int
    card: str
    halves: int
    removed: bool


@dataclass(frozen=True)
class TokenSpent:
    """A coin cave token added `halves` half-coins; it leaves the game."""

    seat: int
    token: str
    halves: int


@dataclass(frozen=True)
class CardBought:
    """`seat` bought `card` onto its discard pile; `to_board` if its pile moved onto the board."""

    seat: int
    card: str
    to_board: bool


@dataclass(frozen=True)
class ActionPlayed:
    """An action card was played for its effect; `removed` if it is an item (RB p.8)."""

    seat: int
    card: str
    removed: bool


@dataclass(frozen=True)
class TokenUsed:
    """An effect cave token was used; it leaves the game."""

    seat: int
    token: str


@dataclass(frozen=True)
class DrawOwed:
    """`seat` must draw `count` more cards now; a negative count cancels a draw nobody can make."""

    seat: int
    count: int


@dataclass(frozen=True)
class ChoiceOpened:
    """The current player must choose (`count` times at most)."""

    choice: Choice
    count: int


@dataclass(frozen=True)
class ChoiceClosed:
    """The open choice ended."""


@dataclass(frozen=True)
class CardTaken:
    """`seat` took `card` for free onto its discard pile (Transmitter)."""

    seat: int
    card: str


@dataclass(frozen=True)
class CardRemoved:
    """`seat` removed `card` in hand from the game."""

    seat: int
    card: str


@dataclass(frozen=True)
class CardSetAside:
    """`seat` put `card` from hand onto its play area (replace-hand token)."""

    seat: int
    card: str


@dataclass(frozen=True)
class ItemKept:
    """The item `card` goes to the play area instead of leaving the game (keep-item token)."""

    seat: int
    card: str


@dataclass(frozen=True)
class PieceArrived:
    """`piece` reached a finish space and now stands in El Dorado (RB p.5)."""

    seat: int
    piece: int
    final_round: bool


@dataclass(frozen=True)
class TurnEnded:
    """Phase 2: the played cards went to the discard pile."""

    seat: int
    discarded: tuple[str, ...]


@dataclass(frozen=True)
class CardDiscarded:
    """`seat` discarded `card` from hand instead of keeping it (RB p.5)."""

    seat: int
    card: str


@dataclass(frozen=True)
class HandKept:
    """`seat` kept `kept` cards in hand and draws `owed` cards (phase 3)."""

    seat: int
    kept: int
    owed: int


@dataclass(frozen=True)
class GameEnded:
    """The game is over; `ranking[i]` is seat i's place, `reason` why it ended."""

    ranking: tuple[int, ...]
    reason: str


Event = (
    BlockadesPlaced | CaveTokensShuffled | DeckShuffled | CardsDrawnToHand | CardsDrawnUnseen
    | TurnStarted | CardPlayed | TokenPlayed | PieceMoved | MoveEnded | PieceStopped | CaveExplored
    | CardsGivenUp | BlockadeTaken | CardSpent | TokenSpent | CardBought | ActionPlayed | TokenUsed
    | DrawOwed | ChoiceOpened | ChoiceClosed | CardTaken | CardRemoved | CardSetAside | ItemKept
    | PieceArrived | TurnEnded | CardDiscarded | HandKept | GameEnded
)
