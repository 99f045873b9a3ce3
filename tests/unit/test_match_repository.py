"""The match repository: catching up from a snapshot, fast-forwarding, losing a race."""

from __future__ import annotations

from dataclasses import replace

import pytest
from tabletop.match.v1 import events_pb2 as ev
from tabletop.rules.v1 import rules_service_pb2 as rpb

from services.common.errors import NotFound
from services.common.redis.keys import match_stream
from services.common.store.event_store import MemoryEventStore, NewEvent, VersionConflict
from services.match import lifecycle, log_events
from services.match.lifecycle import Status
from services.match.repository import MatchRepository
from services.match.turns import Progress, RulesBook

MOVED = "test.Moved"


class CountingRules:
    """A game whose state counts the game events folded into it; every replay is kept."""

    def __init__(self) -> None:
        self.replayed: list[int] = []

    async def Setup(self, request: rpb.SetupRequest) -> rpb.SetupResponse:
        return rpb.SetupResponse(state=rpb.EngineState(game="count", data=b"0"), turn=rpb.Turn(seats=[0]))

    async def Replay(self, request: rpb.ReplayRequest) -> rpb.ReplayResponse:
        folded = len(request.events) + len(request.event_data)
        self.replayed.append(folded)
        total = int(request.state.data) + folded
        state = rpb.EngineState(game="count", data=str(total).encode())
        return rpb.ReplayResponse(state=state, turn=rpb.Turn(seats=[total % 2]))


# Tests where another writer follows a lease holder wait this lease out.
SHORT_LEASE_MS = 100


def repository(store: MemoryEventStore, rules: CountingRules, snapshot_every: int = 50) -> MatchRepository:
    return MatchRepository(store, RulesBook({"count": rules}), snapshot_every)  # type: ignore[dict-item]


def platform(*events) -> list[NewEvent]:
    return [log_events.platform_event(e) for e in events]


def moves(n: int) -> list[NewEvent]:
    return [NewEvent(MOVED, b"") for _ in range(n)]


OPENING = platform(
    ev.MatchCreated(game="count", seat_count=2),
    ev.PlayerJoined(seat=0, player_id="p-ana", tenure=1),
    ev.PlayerJoined(seat=1, player_id="p-ben", tenure=1),
    ev.MatchStarted(),
)


async def started(store: MemoryEventStore, match_id: str = "m1") -> None:
    await store.append(match_stream(match_id), 0, OPENING)


async def test_a_match_is_folded_from_its_log():
    store, rules = MemoryEventStore(), CountingRules()
    await started(store)
    await store.append(match_stream("m1"), 4, moves(3))
    match = await repository(store, rules).get("m1")
    assert (match.version, match.status, match.players) == (7, Status.ACTIVE, ("p-ana", "p-ben"))
    assert (match.engine_state, match.turn.seats) == (b"3", (1,))
    assert rules.replayed == [3], "a run of game events is replayed in one call"


async def test_an_empty_stream_is_no_match():
    with pytest.raises(NotFound):
        await repository(MemoryEventStore(), CountingRules()).get("nobody")


async def test_catching_up_starts_from_the_snapshot_and_reads_only_what_came_after():
    store = MemoryEventStore(lease_ms=SHORT_LEASE_MS)
    await started(store)
    writer = repository(store, CountingRules(), snapshot_every=5)
    before = await writer.get("m1")
    after = lifecycle.with_position(before, b"2", before.turn, None)
    await writer.append(before, Progress(after, tuple(moves(2))))  # versions 5-6: passes 5, so a snapshot
    snapshot = await store.load_snapshot(match_stream("m1"))
    assert snapshot is not None and snapshot.version == 6
    await store.append(match_stream("m1"), 6, moves(1))

    rules = CountingRules()
    match = await repository(store, rules).get("m1")
    assert rules.replayed == [1], "only the event after the snapshot is folded"
    assert (match.version, match.engine_state, match.players) == (7, b"3", ("p-ana", "p-ben"))


async def test_an_append_fast_forwards_the_cache_without_reading_back():
    store, rules = MemoryEventStore(), CountingRules()
    await started(store)
    repo = repository(store, rules)
    before = await repo.get("m1")
    after = lifecycle.with_position(before, b"1", before.turn, None)
    result = await repo.append(before, Progress(after, tuple(moves(1))))
    assert result.last_version == 5
    assert repo.cached("m1") == replace(after, version=5)
    assert await repo.get("m1") == replace(after, version=5)
    assert rules.replayed == [], "the cache was up to date: nothing was folded"
    assert await store.load_snapshot(match_stream("m1")) is None, "no multiple of 50 passed"


async def test_a_lost_race_raises_and_catching_up_brings_the_winners_events():
    store = MemoryEventStore(lease_ms=SHORT_LEASE_MS)
    await started(store)
    ours, theirs = repository(store, CountingRules()), repository(store, CountingRules())
    mine, other = await ours.get("m1"), await theirs.get("m1")
    left_ben = ev.PlayerLeft(seat=1, player_id="p-ben")
    await theirs.append(other, Progress(lifecycle.evolve(other, left_ben), tuple(platform(left_ben))))

    with pytest.raises(VersionConflict):
        await ours.append(mine, Progress(mine, tuple(moves(1))))
    assert ours.cached("m1") == mine, "a refused append changes nothing"
    caught_up = await ours.catch_up("m1", mine)
    assert (caught_up.version, caught_up.players) == (5, ("p-ana", ""))
    assert await store.version(match_stream("m1")) == 5


async def test_a_past_version_is_folded_from_the_start():
    store = MemoryEventStore()
    await started(store)
    await store.append(match_stream("m1"), 4, moves(4))
    repo = repository(store, CountingRules())
    at_two = await repo.at("m1", 2)
    assert (at_two.version, at_two.players, at_two.status) == (2, ("p-ana", ""), Status.LOBBY)
    at_six = await repo.at("m1", 6)
    assert (at_six.version, at_six.engine_state) == (6, b"2")
    assert await repo.at("m1", 6) is at_six, "each past version is folded once"



class LostReplyStore(MemoryEventStore):
    """Appends land, but the next append's reply is lost on the way back."""

    lose_next_reply = False

    async def append(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        result = await super().append(*args, **kwargs)
        if self.lose_next_reply:
            self.lose_next_reply = False
            raise ConnectionError("reply lost")
        return result


async def test_an_append_whose_reply_was_lost_is_no_longer_trusted_to_be_current():
    store, rules = LostReplyStore(), CountingRules()
    await started(store)
    repo = repository(store, rules)
    before = await repo.get("m1")
    after = lifecycle.with_position(before, b"1", before.turn, None)
    await repo.append(before, Progress(after, tuple(moves(1))))
    assert repo.holds("m1"), "its own append gave the repository the match's lease"
    landed = repo.cached("m1")
    assert landed is not None
    store.lose_next_reply = True
    with pytest.raises(ConnectionError):
        await repo.append(landed, Progress(landed, tuple(moves(1))))
    assert not repo.holds("m1")
    assert (await repo.get("m1")).version == 6, "the read asks the stream and catches up"


async def test_the_leases_it_keeps_are_bounded_by_the_matches_it_keeps_current(monkeypatch: pytest.MonkeyPatch):
    """A process that has appended to more matches than it keeps current still knows the
    leases of the newest ones, and keeps no more of them than its cache holds."""
    monkeypatch.setattr("services.match.repository.CACHE_SIZE", 4)
    store, rules = MemoryEventStore(), CountingRules()
    repo = repository(store, rules)
    names = [f"m{i}" for i in range(10)]
    for name in names:
        await started(store, name)
        before = await repo.get(name)
        await repo.append(before, Progress(lifecycle.with_position(before, b"1", before.turn, None), tuple(moves(1))))
    assert all(repo.holds(name) for name in names[-4:]), "the newest appends keep their leases"
    assert not any(repo.holds(name) for name in names[:-4]), "the oldest matches left the cache"
    assert len(repo._held) <= 4
