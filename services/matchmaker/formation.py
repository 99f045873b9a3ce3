"""Forming a claimed group: one FormMatch call makes its started match, then the tickets are assigned.

Jobs read together are formed together (`Former.form_many`): one FormMatches
call for all their matches, one script assigning all their tickets. A job that
batch does not settle is formed alone by `Former.form`, below, which handles
every failure.

FormMatch appends the match's creation, every seat and its start as one batch,
so a group's match exists whole or not at all, and costs one write. The call
carries a command id derived from the job (the match id fixed at claim time),
so a retry, or another replica finishing a dead one's job, repeats nothing.
Tickets are marked assigned only after the match exists, in one script; if it
cannot be made the tickets go back to the pool (or, when the request itself is
refused, end as failed): nothing is half-assigned. When the match service
cannot tell whether the match exists, the job is left pending and taken up
again later (XAUTOCLAIM), never guessed.

A group is formed only with players still there: the job's first take-up
checks, in the same script that gives it its epoch, that every ticket's
watcher is still heard of and has not left (store.py, TAKE_UP). If one has
gone, the job is void: the others go back to the pool with their place and
are grouped again, the one who left is withdrawn, and no match is made. (A
job taken up again after a replica died is not checked again: its match may
exist already; a player who left it meanwhile is the table's clock policy's,
tables.py.)

A job may be worked on by two replicas at once (one stalled, one that took it
over). Two rules keep that harmless:
- each replica taking the job up gets a new epoch, and the ticket scripts
  accept only the newest (store.py): a superseded copy raises Aborted and
  leaves the job to the current owner, unacknowledged;
- tickets go back to the pool only once the match provably does not exist and
  never can: the job's match id is sealed first (an empty lobby created under
  it, so a late FormMatch of any copy finds the id taken), then GetMatch must
  still say LOBBY. A match found started counts as formed.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Sequence
from typing import Protocol

from prometheus_client import Counter, Histogram
from tabletop.match.v1 import match_service_pb2 as mpb

from services.common import logging as tlog
from services.common.errors import (
    Aborted,
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    ServiceError,
    Unavailable,
)
from services.common.rpc.ports import MatchPort
from services.matchmaker.store import Job, TicketStore

log = tlog.get("matchmaker.formation")
ATTEMPTS = 4
# Refusals that say a lobby call can never apply (no such match, not in the lobby any more, seat
# not held): for sealing and emptying a lobby they all mean "nothing to do".
_SETTLED = (NotFound, FailedPrecondition, PermissionDenied, InvalidArgument, AlreadyExists)
FORMED = Counter("tabletop_matchmaker_matches_total", "Matches formed by the matchmaker", ["game", "result"])
FORM_SECONDS = Histogram("tabletop_matchmaker_formation_seconds", "Time to create, fill and start a match",
                         buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0))


def _tenures(job: Job, match: mpb.MatchSummary) -> list[int]:
    """Each ticket's seat tenure in the formed match (0 where the summary does not say)."""
    held = {s.seat: s.tenure for s in match.seats if s.player_id}
    return [held.get(seat, 0) for seat in range(len(job.tickets))]


def _form_request(job: Job, names: Sequence[str]) -> mpb.FormMatchRequest:
    """The job's FormMatch, its command id derived from the job (a retry answers the first)."""
    return mpb.FormMatchRequest(
        match_id=job.match_id, game=job.game, config=job.options, command_id=f"{job.match_id}:form",
        players=[mpb.FormedPlayer(player_id=p, display_name=n) for p, n in zip(job.players, names)],
    )


def _assigned(job: Job, outcome: int, elapsed: float) -> None:
    """Count an assignment (0: the tickets had gone, the match stays unused)."""
    FORM_SECONDS.observe(elapsed)
    FORMED.labels(job.game, "assigned" if outcome else "lost").inc()
    if outcome == 0:
        log.warning("formation_lost", match_id=job.match_id)


class BatchFormPort(Protocol):
    """The match service's many-matches call (FormMatches)."""

    async def FormMatches(self, request: mpb.FormMatchesRequest) -> mpb.FormMatchesResponse: ...


class Former:
    """Creates matches through the match service."""

    def __init__(self, match: MatchPort, store: TicketStore, batch: BatchFormPort | None = None,
                 watch_grace: float = 0.0) -> None:
        self._match = match
        self._store = store
        self._batch = batch
        # A ticket whose watcher went unheard this long (s) is placed with nobody (0: not checked).
        self._grace = watch_grace

    def _unheard_since(self) -> float:
        return time.time() - self._grace if self._grace > 0 else 0.0

    def _void(self, job: Job, epoch: int) -> bool:
        """Whether the take-up found the job void (a player gone: store.py, TAKE_UP)."""
        if epoch > 0:
            return False
        if epoch == 0:
            FORMED.labels(job.game, "requeued").inc()
            log.info("formation_requeued", match_id=job.match_id, reason="a player left before the start")
        return True

    async def form_many(self, jobs: Sequence[Job]) -> dict[str, bool]:
        """Form many jobs with one round trip per step: take them up (one script), their
        players' names (one read), every match (one FormMatches call), every assignment
        (one script, one events entry). Match id -> True for a job finished (assigned),
        False for one another replica has taken over (leave it); a job not answered
        (its match failed, or it raced) is the caller's to form alone with `form`,
        which handles every failure as it does for a single job."""
        if self._batch is None or not jobs:
            return {}
        started = asyncio.get_running_loop().time()
        epochs, names = await self._store.take_up_named(jobs, self._unheard_since())
        requests, at = [], 0
        answered: dict[str, bool] = {}
        for job, epoch in zip(jobs, epochs):
            if self._void(job, epoch):
                answered[job.match_id] = True  # nothing to form: done
            else:
                requests.append(_form_request(job, names[at:at + len(job.players)]))
            at += len(job.players)
        jobs = [job for job, epoch in zip(jobs, epochs) if epoch > 0]
        epochs = [epoch for epoch in epochs if epoch > 0]
        if not jobs:
            return answered
        try:
            reply = await self._batch.FormMatches(mpb.FormMatchesRequest(matches=requests))
        except ServiceError as error:
            log.warning("batch_formation_failed", jobs=len(jobs), code=error.code.name, reason=error.reason)
            return answered  # the others each alone, with their own retries and unwinding
        formed = [(job, epoch, _tenures(job, result.match)) for job, epoch, result in zip(jobs, epochs, reply.results)
                  if not result.error]
        outcomes = await self._store.assign_many(formed)
        elapsed = asyncio.get_running_loop().time() - started
        for (job, _, _), outcome in zip(formed, outcomes):
            if outcome < 0:
                answered[job.match_id] = False  # superseded: the job is the new owner's
                continue
            _assigned(job, outcome, elapsed)
            answered[job.match_id] = True
        log.info("matches_formed", jobs=len(jobs), formed=len(formed), assigned=sum(answered.values()))
        return answered

    async def form(self, job: Job) -> str:
        """Make the job's match and assign its tickets; returns 'assigned', 'returned' or 'failed'.

        Raises Unavailable when the match service cannot even say how far the job got: the job
        then stays pending and is taken up again later, its tickets still out of the pool.
        Raises Aborted when another replica has taken the job over: it is theirs to finish.
        A job whose first take-up finds a player gone is 'returned' without a match (TAKE_UP).
        """
        (epoch,) = await self._store.take_up([job], self._unheard_since())
        if self._void(job, epoch):
            return "returned"
        started = asyncio.get_running_loop().time()
        try:
            await self._with_retries(job)
        except InvalidArgument as error:
            # The request itself is refused (options or table size the game rejects): retrying cannot help.
            log.info("formation_refused", match_id=job.match_id, reason=error.reason)
            unwound = await self._unwind(job, epoch, "failed", error.message)
            if unwound:
                return unwound
        except ServiceError as error:
            log.warning("formation_failed", match_id=job.match_id, code=error.code.name, reason=error.reason)
            unwound = await self._unwind(job, epoch, "waiting")
            if unwound:
                return unwound
        return await self._assign(job, epoch, started)

    async def give_up(self, job: Job, error: str) -> str:
        """The job failed too often to try again: end its tickets as failed with `error` (a clear
        status for their watchers), unless its match exists after all, then assign them.
        Raises what the unwinding raises (Unavailable, Aborted): the job then stays pending."""
        epoch = await self._store.own(job)
        if epoch <= 0:
            return "returned"  # void: its tickets went back when it was first taken up
        message = f"no match could be made for this ticket (the formation failed repeatedly: {error[:200]})"
        unwound = await self._unwind(job, epoch, "failed", message)
        if unwound:
            log.error("formation_given_up", match_id=job.match_id, error=error[:200])
            return unwound
        return await self._assign(job, epoch, asyncio.get_running_loop().time())

    async def _assign(self, job: Job, epoch: int, started: float) -> str:
        outcome = await self._store.assign(job, epoch)
        _assigned(job, outcome, asyncio.get_running_loop().time() - started)
        return "assigned"

    async def _unwind(self, job: Job, epoch: int, state: str, error: str = "") -> str | None:
        """End the job's tickets as `state` if its match never started and never can; None if it started."""
        # A superseded copy must not seal the lobby the current owner may be filling right now.
        await self._store.ensure_owner(job, epoch)
        await self._seal(job)
        if await self._started(job):
            log.info("formation_started_anyway", match_id=job.match_id)
            return None
        await self._store.give_back(job, epoch, state, error)
        result = "failed" if state == "failed" else "returned"
        FORMED.labels(job.game, result).inc()
        return result

    async def _started(self, job: Job) -> bool:
        """Whether the match got started after all (a start whose answer was lost, or another copy's)."""
        try:
            reply = await self._match.GetMatch(mpb.GetMatchRequest(match_id=job.match_id))
        except NotFound:
            return False
        return bool(reply.match.status != mpb.MATCH_STATUS_LOBBY)

    async def _seal(self, job: Job) -> None:
        """Take the job's match id with an empty lobby, unless its match exists already: from then
        on no copy of this job can form it (FormMatch needs a new id)."""
        with contextlib.suppress(*_SETTLED):
            await self._match.CreateMatch(mpb.CreateMatchRequest(
                game=job.game, config=job.options, seat_count=len(job.players),
                command_id=f"{job.match_id}:seal", match_id=job.match_id,
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
        names = await self._store.display_names(job.players)
        formed = await self._match.FormMatch(_form_request(job, names))
        log.info("match_formed", match_id=job.match_id, game=job.game, seats=len(job.players),
                 bots=len(job.bot_seats), version=formed.match.version)
