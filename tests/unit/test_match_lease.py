"""Two match replicas on one store, each appending under its own lease: the
holder answers reads from its cache, and nothing a race does is lost or stale."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from services.common.redis.keys import match_stream
from services.common.store.event_store import EventStore, MemoryEventStore
from services.common.store.redis_store import RedisEventStore
from services.match.app import MatchApp
from tests.unit.test_match_app import CoinRules, Deck, Dice

LEASE_MS = 200


class CountingStore(MemoryEventStore):
    """A memory store that counts the version queries a reader makes."""

    def __init__(self) -> None:
        super().__init__(lease_ms=LEASE_MS)
        self.version_queries = 0

    async def version(self, stream: str) -> int:
        self.version_queries += 1
        return await super().version(stream)


def replica(store: EventStore) -> MatchApp:
    return MatchApp(store, {"coin": CoinRules()}, Dice(), Deck())  # type: ignore[dict-item, arg-type]


@pytest.fixture(params=["memory", "redis"])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[EventStore]:
    if request.param == "memory":
        yield MemoryEventStore(lease_ms=LEASE_MS)
        return
    backend = RedisEventStore.from_url(request.getfixturevalue("redis_url"), lease_ms=LEASE_MS)
    yield backend
    await backend.close()


async def test_the_holder_reads_from_its_cache_and_checks_again_once_the_lease_lapses():
    store = CountingStore()
    app = replica(store)
    await app.create("coin", {}, 2, match_id="m1")
    await app.join("m1", "p-ana", None)
    before = store.version_queries
    assert (await app.current("m1")).players == ("p-ana", "")
    assert store.version_queries == before, "the lease holder needs no version query"
    await asyncio.sleep(LEASE_MS / 1000)
    assert (await app.current("m1")).players == ("p-ana", "")
    assert store.version_queries == before + 1, "without a lease, a read checks the stream's version"


async def test_a_write_through_another_replica_is_seen_by_the_former_holder(store):
    ours, theirs = replica(store), replica(store)
    await ours.create("coin", {}, 2, match_id="m1")
    await ours.join("m1", "p-ana", None)
    assert (await ours.current("m1")).players == ("p-ana", "")
    joined = await theirs.join("m1", "p-ben", None)
    seen = await ours.current("m1")
    assert seen.version >= joined.version and seen.players == ("p-ana", "p-ben")


async def test_replicas_racing_on_one_match_lose_nothing_and_read_their_writes(store):
    apps = [replica(store), replica(store)]
    match_id = "race"
    await apps[0].create("coin", {}, 2, match_id=match_id)

    async def player(index: int) -> list[int]:
        """Joins and leaves through alternating replicas, reading back through the other."""
        versions = []
        for turn in range(4):
            writer, reader = apps[(index + turn) % 2], apps[(index + turn + 1) % 2]
            joined = await writer.join(match_id, f"p-{index}", None, command_id=f"j-{index}-{turn}")
            assert (await reader.current(match_id)).version >= joined.version
            left = await writer.leave(match_id, joined.seat, command_id=f"l-{index}-{turn}")
            assert (await reader.current(match_id)).version >= left
            versions += [joined.version, left]
        return versions

    written = [v for versions in await asyncio.gather(player(0), player(1)) for v in versions]
    log = await store.read(match_stream(match_id))
    assert len(written) == len(set(written)) == 16, "every write landed once, at its own version"
    assert [e.version for e in log] == list(range(1, 18))
    for app in apps:
        assert (await app.current(match_id)).version == 17
