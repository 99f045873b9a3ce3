"""Rules use cases: one game run through the generic engine host
(services/games/common/host.py), with a cache of decoded states.

The host makes the seat, turn and chance checks every game shares before the
game's own `decide` runs; a refusal of either becomes FailedPrecondition
naming the rule id.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from services.common.errors import FailedPrecondition, InvalidArgument
from services.common.lru import LRU
from services.games.common.engine import Audience, IllegalAction, InvalidConfig, Outcome, ToMove, Visibility, replay
from services.games.registry import GameEntry, SomeEngine

CACHE_SIZE = 4096


# A game's states, actions, events and views are its own dataclasses: to this
# host, which serves any game, they are opaque objects its codec translates.
@dataclass(frozen=True)
class Decision:
    """What one move did: events with their audience and redaction, and where it leads."""

    events: tuple[tuple[object, Visibility, object | None], ...]
    state: object
    turn: ToMove
    outcome: Outcome | None
    # The host's encoding of a state, run only when `data` is asked for: a move that
    # chance follows passes through states that nobody stores or sends.
    encode: Callable[[object], bytes] = field(repr=False, compare=False)
    position: Position | None = None
    # Whether the seat may take the move back (see `undoable`).
    undoable: bool = False

    @cached_property
    def data(self) -> bytes:
        """The state as the match stores it and sends it back."""
        return self.encode(self.state)


@dataclass(frozen=True)
class SeatPosition:
    """What one seat sees of a state, and its legal actions there (none unless asked to act)."""

    seat: int
    view: object
    legal_actions: tuple[object, ...]


@dataclass(frozen=True)
class Position:
    """Every viewer's part of one state: each seat's, and the spectator's."""

    seats: tuple[SeatPosition, ...]
    spectator_view: object | None  # None: not computed (nobody asked)


class EngineHost:
    """Runs one game's hosted engine on encoded states, keeping recent ones decoded."""

    def __init__(self, entry: GameEntry) -> None:
        self.entry = entry
        self.engine: SomeEngine = entry.engine
        self.codec = entry.codec
        self._decoded: LRU[bytes, object] = LRU(CACHE_SIZE)

    def state(self, data: bytes) -> object:
        """The state encoded in `data` (decoded once, then cached)."""
        cached = self._decoded.get(data)
        if cached is not None:
            return cached
        try:
            state = self.codec.decode_state(data)
        except (ValueError, TypeError, KeyError) as broken:
            raise InvalidArgument(f"not a {self.entry.name} state") from broken
        return self._remember(data, state)

    def _remember(self, data: bytes, state: object) -> object:
        return self._decoded.put(data, state)

    def encode(self, state: object) -> bytes:
        data = self.codec.encode_state(state)
        self._remember(data, state)
        return data

    def setup(self, config: Mapping[str, str], seats: int) -> object:
        if not self.engine.min_seats <= seats <= self.engine.max_seats:
            raise InvalidArgument(
                f"{self.entry.name} is for {self.engine.min_seats}-{self.engine.max_seats} seats", "seat_count"
            )
        try:
            state = self.engine.setup(dict(config), seats)
        except InvalidConfig as bad:
            # reason "config" like the gateway's own checks; the option travels in the metadata.
            detail = f"config[{bad.option}]: {bad}" if bad.option else f"bad option: {bad}"
            raise InvalidArgument(detail, "config", {"option": bad.option} if bad.option else None) from None
        return state

    def _check_seat_count(self, seat_count: int) -> None:
        if not self.engine.min_seats <= seat_count <= self.engine.max_seats:
            raise InvalidArgument(
                f"{self.entry.name} is for {self.engine.min_seats}-{self.engine.max_seats} seats", "seat_count"
            )

    def decide(
        self,
        data: bytes,
        seat: int,
        move: object,
        position_seats: int = 0,
        spectator: bool = True,
        judge_undo: bool = False,
    ) -> Decision:
        """Apply one move; IllegalAction becomes FailedPrecondition naming the rule. With
        `position_seats`, a decision that leaves players to act (no chance pending) also
        carries the new position; with `judge_undo`, its `undoable` is the whole verdict."""
        return self.decide_on(self.state(data), seat, move, position_seats, spectator, data, judge_undo)

    def decide_on(
        self,
        state: object,
        seat: int,
        move: object,
        position_seats: int = 0,
        spectator: bool = True,
        data: bytes | None = None,
        judge_undo: bool = False,
    ) -> Decision:
        """`decide` from a state in hand (the one a decision before it left; `data`, its
        encoding, if known)."""
        if position_seats:
            self._check_seat_count(position_seats)
        try:
            events = self.engine.decide(state, seat, move)
        except IllegalAction as illegal:
            raise FailedPrecondition(illegal.detail or illegal.rule, illegal.rule) from None
        before = state
        emitted: list[tuple[object, Visibility, object | None]] = []
        for event in events:
            state = self.engine.evolve(state, event)
            visibility = self.engine.visibility(event)
            hidden = visibility.audience is not Audience.PUBLIC
            emitted.append((event, visibility, self.engine.redact(event) if hidden else None))
        turn = self.engine.to_move(state)
        wanted = position_seats and turn.chance is None
        position = self._position(state, position_seats, spectator) if wanted else None
        outcome = self.engine.result(state)
        may_undo = undoable(seat, emitted, turn, outcome)
        if may_undo and judge_undo:
            # The counterfactual, asked for when the seat takes the move back: it costs more
            # than the move itself, and most moves are never undone.
            may_undo = not self.engine.discloses(
                (before, seat, move),
                (events, state),
                data if data is not None else self.encode(before),
                (None, position.seats[seat].view if position is not None else None),
            )
        return Decision(tuple(emitted), state, turn, outcome, self.encode, position, may_undo)

    def replay(self, data: bytes, events: Sequence[object]) -> tuple[object, bytes]:
        state = replay(self.engine, self.state(data), events)
        return state, self.encode(state)

    def position(self, data: bytes, seat_count: int) -> Position:
        """Every seat's view and legal actions and the spectator's view, in one pass."""
        self._check_seat_count(seat_count)
        return self._position(self.state(data), seat_count)

    def _position(self, state: object, seat_count: int, spectator: bool = True) -> Position:
        seats = tuple(
            SeatPosition(seat, self.engine.view(state, seat), tuple(self.engine.legal_actions(state, seat)))
            for seat in range(seat_count)
        )
        return Position(seats, self.engine.view(state, None) if spectator else None)


def undoable(
    seat: int,
    emitted: Sequence[tuple[object, Visibility, object | None]],
    turn: ToMove,
    outcome: Outcome | None,
) -> bool:
    """The cheap half of the undo verdict: the move asked for no chance (nothing drawn
    or rolled), ended nothing, and told no other seat anything in private (a seat's own
    private events are its own choices) nor the servers alone. The other half,
    `HostedEngine.discloses`, asks whether anything the move caused depended on what its
    mover could not see (a public reveal included); it runs only when this one agrees
    and the decision is asked to judge an undo (`judge_undo`)."""
    if seat < 0 or turn.chance is not None or outcome is not None:
        return False
    for _, visibility, _ in emitted:
        if visibility.audience is Audience.SEAT and visibility.seat != seat:
            return False
        if visibility.audience is Audience.SERVER:
            return False
    return True
