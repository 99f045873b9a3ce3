"""The contract between the platform and a pure rules engine.

Every game package declares itself once as `GAME` (a `GameDeclaration`,
services/games/common/host.py); `GAME.engine`, the game behind the generic
host's seat, turn and chance checks, is the object satisfying `Engine` that the
platform runs. The platform never looks inside a state: it stores events, asks
whose move it is, and hands actions (or chance outcomes) to `decide`. See
docs/engines.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from services.games.common.chance import ChanceOutcome, ChanceRequest

if TYPE_CHECKING:
    from services.games.common.options import OptionSpec

S = TypeVar("S")
A = TypeVar("A")
E = TypeVar("E")


class IllegalAction(Exception):
    """A move the rules refuse; `rule` is a stable dotted id into the rulebook.

    `detail` is shown to the player who tried the move, so it must never name a
    card or order that player is not entitled to see.
    """

    def __init__(self, rule: str, detail: str = "") -> None:
        super().__init__(f"{rule}: {detail}" if detail else rule)
        self.rule = rule
        self.detail = detail


class InvalidConfig(ValueError):
    """A match option that the game does not know or cannot accept; `option`
    names it (empty when the refusal concerns no single option)."""

    def __init__(self, message: str, option: str = "") -> None:
        super().__init__(message)
        self.option = option


class Audience(IntEnum):
    """Who may read an event.

    Numbered as the contract's `tabletop.common.v1.Audience` (which engines may
    not import), so an engine's audience goes on the wire and into the event
    store as it is, with no table between them.
    """

    PUBLIC = 1
    SEAT = 2
    SERVER = 3


@dataclass(frozen=True)
class Visibility:
    """The audience of one event; `seat` is set only for Audience.SEAT."""

    audience: Audience
    seat: int | None = None

    @staticmethod
    def public() -> Visibility:
        return Visibility(Audience.PUBLIC)

    @staticmethod
    def only(seat: int) -> Visibility:
        return Visibility(Audience.SEAT, seat)

    @staticmethod
    def server() -> Visibility:
        return Visibility(Audience.SERVER)

    def admits(self, viewer: int | None) -> bool:
        """True if `viewer` (a seat, or None for a spectator) may read the event."""
        if self.audience is Audience.PUBLIC:
            return True
        return self.audience is Audience.SEAT and viewer is not None and viewer == self.seat


@dataclass(frozen=True)
class ToMove:
    """Who acts next: a set of seats (several when decisions are simultaneous),
    or the chance player with the request it must resolve. Both empty and
    `chance` None means the game is over."""

    seats: tuple[int, ...] = ()
    chance: ChanceRequest | None = None


# The end reason of a game that a safety cap (a day or round limit the rulebook does
# not have) stopped: the outcome decides nothing and is never rated.
STOPPED_REASON = "stopped_by_cap"


@dataclass(frozen=True)
class Outcome:
    """The final result: `ranking[i]` is the place (1 = first) of seat i; equal
    places are ties. `scores` and `detail` are what the rulebook scores with.

    `detail["reason"] == STOPPED_REASON` marks a game a safety cap stopped before
    its rules ended it: nobody lost it, and ratings skip it."""

    ranking: tuple[int, ...]
    scores: tuple[int, ...]
    detail: Mapping[str, str] = field(default_factory=dict)
    cooperative_win: bool | None = None


class Engine(Protocol, Generic[S, A, E]):
    """What the platform runs for every game (a `HostedEngine`). All functions are pure."""

    name: str
    min_seats: int
    max_seats: int
    # The match options setup accepts (services/games/common/options.py).
    options: tuple[OptionSpec, ...]
    # The action types that pass, most passive first (a timed-out seat's move).
    passes: tuple[str, ...]
    # The seats play together against the game, not against each other (Outcome.cooperative_win).
    cooperative: bool

    def setup(self, config: Mapping[str, str], seats: int) -> S:
        """The initial state; raises InvalidConfig for an unknown or unacceptable option
        (checked against `options` with `parse_options`)."""

    def to_move(self, state: S) -> ToMove:
        """Seats that may act now, or the pending chance request."""

    def legal_actions(self, state: S, seat: int) -> Sequence[A]:
        """Every legal action of `seat` (empty when it is not asked to act)."""

    def decide(self, state: S, seat: int, action: A | ChanceOutcome) -> Sequence[E]:
        """Events that `action` causes; raises IllegalAction, changes nothing (the
        host's rule ids for a move nobody asked for, the game's for its own rules)."""

    def evolve(self, state: S, event: E) -> S:
        """The state after `event`; never raises on an event `decide` emitted."""

    def visibility(self, event: E) -> Visibility:
        """Who may read `event`."""

    def redact(self, event: E) -> E | None:
        """What viewers outside an event's audience see of it (None: nothing)."""

    def view(self, state: S, viewer: int | None) -> object:
        """What `viewer` (a seat, or None for a spectator) may know of `state`."""

    def result(self, state: S) -> Outcome | None:
        """The outcome once the game has ended, else None."""


def replay(engine: Engine[S, A, E], state: S, events: Sequence[E]) -> S:
    """Fold `events` into `state`."""
    for event in events:
        state = engine.evolve(state, event)
    return state


def apply(engine: Engine[S, A, E], state: S, seat: int, action: A | ChanceOutcome) -> tuple[S, Sequence[E]]:
    """Decide and evolve in one step; handy for tests and bots."""
    events = engine.decide(state, seat, action)
    return replay(engine, state, events), events


__all__ = [
    "Audience",
    "ChanceOutcome",
    "ChanceRequest",
    "Engine",
    "IllegalAction",
    "InvalidConfig",
    "Outcome",
    "ToMove",
    "Visibility",
    "apply",
    "replay",
]
