"""The clocks' use cases, apart from the players': what the keeper does, and the
clocks' part in every write.

`Timing` is the wall clock and the table's clock rules as every write applies
them: a seat past its deadline moves no more (`check_time`), a batch of a
clocked match under way is closed by a ClockSet (`timed`), an undo by the
clocks of the version it returns to (`restored`), and before each append the
keeper's wake-up is set (`schedule`: services/match/deadlines.py). The match
app and its unit of work hold one (services/match/unit_of_work.py).

`Timekeeper` is what the clock keeper (services/match/keeper.py) calls when a
match's wake-up comes due (`wake`): close a lobby idle for too long, or apply
the table's clock policy to every seat whose time has run out (`expire`), each
timeout one append under a command id of its own, so two keepers that race
append it once.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from google.protobuf import any_pb2
from tabletop.common.v1 import common_pb2
from tabletop.match.v1 import events_pb2 as ev
from tabletop.rules.v1 import rules_service_pb2 as rpb

from services.common import logging as tlog
from services.common import metrics
from services.common.errors import FailedPrecondition
from services.match import clocks, lifecycle, log_events, records
from services.match.clocks import ClockSettings
from services.match.deadlines import Deadlines
from services.match.lifecycle import Match, Status
from services.match.repository import MatchRepository
from services.match.turns import Progress, RulesBook, TurnRunner
from services.match.unit_of_work import UnitOfWork, fingerprint

log = tlog.get("match")
# Timeout moves one look at a match makes before letting the keeper come back.
MAX_TIMEOUTS = 50


class Timing:
    def __init__(self, deadlines: Deadlines, now_ms: Callable[[], int] | None, lobby_idle_seconds: float) -> None:
        # Clocked matches' wake-ups and idle lobbies' (services/match/deadlines.py).
        self.deadlines = deadlines
        self._now_ms = now_ms or (lambda: int(time.time() * 1000))
        # A lobby with nothing written for this long is closed (0: never; see Timekeeper.wake).
        self.lobby_idle_seconds = lobby_idle_seconds

    def now_ms(self) -> int:
        """The wall clock deadlines are kept in (unix ms)."""
        return self._now_ms()

    def check_time(self, match: Match, seat: int) -> None:
        """A seat whose time has run out moves no more: the table's policy moves for it."""
        deadline = match.clock.deadline(seat) if match.clock is not None else None
        if deadline is not None and deadline <= self._now_ms():
            raise FailedPrecondition(f"seat {seat}'s time ran out; the clock moves for it", "clock.expired")

    def timed(self, before: Match, progress: Progress, mover: int | None) -> Progress:
        """`progress` closed by the clocks' ClockSet, in a clocked match that is under way."""
        match = progress.match
        settings = clocks.settings_of(match.config)
        if settings is None or not progress.events or match.status == Status.LOBBY:
            return progress
        asked = match.turn.seats if match.status == Status.ACTIVE and match.turn.chance is None else ()
        clock_set = clocks.tick(settings, before.clock, match.seat_count, self._now_ms(), asked, mover)
        return progress.then(lifecycle.evolve(match, clock_set), log_events.platform_event(clock_set))

    def restored(self, progress: Progress, past: Match, seat: int) -> Progress:
        """An undo closed by the clocks of the version it returns to, `seat` charged with
        all the time since (services/match/clocks.py `restore`), in a clocked match."""
        clock = past.clock or progress.match.clock
        if clocks.settings_of(progress.match.config) is None or clock is None:
            return progress
        clock_set = clocks.restore(clock, self._now_ms(), seat)
        return progress.then(lifecycle.evolve(progress.match, clock_set), log_events.platform_event(clock_set))

    async def schedule(self, match: Match) -> None:
        """Before an append: wake the keeper at the match's next deadline (see deadlines.py),
        or, for a lobby, once it would be idle."""
        if match.status == Status.LOBBY and self.lobby_idle_seconds:
            idle_at = lifecycle.lobby_wake_ms(self._now_ms(), self.lobby_idle_seconds)
            await self.deadlines.postpone(match.match_id, idle_at)
        if match.clock is not None and match.status == Status.ACTIVE:
            deadline = match.clock.next_deadline()
            if deadline is not None:
                await self.deadlines.schedule(match.match_id, deadline)


class Timekeeper:
    def __init__(
        self, timing: Timing, work: UnitOfWork, matches: MatchRepository, rules: RulesBook, turns: TurnRunner
    ) -> None:
        self._timing = timing
        self._work = work
        self._matches = matches
        self._rules = rules
        self._turns = turns
        self.deadlines = timing.deadlines

    def now_ms(self) -> int:
        """The wall clock deadlines are kept in (unix ms)."""
        return self._timing.now_ms()

    async def wake(self, match_id: str) -> int | None:
        """What the keeper does with a match whose wake-up came due: close a lobby that has
        been idle (`_expire_lobby`), or apply the clocks of a match in play (`expire`).
        Answers when to look again (None: never)."""
        match = await self._matches.get(match_id)
        if match.status == Status.LOBBY and self._timing.lobby_idle_seconds:
            return await self._expire_lobby(match)
        return await self.expire(match_id)

    async def expire(self, match_id: str) -> int | None:
        """Apply the table's clock policy to every seat whose time has run out, one
        timeout per append; answers when to look again (None: no clock runs)."""
        for _ in range(MAX_TIMEOUTS):
            match = await self._matches.get(match_id)
            settings = clocks.settings_of(match.config)
            if settings is None or match.status != Status.ACTIVE or match.clock is None:
                return None
            overdue = match.clock.overdue(self.now_ms())
            if not overdue:
                return match.clock.next_deadline()
            try:
                await self._time_out(match, overdue[0], settings)
            except FailedPrecondition:
                # Someone moved first (the seat itself, or another keeper): look again.
                continue
        return self.now_ms()

    async def _expire_lobby(self, seen: Match) -> int | None:
        """Close `seen`, a lobby nothing was written to for the idle time (its wake-up, which
        every lobby batch postpones first, came due), unless it moved on meanwhile."""
        idle = int(self._timing.lobby_idle_seconds)

        async def plan(match: Match) -> Progress:
            expired = lifecycle.decide_expiry(match, seen.version, idle)
            return Progress(lifecycle.evolve(match, expired[0]), tuple(map(log_events.platform_event, expired)))

        # One id per (match, version): two keepers that race append it once.
        command_id = f"lobby-expired-{seen.version}"
        asked = fingerprint("lobby-expired", seen.version)
        try:
            written = await self._work.write(seen.match_id, command_id, asked, plan)
        except FailedPrecondition:
            # Joined, left or started meanwhile: its own postpone moved the wake-up later.
            return lifecycle.lobby_wake_ms(self.now_ms(), self._timing.lobby_idle_seconds)
        if written.match is not None:
            log.info("lobby_expired", match_id=seen.match_id, idle_seconds=idle, version=written.version)
        return None

    async def _time_out(self, seen: Match, seat: int, settings: ClockSettings) -> None:
        async def plan(match: Match) -> Progress:
            deadline = match.clock.deadline(seat) if match.clock is not None else None
            if match.status != Status.ACTIVE or deadline is None or deadline > self.now_ms():
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
        written = await self._work.write(seen.match_id, command_id, fingerprint("timeout", seat, seen.version), plan)
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


def _forfeited(match: Match, seat: int) -> common_pb2.Outcome:
    """The end of a match `seat` lost on time: last place, every other seat shares first."""
    ranking = clocks.forfeit_ranking(match.seat_count, seat)
    return common_pb2.Outcome(
        ranking=ranking,
        scores=[0 if place > 1 else 1 for place in ranking],
        detail={"reason": "timeout", "forfeited": str(seat)},
    )
