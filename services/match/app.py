"""Match use cases: create, join, leave, start, submit, and the reads.

The match service is the only writer of match streams. Each command is decided
against the current match (services/match/lifecycle.py), run forward by the
turn runner (rules, chance, the end: services/match/turns.py) and appended in
one version-checked write through the repository (services/match/repository.py);
a writer that lost a race catches up and decides again, and a command id that
was applied before returns its first answer. Once an append has landed, the
after-commit steps run: the directory learns of a lifecycle change, and a
finished match releases its piles and is announced.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import time
import uuid
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass

from google.protobuf import any_pb2
from google.protobuf.message import Message
from tabletop.common.v1 import common_pb2
from tabletop.dice.v1 import dice_service_pb2 as dice_pb
from tabletop.match.v1 import events_pb2 as ev
from tabletop.rules.v1 import rules_service_pb2 as rpb

from services.common import logging as tlog
from services.common import metrics
from services.common.draws import RollWindows
from services.common.errors import Aborted, AlreadyExists, FailedPrecondition, InvalidArgument, ServiceError
from services.common.event_store import AppendResult, CommandReused, EventStore, NewEvent, VersionConflict
from services.common.grants import GrantSigner
from services.common.keys import match_stream
from services.common.ports import DeckPort, DicePort, RulesPort
from services.common.table_options import InvalidConfig, game_config, table_config
from services.match import clocks, lifecycle, log_events, records, undo
from services.match.clocks import ClockSettings
from services.match.deadlines import Deadlines, MemoryDeadlines
from services.match.directory import Directory, MemoryDirectory
from services.match.lifecycle import Holder, Match, Status
from services.match.repository import CACHE_SIZE, MatchRepository, moved
from services.match.turns import Progress, RulesBook, TurnRunner

log = tlog.get("match")
MAX_RETRIES = 8
# Timeout moves one look at a match makes before letting the keeper come back.
MAX_TIMEOUTS = 50

# What a command does to the current match: decide, then run forward.
Plan = Callable[[Match], Awaitable[Progress]]


@dataclass(frozen=True)
class Submitted:
    """A submit's answer; for a new action also the match it led to and that match's
    whole position (every seat's view and legal actions), so nobody asks again."""

    version: int
    duplicate: bool
    match: Match | None = None
    position: rpb.Position | None = None
    # What the action appended (versions version - len + 1 .. version).
    appended: tuple[NewEvent, ...] = ()


@dataclass(frozen=True)
class Joined:
    seat: int
    version: int
    tenure: int


@dataclass(frozen=True)
class Written:
    """The stream's version after a command; `match` is None when the command had been
    applied before (its first answer stands)."""

    version: int
    match: Match | None
    appended: tuple[NewEvent, ...] = ()


def fingerprint(*parts: object) -> str:
    """What identifies a request behind its command id: who asked, for which seat, what."""
    return hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).hexdigest()[:32]


class MatchApp:
    def __init__(
        self,
        store: EventStore,
        rules: Mapping[str, RulesPort],
        dice: DicePort,
        deck: DeckPort,
        snapshot_every: int = 50,
        on_finished: Callable[[str, str], Awaitable[None]] | None = None,
        directory: Directory | None = None,
        deadlines: Deadlines | None = None,
        now_ms: Callable[[], int] | None = None,
        grants: GrantSigner | None = None,
        chance_in_rules: bool = False,
        lobby_idle_seconds: float = 0,
        windows: RollWindows | None = None,
    ) -> None:
        self._store = store
        self._rules = RulesBook(rules)
        self._dice = dice
        self._matches = MatchRepository(store, self._rules, snapshot_every)
        self._turns = TurnRunner(self._rules, dice, deck, grants, chance_in_rules, windows)
        self._directory = directory or MemoryDirectory()
        # Told (match_id, game) once a match has ended, after its last append.
        self._on_finished = on_finished
        self._views: OrderedDict[tuple[str, int, int], any_pb2.Any] = OrderedDict()
        self._locks: dict[str, asyncio.Lock] = {}
        # Clocked matches' wake-ups (services/match/deadlines.py) and the wall clock.
        self.deadlines: Deadlines = deadlines or MemoryDeadlines()
        self._now_ms = now_ms or (lambda: int(time.time() * 1000))
        # A lobby with nothing written for this long is closed (0: never; see `wake`).
        self._lobby_idle_seconds = lobby_idle_seconds

    # ------------------------------------------------------------ commands

    async def create(
        self, game: str, config: Mapping[str, str], seat_count: int, command_id: str = "", match_id: str = ""
    ) -> Match:
        """A new match in the lobby; the seed is committed in its first event."""
        await self._check_table(game, config, seat_count)
        match_id = match_id or uuid.uuid4().hex
        _check_match_id(match_id)
        asked = fingerprint("create", game, sorted(config.items()), seat_count)
        if command_id and await self._known_command(match_id, command_id, asked):
            return await self.current(match_id)
        commitment = (await self._dice.CommitSeed(dice_pb.CommitSeedRequest(match_id=match_id))).commitment
        created = ev.MatchCreated(game=game, config=dict(config), seat_count=seat_count, seed_commitment=commitment)
        lobby = Match(match_id)
        progress = Progress(lifecycle.evolve(lobby, created), (log_events.platform_event(created),))
        await self._schedule(progress.match)
        try:
            await self._matches.append(lobby, progress, command_id, asked)
        except VersionConflict:
            raise AlreadyExists(f"match {match_id} exists", "match.exists") from None
        except CommandReused:
            raise _reused() from None
        log.info("match_created", match_id=match_id, game=game, seats=seat_count)
        match = await self.current(match_id)
        await self._directory.put(match_id, game, int(match.status))
        return match

    async def form(
        self,
        game: str,
        config: Mapping[str, str],
        players: Sequence[tuple[str, str]],
        command_id: str,
        match_id: str,
    ) -> Match:
        """A started match with `players` (id, display name) in seat order, in one append.

        Creation, every seat and the start with its opening chance land together or not
        at all, so a formed group is never a half-filled lobby. A retry with the same
        command id answers the match as it stands; an existing match of this id made by
        another command is AlreadyExists.
        """
        if not players or any(not player or len(player) > 64 for player, _ in players):
            raise InvalidArgument("every seat needs a player_id (at most 64 characters)", "players")
        seat_count = len(players)
        await self._check_table(game, config, seat_count)
        _check_match_id(match_id)
        asked = fingerprint("form", game, sorted(config.items()), [player for player, _ in players])
        if command_id and await self._known_command(match_id, command_id, asked):
            return await self.current(match_id)
        commitment = (await self._dice.CommitSeed(dice_pb.CommitSeedRequest(match_id=match_id))).commitment
        # Only the matchmaker may form (services/common/authz.py): the log says the table is its,
        # which is what lets ratings trust it (services/matchmaker/RATINGS.md).
        created = ev.MatchCreated(game=game, config=dict(config), seat_count=seat_count, seed_commitment=commitment,
                                  matchmade=True)
        lobby = Match(match_id)
        opened = lifecycle.evolve(lobby, created)
        decided: list[Message]
        seated, decided = opened, []
        for seat, (player, name) in enumerate(players):
            joins = lifecycle.decide_join(seated, player, seat, name)
            seated = lifecycle.evolve(seated, joins[0])
            decided += joins
        decided += lifecycle.decide_start(seated, None, None)
        started = self._timed(opened, await self._turns.apply(opened, decided), None)
        progress = Progress(started.match, (log_events.platform_event(created), *started.events))
        await self._schedule(progress.match)
        try:
            result = await self._matches.append(lobby, progress, command_id, asked)
        except VersionConflict:
            raise AlreadyExists(f"match {match_id} exists", "match.exists") from None
        except CommandReused:
            raise _reused() from None
        if not result.duplicate:
            log.info("match_formed", match_id=match_id, game=game, seats=seat_count, version=result.last_version)
        match = await self.current(match_id)
        await self._directory.put(match_id, game, int(match.status))
        return match

    async def join(
        self, match_id: str, player_id: str, seat: int | None, command_id: str = "", display_name: str = ""
    ) -> Joined:
        """Seat `player_id`."""
        if not player_id or len(player_id) > 64:
            raise InvalidArgument("player_id is required (at most 64 characters)", "player_id")
        decided: list[ev.PlayerJoined] = []

        async def plan(match: Match) -> Progress:
            decided[:] = lifecycle.decide_join(match, player_id, seat, display_name)
            return await self._turns.apply(match, decided)

        asked = fingerprint("join", player_id, "" if seat is None else seat)
        written = await self._write(match_id, command_id, plan, asked)
        if written.match is not None:
            (joined,) = decided
        else:
            # A retried join answers as the first time: the seat its event
            # recorded, even if the player has left since (its tenure then no
            # longer matches the seat's, so a token for it is worthless).
            (first,) = await self._store.read(match_stream(match_id), after_version=written.version - 1, limit=1)
            joined = ev.PlayerJoined.FromString(first.data)
        return Joined(joined.seat, written.version, joined.tenure)

    async def leave(self, match_id: str, seat: int, command_id: str = "", holder: Holder | None = None) -> int:
        async def plan(match: Match) -> Progress:
            return await self._turns.apply(match, lifecycle.decide_leave(match, seat, holder))

        asked = fingerprint("leave", _holder_id(holder), seat)
        return (await self._write(match_id, command_id, plan, asked)).version

    async def start(
        self, match_id: str, command_id: str = "", seat: int | None = None, holder: Holder | None = None
    ) -> int:
        """Start a full lobby: set the game up and resolve its opening chance."""

        async def plan(match: Match) -> Progress:
            return await self._turns.apply(match, lifecycle.decide_start(match, seat, holder))

        # Any seated player may start: a start is the same request whoever sends it.
        return (await self._write(match_id, command_id, plan, fingerprint("start"))).version

    async def submit(
        self, match_id: str, seat: int, action: any_pb2.Any, command_id: str = "", holder: Holder | None = None
    ) -> Submitted:
        """Apply one action of `seat`, then any chance it triggers, in one append."""

        async def plan(match: Match) -> Progress:
            lifecycle.check_move(match, seat, holder)
            self._check_time(match, seat)
            return await self._turns.act(match, seat, action)

        what = hashlib.sha256(action.value).hexdigest()
        asked = fingerprint("submit", _holder_id(holder), seat, action.type_url, what)
        written = await self._write(match_id, command_id, plan, asked, mover=seat)
        cached = self._matches.cached(match_id)
        metrics.ACTIONS.labels(cached.game if cached is not None else "", "ok").inc()
        if written.match is None:
            return Submitted(written.version, True)
        position = await self._position_of(written.match)
        return Submitted(written.version, False, written.match, position, written.appended)

    def now_ms(self) -> int:
        """The wall clock deadlines are kept in (unix ms)."""
        return self._now_ms()

    async def expire(self, match_id: str) -> int | None:
        """Apply the table's clock policy to every seat whose time has run out, one
        timeout per append; answers when to look again (None: no clock runs)."""
        for _ in range(MAX_TIMEOUTS):
            match = await self.current(match_id)
            settings = clocks.settings_of(match.config)
            if settings is None or match.status != Status.ACTIVE or match.clock is None:
                return None
            overdue = match.clock.overdue(self._now_ms())
            if not overdue:
                return match.clock.next_deadline()
            try:
                await self._time_out(match, overdue[0], settings)
            except FailedPrecondition:
                # Someone moved first (the seat itself, or another keeper): look again.
                continue
        return self._now_ms()

    async def wake(self, match_id: str) -> int | None:
        """What the keeper does with a match whose wake-up came due: close a lobby that has
        been idle (`_expire_lobby`), or apply the clocks of a match in play (`expire`).
        Answers when to look again (None: never)."""
        match = await self.current(match_id)
        if match.status == Status.LOBBY and self._lobby_idle_seconds:
            return await self._expire_lobby(match)
        return await self.expire(match_id)

    async def _expire_lobby(self, seen: Match) -> int | None:
        """Close `seen`, a lobby nothing was written to for the idle time (its wake-up, which
        every lobby batch postpones first, came due), unless it moved on meanwhile."""
        idle = int(self._lobby_idle_seconds)

        async def plan(match: Match) -> Progress:
            expired = lifecycle.decide_expiry(match, seen.version, idle)
            return Progress(lifecycle.evolve(match, expired[0]), tuple(map(log_events.platform_event, expired)))

        # One id per (match, version): two keepers that race append it once.
        command_id = f"lobby-expired-{seen.version}"
        try:
            written = await self._write(seen.match_id, command_id, plan, fingerprint("lobby-expired", seen.version))
        except FailedPrecondition:
            # Joined, left or started meanwhile: its own postpone moved the wake-up later.
            return lifecycle.lobby_wake_ms(self._now_ms(), self._lobby_idle_seconds)
        if written.match is not None:
            log.info("lobby_expired", match_id=seen.match_id, idle_seconds=idle, version=written.version)
        return None

    async def _time_out(self, seen: Match, seat: int, settings: ClockSettings) -> None:
        async def plan(match: Match) -> Progress:
            deadline = match.clock.deadline(seat) if match.clock is not None else None
            if match.status != Status.ACTIVE or deadline is None or deadline > self._now_ms():
                raise FailedPrecondition(f"seat {seat}'s clock has not run out", "clock.not_due")
            expired = ev.ClockExpired(seat=seat, policy=settings.policy, deadline_ms=deadline)
            if settings.policy == "forfeit":
                return await self._turns.forfeit(match, expired, _forfeited(match, seat))
            action, expired.policy = await self._timeout_move(match, seat, settings.policy)
            # The clock's move is not the seat's to take back.
            moved = await self._turns.act(match, seat, action, may_undo=False)
            return Progress(moved.match, (log_events.platform_event(expired), *moved.events))

        # One id per (seat, version): two keepers that race append it once.
        command_id = f"clock-{seat}-{seen.version}"
        written = await self._write(seen.match_id, command_id, plan, fingerprint("timeout", seat, seen.version))
        if written.match is not None:
            log.info(
                "clock_expired", match_id=seen.match_id, seat=seat, policy=settings.policy, version=written.version
            )
            metrics.CLOCK_TIMEOUTS.labels(seen.game, settings.policy).inc()

    async def _timeout_move(self, match: Match, seat: int, policy: str) -> tuple[any_pb2.Any, str]:
        """What a timed-out seat plays, and the policy that chose it: the game's most
        passive legal move under `pass`, else a random legal move (a bot's), seeded by
        the match and its version so every replica would choose alike."""
        reply = await self._rules.of(match.game).ListLegalActions(
            rpb.ListLegalActionsRequest(state=records.engine_state(match), seat=seat)
        )
        legal = list(reply.actions)
        if not legal:
            raise FailedPrecondition(f"seat {seat} has no legal move", "clock.no_move")
        if policy == "pass" and reply.passes:
            return legal[reply.passes[0]], "pass"
        chooser = random.Random(f"{match.match_id}:{match.version}:{seat}")
        return chooser.choice(legal), "bot"

    def _check_time(self, match: Match, seat: int) -> None:
        """A seat whose time has run out moves no more: the table's policy moves for it."""
        deadline = match.clock.deadline(seat) if match.clock is not None else None
        if deadline is not None and deadline <= self._now_ms():
            raise FailedPrecondition(f"seat {seat}'s time ran out; the clock moves for it", "clock.expired")

    def _timed(self, before: Match, progress: Progress, mover: int | None) -> Progress:
        """`progress` closed by the clocks' ClockSet, in a clocked match that is under way."""
        match = progress.match
        settings = clocks.settings_of(match.config)
        if settings is None or not progress.events or match.status == Status.LOBBY:
            return progress
        asked = match.turn.seats if match.status == Status.ACTIVE and match.turn.chance is None else ()
        clock_set = clocks.tick(settings, before.clock, match.seat_count, self._now_ms(), asked, mover)
        return progress.then(lifecycle.evolve(match, clock_set), log_events.platform_event(clock_set))

    async def _schedule(self, match: Match) -> None:
        """Before an append: wake the keeper at the match's next deadline (see deadlines.py),
        or, for a lobby, once it would be idle."""
        if match.status == Status.LOBBY and self._lobby_idle_seconds:
            idle_at = lifecycle.lobby_wake_ms(self._now_ms(), self._lobby_idle_seconds)
            await self.deadlines.postpone(match.match_id, idle_at)
        if match.clock is not None and match.status == Status.ACTIVE:
            deadline = match.clock.next_deadline()
            if deadline is not None:
                await self.deadlines.schedule(match.match_id, deadline)

    async def _check_table(self, game: str, config: Mapping[str, str], seat_count: int) -> None:
        """InvalidArgument unless the table options parse and the game's rules accept the
        seat count and the game's options (checked now rather than at the start)."""
        try:
            table_config(config)
        except InvalidConfig as bad:
            raise InvalidArgument(f"config[{bad.option}]: {bad}", "config", {"option": bad.option}) from None
        await self._rules.of(game).Setup(rpb.SetupRequest(game=game, config=game_config(config), seat_count=seat_count))

    async def undo(
        self, match_id: str, seat: int, count: int = 1, command_id: str = "", holder: Holder | None = None
    ) -> Written:
        """Take back `seat`'s last `count` actions (services/match/undo.py says which may
        be): one ActionsUndone that returns the game to where it stood before them."""

        async def plan(match: Match) -> Progress:
            lifecycle.require_status(match, Status.ACTIVE, "match.not_active")
            lifecycle.require_seated(match, seat)
            lifecycle.require_holder(match, seat, holder)
            self._check_time(match, seat)
            undo.check_undo(match.undo, seat, count)
            past = await self._undisclosed(match, seat, count)
            return self._clocks_restored(self._turns.undo(match, seat, count, past), past, seat)

        asked = fingerprint("undo", _holder_id(holder), seat, count)
        # Not ticked: an undo sets the clocks back itself, its seat paying for the time since.
        written = await self._write(match_id, command_id, plan, asked, ticked=False)
        if written.match is not None:
            log.info("actions_undone", match_id=match_id, seat=seat, count=count, version=written.version)
        return written

    async def _undisclosed(self, match: Match, seat: int, count: int) -> Match:
        """The match before `seat`'s last `count` actions, once the rules have judged that
        none of them disclosed anything hidden from the seat (newest first: a move that did
        fixes every move before it as well). Refuses with what may still be taken back."""
        stream = match_stream(match.match_id)
        versions = match.undo.versions
        past = match
        for taken, before in enumerate(reversed(versions[-count:])):
            past = await self._matches.at(match.match_id, before)
            (point,) = await self._store.read(stream, after_version=before, limit=1)
            action = ev.UndoPoint.FromString(point.data).action if point.type == undo.UNDO_POINT else None
            # A point without its action was judged when its move was made.
            if action is None or not action.type_url or not await self._turns.discloses(past, seat, action):
                continue
            if taken == 0:
                raise FailedPrecondition(
                    "nothing to undo: the last action showed something hidden", "undo.nothing_to_undo"
                )
            raise FailedPrecondition(
                f"only {taken} action(s) can be taken back: the one before showed something hidden", "undo.too_many"
            )
        return past

    def _clocks_restored(self, progress: Progress, past: Match, seat: int) -> Progress:
        """An undo closed by the clocks of the version it returns to, `seat` charged with
        all the time since (services/match/clocks.py `restore`), in a clocked match."""
        clock = past.clock or progress.match.clock
        if clocks.settings_of(progress.match.config) is None or clock is None:
            return progress
        clock_set = clocks.restore(clock, self._now_ms(), seat)
        return progress.then(lifecycle.evolve(progress.match, clock_set), log_events.platform_event(clock_set))

    # ------------------------------------------------------------ reads

    async def current(self, match_id: str) -> Match:
        """The match at its stream's current version; NotFound if there is none."""
        return await self._matches.get(match_id)

    async def view(
        self, match_id: str, viewer: int | None, holder: Holder | None = None
    ) -> tuple[Match, any_pb2.Any | None]:
        """The match and what `viewer` may see of the game (None before the start)."""
        match = await self.current(match_id)
        lifecycle.check_viewer(match, viewer, holder)
        return match, await self._seen_by(match, viewer)

    async def view_at(
        self, match_id: str, version: int, viewer: int | None, holder: Holder | None = None
    ) -> tuple[Match, any_pb2.Any | None]:
        """Replay: the match and what `viewer` saw once the log reached `version`
        (who may see what: lifecycle.check_viewer and check_replay)."""
        current = await self.current(match_id)
        lifecycle.check_replay(current, version)
        lifecycle.check_viewer(current, viewer, holder)
        # The current version needs no fold (the gateway asks so for a spectator's live view).
        past = current if version == current.version else await self._matches.at(match_id, version)
        return past, await self._seen_by(past, viewer)

    async def legal_actions(
        self, match_id: str, seat: int, holder: Holder | None = None
    ) -> tuple[int, list[any_pb2.Any]]:
        match = await self.current(match_id)
        lifecycle.require_seat_index(match, seat)
        lifecycle.require_holder(match, seat, holder)
        if match.status != Status.ACTIVE or seat not in match.turn.seats:
            return match.version, []
        known = self._rules.known_position(match)
        if known is not None:
            return match.version, list(known.seats[seat].legal_actions)
        reply = await self._rules.of(match.game).ListLegalActions(
            rpb.ListLegalActionsRequest(state=records.engine_state(match), seat=seat)
        )
        return match.version, list(reply.actions)

    async def position(self, match_id: str) -> tuple[Match, rpb.Position | None]:
        """The match now and its whole position (None before the start). Every seat's
        secrets are in it: for the trusted gateway, which shows each viewer its part."""
        match = await self.current(match_id)
        return match, await self._position_of(match)

    async def list_matches(self, game: str = "", status: int = 0, limit: int = 50) -> list[Match]:
        """Newest matches first, filtered through the directory, each fresh."""
        ids = await self._directory.find(game, status, min(limit or 50, 500))
        matches = [await self.current(match_id) for match_id in ids]
        # The directory may lag behind a log: filter on the fresh matches again.
        return [m for m in matches if (not game or m.game == game) and (not status or m.status == status)]

    async def _position_of(self, match: Match) -> rpb.Position | None:
        """The match's whole position, computed once (mostly by the decision that led
        there): submits, watchers and reads share it."""
        return await self._rules.position(match)

    async def _seen_by(self, match: Match, viewer: int | None) -> any_pb2.Any | None:
        """What `viewer` sees of the game at the match's version (None before the start),
        computed once per (version, viewer): a view at a version never changes, so live
        views and replays share the cache (and a position computed already answers it)."""
        if match.engine_state is None:
            return None
        known = self._rules.known_position(match)
        if known is not None and viewer is not None:
            return known.seats[viewer].view
        if known is not None and known.HasField("spectator_view"):
            return known.spectator_view
        # A decision's position leaves the spectator out: asked for (and kept) here.
        key = (match.match_id, match.version, -2 if viewer is None else viewer)
        view = self._views.get(key)
        if view is None:
            request = rpb.GetViewRequest(state=records.engine_state(match))
            if viewer is not None:
                request.viewer = viewer
            view = (await self._rules.of(match.game).GetView(request)).view
            self._views[key] = view
            while len(self._views) > CACHE_SIZE:
                self._views.popitem(last=False)
        return view

    # ------------------------------------------------------------ writing

    async def _known_command(self, match_id: str, command_id: str, asked: str) -> AppendResult | None:
        """The first answer to `command_id`, if any; AlreadyExists if it answered another request."""
        try:
            return await self._store.command(match_stream(match_id), command_id, asked)
        except CommandReused:
            raise _reused() from None

    async def _answered(self, match_id: str, command_id: str, asked: str) -> Written | None:
        """The first answer to `command_id` if it was applied before."""
        if command_id and (done := await self._known_command(match_id, command_id, asked)) is not None:
            return Written(done.last_version, None)
        return None

    async def _write(
        self, match_id: str, command_id: str, plan: Plan, asked: str, mover: int | None = None, ticked: bool = True
    ) -> Written:
        """Decide against the current match and append, catching up after a lost race.
        A command applied before is answered by the append (it checks the command id
        first), or, when deciding it again fails, by asking for its first answer then.
        `ticked`: the clocks close the batch (a plan that sets them itself says False)."""
        async with self._lock(match_id):
            match = await self._matches.get(match_id, fresh=False)
            for _ in range(MAX_RETRIES):
                try:
                    progress = await plan(match)
                except ServiceError:
                    if (done := await self._answered(match_id, command_id, asked)) is not None:
                        return done
                    # A refusal may come from a match another replica has moved past.
                    if await self._store.version(match_stream(match_id)) == match.version:
                        raise
                    match = await self._matches.catch_up(match_id, match)
                    continue
                except Exception:
                    if (done := await self._answered(match_id, command_id, asked)) is not None:
                        return done
                    raise
                if ticked:
                    progress = self._timed(match, progress, mover)
                try:
                    await self._schedule(progress.match)
                    result = await self._matches.append(match, progress, command_id, asked)
                except CommandReused:
                    raise _reused() from None
                except VersionConflict:
                    match = await self._matches.catch_up(match_id, match)
                    continue
                if result.duplicate:
                    return Written(result.last_version, None)
                # The repository moved its cache to the appended match already (stepping
                # the undo track over the batch costs as much as the rest of the copy).
                after = self._matches.cached(match_id)
                if after is None or after.version != result.last_version:
                    after = moved(match, progress, result.last_version)
                await self._after_commit(match, after)
                return Written(result.last_version, after, progress.events)
        raise Aborted(f"match {match_id} is too busy, retry", "match.contention")

    async def _after_commit(self, before: Match, after: Match) -> None:
        """What follows a landed append: the directory, and the end of a match."""
        if after.players != before.players or after.status != before.status:
            await self._directory.put(after.match_id, after.game, int(after.status))
        if after.status == Status.FINISHED and before.status != Status.FINISHED:
            log.info("match_ended", match_id=after.match_id, version=after.version)
            await self._turns.release(after)
            # A lobby closed for idleness was never played: no result to announce.
            if self._on_finished is not None and not after.expired:
                await self._on_finished(after.match_id, after.game)

    def _lock(self, match_id: str) -> asyncio.Lock:
        lock = self._locks.get(match_id)
        if lock is None:
            if len(self._locks) > CACHE_SIZE:
                self._locks = {k: v for k, v in self._locks.items() if v.locked()}
            lock = self._locks[match_id] = asyncio.Lock()
        return lock


def _forfeited(match: Match, seat: int) -> common_pb2.Outcome:
    """The end of a match `seat` lost on time: last place, every other seat shares first."""
    ranking = clocks.forfeit_ranking(match.seat_count, seat)
    return common_pb2.Outcome(
        ranking=ranking,
        scores=[0 if place > 1 else 1 for place in ranking],
        detail={"reason": "timeout", "forfeited": str(seat)},
    )


def _check_match_id(match_id: str) -> None:
    if not match_id or len(match_id) > 64 or not match_id.replace("-", "").isalnum():
        raise InvalidArgument("match_id must be 1 to 64 letters, digits or dashes", "match_id")


def _holder_id(holder: Holder | None) -> str:
    return holder.player_id if holder is not None else ""


def _reused() -> AlreadyExists:
    return AlreadyExists(
        "this command id was already used for another request; use a new id for a new request",
        "command.reused",
    )
