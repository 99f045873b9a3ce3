"""Undo as a pure track over the log: which seat's last actions may be taken back.

A seat may take back its own last actions while nobody else has acted, nothing
was drawn or rolled and nothing hidden was disclosed. On each move the rules make
the cheap checks (DecideResponse.undoable: no chance asked, nothing ended, nothing
told another seat in private); the match service then opens its batch with an
UndoPoint holding the action, unless the batch resolved chance or ended the match.
Whether the action disclosed anything is judged when the seat asks to undo it
(services/match/disclosure.py `undisclosed`: the rules replay the move in worlds its
seat cannot tell from the real one), since that costs more than the move and most
moves are never taken back. The track is stepped over every log event, by the
live path and the rebuild alike:

- an UndoPoint of seat s remembers the version before its batch (starting over
  if the track was another seat's) and covers the action's game events after it;
- ClockSet events leave it alone (a clock ticking is nobody's move);
- ActionsUndone forgets the actions it took back and counts the undo;
- anything else (chance, another seat's action without an UndoPoint, the end,
  a timeout) clears it.

A seat may undo at most MAX_UNDOS_PER_TURN times per turn: the count lives in
the track, so it starts again only when the track is cleared or another seat's
UndoPoint takes it over (another seat acted, chance happened, or the seat made
a move it cannot take back), and a rebuild counts as the live path does. With
the clocks restored by every undo (services/match/clocks.py `restore`), act and
undo costs the undoer its own time only; the bound keeps it from filling the
log or stalling the table with it.

An undo itself appends ActionsUndone with the engine state of the version it
returns to (services/match/app.py): the log only grows.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from tabletop.match.v1 import events_pb2 as ev

from services.common.errors import FailedPrecondition, InvalidArgument

# How many actions back a seat may go.
MAX_UNDO = 20
# How many undos a seat may make in one turn (see the module docstring).
MAX_UNDOS_PER_TURN = 3
UNDO_POINT = ev.UndoPoint.DESCRIPTOR.full_name
UNDONE = ev.ActionsUndone.DESCRIPTOR.full_name
# Events that are nobody's move.
UNDO_NEUTRAL = frozenset({ev.ClockSet.DESCRIPTOR.full_name})
PLATFORM_PREFIX = "tabletop.match.v1."


@dataclass(frozen=True)
class UndoTrack:
    seat: int = -1
    # The version before each of the seat's undoable actions, oldest first.
    versions: tuple[int, ...] = ()
    # Game events of the last UndoPoint's action still to come.
    covering: int = 0
    # The undos the seat has made this turn.
    undos: int = 0

    @property
    def available(self) -> int:
        """How many actions the seat may take back now (none once its undos are spent)."""
        return len(self.versions) if self.undos < MAX_UNDOS_PER_TURN else 0


CLEAR = UndoTrack()


def step(track: UndoTrack, version: int, type_name: str, data: bytes) -> UndoTrack:
    """The track after the log event at `version`."""
    if type_name == UNDO_POINT:
        point = ev.UndoPoint.FromString(data)
        if point.seat == track.seat:
            return UndoTrack(point.seat, (*track.versions, version - 1)[-MAX_UNDO:], point.events, track.undos)
        return UndoTrack(point.seat, (version - 1,), point.events)
    if track is CLEAR or type_name in UNDO_NEUTRAL:
        return track
    if track.covering > 0 and not type_name.startswith(PLATFORM_PREFIX):
        return UndoTrack(track.seat, track.versions, track.covering - 1, track.undos)
    if type_name == UNDONE:
        undone = ev.ActionsUndone.FromString(data)
        left = track.versions[: max(0, len(track.versions) - undone.count)]
        # Kept with nothing left to take back: the seat's turn goes on, and so does its count.
        return UndoTrack(track.seat, left, 0, track.undos + 1)
    return CLEAR


def steps(track: UndoTrack, first_version: int, events: Iterable[tuple[str, bytes]]) -> UndoTrack:
    """The track after events (type, data) logged from `first_version` on."""
    for offset, (type_name, data) in enumerate(events):
        track = step(track, first_version + offset, type_name, data)
    return track


def check_undo(track: UndoTrack, seat: int, count: int) -> int:
    """The version an undo of `seat`'s last `count` actions returns to; refuses otherwise."""
    if count < 1:
        raise InvalidArgument("count must be at least 1", "count")
    if not track.versions:
        raise FailedPrecondition(
            "nothing to undo: something was drawn, rolled or disclosed, or another seat acted", "undo.nothing_to_undo"
        )
    if track.seat != seat:
        raise FailedPrecondition(f"the last actions are seat {track.seat}'s, not seat {seat}'s", "undo.not_yours")
    if track.undos >= MAX_UNDOS_PER_TURN:
        raise FailedPrecondition(f"at most {MAX_UNDOS_PER_TURN} undos a turn", "undo.limit")
    if count > track.available:
        raise FailedPrecondition(f"only {track.available} action(s) can be taken back", "undo.too_many")
    return track.versions[-count]
