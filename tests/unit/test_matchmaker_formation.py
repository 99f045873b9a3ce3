"""Forming a match: all seats assigned, or none and the tickets back in the pool."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as aioredis
from tabletop.match.v1 import match_service_pb2 as mpb

from services.common.errors import FailedPrecondition, InvalidArgument, NotFound, Unavailable
from services.matchmaker import store as mm
from services.matchmaker.formation import Former
from services.matchmaker.pool import Group
from services.matchmaker.store import Job, TicketStore


class FakeMatch:
    """The match service's lifecycle calls, in memory, with a failure to inject."""

    def __init__(self, fail: str = "", error: Exception | None = None, applied_anyway: bool = False) -> None:
        self.fail, self.error, self.applied_anyway = fail, error, applied_anyway
        self.matches: dict[str, mpb.MatchSummary] = {}
        self.commands: set[str] = set()

    def _maybe_fail(self, rpc: str, apply: Any) -> None:
        if rpc == self.fail and self.error is not None:
            if self.applied_anyway:
                apply()  # the call landed; only its answer is lost
            raise self.error
        apply()

    async def CreateMatch(self, request: mpb.CreateMatchRequest) -> mpb.CreateMatchResponse:
        def apply() -> None:
            if request.match_id not in self.matches:
                seats = [mpb.Seat(seat=i) for i in range(request.seat_count)]
                self.matches[request.match_id] = mpb.MatchSummary(
                    match_id=request.match_id, game=request.game, seat_count=request.seat_count, seats=seats,
                    status=mpb.MATCH_STATUS_LOBBY)
        self._maybe_fail("CreateMatch", apply)
        return mpb.CreateMatchResponse(match=self.matches[request.match_id])

    async def JoinMatch(self, request: mpb.JoinMatchRequest) -> mpb.JoinMatchResponse:
        def apply() -> None:
            self.matches[request.match_id].seats[request.seat].player_id = request.player_id
        self._maybe_fail("JoinMatch", apply)
        return mpb.JoinMatchResponse(seat=request.seat)

    async def StartMatch(self, request: mpb.StartMatchRequest) -> mpb.StartMatchResponse:
        def apply() -> None:
            self.matches[request.match_id].status = mpb.MATCH_STATUS_ACTIVE
        self._maybe_fail("StartMatch", apply)
        return mpb.StartMatchResponse()

    async def LeaveMatch(self, request: mpb.LeaveMatchRequest) -> mpb.LeaveMatchResponse:
        if request.match_id not in self.matches:
            raise NotFound("no match")
        match = self.matches[request.match_id]
        if match.status != mpb.MATCH_STATUS_LOBBY:
            raise FailedPrecondition("started")
        match.seats[request.seat].player_id = ""
        return mpb.LeaveMatchResponse()

    async def GetMatch(self, request: mpb.GetMatchRequest) -> mpb.GetMatchResponse:
        if request.match_id not in self.matches:
            raise NotFound("no match")
        return mpb.GetMatchResponse(match=self.matches[request.match_id])


@pytest.fixture
async def store(redis_url: str) -> AsyncIterator[TicketStore]:
    redis = aioredis.from_url(redis_url.rsplit("/", 1)[0] + "/13", decode_responses=False)
    await redis.flushdb()
    yield TicketStore(redis)
    await redis.aclose()


async def _claimed_job(store: TicketStore) -> Job:
    game = f"g{uuid.uuid4().hex[:8]}"
    for i in range(3):
        await store.add(uuid.uuid4().hex, f"p{i}", game, {}, (3, 3), 25.0)
    pool = mm.pool_name(game, {})
    assert await store.claim(pool, uuid.uuid4().hex, Group(tuple(await store.waiting(pool, 10))))
    entries = await store.redis.xrange(mm.JOBS)
    return Job.from_fields(entries[-1][1])


async def _states(store: TicketStore, job: Job) -> set[str]:
    return {s.state for t in job.tickets if (s := await store.get(t)) is not None}


async def test_a_formed_match_assigns_every_ticket_its_seat(store: TicketStore) -> None:
    match = FakeMatch()
    job = await _claimed_job(store)
    assert await Former(match, store).form(job) == "assigned"
    seated = [s.player_id for s in match.matches[job.match_id].seats]
    for seat, ticket in enumerate(job.tickets):
        state = await store.get(ticket)
        assert state is not None and (state.state, state.match_id, state.seat) == ("assigned", job.match_id, seat)
        assert seated[seat] == state.player_id


async def test_a_failure_halfway_returns_the_tickets_and_empties_the_lobby(store: TicketStore) -> None:
    match = FakeMatch(fail="StartMatch", error=FailedPrecondition("no"))
    job = await _claimed_job(store)
    assert await Former(match, store).form(job) == "returned"
    assert await _states(store, job) == {"waiting"}
    assert {t.ticket_id for t in await store.waiting(job.pool, 10)} == set(job.tickets)
    assert [s.player_id for s in match.matches[job.match_id].seats] == ["", "", ""]


async def test_a_start_whose_answer_was_lost_still_assigns(store: TicketStore) -> None:
    match = FakeMatch(fail="StartMatch", error=Unavailable("lost"), applied_anyway=True)
    job = await _claimed_job(store)
    assert await Former(match, store).form(job) == "assigned"
    assert await _states(store, job) == {"assigned"}


async def test_a_refused_table_ends_its_tickets_as_failed(store: TicketStore) -> None:
    match = FakeMatch(fail="CreateMatch", error=InvalidArgument("unknown option"))
    job = await _claimed_job(store)
    assert await Former(match, store).form(job) == "failed"
    assert await _states(store, job) == {"failed"}
    assert await store.waiting(job.pool, 10) == []


async def test_a_match_service_that_cannot_answer_leaves_the_job_pending(store: TicketStore) -> None:
    class Down(FakeMatch):
        async def GetMatch(self, request: mpb.GetMatchRequest) -> mpb.GetMatchResponse:
            raise Unavailable("down")

    job = await _claimed_job(store)
    with pytest.raises(Unavailable):
        await Former(Down(fail="CreateMatch", error=Unavailable("down")), store).form(job)
    assert await _states(store, job) == {"forming"}  # out of the pool until the job is taken up again
