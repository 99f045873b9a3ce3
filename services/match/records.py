"""The match's generated forms: the MatchRecord snapshot, the public summary, the rules' turn.

The domain (services/match/lifecycle.py) never touches these messages; the
match service converts here, at its edges. Snapshots written before tenures
and names were recorded still load (they get them padded).
"""

from __future__ import annotations

from types import MappingProxyType
from typing import cast

from tabletop.common.v1 import chance_pb2, common_pb2
from tabletop.match.v1 import match_service_pb2 as mpb
from tabletop.match.v1 import record_pb2
from tabletop.rules.v1 import rules_service_pb2 as rpb

from services.common.draws import Pile
from services.match import clocks
from services.match.clocks import Clock
from services.match.lifecycle import Holder, Match, Status, Turn
from services.match.undo import CLEAR, UndoTrack


def to_record(match: Match) -> record_pb2.MatchRecord:
    record = record_pb2.MatchRecord(
        match_id=match.match_id,
        version=match.version,
        game=match.game,
        config=dict(match.config),
        seat_count=match.seat_count,
        players=match.players,
        status=wire_status(match.status),
        seed_commitment=match.seed_commitment,
        next_counter=match.next_counter,
        piles=[record_pb2.PileMark(pile=p.name, counter=p.counter, size=p.size, dealt=p.dealt) for p in match.piles],
        tenures=match.tenures,
        names=match.names,
    )
    if match.engine_state is not None:
        record.state.CopyFrom(rpb.EngineState(game=match.game, data=match.engine_state))
        record.turn.CopyFrom(turn_message(match.turn))
    if match.outcome is not None:
        record.outcome.CopyFrom(match.outcome)
    if match.clock is not None:
        record.clock.CopyFrom(clocks.clock_set(match.clock))
    record.undo_seat = match.undo.seat
    record.undo_versions.extend(match.undo.versions)
    record.undo_covering = match.undo.covering
    record.undo_count = match.undo.undos
    return record


def from_record(record: record_pb2.MatchRecord) -> Match:
    n = record.seat_count
    return Match(
        match_id=record.match_id,
        version=record.version,
        game=record.game,
        config=MappingProxyType(dict(record.config)),
        seat_count=n,
        players=tuple(record.players),
        tenures=(*record.tenures, *(0,) * (n - len(record.tenures))),
        names=(*record.names, *("",) * (n - len(record.names))),
        status=Status(record.status),
        seed_commitment=record.seed_commitment,
        next_counter=record.next_counter,
        piles=tuple(Pile(m.pile, m.counter, m.size, m.dealt) for m in record.piles),
        engine_state=record.state.data if record.HasField("state") else None,
        turn=turn_of(record.turn),
        outcome=_copy(record.outcome) if record.HasField("outcome") else None,
        clock=clocks.folded(record.clock) if record.HasField("clock") else None,
        # Snapshots older than undo have none: nothing could be taken back then.
        undo=UndoTrack(record.undo_seat, tuple(record.undo_versions), record.undo_covering, record.undo_count)
        if record.undo_versions or record.undo_count
        else CLEAR,
    )


def turn_of(message: rpb.Turn) -> Turn:
    """The domain's turn from the rules' answer."""
    chance = None
    if message.HasField("chance"):
        chance = chance_pb2.ChanceRequest()
        chance.CopyFrom(message.chance)
    return Turn(seats=tuple(message.seats), chance=chance, finished=message.finished)


def turn_message(turn: Turn) -> rpb.Turn:
    message = rpb.Turn(seats=turn.seats, finished=turn.finished)
    if turn.chance is not None:
        message.chance.CopyFrom(turn.chance)
    return message


def engine_state(match: Match) -> rpb.EngineState:
    """The engine state to hand the rules (empty before the start)."""
    return rpb.EngineState(game=match.game, data=match.engine_state or b"")


def holder_of(message: mpb.SeatHolder | None) -> Holder | None:
    return Holder(message.player_id, message.tenure) if message is not None else None


def summary(match: Match) -> mpb.MatchSummary:
    """The public face of a match."""
    message = mpb.MatchSummary(
        match_id=match.match_id,
        game=match.game,
        config=dict(match.config),
        seat_count=match.seat_count,
        status=wire_status(match.status),
        version=match.version,
        seed_commitment=match.seed_commitment,
    )
    message.seats.extend(
        mpb.Seat(seat=i, player_id=p, tenure=match.tenure(i), display_name=match.name(i))
        for i, p in enumerate(match.players)
    )
    if match.status == Status.ACTIVE:
        message.to_move.extend(match.turn.seats)
    if match.outcome is not None:
        message.outcome.CopyFrom(match.outcome)
    if match.clock is not None:
        message.clocks.extend(clock_views(match.clock, match.status == Status.ACTIVE))
    if match.status == Status.ACTIVE and match.undo.available:
        message.undoable, message.undo_seat = match.undo.available, match.undo.seat
    return message


def clock_views(clock: Clock, active: bool) -> list[mpb.SeatClockView]:
    """Each seat's clock for clients; nothing runs once the match is over."""
    views = []
    for seat, left in enumerate(clock.remaining_ms):
        deadline = clock.deadline(seat) if active else None
        views.append(
            mpb.SeatClockView(seat=seat, remaining_ms=left, running=deadline is not None, deadline_ms=deadline or 0)
        )
    return views


def wire_status(status: Status) -> mpb.MatchStatus:
    """The contract's value of `status`: the same number (the stubs cannot know that)."""
    return cast(mpb.MatchStatus, int(status))


def _copy(outcome: common_pb2.Outcome) -> common_pb2.Outcome:
    fresh = common_pb2.Outcome()
    fresh.CopyFrom(outcome)
    return fresh
