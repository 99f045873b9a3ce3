"""The match directory: a read model of each match's game and status, for listing.

Written after every lifecycle change (created, seated, started, ended). It is
only an index: listings load each match's record fresh from its log, and a
lost write is repaired by the next lifecycle change of that match.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, cast

if TYPE_CHECKING:
    import redis.asyncio as aioredis

    from services.common.redis.commands import Commands

DIRECTORY_KEY = "tabletop:match-directory"
INDEX_KEY = "tabletop:streams"
CHUNK = 500


class Directory(Protocol):
    async def put(self, match_id: str, game: str, status: int) -> None: ...

    async def find(self, game: str, status: int, limit: int) -> list[str]: ...


class MemoryDirectory:
    def __init__(self) -> None:
        self._entries: dict[str, tuple[str, int]] = {}

    async def put(self, match_id: str, game: str, status: int) -> None:
        self._entries.pop(match_id, None)
        self._entries[match_id] = (game, status)

    async def find(self, game: str, status: int, limit: int) -> list[str]:
        newest = reversed(list(self._entries.items()))
        return [m for m, (g, s) in newest if (not game or g == game) and (not status or s == status)][:limit]


class RedisDirectory:
    """A hash of match id -> "game status", walked in the order of the streams index."""

    def __init__(self, redis: aioredis.Redis) -> None:
        # Its replies as they come (services/common/redis/commands.py says how).
        self._redis = cast("Commands", redis)

    async def put(self, match_id: str, game: str, status: int) -> None:
        await self._redis.hset(DIRECTORY_KEY, match_id, f"{game} {status}")

    async def find(self, game: str, status: int, limit: int) -> list[str]:
        found: list[str] = []
        start = 0
        while len(found) < limit:
            streams = await self._redis.zrevrange(INDEX_KEY, start, start + CHUNK - 1)
            if not streams:
                break
            ids = [s.decode().removeprefix("match:") for s in streams if s.startswith(b"match:")]
            entries = await self._redis.hmget(DIRECTORY_KEY, ids) if ids else []
            for match_id, entry in zip(ids, entries, strict=True):
                if entry is None:
                    continue
                entry_game, entry_status = entry.decode().rsplit(" ", 1)
                if (not game or entry_game == game) and (not status or int(entry_status) == status):
                    found.append(match_id)
            start += CHUNK
        return found[:limit]
