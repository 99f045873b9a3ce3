"""Every use of redis-py's (and asyncio's) internals, in one place, read from redis-py
`READ_FROM`: the version pyproject.toml pins. tests/unit/test_redis_internals.py fails
when another is installed, or pinned: then re-read each item below against the new
version's source (redis/asyncio/connection.py, redis/asyncio/client.py) before
changing `READ_FROM`. No other module reaches past redis-py's public API.

What each reaches into:

- `LeanConnection` (a `redis.asyncio.Connection`): overrides `pack_command` (one
  packed buffer, redis-py's DataError for a value it cannot take) and
  `send_packed_command` (what it is handed, when it health-checks, and that a failed
  write disconnects with `disconnect(nowait=True)`); reads the private `_writer` (the
  asyncio StreamWriter, None before connecting) and `health_check_interval`,
  `socket_timeout`; overrides `read_response` for a reply the hiredis parser holds
  whole already (`_AsyncHiredisParser`: its `_connected` and `_reader`, the hiredis
  Reader, whose `gets()` answers `NOT_ENOUGH_DATA` from redis/_parsers/hiredis.py
  without consuming anything), checked as redis-py's parser and connection check a
  reply (a ConnectionError in it disconnects and raises, the health check's next time,
  a ResponseError raised), RESP2 only.
- `Pipeline`: the asyncio client's pipeline class, which `redis.asyncio` does not
  export: imported from `redis.asyncio.client`.
- `LeanPool` (a `redis.asyncio.BlockingConnectionPool`): overrides `get_connection`
  and `release`; reads and changes `_available_connections` and `_in_use_connections`
  as redis-py's own pool methods do, reads the waiters of its `_condition` (asyncio's
  `Condition._waiters`), and of a connection `_reader` (the asyncio StreamReader: its
  `_buffer`, `at_eof()`), `_writer` and `_parser._reader` (the hiredis Reader:
  `has_data()`); calls `ensure_connection` and `should_reconnect` as redis-py's do.
- `LeanCluster` (a `redis.asyncio.cluster.RedisCluster`): writes "connection_class"
  into the client's `connection_kwargs` (the dict its `NodesManager` builds every
  `ClusterNode` from, and which `__init__` fills with redis-py's `Connection`), sets
  `connection_class` on the startup nodes it already built, and overrides
  `_determine_slot(command, *args)` (async; the slot a command goes to).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import TYPE_CHECKING

import hiredis
import redis.asyncio as aioredis
from redis._parsers.hiredis import NOT_ENOUGH_DATA as _NOT_ENOUGH_DATA
from redis._parsers.hiredis import _AsyncHiredisParser
from redis.asyncio.client import Pipeline
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.connection import AbstractConnection
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import DataError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

if TYPE_CHECKING:
    from redis.typing import EncodableT

__all__ = ["READ_FROM", "LeanCluster", "LeanConnection", "LeanPool", "Pipeline"]

# The redis-py version whose source everything here was read from (pyproject.toml pins it).
READ_FROM = "7.0.1"


class LeanConnection(aioredis.Connection):
    """redis-py's asyncio connection with two costs of every command taken out.

    It packs a command in Python, argument by argument; hiredis (already the reply
    parser) packs it in C, as redis-py's own synchronous client does. And it sends
    under `asyncio.wait_for`, which wraps the write in a task of its own, for a
    timeout that can only strike while the socket's buffer is full: here the write is
    handed to the transport after one turn of the loop, and the timed wait happens
    only when the kernel did not take it all at once.

    That turn matters: redis-py's task also wrote one turn later, so the commands of
    all the tasks that ran in a turn (64 matches' appends, say) reach the server
    together, and a server that fsyncs every write (appendfsync always) syncs once per
    loop of its own for all it read in it. Written at once instead, they trickled in
    and each paid its own sync: the embedded server's CPU per action of the minimal
    game rose from 0.23 to 0.41 ms (in process, 64 matches, four alternating runs).
    With the turn it stays at 0.23, and the stack's CPU per action was 2.04 ms against
    2.30 with redis-py's send (medians of the same runs). An EXISTS loop against the
    embedded server (three alternating runs): the client's CPU per command 129-141 us
    with one caller before, 83-107 after; 56-77 us with sixteen callers before, 43-48
    after. The cluster client uses it too (`LeanCluster`).
    """

    def pack_command(self, *args: EncodableT) -> list[bytes]:
        # A command name of several words ("CLIENT SETNAME") goes as several arguments.
        name = args[0]
        if isinstance(name, str):
            args = (*name.encode().split(), *args[1:])
        elif isinstance(name, bytes | bytearray) and b" " in name:
            args = (*name.split(), *args[1:])
        try:
            # hiredis's stub types its argument as a tuple of one (Tuple[X], not Tuple[X, ...]);
            # a value it cannot pack (a bytearray, None) raises TypeError, answered below.
            return [hiredis.pack_command(args)]  # type: ignore[arg-type]
        except TypeError as wrong:
            raise DataError(str(wrong)) from None

    async def read_response(
        self,
        disable_decoding: bool = False,
        timeout: float | None = None,
        *,
        disconnect_on_error: bool = True,
        push_request: bool | None = False,
    ) -> object:
        # A reply read already (the rest of a pipeline's, or pub/sub messages that came
        # together) is taken at once: redis-py would read it under a timeout of its own,
        # a timer set and cancelled for a read that cannot wait. Anything else, and RESP3
        # (push messages), goes redis-py's way.
        reply = self._buffered(disable_decoding)
        if reply is _NOT_ENOUGH_DATA:
            return await super().read_response(
                disable_decoding, timeout, disconnect_on_error=disconnect_on_error, push_request=push_request
            )
        # What redis-py's hiredis parser and connection do with a reply, in their order.
        broken = reply[0] if isinstance(reply, list) and reply else reply
        if isinstance(broken, RedisConnectionError):
            if disconnect_on_error:
                await self.disconnect(nowait=True)
            raise broken
        if self.health_check_interval:
            self.next_health_check = asyncio.get_running_loop().time() + self.health_check_interval
        if isinstance(reply, ResponseError):
            raise reply from None
        return reply

    def _buffered(self, disable_decoding: bool) -> object:
        """The next reply if the parser holds all of it already, else _NOT_ENOUGH_DATA."""
        parser = self._parser
        if self.protocol not in (2, "2") or not isinstance(parser, _AsyncHiredisParser) or not parser._connected:
            return _NOT_ENOUGH_DATA
        reader = parser._reader
        if reader is None or not reader.has_data():
            return _NOT_ENOUGH_DATA
        return reader.gets(False) if disable_decoding else reader.gets()

    async def send_packed_command(self, command: bytes | str | Iterable[bytes], check_health: bool = True) -> None:
        await self._send(command, check_health, a_turn_first=True)

    async def send_packed_now(self, command: bytes | str | Iterable[bytes]) -> None:
        """`send_packed_command` without its turn of the loop (and no health check), for a
        caller that gathered what it sends over a turn already: the group commit's flush,
        whose first step runs a turn after the append that started it. One turn fewer
        between an action and its append."""
        await self._send(command, False, a_turn_first=False)

    async def _send(self, command: bytes | str | Iterable[bytes], check_health: bool, a_turn_first: bool) -> None:
        writer = self._writer
        if writer is None or (check_health and self.health_check_interval):
            await super().send_packed_command(command, check_health)
            return
        transport = writer.transport
        # One turn of the loop first, as redis-py's task did: the commands of every task
        # that runs in this turn then reach the server together, and a server that
        # fsyncs each write does so once for all it read at once (see the class).
        if a_turn_first:
            await asyncio.sleep(0)
        try:
            if isinstance(command, str):
                command = command.encode()
            if isinstance(command, bytes):
                writer.write(command)
            else:
                writer.writelines(command)
            if transport.get_write_buffer_size() or transport.is_closing():
                await asyncio.wait_for(writer.drain(), self.socket_timeout)
        except TimeoutError:
            await self.disconnect(nowait=True)
            raise RedisTimeoutError("Timeout writing to socket") from None
        except OSError as lost:
            await self.disconnect(nowait=True)
            raise RedisConnectionError(f"Error while writing to socket: {lost}") from lost
        except BaseException:
            # Part of the command may be out: the connection cannot carry another.
            await self.disconnect(nowait=True)
            raise


class LeanPool(aioredis.BlockingConnectionPool):
    """redis-py's bounded pool, handing out an idle connection without a turn of the loop.

    Stock, every command takes the pool's condition and a timeout to find a connection,
    then checks that it holds no unread data by trying to read from its socket under a
    zero timeout: the task is suspended for a turn of the loop, then cancelled. Then
    it takes the condition again to give the connection back. Here a command that finds
    an idle connection takes it at once, and checks what has been read from it already
    (the stream's buffer, its end, the parser's buffer) instead of waiting a turn for
    more; a connection that fails the check goes redis-py's way (reconnected). Giving
    a connection back takes the condition only when a caller waits for one. Where no
    connection is idle, a caller waits as before (`timeout`, then ConnectionError).

    What a turn of the loop could still have shown (data the server sent since the last
    one) is no reply: every command reads its reply in full before the connection goes
    back, and one that fails half way (an error, a cancellation) disconnects. An end the
    server sent since is met by the next command, as redis-py meets a server that goes
    away between its check and the command: ConnectionError, and the caller's retry.
    A connection given back here does not dispatch redis-py's connection-released
    event, which only a streaming credential provider listens to (none is configured).
    """

    async def get_connection(self, *args: object, **options: object) -> AbstractConnection:
        idle = self._available_connections
        if not idle:
            # redis-py leaves get_connection unannotated.
            return await super().get_connection(*args, **options)  # type: ignore[no-untyped-call, no-any-return]
        connection = idle.pop()
        self._in_use_connections.add(connection)
        if _settled(connection):
            return connection
        try:
            await self.ensure_connection(connection)
        except BaseException:
            await self.release(connection)
            raise
        return connection

    async def release(self, connection: AbstractConnection) -> None:
        # Someone waits for a connection, or this one must reconnect first (while it does,
        # under the condition, nobody may open one past the bound): redis-py's way.
        if self._condition._waiters or connection.should_reconnect():  # type: ignore[no-untyped-call]
            await super().release(connection)
            return
        self._in_use_connections.remove(connection)
        self._available_connections.append(connection)


def _settled(connection: AbstractConnection) -> bool:
    """A connected connection with nothing unread: nothing in its stream's buffer, no
    end of stream, nothing in the parser's buffer."""
    stream = connection._reader
    if stream is None or connection._writer is None or stream._buffer or stream.at_eof():  # type: ignore[attr-defined]
        return False
    parsed = getattr(connection._parser, "_reader", None)
    return parsed is not None and not parsed.has_data()


# Commands whose first argument is their (first) key. Every command of this code base
# touches the keys of one hash tag, so the first key's slot is the command's.
FIRST_KEY_COMMANDS = frozenset([
    "APPEND", "DECR", "DECRBY", "DEL", "EXISTS", "EXPIRE", "EXPIREAT", "GET", "GETDEL", "GETSET",
    "HDEL", "HEXISTS", "HGET", "HGETALL", "HINCRBY", "HINCRBYFLOAT", "HKEYS", "HLEN", "HMGET", "HMSET",
    "HSET", "HSETNX", "HVALS", "INCR", "INCRBY", "LLEN", "LPOP", "LPUSH", "LRANGE", "LREM", "LTRIM",
    "MGET", "PERSIST", "PEXPIRE", "PEXPIREAT", "PSETEX", "PTTL", "RPOP", "RPUSH", "SADD", "SCARD",
    "SET", "SETEX", "SETNX", "SISMEMBER", "SMEMBERS", "SPOP", "SREM", "STRLEN", "TTL", "TYPE", "UNLINK",
    "XACK", "XADD", "XAUTOCLAIM", "XCLAIM", "XDEL", "XLEN", "XPENDING", "XRANGE", "XREVRANGE", "XTRIM",
    "ZADD", "ZCARD", "ZCOUNT", "ZINCRBY", "ZMSCORE", "ZPOPMIN", "ZRANGE", "ZRANGEBYSCORE", "ZRANK",
    "ZREM", "ZREMRANGEBYRANK", "ZREMRANGEBYSCORE", "ZREVRANGE", "ZREVRANGEBYSCORE", "ZSCORE"
])
SCRIPT_COMMANDS = frozenset(("EVALSHA", "EVAL"))


class LeanCluster(RedisCluster):
    """redis-py's asyncio cluster client on `LeanConnection`s, routing by the first key.

    Stock, it packs every command in Python and writes it from a task of its own (as the
    one-server client did before `LeanConnection`), and it finds a command's slot by
    hashing every key it names (eight for the matchmaker's enqueue script) or, for a
    command that is not a script, by asking its command parser where the keys are. Here
    every command touches the keys of one hash tag (services/common/redis/client.py), so
    the slot of its first key is the command's; a command that broke that rule is still
    refused, by the server (CROSSSLOT) instead of the client. Commands this class does
    not know go redis-py's way.
    """

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]  # redis-py's keywords, passed through
        # Every node the client learns of later is built from this dict; the startup
        # nodes were built from it already (and have no connection yet).
        self.connection_kwargs["connection_class"] = LeanConnection
        for node in self.startup_nodes:
            node.connection_class = LeanConnection

    async def _determine_slot(self, command: str, *args: EncodableT) -> int:
        if command in FIRST_KEY_COMMANDS and args:
            return self.keyslot(args[0])
        if command in SCRIPT_COMMANDS and len(args) > 2 and int(args[1]) > 0:
            return self.keyslot(args[2])
        return await super()._determine_slot(command, *args)
