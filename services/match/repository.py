"""Current matches: cached, caught up from the log, moved on by appends.

The repository keeps the newest match of each stream it has seen. A match is
caught up from what is cached or the newest snapshot (whichever is newer) plus
the events after it; an append that lands fast-forwards the cache to the
match it produced without reading it back, and saves a snapshot every
`snapshot_every` versions. An append at a version the stream has left (another
replica won the race) raises VersionConflict; the caller catches up and
decides again.

Each repository appends as its own lease owner (services/common/store/event_store.py):
while it holds a match's lease, nobody else moves that stream, so its cached
match is current and a read needs no round trip for the stream's version. A
match it does not hold (or no longer surely holds) is checked as before.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence

from tabletop.match.v1 import events_pb2 as ev
from tabletop.match.v1 import record_pb2

from services.common import metrics
from services.common.errors import NotFound
from services.common.lru import LRU
from services.common.redis.keys import match_stream
from services.common.store.event_store import AppendResult, EventStore, Payload, Snapshot, VersionConflict
from services.games.common.values import replace
from services.match import lifecycle, records, undo
from services.match.lifecycle import Match
from services.match.turns import Progress, RulesBook

CACHE_SIZE = 2048
CHANCE_RESOLVED = ev.ChanceResolved.DESCRIPTOR.full_name


class MatchRepository:
    def __init__(self, store: EventStore, rules: RulesBook, snapshot_every: int = 50) -> None:
        self._store = store
        self._rules = rules
        self._snapshot_every = max(1, snapshot_every)
        # Read with `peek`: the newest written stay (a match is written by every append).
        self._current: LRU[str, Match] = LRU(CACHE_SIZE)
        # Finished matches at earlier versions, for replays: a finished log never changes.
        self._past: LRU[tuple[str, int], Match] = LRU(CACHE_SIZE)
        self._owner = uuid.uuid4().hex
        # Until when (monotonic s) this repository surely holds a match's lease with its cache
        # current: for the matches it appended to last, no more of them than it keeps current.
        self._held: LRU[str, float] = LRU(CACHE_SIZE)

    async def get(self, match_id: str, fresh: bool = True) -> Match:
        """The match at its stream's current version (`fresh`), or as cached if there
        is one; NotFound if the stream is empty."""
        cached = self._current.peek(match_id)
        if cached is not None and not fresh:
            return cached
        if cached is not None and self.holds(match_id):
            metrics.STATE_CACHE.labels("hit").inc()
            return cached
        version = await self._store.version(match_stream(match_id))
        if version == 0:
            raise NotFound(f"no match {match_id}")
        if cached is not None and cached.version == version:
            metrics.STATE_CACHE.labels("hit").inc()
            return cached
        metrics.STATE_CACHE.labels("miss").inc()
        return await self.catch_up(match_id, cached)

    async def catch_up(self, match_id: str, cached: Match | None) -> Match:
        """Bring a match up to its stream's end: from `cached` or the newest snapshot,
        whichever is newer, plus the events after it."""
        stream = match_stream(match_id)
        started = time.perf_counter()
        base = cached
        snapshot = await self._store.load_snapshot(stream)
        if snapshot is not None and (base is None or snapshot.version > base.version):
            base = records.from_record(record_pb2.MatchRecord.FromString(snapshot.data))
        events = await self._store.read_payloads(stream, after_version=base.version if base is not None else 0)
        if not events and base is None:
            raise NotFound(f"no match {match_id}")
        match = await self.fold(base or Match(match_id), events)
        _folded("catch_up", started, len(events))
        self._current.put(match_id, match)
        return match

    async def at(self, match_id: str, version: int) -> Match:
        """The match as it was once its log reached `version`, folded once per version."""
        key = (match_id, version)
        match = self._past.peek(key)
        if match is None:
            started = time.perf_counter()
            events = await self._store.read_payloads(match_stream(match_id), after_version=0, limit=version)
            match = await self.fold(Match(match_id), events)
            _folded("replay", started, len(events))
            self._past.put(key, match)
        return match

    async def append(
        self, before: Match, progress: Progress, command_id: str = "", fingerprint: str = ""
    ) -> AppendResult:
        """Append what moved `before` to `progress.match`, expecting the stream at
        `before.version`. On success the cache moves to the new match (and a snapshot is
        kept when a multiple of `snapshot_every` was passed); raises VersionConflict if the
        stream has moved on, CommandReused for a command id used for another request."""
        stream = match_stream(before.match_id)
        sent = time.monotonic()
        try:
            result = await self._store.append(
                stream, before.version, progress.events, command_id, fingerprint, self._owner
            )
        except VersionConflict:
            self._held.pop(before.match_id, None)
            metrics.APPENDS.labels("conflict").inc()
            raise
        except BaseException:
            # The append may have landed unseen: the cache is no longer surely current.
            self._held.pop(before.match_id, None)
            raise
        metrics.APPENDS.labels("duplicate" if result.duplicate else "ok").inc()
        if result.duplicate:
            # An earlier append of ours (or another writer's) may lie beyond the cache.
            self._held.pop(before.match_id, None)
            return result
        await self._fast_forward(before, moved(before, progress, result.last_version))
        if result.lease_ms > 0:
            self._held.put(before.match_id, sent + _trusted_seconds(result.lease_ms))
        return result

    def holds(self, match_id: str) -> bool:
        """Whether this repository surely holds the match's lease, its cache current."""
        until = self._held.peek(match_id)
        if until is None:
            return False
        if until > time.monotonic() and match_id in self._current:
            return True
        self._held.pop(match_id)
        return False

    def cached(self, match_id: str) -> Match | None:
        return self._current.peek(match_id)

    async def fold(self, match: Match, events: Sequence[Payload]) -> Match:
        """`match` after `events` (type and data, read from its log after its version):
        platform events through the lifecycle, the game events through the game's rules.
        No platform event reads the engine's state (a ChanceResolved only moves the
        match's counters and piles; the game events after it carry the outcome), so
        every game event of the fold goes to the rules in one Replay call, not one per
        run between chance events; and no event but a ChanceResolved reads those
        counters, so a run of them is folded at once. A rebuild folds thousands of
        events: the loop keeps to local names and steps the undo track only where
        it can change (services/match/undo.py)."""
        game: list[Payload] = []
        chance: list[ev.ChanceResolved] = []
        keep_game, keep_chance, parse_chance = game.append, chance.append, ev.ChanceResolved.FromString
        platform, clear, undo_point = lifecycle.PLATFORM_EVENTS, undo.CLEAR, undo.UNDO_POINT
        track, last = match.undo, match.version + len(events)
        for version, (type_name, data) in enumerate(events, match.version + 1):
            if track is not clear or type_name == undo_point:
                track = undo.step(track, version, type_name, data)
            if type_name == CHANCE_RESOLVED:
                keep_chance(parse_chance(data))
                continue
            cls = platform.get(type_name)
            if cls is None:
                keep_game((type_name, data))
                continue
            if chance:
                match = lifecycle.chance_resolved(match, chance)
                chance.clear()
            event = cls.FromString(data)
            if isinstance(event, ev.ActionsUndone):
                # The one platform event that sets the game's state: what came before it first.
                match = lifecycle.restored(await self._replay(match, game), event)
                continue
            match = lifecycle.evolve(match, event)
            if isinstance(event, ev.MatchStarted):
                match = await self._rules.set_up(match)
        if chance:
            match = lifecycle.chance_resolved(match, chance)
        if track is not match.undo:
            match = replace(match, undo=track)
        if events:
            # No event's fold reads the version: it is set once (a rebuild folds thousands).
            match = replace(match, version=last)
        return await self._replay(match, game)

    async def _replay(self, match: Match, game: list[Payload]) -> Match:
        if not game:
            return match
        moved = await self._rules.replay(match, game)
        game.clear()
        return moved

    async def _fast_forward(self, before: Match, after: Match) -> None:
        self._current.put(after.match_id, after)
        if after.version // self._snapshot_every > before.version // self._snapshot_every:
            record = records.to_record(after)
            await self._store.save_snapshot(
                match_stream(after.match_id), Snapshot(after.version, record.SerializeToString())
            )


def moved(before: Match, progress: Progress, version: int) -> Match:
    """The match a landed append of `progress` made: at `version`, its undo track
    stepped over the batch as a rebuild steps it over the log."""
    batch = ((event.type, event.data) for event in progress.events)
    return replace(progress.match, version=version, undo=undo.steps(before.undo, before.version + 1, batch))


def _trusted_seconds(lease_ms: int) -> float:
    """How much of a lease to rely on: less a margin for clocks that run apart."""
    return max(0.0, lease_ms - max(50, lease_ms // 10)) / 1000


def _folded(why: str, started: float, events: int) -> None:
    """Count a read and fold of `events` that began at `started` (perf_counter)."""
    metrics.FOLDS.labels(why).observe(time.perf_counter() - started)
    metrics.FOLDED_EVENTS.labels(why).inc(events)
