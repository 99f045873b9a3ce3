"""How the match service writes events into a match stream."""

from __future__ import annotations

from google.protobuf.message import Message
from tabletop.match.v1 import events_pb2 as ev
from tabletop.rules.v1 import rules_service_pb2 as rpb

from services.common.audience import Audience, from_wire
from services.common.store.event_store import NewEvent


def platform_event(message: Message) -> NewEvent:
    return NewEvent(type=message.DESCRIPTOR.full_name, data=message.SerializeToString())


def game_event(emitted: rpb.EmittedEvent) -> NewEvent:
    audience = from_wire(emitted.visibility.audience)
    seat = emitted.visibility.seat if emitted.visibility.HasField("seat") else -1
    redacted_type = emitted.redacted.type_url.rsplit("/", 1)[-1] if emitted.HasField("redacted") else ""
    return NewEvent(
        type=emitted.event.type_url.rsplit("/", 1)[-1],
        data=emitted.event.value,
        audience=audience,
        seat=seat,
        redacted_type=redacted_type,
        redacted=emitted.redacted.value if redacted_type else b"",
    )


def undo_event(undone: ev.ActionsUndone) -> NewEvent:
    """An undo carries the whole engine state it returns to: for the servers only;
    everyone reads who took back how much, without the state."""
    public = ev.ActionsUndone()
    public.CopyFrom(undone)
    public.ClearField("state")
    return NewEvent(
        type=undone.DESCRIPTOR.full_name,
        data=undone.SerializeToString(),
        audience=Audience.SERVER,
        redacted_type=public.DESCRIPTOR.full_name,
        redacted=public.SerializeToString(),
    )


def undo_point_event(point: ev.UndoPoint) -> NewEvent:
    """An undo point carries its seat's action (for judging the undo later): for the
    servers only; everyone reads whose action may be taken back and its size."""
    public = ev.UndoPoint(seat=point.seat, events=point.events)
    return NewEvent(
        type=point.DESCRIPTOR.full_name,
        data=point.SerializeToString(),
        audience=Audience.SERVER,
        redacted_type=public.DESCRIPTOR.full_name,
        redacted=public.SerializeToString(),
    )


def chance_event(resolved: ev.ChanceResolved) -> NewEvent:
    """A deal to one seat, or cards one seat put back, are that seat's;
    everyone else sees the record without the cards."""
    request = resolved.request
    kind = request.WhichOneof("kind")
    private = kind in ("draw_cards", "put_cards") and getattr(request, kind).HasField("seat")
    if not private:
        return platform_event(resolved)
    hidden = ev.ChanceResolved()
    hidden.CopyFrom(resolved)
    if kind == "draw_cards":
        hidden.ClearField("outcome")
    else:
        hidden.request.put_cards.ClearField("cards")
    return NewEvent(
        type=resolved.DESCRIPTOR.full_name,
        data=resolved.SerializeToString(),
        audience=Audience.SEAT,
        seat=getattr(request, kind).seat,
        redacted_type=hidden.DESCRIPTOR.full_name,
        redacted=hidden.SerializeToString(),
    )
