"""Preconditions of the match lifecycle, each refusal naming its rule."""

from __future__ import annotations

from tabletop.match.v1 import match_service_pb2 as mpb
from tabletop.match.v1 import record_pb2

from services.common.errors import FailedPrecondition, InvalidArgument, PermissionDenied
from services.match.lifecycle import tenure


def require_status(record: record_pb2.MatchRecord, status: int, rule: str) -> None:
    if record.status != status:
        names = {1: "in the lobby", 2: "being played", 3: "finished"}
        raise FailedPrecondition(f"match {record.match_id} is {names.get(record.status, 'unknown')}", rule)


def require_seat_index(record: record_pb2.MatchRecord, seat: int) -> None:
    if not 0 <= seat < record.seat_count:
        raise InvalidArgument(f"seat {seat} does not exist (0-{record.seat_count - 1})", "seat")


def require_seated(record: record_pb2.MatchRecord, seat: int) -> None:
    require_seat_index(record, seat)
    if not record.players[seat]:
        raise PermissionDenied(f"seat {seat} is not taken", "match.seat_free")


def free_seat(record: record_pb2.MatchRecord, wanted: int | None) -> int:
    if wanted is not None:
        require_seat_index(record, wanted)
        if record.players[wanted]:
            raise FailedPrecondition(f"seat {wanted} is taken", "match.seat_taken")
        return wanted
    for seat, player in enumerate(record.players):
        if not player:
            return seat
    raise FailedPrecondition("the match is full", "match.full")


def require_holder(record: record_pb2.MatchRecord, seat: int, holder: mpb.SeatHolder | None) -> None:
    """A seat call's claimed holder must be the seat's current one (same player, same tenure)."""
    if holder is None or not holder.player_id:
        return
    require_seat_index(record, seat)
    if record.players[seat] != holder.player_id or tenure(record, seat) != holder.tenure:
        raise PermissionDenied(f"this seat token no longer holds seat {seat}", "auth.seat_changed")
