"""Matchmaker use cases: tickets, watching them, ratings, and one replica's loops.

Every replica runs the same loops: grouping passes over the pools it owns
(pools are partitioned among the live replicas by rendezvous hashing,
services/matchmaker/partition.py, with a short lease per pool for the moments
two replicas see different memberships; a full pass, once per tick, first
expires the pool's tickets older than the time-to-live; between ticks a pass
groups only the pools that gained tickets), formation jobs and bot jobs
shared through consumer groups, the ratings projection, and a follower of the
ticket events stream that wakes this replica's watchers (with the assignment
when the events entry carries it). The gateway may serve the ticket calls
itself with the same use cases (desk.py): then it runs only the follower
and the heartbeats, for its own watchers.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Iterator, Mapping
from dataclasses import dataclass

from prometheus_client import Counter

from services.common import logging as tlog
from services.common.errors import AlreadyExists, FailedPrecondition, InvalidArgument, NotFound
from services.common.players import BOT_PREFIX
from services.matchmaker import partition
from services.matchmaker.config import MatchmakerConfig
from services.matchmaker.pace import Pace
from services.matchmaker.pool import Group, Ticket, form_groups, stragglers
from services.matchmaker.projection import RatingsProjection, Standing, ratings_key
from services.matchmaker.ratings import DEFAULT, Rating
from services.matchmaker.store import TicketState, TicketStore, ids_of, placed_of, pool_name
from services.matchmaker.tables import matchmade_options

log = tlog.get("matchmaker")
TICKETS = Counter("tabletop_matchmaker_tickets_total", "Tickets by what became of them", ["event"])
MAX_SEATS = 16
MAX_OPTIONS = 16
WATCH_RECHECK_SECONDS = 10.0
# Longest block on the events stream: below redis-py's default 5 s socket timeout, which
# would otherwise end a quiet read with an error (and the follower would lose its place).
FOLLOW_BLOCK_MS = 2000
# How often a replica that no ticket event concerns looks again (run_notifier).
STANDBY_SECONDS = 0.1
LEASE_MS = 5000
# A replica silent this long (or three grouping ticks, if longer) has left the partition.
MIN_MEMBERSHIP_SECONDS = 3.0
_NAME = re.compile(r"^[A-Za-z0-9_.:@-]{1,64}$")


WAITING, ASSIGNED, EXPIRED, ABANDONED = "waiting", "assigned", "expired", "abandoned"


@dataclass(frozen=True)
class TicketView:
    """What a watcher is told: waiting, expired, or where the ticket was placed."""

    ticket_id: str
    # WAITING, ASSIGNED or EXPIRED; the last two are final.
    status: str
    match_id: str = ""
    seat: int = -1
    # The seat's tenure when the match was formed (0: not known).
    tenure: int = 0


class _Waker:
    """One watch's wake-up: set by the events follower, with the placement when the entry carried it."""

    __slots__ = ("event", "placed")

    def __init__(self) -> None:
        self.event = asyncio.Event()
        self.placed: tuple[str, int, int] | None = None


class MatchmakerApp:
    def __init__(self, store: TicketStore, ratings: RatingsProjection, config: MatchmakerConfig,
                 replica: str) -> None:
        self._store = store
        self._ratings = ratings
        self._config = config
        self.replica = replica
        self._watchers: dict[str, set[_Waker]] = {}
        self._dirty = asyncio.Event()
        # Pools that gained waiting tickets since the last pass (None in it: one not named).
        self._dirty_pools: set[str | None] = set()
        # From the last full pass: every pool known, and the ones this replica owns.
        self._known: set[str] = set()
        self._mine: frozenset[str] = frozenset()
        self._last_full = 0.0
        # Where the events follower is: kept across restarts of the loop, so no wake-up is lost.
        self._followed = "$"
        # How long a pass waits for more arrivals, by how fast they come (services/matchmaker/pace.py).
        self._pace = Pace(config.batch_window)

    # ------------------------------------------------------------ tickets

    async def find(self, game: str, player_id: str, players: tuple[int, int], options: Mapping[str, str],
                   command_id: str = "") -> tuple[str, bool]:
        """Queue a ticket for `player_id`: (the ticket id, whether it was queued before).

        A player has at most one ticket per game that may still be placed: while one waits
        (or is being placed), FindMatch for that game answers it, whatever the new request.
        """
        return await self._find(game, player_id, players, options, command_id, uuid.uuid4().hex, False)

    async def queue(self, game: str, player_id: str, players: tuple[int, int], options: Mapping[str, str],
                    command_id: str = "") -> AsyncGenerator[tuple[TicketView, bool], None]:
        """`find`, then `watch` its ticket: each view, with whether the ticket was queued before.

        A new ticket's watch listens before the ticket exists, and its first state is known
        (waiting, its watcher heard and counted: the enqueue script writes all three), so it
        costs no read. The stream ending without an assignment withdraws the ticket (`_watched`)."""
        fresh = uuid.uuid4().hex
        with self._listening(fresh) as woken:
            ticket_id, before = await self._find(game, player_id, players, options, command_id, fresh, True)
            if ticket_id == fresh:
                async with self._watched(ticket_id):
                    async for view in self._follow(ticket_id, woken, TicketState(ticket_id, player_id, game,
                                                                                 WAITING)):
                        yield view, before
                return
        async with contextlib.aclosing(self.watch(ticket_id, player_id)) as views:
            async for view in views:
                yield view, before

    @contextlib.asynccontextmanager
    async def _watched(self, ticket_id: str) -> AsyncIterator[None]:
        """A counted watch of the ticket, for the block: however the block ends (the watcher went
        away, the stream was cut, a drain), the watch ends with it, and when it was the last one a
        waiting ticket is withdrawn at once, so nobody is seated with a player who left. A watch
        opening again within the grace period (a reconnect, a stream reopened on another replica)
        puts it back in its pool with its place (store.py, _WATCHED)."""
        try:
            yield
        finally:
            # Shielded: this runs as the stream is cancelled, and must reach Redis all the same.
            ending = asyncio.ensure_future(self._store.unwatch(ticket_id))
            try:
                if await asyncio.shield(ending):
                    TICKETS.labels("withdrawn").inc()
                    log.info("ticket_withdrawn", ticket_id=ticket_id, reason="watcher_left")
            except asyncio.CancelledError:
                raise  # cancelled again: the shielded call still runs to its end, on its own
            except Exception as error:  # noqa: BLE001 - Redis away: the grace period withdraws it instead
                log.warning("ticket_unwatch_failed", ticket_id=ticket_id, error=str(error))

    async def _find(self, game: str, player_id: str, players: tuple[int, int], options: Mapping[str, str],
                    command_id: str, fresh: str, watched: bool) -> tuple[str, bool]:
        """`find`, naming a new ticket `fresh` (`watched`: counted as watched from its first moment).
        The ticket's options are the game's matchmade defaults with the request's over them
        (tables.py: a clock, a bot's move for a seat whose time runs out)."""
        low, high = _validate(game, player_id, players, options, command_id)
        options = matchmade_options(game, options)
        # The player's rating and live ticket in one round trip (then the enqueue script).
        seen, raw = await self._store.live_and_field(game, player_id, ratings_key(game), player_id)
        rating = Rating.decode(raw) if raw is not None else DEFAULT
        ticket_id, how = await self._store.enqueue(fresh, player_id, game, options, (low, high), rating.mu,
                                                   command_id, seen, self._config.pool_shards, watched)
        if how == "command":
            # A command id the player used before: the same request gets its
            # ticket again, another request is refused.
            asked = await self._store.request_of(ticket_id)
            if asked is None or (partition.home(asked[0]), *asked[1:]) != (pool_name(game, options), low, high):
                raise AlreadyExists("this command id was already used for another request",
                                    "command.reused")
            return ticket_id, True
        if how == "live":
            log.info("ticket_already_queued", ticket_id=ticket_id, game=game)
            return ticket_id, True
        TICKETS.labels("queued").inc()
        log.info("ticket_queued", ticket_id=ticket_id, game=game, players_min=low, players_max=high)
        return ticket_id, False

    async def watch(self, ticket_id: str, player_id: str) -> AsyncGenerator[TicketView, None]:
        """The ticket's state now, then its assignment or expiry the moment it happens."""
        _require_ticket_id(ticket_id)
        # Listen before the first read: a change after it wakes the loop at once.
        with self._listening(ticket_id) as woken:
            # Back within the grace period: the ticket stays (run_heartbeats keeps saying so).
            # The ownership check and that refresh are one round trip.
            # A ticket withdrawn when its last watcher left is back in its pool (store.py).
            state: TicketState | None = await self._store.get_heard(ticket_id, player_id)
            if state is None or state.player_id != player_id or not player_id:
                raise NotFound(f"no ticket {ticket_id}", "matchmaker.ticket_not_found")
            if state.state not in (WAITING, "forming"):
                for view in self._settled(ticket_id, state):
                    yield view
                return
            async with self._watched(ticket_id):
                async for view in self._follow(ticket_id, woken, state):
                    yield view

    def _settled(self, ticket_id: str, state: TicketState) -> Iterator[TicketView]:
        """A ticket that no longer waits, as its watcher is told (no watch counted)."""
        yield self._view(ticket_id, state)

    @contextlib.contextmanager
    def _listening(self, ticket_id: str) -> Iterator[_Waker]:
        """A wake-up the events follower sets when the ticket changes, for the block."""
        woken = _Waker()
        self._watchers.setdefault(ticket_id, set()).add(woken)
        try:
            yield woken
        finally:
            waiting = self._watchers.get(ticket_id, set())
            waiting.discard(woken)
            if not waiting:
                self._watchers.pop(ticket_id, None)

    async def _follow(self, ticket_id: str, woken: _Waker, state: TicketState | None) -> AsyncIterator[TicketView]:
        """From `state` on: the view now, then the assignment or expiry as `woken` hears of it."""
        told_waiting = False
        while True:
            view = self._view(ticket_id, state)
            if view.status != WAITING:
                yield view
                return
            if not told_waiting:
                told_waiting = True
                yield view
            with contextlib.suppress(TimeoutError):
                # Woken by the events stream; the timeout is only a safety net.
                await asyncio.wait_for(woken.event.wait(), WATCH_RECHECK_SECONDS)
            woken.event.clear()
            if woken.placed is not None:
                # The assignment came with the event (written by the same script): no read.
                match_id, seat, tenure = woken.placed
                yield TicketView(ticket_id, ASSIGNED, match_id, seat, tenure)
                return
            state = await self._store.get(ticket_id)

    def _view(self, ticket_id: str, state: TicketState | None) -> TicketView:
        if state is None or state.state == "cancelled":
            raise NotFound(f"no ticket {ticket_id}", "matchmaker.ticket_not_found")
        if state.state == ABANDONED:
            raise FailedPrecondition(
                f"ticket {ticket_id} was cancelled: nobody watched it for {self._config.watch_grace:g} s; "
                "queue again", "matchmaker.ticket_abandoned")
        if state.state == "failed":
            raise FailedPrecondition(f"no match can be made for this ticket: {state.error}",
                                     "matchmaker.formation_refused")
        if state.state == EXPIRED:
            return TicketView(ticket_id, EXPIRED)
        if state.state != ASSIGNED:
            return TicketView(ticket_id, WAITING)
        return TicketView(ticket_id, ASSIGNED, state.match_id, state.seat, state.tenure)

    async def _owned(self, ticket_id: str, player_id: str) -> TicketState:
        """The ticket; NotFound unless `player_id` queued it: another's ticket is not even there."""
        state = await self._store.get(ticket_id)
        if state is None or state.player_id != player_id or not player_id:
            raise NotFound(f"no ticket {ticket_id}", "matchmaker.ticket_not_found")
        return state

    async def cancel(self, ticket_id: str, player_id: str) -> None:
        _require_ticket_id(ticket_id)
        await self._owned(ticket_id, player_id)
        done = await self._store.cancel(ticket_id)
        if done < 0:
            raise NotFound(f"no ticket {ticket_id}", "matchmaker.ticket_not_found")
        if done == 0:
            raise FailedPrecondition("the ticket is already being placed in a match", "matchmaker.ticket_placed")
        TICKETS.labels("cancelled").inc()
        log.info("ticket_cancelled", ticket_id=ticket_id)

    # ------------------------------------------------------------ ratings

    async def rating(self, game: str, player_id: str) -> Standing:
        """The player's rating, provisional while the leaderboard does not show it (a guest's
        before its minimum of matchmade games): the player may still see it."""
        if not game or not player_id:
            raise InvalidArgument("game and player_id are required", "rating")
        found = await self._ratings.standing(game, player_id)
        if found is None:
            raise NotFound(f"{player_id} has no rated {game} match", "matchmaker.player_not_rated")
        return found

    async def leaderboard(self, game: str, limit: int, offset: int) -> list[tuple[str, Rating]]:
        if not game:
            raise InvalidArgument("game is required", "game")
        if limit < 0 or offset < 0 or limit > 1000:
            raise InvalidArgument("limit must be 0-1000 and offset not negative", "limit")
        return await self._ratings.leaderboard(game, limit or 20, offset)

    # ------------------------------------------------------------ the replica's loops

    async def group_pass(self, only: set[str] | None = None) -> int:
        """Group the pools this replica owns (partition.py) and can lease now; returns the
        groups claimed.

        A full pass (`only` None) first abandons unwatched tickets, announces this replica
        and reads the membership and the pools, and expires each pool's old tickets; a pass
        for `only` (the pools that just gained tickets) groups those of them this replica
        owns, with three round trips per pool: lease and ids, the tickets, claims and unlease.
        A pool not known at the last full pass makes it a full pass.
        """
        full = only is None or not only <= self._known
        if full:
            await self._abandon()
            ttl_ms = int(1000 * max(MIN_MEMBERSHIP_SECONDS, 3 * self._config.tick))
            live = await self._store.live_replicas(self.replica, int(time.time() * 1000), ttl_ms)
            pools = await self._store.pools()
            self._known, self._mine = set(pools), frozenset(partition.owned(pools, self.replica, live))
            self._last_full = time.monotonic()
        claimed = 0
        for pool in self._mine if full or only is None else self._mine & only:
            tickets = await self._store.lease_waiting(pool, self.replica, LEASE_MS, self._config.batch)
            if tickets is None:
                continue  # another replica is grouping it right now
            try:
                if full and self._config.ticket_ttl > 0:
                    # Under the lease; the expired ones are out of the pool before the claims.
                    gone = set(await self._expire(pool))
                    tickets = [t for t in tickets if t.ticket_id not in gone]
                groups = [(uuid.uuid4().hex, group) for group in form_groups(tickets, time.time(), self._config)]
            except BaseException:
                await self._store.unlease(pool)
                raise
            # Every group of the pass in one script (each claimed whole or skipped), then the unlease.
            # A ticket whose watcher went unheard for the grace period is placed with nobody.
            unheard = time.time() - self._config.watch_grace if self._config.watch_grace > 0 else 0.0
            claimed += sum(await self._store.claim_and_unlease(pool, groups, unheard))
            if full:
                await self._rehome(pool, tickets, [group for _, group in groups])
        return claimed

    async def _rehome(self, pool: str, tickets: list[Ticket], groups: list[Group]) -> None:
        """Move a sub-pool's stragglers (partition.py) to sub-pool 0, where they meet."""
        if partition.home(pool) == pool:
            return
        late = stragglers(tickets, groups, time.time(), self._config.shard_merge_after)
        if late:
            moved = await self._store.rehome(pool, [t.ticket_id for t in late])
            log.info("tickets_rehomed", pool=pool, count=len(moved))

    def forms_matches(self) -> bool:
        """Whether this replica takes new formation jobs: while it owns a pool, or knows of
        none. A pool's matches are then formed by the replica that groups it, in the
        batches its passes make, instead of being split among every replica's batches (at
        N times the calls). A job left by a replica that died is claimed back by any
        (claims.py); one never handed out waits for the pool's next owner, which the next
        full pass names within a few seconds, or for any replica once no pool is left."""
        return bool(self._mine) or not self._known

    async def _expire(self, pool: str) -> list[str]:
        """End the pool's tickets that have waited longer than the time-to-live (under the pool's lease).

        Age counts from FindMatch: a ticket handed back after a failed formation keeps its queued
        time (and its place in the queue), so it may expire on the next pass.
        """
        ttl = self._config.ticket_ttl
        if ttl <= 0:
            return []
        gone = await self._store.expire(pool, time.time() - ttl, self._config.batch)
        if gone:
            TICKETS.labels("expired").inc(len(gone))
            log.info("tickets_expired", pool=pool, count=len(gone), ticket_ids=gone)
        return gone

    async def _abandon(self) -> None:
        """End the waiting tickets nobody has watched for the grace period: their players are
        gone, and must not be seated with the ones still there. Any replica may run it: the
        script re-checks each ticket, so two passes at once end each ticket once."""
        grace = self._config.watch_grace
        if grace <= 0:
            return
        gone = await self._store.abandon(time.time() - grace, self._config.batch)
        if gone:
            TICKETS.labels("abandoned").inc(len(gone))
            log.info("tickets_abandoned", count=len(gone), ticket_ids=gone, grace_seconds=grace)

    async def run_heartbeats(self) -> None:
        """Say, for every ticket this replica streams to a watcher, that its watcher is there."""
        grace = self._config.watch_grace
        while True:
            await asyncio.sleep(max(0.05, grace / 4) if grace > 0 else 5.0)
            if grace > 0:  # with no grace period nobody is abandoned: nothing to refresh
                await self._store.heard(list(self._watchers))

    async def run_grouping(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                # New tickets wake us; the tick lets waiting tickets widen and reach backfill.
                await asyncio.wait_for(self._dirty.wait(), self._config.tick)
            if self._dirty.is_set():
                # Let the arrivals of a busy moment land, so one pass groups them all.
                await asyncio.sleep(self._pace.wait())
            self._dirty.clear()
            dirty, self._dirty_pools = self._dirty_pools, set()
            # Every tick a full pass (widening, backfill, expiry, membership); between ticks
            # only the pools that gained tickets.
            due = time.monotonic() - self._last_full >= self._config.tick
            named = {pool for pool in dirty if pool is not None}
            await self.group_pass(None if due or None in dirty else named)

    def _concerned(self) -> bool:
        """Whether ticket events may concern this replica now: it streams a ticket to a
        watcher, owns a pool, or knows of none (so a new pool may be its)."""
        return bool(self._watchers) or bool(self._mine) or not self._known

    async def run_notifier(self) -> None:
        """Follow the ticket events: wake watchers, and the grouping when tickets (re)enter a pool."""
        while True:
            if not self._concerned():
                await self._keep_place()
                continue
            entries = await self._store.ticket_events(self._followed, FOLLOW_BLOCK_MS)
            if entries:
                self._pace.arrived(sum(1 for _, f in entries if f.get(b"k") == b"queued"), time.monotonic())
            if entries and not self._watchers:
                # Nobody here waits on a wake-up: let the next arrivals gather (the grouping
                # waits as long anyway), and read them with one call.
                await asyncio.sleep(self._pace.wait())
            for entry_id, fields in entries:
                self._followed = entry_id
                if fields.get(b"k") in (b"queued", b"waiting"):
                    pool = fields.get(b"pool")
                    name = pool.decode() if pool is not None else None
                    # Another replica's pool is its to group: no pass here. An unknown pool
                    # makes a full pass, which learns who owns it.
                    if name is None or name in self._mine or name not in self._known:
                        self._dirty_pools.add(name)
                        self._dirty.set()
                    continue  # a watcher of a waiting ticket has nothing new to hear
                placed = placed_of(fields)
                for ticket_id in ids_of(fields):
                    for woken in self._watchers.get(ticket_id, ()):
                        woken.placed = placed.get(ticket_id)
                        woken.event.set()

    async def _keep_place(self) -> None:
        """Stand by without reading the events: nothing here waits on them. A replica that
        owns no pool and serves no watcher would otherwise read every ticket's events,
        so each replica added would cost every ticket something. Its place moves to the
        newest event (one small read), so that once it is concerned it reads on from about
        here, not through a backlog; a pool it comes to own is grouped whole by the full
        pass that made it the owner, and a new pool is found by the next full pass."""
        newest = await self._store.last_event()
        # Concerned meanwhile (a watcher came): keep the older place, or its events,
        # which may lie before `newest`, would be skipped.
        if newest is not None and not self._concerned():
            self._followed = newest
        await asyncio.sleep(STANDBY_SECONDS)

    async def run_ratings(self, entry_id: str, fields: Mapping[bytes, bytes]) -> None:
        """Handler of a tabletop:finished entry: catch the projection up to it."""
        await self._ratings.catch_up(upto=entry_id)


def _validate(game: str, player_id: str, players: tuple[int, int], options: Mapping[str, str],
              command_id: str) -> tuple[int, int]:
    if not _NAME.match(game):
        raise InvalidArgument("game is required (letters, digits, _ . : @ -)", "game")
    if not _NAME.match(player_id) or player_id.startswith(BOT_PREFIX):
        raise InvalidArgument(f"player_id must be 1-64 letters, digits or _ . : @ -, not starting {BOT_PREFIX!r}",
                              "player_id")
    low, high = players[0], players[1] or players[0]
    if not 1 <= low <= high <= MAX_SEATS:
        raise InvalidArgument(f"need 1 <= players_min <= players_max <= {MAX_SEATS}", "players")
    if len(options) > MAX_OPTIONS or any(len(k) > 64 or len(v) > 256 or not k for k, v in options.items()):
        raise InvalidArgument(f"at most {MAX_OPTIONS} options, keys 1-64 and values up to 256 characters",
                              "options")
    if len(command_id) > 128:
        raise InvalidArgument("command_id is at most 128 characters", "command_id")
    return low, high


def _require_ticket_id(ticket_id: str) -> None:
    if not ticket_id or len(ticket_id) > 64:
        raise InvalidArgument("ticket_id is required", "ticket_id")

