"""Forming a claimed group: create, seat and start its match, then assign the tickets.

Every call carries an id derived from the job (the match id fixed at claim
time), so a retry, or another replica finishing a dead one's job, repeats
nothing. Tickets are marked assigned only after the match has started, in one
script; if the match cannot be made its lobby is emptied and they go back to
the pool (or, when the request itself is refused, end as failed): nothing is
half-assigned. When the match service cannot tell how far a job got, the job
is left pending and taken up again later (XAUTOCLAIM), never guessed.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from prometheus_client import Counter, Histogram
from tabletop.match.v1 import match_service_pb2 as mpb

from services.common import logging as tlog
from services.common.errors import (
    Aborted,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    ServiceError,
    Unavailable,
)
from services.matchmaker.store import Job, TicketStore

log = tlog.get("matchmaker.formation")
ATTEMPTS = 4
FORMED = Counter("tabletop_matchmaker_matches_total", "Matches formed by the matchmaker", ["game", "result"])
FORM_SECONDS = Histogram("tabletop_matchmaker_formation_seconds", "Time to create, fill and start a match",
                         buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0))


class Former:
    """Creates matches through the match service."""

    def __init__(self, match: Any, store: TicketStore) -> None:
        self._match = match
        self._store = store

    async def form(self, job: Job) -> str:
        """Make the job's match and assign its tickets; returns 'assigned', 'returned' or 'failed'.

        Raises Unavailable when the match service cannot even say how far the job got: the job
        then stays pending and is taken up again later, its tickets still out of the pool.
        """
        loop = asyncio.get_running_loop()
        started = loop.time()
        try:
            await self._with_retries(job)
        except InvalidArgument as error:
            # The request itself is refused (options or table size the game rejects): retrying cannot help.
            await self._abandon(job)
            await self._store.give_back(job, "failed", error.message)
            FORMED.labels(job.game, "failed").inc()
            log.info("formation_refused", match_id=job.match_id, reason=error.reason)
            return "failed"
        except ServiceError as error:
            log.warning("formation_failed", match_id=job.match_id, code=error.code.name, reason=error.reason)
            if not await self._started(job):
                await self._abandon(job)
                await self._store.give_back(job)
                FORMED.labels(job.game, "returned").inc()
                return "returned"
        outcome = await self._store.assign(job)
        FORM_SECONDS.observe(loop.time() - started)
        FORMED.labels(job.game, "assigned" if outcome else "lost").inc()
        if outcome == 0:
            log.warning("formation_lost", match_id=job.match_id)
        return "assigned"

    async def _started(self, job: Job) -> bool:
        """Whether the match got started after all (a start whose answer was lost)."""
        try:
            reply = await self._match.GetMatch(mpb.GetMatchRequest(match_id=job.match_id))
        except NotFound:
            return False
        return bool(reply.match.status != mpb.MATCH_STATUS_LOBBY)

    async def _abandon(self, job: Job) -> None:
        """Empty the seats of a lobby that will never start (best effort: it is never started)."""
        for seat in range(len(job.players)):
            with contextlib.suppress(NotFound, FailedPrecondition, PermissionDenied, InvalidArgument):
                await self._match.LeaveMatch(mpb.LeaveMatchRequest(
                    match_id=job.match_id, seat=seat, command_id=f"{job.match_id}:leave:{seat}",
                ))

    async def _with_retries(self, job: Job) -> None:
        for attempt in range(ATTEMPTS):
            try:
                await self._make(job)
                return
            except (Unavailable, Aborted):
                if attempt == ATTEMPTS - 1:
                    raise
                await asyncio.sleep(0.1 * 2**attempt)  # back off before retrying a transient failure

    async def _make(self, job: Job) -> None:
        m = job.match_id
        await self._match.CreateMatch(mpb.CreateMatchRequest(
            game=job.game, config=job.options, seat_count=len(job.players), command_id=f"{m}:create", match_id=m,
        ))
        for seat, player in enumerate(job.players):
            await self._match.JoinMatch(mpb.JoinMatchRequest(
                match_id=m, player_id=player, seat=seat, command_id=f"{m}:join:{seat}",
            ))
        await self._match.StartMatch(mpb.StartMatchRequest(match_id=m, command_id=f"{m}:start"))
        log.info("match_formed", match_id=m, game=job.game, seats=len(job.players),
                 bots=len(job.bot_seats))
