"""What one viewer may read of a match log."""

from __future__ import annotations

from dataclasses import dataclass

from google.protobuf import any_pb2
from tabletop.common.v1 import common_pb2
from tabletop.gateway.v1 import gateway_pb2 as pb
from tabletop.rules.v1 import rules_service_pb2 as rpb

from services.common.audience import entitled, to_wire
from services.common.lru import LRU
from services.common.store.event_store import StoredEvent

# Built entries kept: the last events of the matches this gateway serves.
ENTRIES_KEPT = 8192


def _packed(type_name: str, data: bytes) -> any_pb2.Any:
    return any_pb2.Any(type_url=f"type.googleapis.com/{type_name}", value=data)


# Entries built, by event: the event itself (held, so its id names nothing else while
# kept), then its whole and its redacted entry once built. Every watcher of a match is
# sent the very same event objects (its feed's), and a built entry is only ever copied
# from (into each update). Keyed by identity: hashing an event hashes its payload.
@dataclass(slots=True)
class _Built:
    event: StoredEvent
    whole: pb.LogEntry | None = None
    redacted: pb.LogEntry | None = None


_BUILT: LRU[int, _Built] = LRU(ENTRIES_KEPT, fifo=True)


def entry_for(event: StoredEvent, viewer: int | None, finished: bool, live: bool = False) -> pb.LogEntry | None:
    """The entry `viewer` (a seat, None for a spectator) sees, or None.

    Whoever is entitled to the event (services/common/audience.py) reads it
    whole; others get the redacted form if the engine gave one. A `live` event (a
    watcher's, from the feed every watcher of the match shares) is built once for all.
    """
    if entitled(event.audience, event.seat, viewer, finished):
        whole = True
    elif event.redacted_type:
        whole = False
    else:
        return None
    if not live:
        return _built(event, whole)
    kept = _BUILT.get(id(event))
    if kept is None or kept.event is not event:
        kept = _BUILT.put(id(event), _Built(event))
    if whole:
        if kept.whole is None:
            kept.whole = _built(event, whole)
        return kept.whole
    if kept.redacted is None:
        kept.redacted = _built(event, whole)
    return kept.redacted


def _built(event: StoredEvent, whole: bool) -> pb.LogEntry:
    visibility = common_pb2.Visibility(audience=to_wire(event.audience))
    if event.seat >= 0:
        visibility.seat = event.seat
    if whole:
        return pb.LogEntry(
            version=event.version, type=event.type, event=_packed(event.type, event.data), visibility=visibility
        )
    return pb.LogEntry(
        version=event.version,
        type=event.redacted_type,
        event=_packed(event.redacted_type, event.redacted),
        visibility=visibility,
        redacted=True,
    )


def entries_for(events: list[StoredEvent], viewer: int | None, finished: bool, live: bool = False) -> list[pb.LogEntry]:
    return [e for e in (entry_for(event, viewer, finished, live) for event in events) if e is not None]


def view_for(position: rpb.Position, viewer: int | None) -> any_pb2.Any:
    """What `viewer` sees of a whole position: its own seat's view, or the spectator's.

    `viewer` must be a seat the caller's token still holds (callers.still_holding):
    another seat's view holds that seat's secrets.
    """
    if viewer is None:
        return position.spectator_view
    return _seat(position, viewer).view


def legal_actions_for(position: rpb.Position, seat: int) -> list[any_pb2.Any]:
    """The legal actions of `seat` (a seat the caller holds) in a whole position."""
    return list(_seat(position, seat).legal_actions)


def _seat(position: rpb.Position, seat: int) -> rpb.SeatPosition:
    for part in position.seats:
        if part.seat == seat:
            return part
    return rpb.SeatPosition(seat=seat)
