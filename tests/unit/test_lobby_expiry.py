"""Idle lobbies expire: found through the keeper's wake-up list by any replica, closed by
one LobbyExpired appended once, and a lobby that was written to meanwhile, or a match
that started, stays as it is."""

from __future__ import annotations

import asyncio

from tabletop.match.v1 import events_pb2 as ev

from services.common.redis.keys import match_stream
from services.common.store.event_store import MemoryEventStore
from services.match.app import MatchApp
from services.match.deadlines import MemoryDeadlines
from services.match.directory import MemoryDirectory
from services.match.keeper import ClockKeeper
from services.match.lifecycle import Status
from tests.unit.test_match_clocks import T0, Deck, Dice, TurnRules, Wall

IDLE = 60
IDLE_MS = IDLE * 1000


class Lobbies:
    """Replicas of the match service over one store, wake-up list, directory and wall clock."""

    def __init__(self) -> None:
        self.store = MemoryEventStore(lease_ms=100)
        self.deadlines = MemoryDeadlines()
        self.directory = MemoryDirectory()
        self.wall = Wall()
        self.finished: list[str] = []

    def replica(self) -> MatchApp:
        async def announce(match_id: str, game: str) -> None:
            self.finished.append(match_id)

        return MatchApp(
            self.store, {"turns": TurnRules()}, Dice(), Deck(),  # type: ignore[dict-item, arg-type]
            on_finished=announce, directory=self.directory, deadlines=self.deadlines, now_ms=self.wall,
            lobby_idle_seconds=IDLE,
        )

    async def types(self, match_id: str) -> list[str]:
        return [e.type.rsplit(".", 1)[-1] for e in await self.store.read(match_stream(match_id))]


async def test_a_lobby_is_due_its_idle_time_after_its_last_event_and_not_before():
    lobbies = Lobbies()
    app = lobbies.replica()
    await app.create("turns", {}, 2, match_id="m1")
    assert lobbies.deadlines.pending() == {"m1": T0 + IDLE_MS}
    lobbies.wall.now += IDLE_MS // 2
    await app.join("m1", "p-ana", None)
    assert lobbies.deadlines.pending() == {"m1": T0 + IDLE_MS // 2 + IDLE_MS}
    lobbies.wall.now = T0 + IDLE_MS
    assert await ClockKeeper(app.timekeeper).sweep() == 0
    assert (await app.current("m1")).status == Status.LOBBY


async def test_an_idle_lobby_expires_once_and_is_no_longer_listed_as_open():
    lobbies = Lobbies()
    app = lobbies.replica()
    await app.create("turns", {}, 2, match_id="m1")
    await app.join("m1", "p-ana", None)
    lobbies.wall.now += IDLE_MS
    assert await ClockKeeper(app.timekeeper).sweep() == 1
    assert await lobbies.types("m1") == ["MatchCreated", "PlayerJoined", "LobbyExpired"]
    (last,) = await lobbies.store.read(match_stream("m1"), after_version=2)
    assert ev.LobbyExpired.FromString(last.data).idle_seconds == IDLE
    closed = await app.current("m1")
    assert closed.status == Status.FINISHED and closed.expired
    assert [m.match_id for m in await app.list_matches(status=int(Status.LOBBY))] == []
    assert [m.match_id for m in await app.list_matches(status=int(Status.FINISHED))] == ["m1"]
    # Nothing is left to wake up for, and a lobby nobody played has no result to rate.
    assert lobbies.deadlines.pending() == {}
    assert lobbies.finished == []


async def test_two_replicas_that_find_the_same_idle_lobby_append_its_expiry_once():
    lobbies = Lobbies()
    first, second = lobbies.replica(), lobbies.replica()
    await first.create("turns", {}, 2, match_id="m1")
    lobbies.wall.now += IDLE_MS
    await asyncio.gather(first.timekeeper.wake("m1"), second.timekeeper.wake("m1"), second.timekeeper.wake("m1"))
    assert await lobbies.types("m1") == ["MatchCreated", "LobbyExpired"]


async def test_a_lobby_joined_after_it_was_found_idle_stays_open():
    lobbies = Lobbies()
    keeper_side, player_side = lobbies.replica(), lobbies.replica()
    await keeper_side.create("turns", {}, 2, match_id="m1")
    lobbies.wall.now += IDLE_MS
    found = await keeper_side.current("m1")
    await player_side.join("m1", "p-ana", None)
    # The keeper decides on what it found: the join moved the lobby on, so it waits again.
    assert await keeper_side.timekeeper._expire_lobby(found) == lobbies.wall.now + IDLE_MS
    assert await lobbies.types("m1") == ["MatchCreated", "PlayerJoined"]
    assert (await keeper_side.current("m1")).status == Status.LOBBY


async def test_a_started_match_is_left_to_its_clocks_however_long_it_waits():
    lobbies = Lobbies()
    app = lobbies.replica()
    await app.create("turns", {}, 2, match_id="m1")
    await app.join("m1", "p-ana", None)
    await app.join("m1", "p-ben", None)
    await app.start("m1")
    lobbies.wall.now += 10 * IDLE_MS
    await ClockKeeper(app.timekeeper).sweep()
    assert (await app.current("m1")).status == Status.ACTIVE
    assert await lobbies.types("m1") == ["MatchCreated", "PlayerJoined", "PlayerJoined", "MatchStarted"]
    assert lobbies.deadlines.pending() == {}


async def test_without_an_idle_time_lobbies_stay_open():
    lobbies = Lobbies()
    app = MatchApp(
        lobbies.store, {"turns": TurnRules()}, Dice(), Deck(),  # type: ignore[dict-item, arg-type]
        deadlines=lobbies.deadlines, now_ms=lobbies.wall,
    )
    await app.create("turns", {}, 2, match_id="m1")
    assert lobbies.deadlines.pending() == {}
