"""Forming a match: all seats assigned, or none and the tickets back in the pool."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as aioredis
from tabletop.match.v1 import match_service_pb2 as mpb

from services.common.errors import Aborted, FailedPrecondition, InvalidArgument, NotFound, Unavailable
from services.common.event_store import AppendResult
from services.matchmaker import store as mm
from services.matchmaker.formation import Former
from services.matchmaker.pool import Group
from services.matchmaker.store import Job, TicketStore


class FakeMatch:
    """The match service's lifecycle calls, in memory, with a failure to inject.

    Like the real service: commands are idempotent by command id (a replay changes nothing),
    seats are taken and left only in the lobby, and only a full lobby starts. It also answers
    the one event-store question formation asks: was this command applied?
    """

    def __init__(self, fail: str = "", error: Exception | None = None, applied_anyway: bool = False) -> None:
        self.fail, self.error, self.applied_anyway = fail, error, applied_anyway
        self.matches: dict[str, mpb.MatchSummary] = {}
        self.commands: set[str] = set()

    def _run(self, rpc: str, command_id: str, apply: Any) -> None:
        failing = rpc == self.fail and self.error is not None
        if failing and not self.applied_anyway:
            raise self.error  # type: ignore[misc]
        if command_id not in self.commands:
            apply()  # raises a refusal, or applies
            self.commands.add(command_id)
        if failing:
            raise self.error  # type: ignore[misc]  # the call landed; only its answer is lost

    def _lobby(self, match_id: str) -> mpb.MatchSummary:
        if match_id not in self.matches:
            raise NotFound("no match")
        match = self.matches[match_id]
        if match.status != mpb.MATCH_STATUS_LOBBY:
            raise FailedPrecondition("not in the lobby")
        return match

    async def CreateMatch(self, request: mpb.CreateMatchRequest) -> mpb.CreateMatchResponse:
        def apply() -> None:
            seats = [mpb.Seat(seat=i) for i in range(request.seat_count)]
            self.matches[request.match_id] = mpb.MatchSummary(
                match_id=request.match_id, game=request.game, seat_count=request.seat_count, seats=seats,
                status=mpb.MATCH_STATUS_LOBBY)
        self._run("CreateMatch", request.command_id, apply)
        return mpb.CreateMatchResponse(match=self.matches[request.match_id])

    async def JoinMatch(self, request: mpb.JoinMatchRequest) -> mpb.JoinMatchResponse:
        def apply() -> None:
            seat = self._lobby(request.match_id).seats[request.seat]
            if seat.player_id:
                raise FailedPrecondition("seat taken")
            seat.player_id = request.player_id
        self._run("JoinMatch", request.command_id, apply)
        return mpb.JoinMatchResponse(seat=request.seat)

    async def StartMatch(self, request: mpb.StartMatchRequest) -> mpb.StartMatchResponse:
        def apply() -> None:
            match = self._lobby(request.match_id)
            if any(not s.player_id for s in match.seats):
                raise FailedPrecondition("every seat must be taken before the start")
            match.status = mpb.MATCH_STATUS_ACTIVE
        self._run("StartMatch", request.command_id, apply)
        return mpb.StartMatchResponse()

    async def LeaveMatch(self, request: mpb.LeaveMatchRequest) -> mpb.LeaveMatchResponse:
        def apply() -> None:
            seat = self._lobby(request.match_id).seats[request.seat]
            if not seat.player_id:
                raise FailedPrecondition("not seated")
            seat.player_id = ""
        self._run("LeaveMatch", request.command_id, apply)
        return mpb.LeaveMatchResponse()

    async def GetMatch(self, request: mpb.GetMatchRequest) -> mpb.GetMatchResponse:
        if request.match_id not in self.matches:
            raise NotFound("no match")
        return mpb.GetMatchResponse(match=self.matches[request.match_id])

    async def command(self, stream: str, command_id: str) -> AppendResult | None:
        return AppendResult(1, 1, duplicate=True) if command_id in self.commands else None


def former(match: Any, store: TicketStore) -> Former:
    return Former(match, store, match)


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
    entries = await store._redis.xrange(mm.JOBS)
    return Job.from_fields(entries[-1][1])


async def _states(store: TicketStore, job: Job) -> set[str]:
    return {s.state for t in job.tickets if (s := await store.get(t)) is not None}


async def test_a_formed_match_assigns_every_ticket_its_seat(store: TicketStore) -> None:
    match = FakeMatch()
    job = await _claimed_job(store)
    assert await former(match, store).form(job) == "assigned"
    seated = [s.player_id for s in match.matches[job.match_id].seats]
    for seat, ticket in enumerate(job.tickets):
        state = await store.get(ticket)
        assert state is not None and (state.state, state.match_id, state.seat) == ("assigned", job.match_id, seat)
        assert seated[seat] == state.player_id


async def test_a_failure_halfway_returns_the_tickets_and_empties_the_lobby(store: TicketStore) -> None:
    match = FakeMatch(fail="StartMatch", error=FailedPrecondition("no"))
    job = await _claimed_job(store)
    assert await former(match, store).form(job) == "returned"
    assert await _states(store, job) == {"waiting"}
    assert {t.ticket_id for t in await store.waiting(job.pool, 10)} == set(job.tickets)
    assert [s.player_id for s in match.matches[job.match_id].seats] == ["", "", ""]


async def test_a_start_whose_answer_was_lost_still_assigns(store: TicketStore) -> None:
    match = FakeMatch(fail="StartMatch", error=Unavailable("lost"), applied_anyway=True)
    job = await _claimed_job(store)
    assert await former(match, store).form(job) == "assigned"
    assert await _states(store, job) == {"assigned"}


async def test_a_refused_table_ends_its_tickets_as_failed(store: TicketStore) -> None:
    match = FakeMatch(fail="CreateMatch", error=InvalidArgument("unknown option"))
    job = await _claimed_job(store)
    assert await former(match, store).form(job) == "failed"
    assert await _states(store, job) == {"failed"}
    assert await store.waiting(job.pool, 10) == []


async def test_a_match_service_that_cannot_answer_leaves_the_job_pending(store: TicketStore) -> None:
    class Down(FakeMatch):
        async def GetMatch(self, request: mpb.GetMatchRequest) -> mpb.GetMatchResponse:
            raise Unavailable("down")

    job = await _claimed_job(store)
    with pytest.raises(Unavailable):
        await former(Down(fail="CreateMatch", error=Unavailable("down")), store).form(job)
    assert await _states(store, job) == {"forming"}  # out of the pool until the job is taken up again


# ---------------------------------------------------------------- a stalled replica and the one that took over


class Stalling:
    """One replica's calls to a shared FakeMatch: it stalls before its first `before` call until resumed
    (alive but slow: its job is taken over meanwhile), and that call then fails with `then` if given."""

    def __init__(self, match: FakeMatch, before: str, then: Exception | None = None) -> None:
        self._match, self._before, self._then = match, before, then
        self.stalled, self.resume = asyncio.Event(), asyncio.Event()

    def __getattr__(self, name: str) -> Any:
        target = getattr(self._match, name)

        async def call(*args: Any) -> Any:
            if name == self._before and not self.resume.is_set():
                self.stalled.set()
                await self.resume.wait()
                if self._then is not None:
                    raise self._then
            return await target(*args)

        return call


async def _stalled(match: FakeMatch, store: TicketStore, job: Job, before: str,
                   then: Exception | None = None) -> tuple[Stalling, asyncio.Task[str]]:
    """Replica A takes the job up and stalls before `before`."""
    view = Stalling(match, before, then)
    task = asyncio.create_task(former(view, store).form(job))
    await asyncio.wait_for(view.stalled.wait(), 5)
    return view, task


async def _assert_placed_once(store: TicketStore, match: FakeMatch, job: Job) -> None:
    """Every ticket assigned exactly once, to its seat of the one started match (no formation lost)."""
    states = [await store.get(t) for t in job.tickets]
    assert [(s.state, s.match_id, s.seat) for s in states if s] == \
        [("assigned", job.match_id, seat) for seat in range(len(job.tickets))]
    summary = match.matches[job.match_id]
    assert summary.status == mpb.MATCH_STATUS_ACTIVE
    assert [s.player_id for s in summary.seats] == list(job.players)
    assert await store.waiting(job.pool, 10) == []
    assigned = [f for _, f in await store._redis.xrange(mm.EVENTS) if f[b"k"] == b"assigned"]
    assert len(assigned) == 1  # one ASSIGN took effect, whoever ran it


async def test_a_stale_copy_that_fails_cannot_return_the_tickets_of_the_started_match(store: TicketStore) -> None:
    match = FakeMatch()
    job = await _claimed_job(store)
    stale, late = await _stalled(match, store, job, "StartMatch", then=FailedPrecondition("lost"))
    assert await former(match, store).form(job) == "assigned"  # B took the job over and started the match
    stale.resume.set()
    with pytest.raises(Aborted):
        await late  # A's start "failed": it must neither return the tickets nor acknowledge the job
    await _assert_placed_once(store, match, job)


async def test_a_stale_copy_that_checked_before_the_start_cannot_return_after_it(store: TicketStore) -> None:
    # The original race: A failed, looked (still a lobby), stalled; B started the match; A returned the tickets.
    match = FakeMatch()
    job = await _claimed_job(store)
    failing = Stalling(match, "LeaveMatch")
    failing.StartMatch = _refusing  # type: ignore[method-assign]
    late = asyncio.create_task(former(failing, store).form(job))
    await asyncio.wait_for(failing.stalled.wait(), 5)  # A is unwinding: its ownership check passed
    assert await former(match, store).form(job) == "assigned"
    failing.resume.set()
    with pytest.raises(Aborted):
        await late  # its seats cannot be emptied any more, the match has started: it assigns, fenced off
    await _assert_placed_once(store, match, job)


async def _refusing(request: mpb.StartMatchRequest) -> mpb.StartMatchResponse:
    raise FailedPrecondition("refused")


async def test_a_returned_job_cannot_be_started_by_its_stale_copy(store: TicketStore) -> None:
    match = FakeMatch()
    job = await _claimed_job(store)
    stale, late = await _stalled(match, store, job, "CreateMatch")  # A stalls before doing anything
    owner = FakeMatch(fail="StartMatch", error=FailedPrecondition("no"))
    owner.matches, owner.commands = match.matches, match.commands  # B: the same match service, failing to start
    assert await former(owner, store).form(job) == "returned"
    stale.resume.set()
    with pytest.raises(Aborted):
        await late  # A's joins are replays that seat nobody: its start fails, and it is fenced off
    assert match.matches[job.match_id].status == mpb.MATCH_STATUS_LOBBY  # no started match without tickets
    assert await _states(store, job) == {"waiting"}
    # The tickets are grouped again into a new job that forms normally.
    assert await store.claim(job.pool, "again", Group(tuple(await store.waiting(job.pool, 10))))
    again = Job.from_fields((await store._redis.xrange(mm.JOBS))[-1][1])
    assert await former(match, store).form(again) == "assigned"
    assert await _states(store, again) == {"assigned"}
