"""Match use cases: lifecycle, actions with their chance, state by version.

The match service is the only writer of match streams. Each write is one
version-checked append; a writer that lost a race reloads and retries, and a
command id that was applied before returns its first answer.
"""

from __future__ import annotations

import asyncio
import hashlib
import uuid
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from google.protobuf import any_pb2
from google.protobuf.message import Message
from tabletop.deck.v1 import deck_service_pb2 as deck_pb
from tabletop.dice.v1 import dice_service_pb2 as dice_pb
from tabletop.match.v1 import events_pb2 as ev
from tabletop.match.v1 import match_service_pb2 as mpb
from tabletop.match.v1 import record_pb2
from tabletop.rules.v1 import rules_service_pb2 as rpb

from services.common import logging as tlog
from services.common import metrics
from services.common.errors import (
    Aborted,
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    ServiceError,
)
from services.common.event_store import (
    CommandReused,
    EventStore,
    NewEvent,
    Snapshot,
    StoredEvent,
    VersionConflict,
)
from services.common.keys import match_stream
from services.match import guards, lifecycle, log_events
from services.match.chance import ChanceResolver
from services.match.directory import Directory, MemoryDirectory

log = tlog.get("match")
CHANCE_SEAT = -1
MAX_RETRIES = 8
MAX_CHANCE_STEPS = 10_000
CACHE_SIZE = 2048


@dataclass(frozen=True)
class Submitted:
    version: int
    duplicate: bool


@dataclass(frozen=True)
class Joined:
    seat: int
    version: int
    tenure: int


def fingerprint(*parts: object) -> str:
    """What identifies a request behind its command id: who asked, for which seat, what."""
    return hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).hexdigest()[:32]


class MatchApp:
    def __init__(
        self,
        store: EventStore,
        rules: Mapping[str, Any],
        dice: Any,
        deck: Any,
        snapshot_every: int = 50,
        on_finished: Callable[[str, str], Awaitable[None]] | None = None,
        directory: Directory | None = None,
    ) -> None:
        self._directory = directory or MemoryDirectory()
        self._store = store
        self._rules = dict(rules)
        self._dice = dice
        self._deck = deck
        self._chance = ChanceResolver(dice, deck)
        self._snapshot_every = max(1, snapshot_every)
        self._records: OrderedDict[str, record_pb2.MatchRecord] = OrderedDict()
        self._views: OrderedDict[tuple[str, int, int], any_pb2.Any] = OrderedDict()
        self._replays: OrderedDict[tuple[str, int], record_pb2.MatchRecord] = OrderedDict()
        self._locks: dict[str, asyncio.Lock] = {}
        # Told (match_id, game) once a match has ended, after its last append.
        self._on_finished = on_finished

    # ------------------------------------------------------------ lifecycle

    async def create(
        self, game: str, config: Mapping[str, str], seat_count: int, command_id: str = "", match_id: str = ""
    ) -> record_pb2.MatchRecord:
        """A new match in the lobby; the seed is committed in its first event."""
        rules = self._rules_for(game)
        # Setup validates seat count and options now rather than at start.
        await rules.Setup(rpb.SetupRequest(game=game, config=dict(config), seat_count=seat_count))
        match_id = match_id or uuid.uuid4().hex
        if len(match_id) > 64 or not match_id.replace("-", "").isalnum():
            raise InvalidArgument("match_id must be at most 64 letters, digits or dashes")
        stream = match_stream(match_id)
        asked = fingerprint("create", game, sorted(config.items()), seat_count)
        if command_id and await self._known_command(stream, command_id, asked):
            return await self.record(match_id)
        commitment = (await self._dice.CommitSeed(dice_pb.CommitSeedRequest(match_id=match_id))).commitment
        created = ev.MatchCreated(game=game, config=dict(config), seat_count=seat_count, seed_commitment=commitment)
        try:
            await self._store.append(stream, 0, [log_events.platform_event(created)], command_id, asked)
        except VersionConflict:
            raise AlreadyExists(f"match {match_id} exists", "match.exists") from None
        except CommandReused:
            raise _reused(command_id) from None
        log.info("match_created", match_id=match_id, game=game, seats=seat_count)
        record = await self.record(match_id)
        await self._directory.put(match_id, game, record.status)
        return record

    async def join(
        self, match_id: str, player_id: str, seat: int | None, command_id: str = "", display_name: str = ""
    ) -> Joined:
        """Seat `player_id`."""
        if not player_id or len(player_id) > 64:
            raise InvalidArgument("player_id is required (at most 64 characters)", "player_id")

        async def plan(record: record_pb2.MatchRecord) -> list[Message]:
            guards.require_status(record, mpb.MATCH_STATUS_LOBBY, "match.not_in_lobby")
            chosen = guards.free_seat(record, seat)
            tenure = lifecycle.tenure(record, chosen) + 1
            return [ev.PlayerJoined(seat=chosen, player_id=player_id, tenure=tenure, display_name=display_name)]

        asked = fingerprint("join", player_id, "" if seat is None else seat)
        version, events, _ = await self._write(match_id, command_id, plan, asked)
        joined = [e for e in events if isinstance(e, ev.PlayerJoined)]
        if not joined:
            # A retried join answers as the first time: the seat its event
            # recorded, even if the player has left since (its tenure then no
            # longer matches the seat's, so a token for it is worthless).
            (first,) = await self._store.read(match_stream(match_id), after_version=version - 1, limit=1)
            joined = [ev.PlayerJoined.FromString(first.data)]
        return Joined(joined[0].seat, version, joined[0].tenure)

    async def leave(
        self, match_id: str, seat: int, command_id: str = "", holder: mpb.SeatHolder | None = None
    ) -> int:
        async def plan(record: record_pb2.MatchRecord) -> list[Message]:
            guards.require_status(record, mpb.MATCH_STATUS_LOBBY, "match.leave_after_start")
            guards.require_seated(record, seat)
            guards.require_holder(record, seat, holder)
            return [ev.PlayerLeft(seat=seat, player_id=record.players[seat])]

        asked = fingerprint("leave", _holder_id(holder), seat)
        version, _, _ = await self._write(match_id, command_id, plan, asked)
        return version

    async def start(
        self, match_id: str, command_id: str = "", seat: int | None = None, holder: mpb.SeatHolder | None = None
    ) -> int:
        """Start a full lobby: set the game up and resolve its opening chance."""

        async def plan(record: record_pb2.MatchRecord) -> list[Message]:
            if seat is not None:
                guards.require_seated(record, seat)
                guards.require_holder(record, seat, holder)
            guards.require_status(record, mpb.MATCH_STATUS_LOBBY, "match.already_started")
            if "" in record.players:
                raise FailedPrecondition("every seat must be taken before the start", "match.seats_free")
            return [ev.MatchStarted()]

        # Any seated player may start: a start is the same request whoever sends it.
        version, _, _ = await self._write(match_id, command_id, plan, fingerprint("start"))
        return version

    async def submit(
        self,
        match_id: str,
        seat: int,
        action: any_pb2.Any,
        command_id: str = "",
        holder: mpb.SeatHolder | None = None,
    ) -> Submitted:
        """Apply one action of `seat`, then any chance it triggers, in one append."""

        async def plan(record: record_pb2.MatchRecord) -> list[Message]:
            guards.require_status(record, mpb.MATCH_STATUS_ACTIVE, "match.not_active")
            guards.require_seated(record, seat)
            guards.require_holder(record, seat, holder)
            if seat not in record.turn.seats:
                raise FailedPrecondition(f"seat {seat} is not asked to act now", "match.not_your_turn")
            decision = await self._rules_for(record.game).Decide(
                rpb.DecideRequest(state=record.state, seat=seat, action=action)
            )
            return [decision]

        what = hashlib.sha256(action.value).hexdigest()
        asked = fingerprint("submit", _holder_id(holder), seat, action.type_url, what)
        version, _, duplicate = await self._write(match_id, command_id, plan, asked)
        metrics.ACTIONS.labels(self._records[match_id].game if match_id in self._records else "", "ok").inc()
        return Submitted(version, duplicate)

    # ------------------------------------------------------------ reads

    async def record(self, match_id: str, fresh: bool = True) -> record_pb2.MatchRecord:
        """The record at the stream's current version; NotFound if there is none."""
        stream = match_stream(match_id)
        cached = self._records.get(match_id)
        if cached is not None and not fresh:
            return cached
        version = await self._store.version(stream)
        if version == 0:
            raise NotFound(f"no match {match_id}")
        if cached is not None and cached.version == version:
            metrics.STATE_CACHE.labels("hit").inc()
            return cached
        metrics.STATE_CACHE.labels("miss").inc()
        return await self._catch_up(match_id, cached)

    async def view(
        self, match_id: str, viewer: int | None, holder: mpb.SeatHolder | None = None
    ) -> tuple[record_pb2.MatchRecord, any_pb2.Any | None]:
        """The record and what `viewer` may see of the game (None before the start)."""
        record = await self.record(match_id)
        if viewer is not None:
            guards.require_seat_index(record, viewer)
            guards.require_holder(record, viewer, holder)
        return record, await self._seen_by(record, viewer)

    async def _seen_by(self, record: record_pb2.MatchRecord, viewer: int | None) -> any_pb2.Any | None:
        """What `viewer` sees of the game at the record's version (None before the start),
        computed once per (version, viewer): a view at a version never changes, so live
        views and replays share the cache."""
        if not record.HasField("state"):
            return None
        key = (record.match_id, record.version, -2 if viewer is None else viewer)
        view = self._views.get(key)
        if view is None:
            request = rpb.GetViewRequest(state=record.state)
            if viewer is not None:
                request.viewer = viewer
            view = (await self._rules_for(record.game).GetView(request)).view
            _remember(self._views, key, view)
        return view

    async def view_at(
        self, match_id: str, version: int, viewer: int | None, holder: mpb.SeatHolder | None = None
    ) -> tuple[record_pb2.MatchRecord, any_pb2.Any | None]:
        """Replay: the record and what `viewer` saw once the log reached `version`.
        Only for a finished match, whose log is public by then."""
        current = await self.record(match_id)
        guards.require_status(current, mpb.MATCH_STATUS_FINISHED, "match.replay_before_end")
        if not 1 <= version <= current.version:
            raise InvalidArgument(f"at_version must be between 1 and {current.version}", "at_version")
        if viewer is not None:
            guards.require_seat_index(current, viewer)
            guards.require_holder(current, viewer, holder)
        record = await self._replayed(match_id, version)
        return record, await self._seen_by(record, viewer)

    async def _replayed(self, match_id: str, version: int) -> record_pb2.MatchRecord:
        """The record of a finished match at `version`, folded from its log once: a replay
        slider asks each version again and again, and a finished log never changes."""
        key = (match_id, version)
        record = self._replays.get(key)
        if record is None:
            record = lifecycle.new_record(match_id)
            await self._fold(record, await self._store.read(match_stream(match_id), after_version=0, limit=version))
            _remember(self._replays, key, record)
        return record

    async def legal_actions(
        self, match_id: str, seat: int, holder: mpb.SeatHolder | None = None
    ) -> tuple[int, list[any_pb2.Any]]:
        record = await self.record(match_id)
        guards.require_seat_index(record, seat)
        guards.require_holder(record, seat, holder)
        if record.status != mpb.MATCH_STATUS_ACTIVE or seat not in record.turn.seats:
            return record.version, []
        reply = await self._rules_for(record.game).ListLegalActions(
            rpb.ListLegalActionsRequest(state=record.state, seat=seat)
        )
        return record.version, list(reply.actions)

    async def list_matches(self, game: str = "", status: int = 0, limit: int = 50) -> list[record_pb2.MatchRecord]:
        """Newest matches first, filtered through the directory, each record fresh."""
        ids = await self._directory.find(game, status, min(limit or 50, 500))
        records = [await self.record(match_id) for match_id in ids]
        # The directory may lag behind a log: filter on the fresh records again.
        return [r for r in records if (not game or r.game == game) and (not status or r.status == status)]

    # ------------------------------------------------------------ writing

    async def _known_command(self, stream: str, command_id: str, asked: str) -> Any:
        """The first answer to `command_id`, if any; AlreadyExists if it answered another request."""
        try:
            return await self._store.command(stream, command_id, asked)
        except CommandReused:
            raise _reused(command_id) from None

    async def _write(
        self, match_id: str, command_id: str, plan: Any, asked: str = ""
    ) -> tuple[int, list[Message], bool]:
        """Plan events against the current record and append them, retrying lost races."""
        stream = match_stream(match_id)
        if command_id and (done := await self._known_command(stream, command_id, asked)) is not None:
            return done.last_version, [], True
        async with self._lock(match_id):
            record = await self.record(match_id, fresh=False)
            for _ in range(MAX_RETRIES):
                draft = lifecycle.copy(record)
                try:
                    planned = await plan(draft)
                    events, new_events = await self._expand(draft, planned)
                except ServiceError:
                    # A refusal may come from a record another replica has moved past.
                    if await self._store.version(stream) == record.version:
                        raise
                    record = await self._catch_up(match_id, record)
                    continue
                try:
                    result = await self._store.append(stream, record.version, new_events, command_id, asked)
                except CommandReused:
                    raise _reused(command_id) from None
                except VersionConflict:
                    metrics.APPENDS.labels("conflict").inc()
                    record = await self._catch_up(match_id, record)
                    continue
                metrics.APPENDS.labels("duplicate" if result.duplicate else "ok").inc()
                if result.duplicate:
                    return result.last_version, [], True
                draft.version = result.last_version
                await self._committed(record, draft)
                return result.last_version, events, False
        raise Aborted(f"match {match_id} is too busy, retry", "match.contention")

    async def _expand(
        self, draft: record_pb2.MatchRecord, planned: list[Message]
    ) -> tuple[list[Message], list[NewEvent]]:
        """Turn planned messages into log events, applying each to `draft`,
        and settle the chance the game asks for after them."""
        events: list[Message] = []
        new: list[NewEvent] = []
        for item in planned:
            if isinstance(item, rpb.DecideResponse):
                self._take_decision(draft, item, events, new)
            else:
                lifecycle.apply(draft, item)
                events.append(item)
                new.append(log_events.platform_event(item))
                if isinstance(item, ev.MatchStarted):
                    await self._set_up(draft)
        await self._settle_chance(draft, events, new)
        return events, new

    async def _set_up(self, draft: record_pb2.MatchRecord) -> None:
        reply = await self._rules_for(draft.game).Setup(
            rpb.SetupRequest(game=draft.game, config=dict(draft.config), seat_count=draft.seat_count)
        )
        draft.state.CopyFrom(reply.state)
        draft.turn.CopyFrom(reply.turn)

    def _take_decision(
        self, draft: record_pb2.MatchRecord, decision: rpb.DecideResponse, events: list[Message], new: list[NewEvent]
    ) -> None:
        for emitted in decision.events:
            events.append(emitted)
            new.append(log_events.game_event(emitted))
        draft.state.CopyFrom(decision.state)
        draft.turn.CopyFrom(decision.turn)
        if decision.HasField("outcome"):
            draft.outcome.CopyFrom(decision.outcome)

    async def _settle_chance(self, draft: record_pb2.MatchRecord, events: list[Message], new: list[NewEvent]) -> None:
        """Resolve chance requests until players are asked again, then close a finished game."""
        rules = self._rules_for(draft.game) if draft.game else None
        for _ in range(MAX_CHANCE_STEPS):
            if rules is None or not draft.turn.HasField("chance") or draft.HasField("outcome"):
                break
            outcome, resolved = await self._chance.resolve(draft, draft.turn.chance)
            lifecycle.apply(draft, resolved)
            events.append(resolved)
            new.append(log_events.chance_event(resolved))
            decision = await rules.Decide(rpb.DecideRequest(state=draft.state, seat=CHANCE_SEAT, chance=outcome))
            self._take_decision(draft, decision, events, new)
        if draft.HasField("outcome") and draft.status == mpb.MATCH_STATUS_ACTIVE:
            ended = ev.MatchEnded(outcome=draft.outcome)
            seed = (await self._dice.RevealSeed(dice_pb.RevealSeedRequest(match_id=draft.match_id))).seed
            for item in (ended, ev.SeedRevealed(seed=seed)):
                lifecycle.apply(draft, item)
                events.append(item)
                new.append(log_events.platform_event(item))

    async def _committed(self, before: record_pb2.MatchRecord, after: record_pb2.MatchRecord) -> None:
        _remember(self._records, after.match_id, after)
        if list(after.players) != list(before.players) or after.status != before.status:
            await self._directory.put(after.match_id, after.game, after.status)
        if after.version // self._snapshot_every > before.version // self._snapshot_every:
            await self._store.save_snapshot(
                match_stream(after.match_id), Snapshot(after.version, after.SerializeToString())
            )
        if after.status == mpb.MATCH_STATUS_FINISHED and before.status != mpb.MATCH_STATUS_FINISHED:
            log.info("match_ended", match_id=after.match_id, version=after.version)
            await self._deck.ReleaseMatch(deck_pb.ReleaseMatchRequest(match_id=after.match_id))
            if self._on_finished is not None:
                await self._on_finished(after.match_id, after.game)

    # ------------------------------------------------------------ rebuilding

    async def _catch_up(self, match_id: str, cached: record_pb2.MatchRecord | None) -> record_pb2.MatchRecord:
        """Bring a record up to the stream's end: snapshot (if newer) plus later events."""
        stream = match_stream(match_id)
        base = cached
        snapshot = await self._store.load_snapshot(stream)
        if snapshot is not None and (base is None or snapshot.version > base.version):
            base = record_pb2.MatchRecord.FromString(snapshot.data)
        record = lifecycle.copy(base) if base is not None else lifecycle.new_record(match_id)
        events = await self._store.read(stream, after_version=record.version)
        if not events and base is None:
            raise NotFound(f"no match {match_id}")
        await self._fold(record, events)
        _remember(self._records, match_id, record)
        return record

    async def _fold(self, record: record_pb2.MatchRecord, events: list[StoredEvent]) -> None:
        pending: list[any_pb2.Any] = []
        for stored in events:
            cls = lifecycle.PLATFORM_EVENTS.get(stored.type)
            if cls is None:
                pending.append(any_pb2.Any(type_url=f"type.googleapis.com/{stored.type}", value=stored.data))
            else:
                await self._replay_pending(record, pending)
                event = cls.FromString(stored.data)
                lifecycle.apply(record, event)
                if isinstance(event, ev.MatchStarted):
                    await self._set_up(record)
            record.version = stored.version
        await self._replay_pending(record, pending)

    async def _replay_pending(self, record: record_pb2.MatchRecord, pending: list[any_pb2.Any]) -> None:
        if not pending:
            return
        reply = await self._rules_for(record.game).Replay(rpb.ReplayRequest(state=record.state, events=pending))
        record.state.CopyFrom(reply.state)
        record.turn.CopyFrom(reply.turn)
        if reply.HasField("outcome"):
            record.outcome.CopyFrom(reply.outcome)
        pending.clear()

    # ------------------------------------------------------------ helpers

    def _rules_for(self, game: str) -> Any:
        rules = self._rules.get(game)
        if rules is None:
            raise InvalidArgument(f"unknown game {game!r}; known: {', '.join(sorted(self._rules))}", "game")
        return rules

    def _lock(self, match_id: str) -> asyncio.Lock:
        lock = self._locks.get(match_id)
        if lock is None:
            if len(self._locks) > CACHE_SIZE:
                self._locks = {k: v for k, v in self._locks.items() if v.locked()}
            lock = self._locks[match_id] = asyncio.Lock()
        return lock


def _holder_id(holder: mpb.SeatHolder | None) -> str:
    return holder.player_id if holder is not None else ""


def _reused(command_id: str) -> AlreadyExists:
    return AlreadyExists(
        "this command id was already used for another request; use a new id for a new request",
        "command.reused",
    )


def _remember(cache: OrderedDict[Any, Any], key: Any, value: Any) -> None:
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > CACHE_SIZE:
        cache.popitem(last=False)
