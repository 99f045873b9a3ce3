"""Append-only event streams: one interface, a Redis and an in-memory backend.

A stream's version is its number of events; event n is stored at position n
(1-based). An append names the version it expects and lands whole or not at
all; a command id makes it idempotent: a retry gets the first answer and
appends nothing. A command id is stored with the fingerprint of the request
it answered (who asked, for which seat, what): the same id with another
fingerprint is refused (CommandReused), so nobody replays someone else's.
The Redis backend does both checks in one server-side script.

A writer may name itself (`owner`) to hold a stream's write lease: the first
append of an owner to a stream nobody holds takes it for `lease_ms`, and each
of its appends renews it. While a lease is held, appends by anyone else wait
until it lapses (and ask the holder, through the store, not to renew it), so
the holder alone moves the stream: it may trust what it cached instead of
asking the stream's version. `AppendResult.lease_ms` says for how long, from
the moment the append was sent, the writer holds the lease (0: it holds none).
All keys of one stream share the hash tag `{name}`, so it runs on a cluster.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import NamedTuple, Protocol

from services.common.audience import Audience
from services.common.errors import Aborted, ResourceExhausted


class VersionConflict(Exception):
    """The stream moved on; `actual` is its current version."""

    def __init__(self, stream: str, expected: int, actual: int) -> None:
        super().__init__(f"stream {stream}: expected version {expected}, found {actual}")
        self.expected = expected
        self.actual = actual


# Ceilings on what one append may store: far above any game's needs (an event
# is a few hundred bytes, an action's chance settles in far fewer events), so
# only a fault or an abuse meets them, and it is refused whole.
MAX_EVENT_BYTES = 256 * 1024
MAX_EVENTS_PER_APPEND = 20_000
MAX_SNAPSHOT_BYTES = 16 * 1024 * 1024


def check_sizes(events: Sequence[NewEvent]) -> None:
    """ResourceExhausted if an append would store more than the ceilings allow."""
    if len(events) > MAX_EVENTS_PER_APPEND:
        raise ResourceExhausted(f"an append holds at most {MAX_EVENTS_PER_APPEND} events", "store.too_large")
    if any(len(e.data) + len(e.redacted) > MAX_EVENT_BYTES for e in events):
        raise ResourceExhausted(f"an event is at most {MAX_EVENT_BYTES} bytes", "store.too_large")


def check_snapshot(snapshot: Snapshot) -> None:
    if len(snapshot.data) > MAX_SNAPSHOT_BYTES:
        raise ResourceExhausted(f"a snapshot is at most {MAX_SNAPSHOT_BYTES} bytes", "store.too_large")


class CommandReused(Exception):
    """A command id already answered a different request (another caller, action or seat)."""

    def __init__(self, stream: str, command_id: str) -> None:
        super().__init__(f"stream {stream}: command id {command_id!r} was used for another request")
        self.command_id = command_id


@dataclass(frozen=True)
class NewEvent:
    """An event to append: its proto type name, bytes and audience."""

    type: str
    data: bytes
    audience: Audience = Audience.PUBLIC
    seat: int = -1
    # What readers outside the audience see instead (empty: nothing).
    redacted_type: str = ""
    redacted: bytes = b""


class StoredEvent(NamedTuple):
    """An event as read back, with its position in the stream. A named tuple, not
    a dataclass: a rebuild reads thousands, and a frozen dataclass's constructor
    costs twice a tuple's."""

    version: int
    type: str
    data: bytes
    audience: Audience = Audience.PUBLIC
    seat: int = -1
    redacted_type: str = ""
    redacted: bytes = b""
    command_id: str = ""


# An event as a fold reads it: its type's full name and its serialized message.
Payload = tuple[str, bytes]


@dataclass(frozen=True)
class AppendResult:
    """Versions before and after the append; `duplicate` for a replayed command."""

    first_version: int
    last_version: int
    duplicate: bool = False
    # How long the writer holds the stream's lease, counted from when it sent the append.
    lease_ms: int = 0


# How long a stream's write lease lasts after its holder's last append, unless configured.
DEFAULT_LEASE_MS = 3000
# How long a waiting writer's ask outlives the lease it waits for: its holder must
# not renew between the lease running out and the waiter's next attempt.
WANT_MARGIN_S = 1.0


class Leased(Exception):
    """Another writer holds the stream's lease for `remaining_ms` more."""

    def __init__(self, stream: str, remaining_ms: int) -> None:
        super().__init__(f"stream {stream}: leased by another writer for {remaining_ms} ms")
        self.remaining_ms = remaining_ms


async def waiting_out_leases(stream: str, attempt: Callable[[], Awaitable[AppendResult]]) -> AppendResult:
    """`attempt` until no other writer's lease stands in its way. A holder that is
    asked to let go stops renewing, so this waits about what was left of its lease;
    twice that (a holder that keeps writing despite the ask) is a contention error."""
    deadline: float | None = None
    while True:
        try:
            return await attempt()
        except Leased as leased:
            now, wait = time.monotonic(), max(leased.remaining_ms, 1) / 1000
            if deadline is None:
                deadline = now + 2 * wait + WANT_MARGIN_S
            if now > deadline:
                raise Aborted(f"stream {stream} is held by another writer, retry", "store.leased") from None
            await asyncio.sleep(wait)


@dataclass(frozen=True)
class Snapshot:
    version: int
    data: bytes


class EventStore(Protocol):
    """What the match service and the read models need of storage."""

    async def append(
        self,
        stream: str,
        expected_version: int,
        events: Sequence[NewEvent],
        command_id: str = "",
        fingerprint: str = "",
        owner: str = "",
    ) -> AppendResult:
        """Append atomically if the stream is at `expected_version`; raises VersionConflict,
        or CommandReused for a known command id with another fingerprint. A named `owner`
        takes or renews the stream's lease (see the module's notes); anyone else waits
        out a lease another writer holds before appending."""

    async def command(self, stream: str, command_id: str, fingerprint: str = "") -> AppendResult | None:
        """The answer already given to `command_id`, if any (duplicate=True); raises
        CommandReused if it answered a request with another fingerprint."""

    async def read(self, stream: str, after_version: int = 0, limit: int = 0) -> list[StoredEvent]:
        """Events after `after_version`, oldest first (limit 0: all)."""

    async def read_payloads(self, stream: str, after_version: int = 0, limit: int = 0) -> list[Payload]:
        """What a fold reads of the events after `after_version`: (type, data) each,
        oldest first (limit 0: all). A log has no gaps, so the i-th is at version
        `after_version` + 1 + i. Cheaper than `read` by what a rebuild of thousands
        of events does not need: audience, seat, redaction and command id."""

    async def version(self, stream: str) -> int:
        """The number of events in the stream (0 if it does not exist)."""

    async def wait(self, stream: str, after_version: int, timeout: float) -> list[StoredEvent]:
        """Events after `after_version`, blocking up to `timeout` s until there are some."""

    async def save_snapshot(self, stream: str, snapshot: Snapshot) -> None:
        """Keep `snapshot` if it is newer than the one stored."""

    async def load_snapshot(self, stream: str) -> Snapshot | None:
        """The newest snapshot, if any."""

    async def streams(self, limit: int = 0) -> list[str]:
        """Names of streams created so far, newest first."""


@dataclass
class _MemoryStream:
    events: list[StoredEvent] = field(default_factory=list)
    commands: dict[str, tuple[AppendResult, str]] = field(default_factory=dict)
    snapshot: Snapshot | None = None
    changed: asyncio.Condition = field(default_factory=asyncio.Condition)
    # The lease: who holds it until when, and until when another writer waits for it (monotonic s).
    holder: str = ""
    held_until: float = 0.0
    wanted_until: float = 0.0


class MemoryEventStore:
    """The in-memory backend: same semantics, one process."""

    def __init__(self, lease_ms: int = DEFAULT_LEASE_MS) -> None:
        self._lease_ms = lease_ms
        self._streams: dict[str, _MemoryStream] = {}
        self._order: list[str] = []

    def _stream(self, name: str) -> _MemoryStream:
        if name not in self._streams:
            self._streams[name] = _MemoryStream()
        return self._streams[name]

    async def append(
        self,
        stream: str,
        expected_version: int,
        events: Sequence[NewEvent],
        command_id: str = "",
        fingerprint: str = "",
        owner: str = "",
    ) -> AppendResult:
        check_sizes(events)

        async def attempt() -> AppendResult:
            return await self._append(stream, expected_version, events, command_id, fingerprint, owner)

        return await waiting_out_leases(stream, attempt)

    async def _append(
        self,
        stream: str,
        expected_version: int,
        events: Sequence[NewEvent],
        command_id: str,
        fingerprint: str,
        owner: str,
    ) -> AppendResult:
        s = self._stream(stream)
        if command_id and (previous := await self.command(stream, command_id, fingerprint)) is not None:
            return previous
        now = time.monotonic()
        if s.holder and s.held_until <= now:
            s.holder = ""
        if s.holder and s.holder != owner:
            s.wanted_until = s.held_until + WANT_MARGIN_S
            raise Leased(stream, int((s.held_until - now) * 1000) + 1)
        current = len(s.events)
        if current != expected_version:
            raise VersionConflict(stream, expected_version, current)
        if current == 0 and events:
            self._order.append(stream)
        for offset, event in enumerate(events, start=1):
            s.events.append(_stored(current + offset, event, command_id))
        result = AppendResult(current + 1, current + len(events))
        if command_id:
            s.commands[command_id] = (result, fingerprint)
        async with s.changed:
            s.changed.notify_all()
        return replace(result, lease_ms=self._lease(s, owner, now))

    def _lease(self, s: _MemoryStream, owner: str, now: float) -> int:
        """Take or renew the lease for `owner` after its append; what remains of it, in ms."""
        if not owner or self._lease_ms <= 0:
            return 0
        if not s.holder:
            s.holder, s.wanted_until = owner, 0.0
        elif s.wanted_until > now:
            # Another writer waits: let the lease lapse instead of renewing it.
            return int((s.held_until - now) * 1000)
        s.held_until = now + self._lease_ms / 1000
        return self._lease_ms

    async def command(self, stream: str, command_id: str, fingerprint: str = "") -> AppendResult | None:
        found = self._stream(stream).commands.get(command_id)
        if found is None:
            return None
        previous, known = found
        if not same_request(known, fingerprint):
            raise CommandReused(stream, command_id)
        return AppendResult(previous.first_version, previous.last_version, duplicate=True)

    async def read(self, stream: str, after_version: int = 0, limit: int = 0) -> list[StoredEvent]:
        events = self._stream(stream).events[after_version:]
        return events[:limit] if limit else list(events)

    async def read_payloads(self, stream: str, after_version: int = 0, limit: int = 0) -> list[Payload]:
        return [(event.type, event.data) for event in await self.read(stream, after_version, limit)]

    async def version(self, stream: str) -> int:
        return len(self._stream(stream).events)

    async def wait(self, stream: str, after_version: int, timeout: float) -> list[StoredEvent]:
        s = self._stream(stream)
        async with s.changed:
            if len(s.events) <= after_version:
                try:
                    await asyncio.wait_for(s.changed.wait_for(lambda: len(s.events) > after_version), timeout)
                except TimeoutError:
                    return []
        return await self.read(stream, after_version)

    async def save_snapshot(self, stream: str, snapshot: Snapshot) -> None:
        check_snapshot(snapshot)
        s = self._stream(stream)
        if s.snapshot is None or snapshot.version > s.snapshot.version:
            s.snapshot = snapshot

    async def load_snapshot(self, stream: str) -> Snapshot | None:
        return self._stream(stream).snapshot

    async def streams(self, limit: int = 0) -> list[str]:
        newest = list(reversed(self._order))
        return newest[:limit] if limit else newest


def same_request(stored: str, given: str) -> bool:
    """Whether a command's stored fingerprint matches a new request's. Commands
    stored before fingerprints existed (empty) match any request."""
    return not stored or stored == given


def _stored(version: int, event: NewEvent, command_id: str) -> StoredEvent:
    return StoredEvent(
        version=version,
        type=event.type,
        data=event.data,
        audience=event.audience,
        seat=event.seat,
        redacted_type=event.redacted_type,
        redacted=event.redacted,
        command_id=command_id,
    )
