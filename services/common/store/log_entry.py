"""An event as the log keeps it (`tabletop.common.v1.LogEntry`), to and from the
event store's types: one conversion for the Redis backend, which stores it, and
for the match service, which hands the gateway what an action appended."""

from __future__ import annotations

from tabletop.common.v1 import log_pb2

from services.common.audience import Audience, to_wire
from services.common.store.event_store import NewEvent, StoredEvent

_AUDIENCES = {int(audience): audience for audience in Audience}


def entry(event: NewEvent, command_id: str) -> log_pb2.LogEntry:
    return log_pb2.LogEntry(
        type=event.type,
        data=event.data,
        audience=to_wire(event.audience),
        seat=event.seat,
        redacted_type=event.redacted_type,
        redacted=event.redacted,
        command_id=command_id,
    )


def stored(version: int, logged: log_pb2.LogEntry) -> StoredEvent:
    """The event at `version` of a log. An audience this build cannot read stays on the servers."""
    # tuple.__new__ with the fields in order: what StoredEvent(...) does, without the
    # Python-level call of the named tuple's __new__ (a rebuild makes thousands).
    return _make(
        StoredEvent,
        (
            version,
            logged.type,
            logged.data,
            _AUDIENCES.get(logged.audience, Audience.SERVER),
            logged.seat,
            logged.redacted_type,
            logged.redacted,
            logged.command_id,
        ),
    )


_make = tuple.__new__
