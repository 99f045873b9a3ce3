"""Turn clocks as pure arithmetic over the log.

A clocked match ends every batch with a ClockSet event: the time the batch was
decided at and every seat's time left, running for the seats asked to act. A
deadline is therefore read from the log (at_ms + remaining_ms of a running
seat), never kept in a timer, so it survives any process; the keeper
(services/match/keeper.py) only wakes up at it.

How time is spent (`tick`), for the seats that were running:
- each loses the time since the last ClockSet;
- a seat that moved gets, in `move` mode, a fresh allowance for its next
  decision, and in `game` mode its increment;
- a seat newly asked to act gets, in `move` mode, a fresh allowance; in `game`
  mode its bank runs on from where it stopped.
A move the clock made for a seat (a timeout) earns nothing, so a seat that is
away keeps timing out until the game stops asking it: the policy plays its
whole turn.

An undo does not tick: it returns the clocks to the version it returns to,
and its seat pays for the time since (`restore`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from tabletop.match.v1 import events_pb2 as ev

from services.common.table_options import table_config


@dataclass(frozen=True)
class ClockSettings:
    mode: str  # "move" or "game"
    allowance_ms: int
    increment_ms: int
    policy: str  # "pass", "bot" or "forfeit"


@dataclass(frozen=True)
class Clock:
    """Every seat's clock as the last ClockSet left it."""

    at_ms: int = 0
    remaining_ms: tuple[int, ...] = ()
    running: tuple[int, ...] = ()

    def deadline(self, seat: int) -> int | None:
        """When `seat`'s time runs out, if its clock runs."""
        return self.at_ms + self.remaining_ms[seat] if seat in self.running else None

    def next_deadline(self) -> int | None:
        deadlines = [self.at_ms + self.remaining_ms[seat] for seat in self.running]
        return min(deadlines) if deadlines else None

    def overdue(self, now_ms: int) -> list[int]:
        """The running seats whose time has run out by `now_ms`, earliest first."""
        deadlines = sorted((self.at_ms + self.remaining_ms[seat], seat) for seat in self.running)
        return [seat for deadline, seat in deadlines if deadline <= now_ms]


def settings_of(config: Mapping[str, str]) -> ClockSettings | None:
    """The match's clock settings; None for an unclocked match. The config was
    checked when the match was created, so a bad value cannot be here. Asked on every
    write: an unclocked match answers without parsing its options."""
    if config.get("clock", "none") == "none":
        return None
    table = table_config(config)
    if table["clock"] == "none":
        return None
    return ClockSettings(
        mode=str(table["clock"]),
        allowance_ms=int(table["clock_seconds"]) * 1000,
        increment_ms=int(table["clock_increment"]) * 1000,
        policy=str(table["clock_timeout"]),
    )


def tick(
    settings: ClockSettings,
    clock: Clock | None,
    seat_count: int,
    now_ms: int,
    asked: tuple[int, ...],
    mover: int | None,
) -> ev.ClockSet:
    """The ClockSet that closes a batch decided at `now_ms`, after which `asked` are
    asked to act; `mover` is the seat whose own move the batch was (None for any
    other batch, a timeout move included). `clock` None: the match's first ClockSet."""
    if clock is None:
        clock = Clock(now_ms, (settings.allowance_ms,) * seat_count, ())
    elapsed = max(0, now_ms - clock.at_ms)
    remaining = list(clock.remaining_ms)
    for seat in clock.running:
        remaining[seat] = max(0, remaining[seat] - elapsed)
    if mover is not None:
        if settings.mode == "move":
            remaining[mover] = settings.allowance_ms
        else:
            remaining[mover] += settings.increment_ms
    if settings.mode == "move":
        for seat in asked:
            if seat not in clock.running:
                remaining[seat] = settings.allowance_ms
    return clock_set(Clock(now_ms, tuple(remaining), tuple(asked)))


def restore(past: Clock, now_ms: int, undoer: int) -> ev.ClockSet:
    """The ClockSet that closes an undo at `now_ms` back to the version `past` is the
    clock of: every seat's clock as it was then, running for the seats asked then,
    except that the undoer pays all the time since (its allowance then in `move` mode,
    its bank then in `game` mode, less that time, never below 0). So an undo moves no
    time between seats: whatever ran off another seat's clock after the undone actions
    is back on it, and acting, waiting and undoing spends the undoer's time only."""
    spent = max(0, now_ms - past.at_ms)
    remaining = list(past.remaining_ms)
    remaining[undoer] = max(0, remaining[undoer] - spent)
    return clock_set(Clock(now_ms, tuple(remaining), past.running))


def clock_set(clock: Clock) -> ev.ClockSet:
    """The ClockSet that leaves `clock` (also its snapshot form)."""
    return ev.ClockSet(
        at_ms=clock.at_ms,
        seats=[
            ev.SeatClock(seat=seat, remaining_ms=left, running=seat in clock.running)
            for seat, left in enumerate(clock.remaining_ms)
        ],
    )


def folded(event: ev.ClockSet) -> Clock:
    """The clock a ClockSet leaves."""
    ordered = sorted(event.seats, key=lambda s: s.seat)
    return Clock(
        at_ms=event.at_ms,
        remaining_ms=tuple(s.remaining_ms for s in ordered),
        running=tuple(s.seat for s in ordered if s.running),
    )


def forfeit_ranking(seat_count: int, forfeited: int) -> list[int]:
    """Places when `forfeited` loses on time: every other seat shares first place."""
    return [2 if seat == forfeited else 1 for seat in range(seat_count)]
