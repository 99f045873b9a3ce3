"""The Redis commands this code base sends, with the replies it gets.

redis-py types a command's reply as `Awaitable[T] | T` (one signature serves the
blocking and the asyncio client), or leaves it untyped, so mypy can neither
await it nor check what comes back. `Commands` states each command as the
asyncio client answers it: every client here is made by
services/common/redis/client.py with bytes replies (`decode_responses=False`)
and RESP2, so strings arrive as bytes and stream reads as lists.
`commands(client)` is the one place that says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Protocol, TypeAlias, cast

import redis.asyncio as aioredis

from services.common.redis.internals import Pipeline

Key: TypeAlias = str | bytes
Value: TypeAlias = str | bytes | int | float
StreamEntry: TypeAlias = tuple[bytes, dict[bytes, bytes]]
"""One stream entry: its id and its fields."""
StreamRead: TypeAlias = list[tuple[bytes, list[StreamEntry]]]
"""XREAD/XREADGROUP: for each stream read, its name and entries; empty (or None) on timeout."""


class Commands(Protocol):
    """The asyncio client's commands as this code base calls them."""

    async def ping(self) -> bool: ...

    async def get(self, name: Key) -> bytes | None: ...

    # With get=True: the value there before (None if there was none), whether or not it was replaced.
    async def set(
        self, name: Key, value: Value, *, nx: bool = False, px: int | None = None, get: bool = False
    ) -> bool | bytes | None: ...

    async def exists(self, *names: Key) -> int: ...

    async def delete(self, *names: Key) -> int: ...

    async def incr(self, name: Key, amount: int = 1) -> int: ...

    async def expire(self, name: Key, time: int) -> bool: ...

    async def hget(self, name: Key, key: Key) -> bytes | None: ...

    async def hset(self, name: Key, key: Key, value: Value) -> int: ...

    async def hgetall(self, name: Key) -> dict[bytes, bytes]: ...

    async def hmget(self, name: Key, keys: Sequence[Key]) -> list[bytes | None]: ...

    async def sadd(self, name: Key, *values: Value) -> int: ...

    async def smembers(self, name: Key) -> AbstractSet[bytes]: ...

    async def zrange(self, name: Key, start: int, end: int) -> list[bytes]: ...

    async def zadd(
        self,
        name: Key,
        mapping: Mapping[str, float],
        nx: bool = False,
        xx: bool = False,
        *,
        gt: bool = False,
        lt: bool = False,
    ) -> int: ...

    async def zrevrange(self, name: Key, start: int, end: int) -> list[bytes]: ...

    async def zrangebyscore(
        self, name: Key, min: float | str, max: float | str, start: int | None = None, num: int | None = None
    ) -> list[bytes]: ...

    async def xlen(self, name: Key) -> int: ...

    async def xrange(
        self, name: Key, min: str = "-", max: str = "+", count: int | None = None
    ) -> list[StreamEntry]: ...

    async def xrevrange(
        self, name: Key, max: str = "+", min: str = "-", count: int | None = None
    ) -> list[StreamEntry]: ...

    async def xread(
        self, streams: Mapping[Key, Key], count: int | None = None, block: int | None = None
    ) -> StreamRead | None: ...

    async def xreadgroup(
        self,
        groupname: str,
        consumername: str,
        streams: Mapping[Key, Key],
        count: int | None = None,
        block: int | None = None,
    ) -> StreamRead | None: ...

    # The next start id, the entries claimed (None for one deleted meanwhile), the ids deleted.
    async def xautoclaim(
        self,
        name: Key,
        groupname: str,
        consumername: str,
        min_idle_time: int,
        start_id: Key = "0-0",
        count: int | None = None,
    ) -> tuple[bytes | str, list[StreamEntry | None], list[bytes]]: ...

    async def xack(self, name: Key, groupname: str, *ids: Key) -> int: ...

    async def xgroup_create(self, name: Key, groupname: str, id: Key = "$", mkstream: bool = False) -> bool: ...

    def pipeline(self, transaction: bool = True) -> Pipeline: ...

    async def aclose(self) -> None: ...


def commands(client: aioredis.Redis) -> Commands:
    """`client` as the commands above: its replies, typed (see the module docstring)."""
    return cast(Commands, client)
