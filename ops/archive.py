"""A match's whole log as a file, and what can be read from it without any server.

`tabletop admin export` writes one (the operator reads the event store directly,
hidden events included); `tabletop verify --file` and `tabletop replay --file`
read one offline. Offline replay folds the log with the game's own engine, in
process, through the same match use cases the match service runs (over an
in-memory store), so a file shows exactly what the live service showed: any
version, as any seat or a spectator saw it.

The file is JSON: {"format": "tabletop-match/1", "match_id": ..., "events": [
{"version", "type", "data" (base64), "audience", "seat", "redacted_type",
"redacted" (base64), "command_id"}, ...]}. It holds every seat's secrets: keep it
as private as the event store itself.
"""

from __future__ import annotations

import base64
import json
import pathlib
from collections.abc import Sequence
from typing import NoReturn, cast

from google.protobuf import any_pb2

from services.common.audience import Audience
from services.common.redis.keys import match_stream
from services.common.rpc.ports import DeckPort, DicePort
from services.common.store.event_store import MemoryEventStore, NewEvent, StoredEvent
from services.match.app import MatchApp
from services.match.lifecycle import Match

FORMAT = "tabletop-match/1"


class ArchiveError(ValueError):
    """A file that is not a match archive this version can read."""


def dump(match_id: str, events: Sequence[StoredEvent]) -> str:
    """The archive text of a match's log."""
    return json.dumps({
        "format": FORMAT,
        "match_id": match_id,
        "events": [
            {
                "version": e.version, "type": e.type, "data": _b64(e.data), "audience": int(e.audience),
                "seat": e.seat, "redacted_type": e.redacted_type, "redacted": _b64(e.redacted),
                "command_id": e.command_id,
            }
            for e in events
        ],
    }, indent=1)


def load(path: pathlib.Path) -> tuple[str, list[StoredEvent]]:
    """(match id, events) of an archive file; ArchiveError for anything else."""
    try:
        data = json.loads(path.read_text())
        if data.get("format") != FORMAT:
            raise ArchiveError(f"{path} is not a {FORMAT} archive")
        events = [
            StoredEvent(
                version=int(e["version"]), type=str(e["type"]), data=base64.b64decode(e["data"]),
                audience=Audience(int(e["audience"])), seat=int(e["seat"]), redacted_type=str(e["redacted_type"]),
                redacted=base64.b64decode(e["redacted"]), command_id=str(e["command_id"]),
            )
            for e in data["events"]
        ]
    except (OSError, json.JSONDecodeError, KeyError, TypeError, ValueError) as error:
        if isinstance(error, ArchiveError):
            raise
        raise ArchiveError(f"{path} is not a readable match archive: {error}") from None
    if [e.version for e in events] != list(range(1, len(events) + 1)):
        raise ArchiveError(f"{path}: the versions are not 1..{len(events)} in order")
    return str(data["match_id"]), events


class _Offline:
    """Dice and deck stand-ins: folding a log never rolls or draws (a call would be a bug)."""

    def __getattr__(self, name: str) -> NoReturn:
        raise RuntimeError(f"an offline replay does not call {name}")


async def replayer(match_id: str, events: Sequence[StoredEvent]) -> MatchApp:
    """The match use cases over an in-memory store holding `events`, with every engine in process."""
    from services.common.rpc.adapters import RulesClient
    from services.games import registry
    from services.rules.app import EngineHost
    from services.rules.servicer import RulesServicer

    store = MemoryEventStore(lease_ms=0)
    batch = [NewEvent(e.type, e.data, e.audience, e.seat, e.redacted_type, e.redacted) for e in events]
    await store.append(match_stream(match_id), 0, batch)
    rules = {
        name: RulesClient.in_process(RulesServicer(EngineHost(registry.game(name))), "match")
        for name in registry.available()
    }
    offline = _Offline()
    return MatchApp(store, rules, cast(DicePort, offline), cast(DeckPort, offline))


async def view_at(
    match_id: str, events: Sequence[StoredEvent], version: int, seat: int | None
) -> tuple[Match, any_pb2.Any | None]:
    """The match at `version` and what `seat` (None: a spectator) saw then."""
    app = await replayer(match_id, events)
    return await app.view_at(match_id, version, seat)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()
