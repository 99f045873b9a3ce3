"""The embedded server in its default configuration loses nothing acknowledged.

Players act through the real gateway while the embedded server is killed with
SIGKILL and restarted on the same port and data directory; afterwards every
acknowledged action is in its match's log at the version it was acknowledged
with. A whole stack stopped and started again on the same data directory
keeps its matches (which still verify), tickets and ratings.
"""

from __future__ import annotations

import asyncio
import os
import pathlib
import random
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import grpc
import pytest
import redis.asyncio as aioredis
from tabletop.gateway.v1 import gateway_pb2 as gpb
from tabletop.match.v1 import match_service_pb2 as mpb

from cli import autoplay
from cli.api import Gateway, Seat
from deploy.stack import UNLIMITED_CALLERS, Stack
from services.common.redis.keys import match_stream
from services.common.store.redis_store import RedisEventStore
from services.dice.verify import verify
from services.matchmaker import store as mm_store
from services.matchmaker.projection import COUNTED, ratings_key

pytestmark = pytest.mark.integration
# The waiting ticket has no watcher and must outlive a restart as it is: none is abandoned for it.
# The rated match here is a lobby made and joined by hand: its stack rates custom tables.
PIG = {"TABLETOP_EXTRA_GAMES": "pig=tests.fixtures.pig", "TABLETOP_MM_WATCH_GRACE": "0",
       "TABLETOP_RATE_CUSTOM_TABLES": "on"}
SOAK = int(os.environ.get("SOAK", "0") or 0)
LANES = 4
ACTIONS_PER_CYCLE = 12
# A lane that fails this often in a row is not riding out a restart any more.
MAX_FAILURES_IN_A_ROW = 500


@dataclass
class Ack:
    match_id: str
    version: int
    command_id: str


@dataclass
class Players:
    """Lanes of players acting until told to stop, recording every acknowledgement."""

    gateway: Gateway
    acks: list[Ack] = field(default_factory=list)
    failures: int = 0
    interrupted: int = 0  # calls that failed in all, i.e. that a kill caught in flight or that met a dead server
    progress: asyncio.Event = field(default_factory=asyncio.Event)
    # Cleared while the server is down: a failed lane waits for it instead of spinning.
    up: asyncio.Event = field(default_factory=asyncio.Event)
    stop: asyncio.Event = field(default_factory=asyncio.Event)

    async def lane(self) -> None:
        while not self.stop.is_set():
            try:
                await self._play_one_match()
                self.failures = 0
            except grpc.aio.AioRpcError:
                # Unacknowledged: the call may or may not have landed, and counts for nothing.
                self.failures += 1
                self.interrupted += 1
                assert self.failures < MAX_FAILURES_IN_A_ROW, "the stack did not recover"
                await self.up.wait()

    async def _play_one_match(self) -> None:
        match_id = (await self.gateway.create("pig", 2)).match.match_id
        seats = [await self.gateway.join(match_id, f"p{i}-{uuid.uuid4().hex[:6]}") for i in range(2)]
        await self.gateway.start(seats[0])
        while not self.stop.is_set():
            summary = (await self.gateway.view(match_id)).match
            if summary.status == mpb.MATCH_STATUS_FINISHED:
                return
            await self._act(seats[summary.to_move[0]])

    async def _act(self, seat: Seat) -> None:
        legal = (await self.gateway.legal_actions(seat)).actions
        command_id = uuid.uuid4().hex
        reply = await self.gateway.submit(seat, legal[0], command_id=command_id)
        self.acks.append(Ack(seat.match_id, reply.version, command_id))
        self.failures = 0
        self.progress.set()

    async def until(self, count: int, timeout: float = 60.0) -> None:
        """Wait until `count` actions have been acknowledged in all."""
        async with asyncio.timeout(timeout):
            while len(self.acks) < count:
                self.progress.clear()
                await self.progress.wait()


async def _kill_cycles(data_dir: pathlib.Path, cycles: int) -> None:
    # One host creates every match, as fast as the lanes can play: no rate limits here.
    stack = Stack(games=("pig",), extra_env={**PIG, **UNLIMITED_CALLERS}, matchmakers=0, data_dir=data_dir)
    stack.start()
    try:
        async with Gateway(stack.gateway_addr) as gateway:
            players = Players(gateway)
            players.up.set()
            lanes = [asyncio.create_task(players.lane()) for _ in range(LANES)]
            for _ in range(cycles):
                await players.until(len(players.acks) + ACTIONS_PER_CYCLE)
                players.up.clear()
                port = stack.redis.port
                stack.redis.kill()
                await asyncio.to_thread(stack.redis.restart)
                assert stack.redis.port == port
                players.up.set()
            # The stack serves again after the last restart.
            await players.until(len(players.acks) + ACTIONS_PER_CYCLE)
            players.stop.set()
            await _finish(lanes)
        lost = await _lost(stack.redis_url, players.acks)
    finally:
        stack.stop()
    print(f"{cycles} kill -9 cycles, {len(players.acks)} acknowledged actions, "
          f"{players.interrupted} failed calls, {len(lost)} lost")
    assert not lost, lost[:10]


async def _finish(lanes: list[asyncio.Task[None]]) -> None:
    # A lane stops at its next action; one blocked in a call ends with that call.
    async with asyncio.timeout(60):
        await asyncio.gather(*lanes)


async def _lost(admin_url: str, acks: list[Ack]) -> list[Ack]:
    """Acknowledged actions missing from their match's log (at their version)."""
    store = RedisEventStore.from_url(admin_url)
    try:
        logs = {m: await store.read(match_stream(m)) for m in {a.match_id for a in acks}}
    finally:
        await store.close()
    for log in logs.values():
        assert [e.version for e in log] == list(range(1, len(log) + 1))
    # `in`, not ==: the match service may qualify a command id with its caller.
    return [a for a in acks if a.version > len(logs[a.match_id]) or
            a.command_id not in logs[a.match_id][a.version - 1].command_id]


async def test_kill_9_of_the_embedded_server_loses_no_acknowledged_action(tmp_path: pathlib.Path) -> None:
    await _kill_cycles(tmp_path / "data", cycles=4)


@pytest.mark.slow
@pytest.mark.skipif(not SOAK, reason="set SOAK=n for n x 200 kill -9 cycles of the embedded server")
async def test_soak_hundreds_of_kill_9_cycles_lose_nothing(tmp_path: pathlib.Path) -> None:
    cycles = int(os.environ.get("TABLETOP_KILL_CYCLES", "0") or 0) or 200 * SOAK
    await _kill_cycles(tmp_path / "data", cycles=cycles)


async def test_a_restarted_stack_keeps_matches_tickets_and_ratings(tmp_path: pathlib.Path) -> None:
    data_dir = tmp_path / "data"
    before = await _first_life(data_dir)
    stack = Stack(games=("pig",), extra_env=PIG, matchmakers=1, data_dir=data_dir)
    stack.start()
    try:
        async with Gateway(stack.gateway_addr) as gateway:
            assert await _state(stack, gateway, before) == before
            entries = await gateway.log(before.finished)
            report = verify((e.version, e.type, e.event.value) for e in entries)
            assert report.ok and report.rolls > 0, report.problems
            # The unfinished match goes on where it stopped, with the seat tokens of the
            # first life: the gateway's key ring was kept in the data directory too.
            seat = before.seats[(await gateway.view(before.unfinished)).match.to_move[0]]
            legal = (await gateway.legal_actions(seat)).actions
            reply = await gateway.submit(seat, legal[0], command_id=uuid.uuid4().hex)
            assert reply.version > before.versions[before.unfinished]
    finally:
        stack.stop()


@dataclass
class Kept:
    finished: str
    unfinished: str
    seats: list[Seat]
    ticket: str
    versions: dict[str, int]
    logs: dict[str, list[bytes]]
    ticket_fields: dict[bytes, bytes]
    ratings: dict[bytes, bytes]

    def __eq__(self, other: object) -> bool:
        fields = ("versions", "logs", "ticket_fields", "ratings")
        return isinstance(other, Kept) and all(getattr(self, f) == getattr(other, f) for f in fields)


async def _first_life(data_dir: pathlib.Path) -> Kept:
    """A finished match (rated), a match half played, a waiting ticket; then stop."""
    stack = Stack(games=("pig",), extra_env=PIG, matchmakers=1, data_dir=data_dir)
    stack.start()
    try:
        async with Gateway(stack.gateway_addr) as gateway:
            finished = await _played(gateway, seed=7)
            assert finished.summary.status == mpb.MATCH_STATUS_FINISHED
            unfinished = await _played(gateway, seed=8, stop_after=5)
            request = gpb.FindMatchRequest(game="pig", players_min=2, command_id="t1")
            waiting = await gateway.sign_in("waiting")
            ticket = (await gateway.stub.FindMatch(request, metadata=waiting.metadata)).ticket_id
            kept = Kept(finished.match_id, unfinished.match_id, unfinished.seats, ticket, {}, {}, {}, {})
            async with _admin(stack) as admin:
                await _until(lambda: _rated(admin, finished.match_id))
            return await _state(stack, gateway, kept)
    finally:
        stack.stop()


async def _played(gateway: Gateway, seed: int, stop_after: int | None = None) -> autoplay.BotResult:
    """A pig match of two human players (bots are never rated) driven by random choices."""
    match_id = (await gateway.create("pig", 2)).match.match_id
    seats = [await gateway.join(match_id, f"human-{seed}-{i}") for i in range(2)]
    await gateway.start(seats[0])
    result = autoplay.BotResult(match_id, "pig", 0, 0.0, mpb.MatchSummary(), [], seats)
    await autoplay.drive(gateway, result, random.Random(seed), stop_after=stop_after)
    return result


async def _state(stack: Stack, gateway: Gateway, kept: Kept) -> Kept:
    """What must survive: both logs, the ticket, the ratings (read as admin and through the gateway)."""
    state = Kept(kept.finished, kept.unfinished, kept.seats, kept.ticket, {}, {}, {}, {})
    for match_id in (kept.finished, kept.unfinished):
        state.versions[match_id] = (await gateway.view(match_id)).match.version
        state.logs[match_id] = [e.SerializeToString() for e in await gateway.log(match_id)]
    async with _admin(stack) as admin:
        state.ticket_fields = await admin.hgetall(mm_store.ticket_key(kept.ticket))
        state.ratings = await admin.hgetall(ratings_key("pig"))
    assert state.ticket_fields and state.ratings
    return state


def _admin(stack: Stack) -> aioredis.Redis:
    return aioredis.from_url(stack.redis_url, decode_responses=False)


async def _rated(admin: aioredis.Redis, match_id: str) -> bool:
    return bool(await admin.sismember(COUNTED, match_id))


async def _until(check: Callable[[], Awaitable[bool]], timeout: float = 30.0) -> None:
    async with asyncio.timeout(timeout):
        while not await check():
            await asyncio.sleep(0.05)  # polling an answer the matchmaker writes on its own schedule


def test_a_given_data_dir_is_kept_and_a_default_one_removed_at_stop(tmp_path: pathlib.Path) -> None:
    given, default = Stack(data_dir=tmp_path / "kept"), Stack()
    given.data_dir.mkdir()
    assert default.data_dir.is_dir()
    given.stop()
    default.stop()
    assert given.data_dir.is_dir()
    assert not default.data_dir.exists()
