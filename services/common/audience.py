"""Who may read an event: the one audience enum and the one entitlement rule.

`Audience` is the engine contract's enum, numbered as the wire's
`tabletop.common.v1.Audience`, so engines, the rules contract, the event store
and the gateway's log entries all carry the same values with no table between
them. Every read path asks `entitled` whether a viewer may read an event.
"""

from __future__ import annotations

from typing import cast

from tabletop.common.v1 import common_pb2

from services.games.common.engine import Audience

__all__ = ["Audience", "entitled", "from_wire", "to_wire"]


def to_wire(audience: Audience) -> common_pb2.Audience:
    """The contract's value of `audience`: the same number (the stubs cannot know that)."""
    return cast(common_pb2.Audience, int(audience))


def from_wire(value: int) -> Audience:
    """The audience a contract message names; an unknown or unset one is treated as
    server-only, so a value we cannot read never reaches a player."""
    try:
        return Audience(value)
    except ValueError:
        return Audience.SERVER


def entitled(audience: Audience, event_seat: int, viewer: int | None, finished: bool) -> bool:
    """Whether `viewer` (a seat, None for a spectator) may read an event in full.

    Public events reach everyone; a seat's events reach that seat, and everyone
    once the match has ended (nothing is secret any more then); server-only
    events never leave the servers.
    """
    if audience == Audience.PUBLIC:
        return True
    if audience == Audience.SEAT:
        return finished or (viewer is not None and viewer == event_seat)
    return False
