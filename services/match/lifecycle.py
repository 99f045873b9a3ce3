"""The match record: what the platform derives from a match log.

`apply` folds one platform event into a record; the live path and the replay
path both go through it, so a rebuilt record equals the live one. Game events
are folded by the game's rules service, not here.
"""

from __future__ import annotations

from google.protobuf.message import Message
from tabletop.match.v1 import events_pb2 as ev
from tabletop.match.v1 import match_service_pb2 as mpb
from tabletop.match.v1 import record_pb2

PLATFORM_EVENTS: dict[str, type[Message]] = {
    cls.DESCRIPTOR.full_name: cls
    for cls in (
        ev.MatchCreated,
        ev.PlayerJoined,
        ev.PlayerLeft,
        ev.MatchStarted,
        ev.ChanceResolved,
        ev.MatchEnded,
        ev.SeedRevealed,
    )
}


def new_record(match_id: str) -> record_pb2.MatchRecord:
    return record_pb2.MatchRecord(match_id=match_id, version=0)


def copy(record: record_pb2.MatchRecord) -> record_pb2.MatchRecord:
    fresh = record_pb2.MatchRecord()
    fresh.CopyFrom(record)
    return fresh


def apply(record: record_pb2.MatchRecord, event: Message) -> None:
    """Fold one platform event into `record` (in place: records are private copies)."""
    match event:
        case ev.MatchCreated():
            record.game = event.game
            record.config.update(event.config)
            record.seat_count = event.seat_count
            record.players.extend([""] * event.seat_count)
            record.tenures.extend([0] * event.seat_count)
            record.names.extend([""] * event.seat_count)
            record.status = mpb.MATCH_STATUS_LOBBY
            record.seed_commitment = event.seed_commitment
        case ev.PlayerJoined():
            record.players[event.seat] = event.player_id
            _pad_tenures(record)
            # Logs written before tenures were recorded count one per join.
            record.tenures[event.seat] = event.tenure or record.tenures[event.seat] + 1
            record.names[event.seat] = event.display_name
        case ev.PlayerLeft():
            record.players[event.seat] = ""
            _pad_tenures(record)
            record.names[event.seat] = ""
        case ev.MatchStarted():
            record.status = mpb.MATCH_STATUS_ACTIVE
        case ev.ChanceResolved():
            _apply_chance(record, event)
        case ev.MatchEnded():
            record.status = mpb.MATCH_STATUS_FINISHED
            record.outcome.CopyFrom(event.outcome)
        case ev.SeedRevealed():
            pass


def _pad_tenures(record: record_pb2.MatchRecord) -> None:
    """Records folded from logs (or snapshots) older than tenures and names get them here."""
    record.tenures.extend([0] * (record.seat_count - len(record.tenures)))
    record.names.extend([""] * (record.seat_count - len(record.names)))


def _name(record: record_pb2.MatchRecord, seat: int) -> str:
    return record.names[seat] if seat < len(record.names) else ""


def tenure(record: record_pb2.MatchRecord, seat: int) -> int:
    """How many times `seat` has been taken."""
    return record.tenures[seat] if seat < len(record.tenures) else 0


def _apply_chance(record: record_pb2.MatchRecord, event: ev.ChanceResolved) -> None:
    kind = event.request.WhichOneof("kind")
    if event.counter >= 0:
        record.next_counter = event.counter + 1
    if kind == "shuffle_pile":
        request = event.request.shuffle_pile
        mark = _pile(record, request.pile)
        mark.counter, mark.size, mark.dealt = event.counter, len(request.cards), 0
    elif kind == "draw_cards":
        _pile(record, event.request.draw_cards.pile).dealt += event.request.draw_cards.count
    elif kind == "put_cards":
        # The put made a new version of the pile under this draw number.
        mark = _pile(record, event.request.put_cards.pile)
        mark.counter, mark.size, mark.dealt = event.counter, event.outcome.cards_put.size, 0


def _pile(record: record_pb2.MatchRecord, name: str) -> record_pb2.PileMark:
    for mark in record.piles:
        if mark.pile == name:
            return mark
    return record.piles.add(pile=name)


def pile_mark(record: record_pb2.MatchRecord, name: str) -> record_pb2.PileMark | None:
    for mark in record.piles:
        if mark.pile == name:
            return mark
    return None


def summary(record: record_pb2.MatchRecord) -> mpb.MatchSummary:
    """The public face of a record."""
    message = mpb.MatchSummary(
        match_id=record.match_id,
        game=record.game,
        config=dict(record.config),
        seat_count=record.seat_count,
        status=record.status,
        version=record.version,
        seed_commitment=record.seed_commitment,
    )
    message.seats.extend(
        mpb.Seat(seat=i, player_id=p, tenure=tenure(record, i), display_name=_name(record, i))
        for i, p in enumerate(record.players)
    )
    if record.status == mpb.MATCH_STATUS_ACTIVE:
        message.to_move.extend(record.turn.seats)
    if record.HasField("outcome"):
        message.outcome.CopyFrom(record.outcome)
    return message
