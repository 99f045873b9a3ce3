"""The state of one match: frozen dataclasses holding tuples only."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from services.games.common.enums import GameEnum
from services.games.common.values import replace
from services.games.el_dorado.content import Symbol

Hex = tuple[int, int]


class Phase(GameEnum):
    """Where the match stands (RB p.2: play, discard, draw)."""

    SETUP = "setup"
    PLAY = "play"
    CLEANUP = "cleanup"
    DRAW = "draw"
    OVER = "over"


class Choice(GameEnum):
    """A pending choice that an action card or token opened (RB p.7-8)."""

    NONE = "none"
    TAKE = "take"
    NATIVE = "native"
    REMOVE = "remove"
    SET_ASIDE = "set_aside"


@dataclass(frozen=True)
class Active:
    """The card (or token) whose leftover power may still move `piece` (RB p.3)."""

    source: str
    symbol: Symbol
    piece: int
    left: int


@dataclass(frozen=True)
class Turn:
    """What the current turn has done so far; reset when a turn starts."""

    active: Active | None = None
    coins: int = 0
    bought: bool = False
    choice: Choice = Choice.NONE
    choice_left: int = 0
    set_aside: int = 0
    any_symbol: bool = False
    pass_occupied: bool = False
    last_item: str | None = None


@dataclass(frozen=True)
class Player:
    """One seat's cards and pieces; card piles are sorted multisets of card ids.

    `draw` lists what the draw pile holds, never its order (the deck service keeps it).
    """

    hand: tuple[str, ...] = ()
    draw: tuple[str, ...] = ()
    discard: tuple[str, ...] = ()
    played: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    pieces: tuple[Hex | None, ...] = ()
    near_caves: tuple[frozenset[int], ...] = ()
    blockades: tuple[int, ...] = ()
    tokens: tuple[str, ...] = ()

    @property
    def arrived(self) -> bool:
        """True once every piece stands in El Dorado."""
        return all(p is None for p in self.pieces)


@dataclass(frozen=True)
class State:
    """A whole match. `seams[i]` is the blockade id on join i, or 0 once removed."""

    seats: int
    course: str
    caves: bool
    max_rounds: int
    phase: Phase
    players: tuple[Player, ...]
    stock: tuple[int, ...]
    board: tuple[str, ...]
    current: int = 0
    round: int = 0
    seams: tuple[int, ...] = ()
    caves_ready: bool = False
    cave_left: tuple[int, ...] = ()
    explore: tuple[tuple[int, int], ...] = ()
    owed: int = 0
    turn: Turn = field(default_factory=Turn)
    final_round: bool = False
    ranking: tuple[int, ...] = ()
    end_reason: str = ""


def added(pile: tuple[str, ...], items: Iterable[str]) -> tuple[str, ...]:
    """`pile` with `items` added, kept sorted."""
    return tuple(sorted((*pile, *items)))


def taken(pile: tuple[str, ...], items: Iterable[str]) -> tuple[str, ...]:
    """`pile` without one copy of each of `items`."""
    left = Counter(pile)
    left.subtract(items)
    return tuple(sorted(left.elements()))


def holds(pile: tuple[str, ...], items: Iterable[str]) -> bool:
    """True if `pile` holds every item of `items` (with multiplicity)."""
    need = Counter(items)
    have = Counter(pile)
    return all(have[k] >= n for k, n in need.items())


def with_player(state: State, seat: int, player: Player) -> State:
    """`state` with seat `seat` replaced."""
    players = list(state.players)
    players[seat] = player
    return replace(state, players=tuple(players))


def with_turn(state: State, **changes: object) -> State:
    """`state` with some turn fields changed."""
    return replace(state, turn=replace(state.turn, **changes))  # type: ignore[arg-type]


def occupied(state: State) -> frozenset[Hex]:
    """Every hex a piece stands on."""
    return frozenset(h for p in state.players for h in p.pieces if h is not None)
