"""Forming a match: all seats assigned, or none and the tickets back in the pool."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as aioredis
from tabletop.match.v1 import match_service_pb2 as mpb

from services.common.errors import Aborted, AlreadyExists, InvalidArgument, NotFound, Unavailable
from services.matchmaker import store as mm
from services.matchmaker.formation import Former
from services.matchmaker.pool import Group
from services.matchmaker.store import Job, TicketStore


class FakeMatch:
    """The match service's calls formation makes, in memory, with a failure to inject.

    Like the real service: commands are idempotent by command id (a replay answers and
    changes nothing), a match id is taken once (by a formation or by a create), and a
    formation makes a started match with every seat taken in one step.
    """

    def __init__(self, fail: str = "", error: Exception | None = None, applied_anyway: bool = False) -> None:
        self.fail, self.error, self.applied_anyway = fail, error, applied_anyway
        self.matches: dict[str, mpb.MatchSummary] = {}
        self.commands: dict[str, str] = {}  # command id -> match id
        self.calls: list[str] = []

    def _run(self, rpc: str, command_id: str, match_id: str, apply: Any) -> None:
        self.calls.append(rpc)
        failing = rpc == self.fail and self.error is not None
        if failing and not self.applied_anyway:
            raise self.error  # type: ignore[misc]
        if command_id not in self.commands:
            if match_id in self.matches:
                raise AlreadyExists("match exists")
            apply()
            self.commands[command_id] = match_id
        if failing:
            raise self.error  # type: ignore[misc]  # the call landed; only its answer is lost

    async def CreateMatch(self, request: mpb.CreateMatchRequest) -> mpb.CreateMatchResponse:
        def apply() -> None:
            seats = [mpb.Seat(seat=i) for i in range(request.seat_count)]
            self.matches[request.match_id] = mpb.MatchSummary(
                match_id=request.match_id, game=request.game, seat_count=request.seat_count, seats=seats,
                status=mpb.MATCH_STATUS_LOBBY)
        self._run("CreateMatch", request.command_id, request.match_id, apply)
        return mpb.CreateMatchResponse(match=self.matches[request.match_id])

    async def FormMatch(self, request: mpb.FormMatchRequest) -> mpb.FormMatchResponse:
        def apply() -> None:
            seats = [mpb.Seat(seat=i, player_id=p.player_id, tenure=1) for i, p in enumerate(request.players)]
            self.matches[request.match_id] = mpb.MatchSummary(
                match_id=request.match_id, game=request.game, seat_count=len(seats), seats=seats,
                status=mpb.MATCH_STATUS_ACTIVE, version=len(seats) + 2)
        self._run("FormMatch", request.command_id, request.match_id, apply)
        return mpb.FormMatchResponse(match=self.matches[request.match_id])

    async def GetMatch(self, request: mpb.GetMatchRequest) -> mpb.GetMatchResponse:
        self.calls.append("GetMatch")
        if request.match_id not in self.matches:
            raise NotFound("no match")
        return mpb.GetMatchResponse(match=self.matches[request.match_id])


def former(match: Any, store: TicketStore) -> Former:
    return Former(match, store)


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


async def test_a_formed_match_assigns_every_ticket_its_seat_after_one_write(store: TicketStore) -> None:
    match = FakeMatch()
    job = await _claimed_job(store)
    assert await former(match, store).form(job) == "assigned"
    assert match.calls == ["FormMatch"]  # creation, seats and start: one call, one append
    seated = [s.player_id for s in match.matches[job.match_id].seats]
    for seat, ticket in enumerate(job.tickets):
        state = await store.get(ticket)
        assert state is not None and (state.state, state.match_id, state.seat) == ("assigned", job.match_id, seat)
        assert seated[seat] == state.player_id


async def test_a_failed_formation_seals_the_match_id_and_returns_the_tickets(store: TicketStore) -> None:
    match = FakeMatch(fail="FormMatch", error=Unavailable("down"))
    job = await _claimed_job(store)
    assert await former(match, store).form(job) == "returned"
    assert await _states(store, job) == {"waiting"}
    assert {t.ticket_id for t in await store.waiting(job.pool, 10)} == set(job.tickets)
    sealed = match.matches[job.match_id]
    assert sealed.status == mpb.MATCH_STATUS_LOBBY and not any(s.player_id for s in sealed.seats)


async def test_a_formation_whose_answer_was_lost_still_assigns(store: TicketStore) -> None:
    match = FakeMatch(fail="FormMatch", error=Unavailable("lost"), applied_anyway=True)
    job = await _claimed_job(store)
    assert await former(match, store).form(job) == "assigned"
    assert await _states(store, job) == {"assigned"}


async def test_a_refused_table_ends_its_tickets_as_failed(store: TicketStore) -> None:
    match = FakeMatch(fail="FormMatch", error=InvalidArgument("unknown option"))
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
        await former(Down(fail="FormMatch", error=Unavailable("down")), store).form(job)
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


async def test_a_stale_copy_that_fails_cannot_return_the_tickets_of_the_formed_match(store: TicketStore) -> None:
    match = FakeMatch()
    job = await _claimed_job(store)
    stale, late = await _stalled(match, store, job, "FormMatch", then=Unavailable("lost"))
    assert await former(match, store).form(job) == "assigned"  # B took the job over and formed the match
    stale.resume.set()
    with pytest.raises(Aborted):
        await late  # A's formation "failed": it must neither return the tickets nor acknowledge the job
    await _assert_placed_once(store, match, job)


async def test_a_stale_copy_that_resumes_after_the_formation_is_fenced_off(store: TicketStore) -> None:
    match = FakeMatch()
    job = await _claimed_job(store)
    stale, late = await _stalled(match, store, job, "FormMatch")
    assert await former(match, store).form(job) == "assigned"
    stale.resume.set()
    with pytest.raises(Aborted):
        await late  # its FormMatch is a replay that answers the formed match; its assign is refused
    await _assert_placed_once(store, match, job)


async def test_a_returned_job_cannot_be_formed_by_its_stale_copy(store: TicketStore) -> None:
    match = FakeMatch()
    job = await _claimed_job(store)
    stale, late = await _stalled(match, store, job, "FormMatch")  # A stalls before doing anything
    owner = FakeMatch(fail="FormMatch", error=Unavailable("down"))
    owner.matches, owner.commands = match.matches, match.commands  # B: the same match service, failing to form
    assert await former(owner, store).form(job) == "returned"
    stale.resume.set()
    with pytest.raises(Aborted):
        await late  # the id is sealed: A's FormMatch is refused, and A is fenced off
    assert match.matches[job.match_id].status == mpb.MATCH_STATUS_LOBBY  # no started match without tickets
    assert await _states(store, job) == {"waiting"}
    # The tickets are grouped again into a new job that forms normally.
    assert await store.claim(job.pool, "again", Group(tuple(await store.waiting(job.pool, 10))))
    again = Job.from_fields((await store._redis.xrange(mm.JOBS))[-1][1])
    assert await former(match, store).form(again) == "assigned"
    assert await _states(store, again) == {"assigned"}


async def test_a_job_given_up_fails_its_tickets_with_a_clear_error(store: TicketStore) -> None:
    match = FakeMatch()
    job = await _claimed_job(store)
    assert await former(match, store).give_up(job, "RuntimeError: the rules crashed") == "failed"
    states = [await store.get(t) for t in job.tickets]
    assert {s.state for s in states if s} == {"failed"}
    assert all("formation failed repeatedly: RuntimeError: the rules crashed" in s.error for s in states if s)
    assert match.matches[job.match_id].status == mpb.MATCH_STATUS_LOBBY  # sealed: no late copy can form it


async def test_a_job_given_up_whose_match_was_formed_after_all_is_assigned(store: TicketStore) -> None:
    match = FakeMatch()
    job = await _claimed_job(store)
    await match.FormMatch(mpb.FormMatchRequest(match_id=job.match_id, game=job.game, command_id=f"{job.match_id}:form",
                                               players=[mpb.FormedPlayer(player_id=p) for p in job.players]))
    assert await former(match, store).give_up(job, "TimeoutError: late") == "assigned"
    assert await _states(store, job) == {"assigned"}


class FakeBatch(FakeMatch):
    """FakeMatch with FormMatches: each match formed as FormMatch forms it; `refuse` fails those."""

    def __init__(self, refuse: frozenset[str] = frozenset()) -> None:
        super().__init__()
        self.refuse = refuse

    async def FormMatches(self, request: mpb.FormMatchesRequest) -> mpb.FormMatchesResponse:
        self.calls.append("FormMatches")
        results = []
        for item in request.matches:
            if item.match_id in self.refuse:
                results.append(mpb.FormMatchResult(error="UNAVAILABLE: down"))
                continue
            results.append(mpb.FormMatchResult(match=(await self.FormMatch(item)).match))
        return mpb.FormMatchesResponse(results=results)


async def test_many_jobs_are_formed_with_one_call_and_assigned_with_their_seats_and_tenures(
    store: TicketStore,
) -> None:
    jobs = [await _claimed_job(store) for _ in range(3)]
    match = FakeBatch()
    answered = await Former(match, store, batch=match).form_many(jobs)
    assert answered == {job.match_id: True for job in jobs}
    assert match.calls.count("FormMatches") == 1
    for job in jobs:
        states = [await store.get(t) for t in job.tickets]
        assert [(s.state, s.match_id, s.seat, s.tenure) for s in states if s] == [
            ("assigned", job.match_id, seat, 1) for seat in range(3)
        ]
    # One events entry carries every assignment: watchers need not read their tickets.
    (_, fields), = [e for e in await store._redis.xrange(mm.EVENTS) if e[1][b"k"] == b"assigned"]
    placed = mm.placed_of(fields)
    assert placed == {t: (job.match_id, seat, 1) for job in jobs for seat, t in enumerate(job.tickets)}


async def test_a_job_the_batch_could_not_form_is_left_to_the_one_job_path(store: TicketStore) -> None:
    ok, refused = await _claimed_job(store), await _claimed_job(store)
    match = FakeBatch(refuse=frozenset({refused.match_id}))
    answered = await Former(match, store, batch=match).form_many([ok, refused])
    assert answered == {ok.match_id: True}  # the refused one: unanswered, formed alone by the caller
    assert await _states(store, refused) == {"forming"}
    assert await former(match, store).form(refused) == "assigned"


async def test_a_batch_job_taken_over_by_another_replica_is_left_to_it(store: TicketStore) -> None:
    job = await _claimed_job(store)
    match = FakeBatch()

    class Overtaken(FakeBatch):
        async def FormMatches(self, request: mpb.FormMatchesRequest) -> mpb.FormMatchesResponse:
            await store.own(job)  # another replica takes the job up meanwhile
            return await match.FormMatches(request)

    overtaken = Overtaken()
    assert await Former(match, store, batch=overtaken).form_many([job]) == {job.match_id: False}
    assert await _states(store, job) == {"forming"}  # nothing moved: the new owner assigns
