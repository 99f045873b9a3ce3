"""What a verifier expects of a clocked match's log: each ClockSet, and each timeout's move.

The match service writes these (services/match/timekeeping.py: `Timing.timed`,
`Timing.restored`, `_timeout_move`, `_forfeited`); they are restated here as pure functions of what the
log holds, so `tabletop verify` (services/match/audit.py) re-derives them offline.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from tabletop.common.v1 import common_pb2
from tabletop.match.v1 import events_pb2 as ev

from services.match import clocks
from services.match.clocks import Clock, ClockSettings


def wanted_clocks(
    settings: ClockSettings,
    before: Clock | None,
    at_ms: int,
    asked: tuple[int, ...],
    movers: frozenset[int] | None,
    undo: tuple[int, Clock | None] | None,
    seat_count: int,
) -> list[ev.ClockSet]:
    """The ClockSets a batch decided at `at_ms` may close with: after an undo by seat s back to
    a version whose clocks were c (`undo` = (s, c)), those clocks with s paying for the time
    since; else the clocks ticked for the seat whose move it was (one of `movers`; None or
    empty: nobody's move, as the join, the start and a timeout are)."""
    if undo is not None:
        undoer, past = undo
        past = past or before
        return [clocks.restore(past, at_ms, undoer)] if past is not None else []
    return [clocks.tick(settings, before, seat_count, at_ms, asked, mover) for mover in (movers or {None})]


def timeout_move(
    policy: str, legal: Sequence[object], passes: Sequence[str], match_id: str, version: int, seat: int
) -> tuple[str, object | None]:
    """The policy a timeout at `version` applies and the move it plays for `seat`: the most
    passive of `legal` under `pass` where there is one, else a bot's (a random legal action
    seeded by the match, the version before the timeout and the seat: None without the match id)."""
    found = [action for name in passes for action in legal if type(action).__name__ == name]
    if policy == "pass" and found:
        return "pass", found[0]
    if not match_id or not legal:
        return "bot", None
    return "bot", random.Random(f"{match_id}:{version - 1}:{seat}").choice(list(legal))


def forfeited(seat_count: int, seat: int) -> common_pb2.Outcome:
    """The outcome of a match `seat` lost on time: last place, every other seat shares first."""
    ranking = clocks.forfeit_ranking(seat_count, seat)
    return common_pb2.Outcome(
        ranking=ranking,
        scores=[0 if place > 1 else 1 for place in ranking],
        detail={"reason": "timeout", "forfeited": str(seat)},
    )
