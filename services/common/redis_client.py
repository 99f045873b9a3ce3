"""Redis clients: one server, or a Redis Cluster when REDIS_CLUSTER is set.

Every key of one match shares the hash tag `{match:<id>}` (and the matchmaker's
share `{mm}`), and every script touches keys of one tag only, so the same code
runs on both.

Every pool is bounded: a process holds at most `max_connections` connections
(per cluster node), however many callers it serves. A command that finds the
pool empty waits `pool_timeout` s for a connection, then fails (ConnectionError,
which the server maps to UNAVAILABLE) instead of opening one more.
"""

from __future__ import annotations

import asyncio
import time
import urllib.parse
from collections.abc import Iterable
from typing import Any, TypedDict, cast

import hiredis
import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import DataError
from redis.exceptions import TimeoutError as RedisTimeoutError

from services.common.config import Settings

# Blocking reads (XREAD/XREADGROUP BLOCK, at most 2 s in this code base) must fit
# in the socket timeout, so it is never shorter than this.
LONGEST_BLOCK = 2.0
CONNECT_TIMEOUT = 2.0


class _Options(TypedDict, total=False):
    """The connection options this module sets (redis-py takes them as keywords)."""

    decode_responses: bool
    socket_timeout: float
    socket_connect_timeout: float
    max_connections: int
    client_name: str


def connect(
    url: str,
    cluster: bool = False,
    max_connections: int = 64,
    pool_timeout: float = 2.0,
    timeout: float = 5.0,
    name: str = "",
) -> aioredis.Redis:
    """An asyncio client with bytes replies and a bounded pool.

    `timeout` bounds every command, so a paused server fails calls instead of
    hanging them; `name` (CLIENT SETNAME) lets operators and tests count a
    process's connections with CLIENT LIST."""
    options: _Options = {
        "decode_responses": False,
        "socket_timeout": max(timeout, LONGEST_BLOCK + 1.0),
        "socket_connect_timeout": CONNECT_TIMEOUT,
        "max_connections": max_connections,
    }
    if name:
        options["client_name"] = name
    if cluster:
        # The cluster client has no blocking pool: past the bound it raises
        # MaxConnectionsError at once (mapped to RESOURCE_EXHAUSTED).
        # Typed as the one-server client its callers are written against: every
        # call touches keys of one hash tag, so the cluster client serves it alike.
        return cast(aioredis.Redis, RedisCluster.from_url(url, **options))  # type: ignore[no-untyped-call]
    pool = IdleProbingPool.from_url(url, timeout=pool_timeout, connection_class=LeanConnection, **options)
    return aioredis.Redis(connection_pool=pool)


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
    after. The cluster client keeps redis-py's own connections.
    """

    def pack_command(self, *args: Any) -> list[bytes]:
        # A command name of several words ("CLIENT SETNAME") goes as several arguments.
        if isinstance(args[0], str):
            args = (*args[0].encode().split(), *args[1:])
        elif b" " in args[0]:
            args = (*args[0].split(), *args[1:])
        try:
            return [hiredis.pack_command(args)]
        except TypeError as wrong:
            raise DataError(str(wrong)) from None

    async def send_packed_command(self, command: bytes | str | Iterable[bytes], check_health: bool = True) -> None:
        writer = self._writer
        if writer is None or (check_health and self.health_check_interval):
            await super().send_packed_command(command, check_health)
            return
        transport = writer.transport
        # One turn of the loop first, as redis-py's task did: the commands of every task
        # that runs in this turn then reach the server together, and a server that
        # fsyncs each write does so once for all it read at once (see the class).
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


class IdleProbingPool(aioredis.BlockingConnectionPool):
    """The bounded pool, probing only connections that have sat idle.

    redis-py 7.0 tries a non-blocking read on a connection before each command
    (can_read_destructive), to find one closed by the server (a restart, an idle
    timeout) or returned with a reply unread, and reconnect it before the command is
    sent: commands are not retried on a lost connection, so without it the first
    command on each such connection would fail. The probe costs a system call per
    command, 10-35 us of the 40-70 us a command cost here. A connection back in the
    pool less than PROBE_IDLE_S ago was working then (a command that fails disconnects
    its connection), and no server restarts that fast: only connections idle for
    longer are probed. Under load the pool hands out connections used a moment ago
    (it is last in, first out), so almost no command pays for the probe."""

    async def get_connection(self, command_name: Any = None, *keys: Any, **options: Any) -> Any:
        # A free connection and nobody waiting for one: take it at once, with no await
        # between the check and the take, so no other task can take it first. This
        # hands out what the condition's wait would, without its lock, timer and wait.
        # (Not the plain pool's get_connection: it awaits its lock before the take, and
        # a command that waited there behind another's probe can find the pool empty
        # and fail with "Too many connections" instead of waiting for one.)
        if not self._available_connections or self._condition.locked() or _waiting(self._condition):
            return await super().get_connection()  # type: ignore[no-untyped-call]
        connection = self.get_available_connection()  # type: ignore[no-untyped-call]
        try:
            # Outside any lock, as the bounded pool itself probes.
            await self.ensure_connection(connection)
        except BaseException:
            await self.release(connection)
            raise
        return connection

    async def ensure_connection(self, connection: Any) -> None:
        if time.monotonic() - getattr(connection, "_tabletop_released", 0.0) > PROBE_IDLE_S:
            await super().ensure_connection(connection)
        else:
            await connection.connect()

    async def release(self, connection: Any) -> None:
        connection._tabletop_released = time.monotonic()
        if (
            self._condition.locked()
            or _waiting(self._condition)
            or connection._re_auth_token is not None
            or connection.should_reconnect()
        ):
            # The bounded pool's way: it notifies a waiter, and a disconnect awaited
            # under its condition keeps a getter from opening one connection too many
            # while this one is counted neither in use nor free.
            await super().release(connection)
            return
        # Nobody to notify, nothing to await, and no new credentials to log in with
        # (what the release event's one listener would do): straight back, at once.
        self._in_use_connections.remove(connection)
        self._available_connections.append(connection)


def _waiting(condition: asyncio.Condition) -> bool:
    """Whether a task waits on `condition` (asyncio keeps its waiters in `_waiters`)."""
    return bool(getattr(condition, "_waiters", True))


# A connection idle longer than this is probed before its next command.
PROBE_IDLE_S = 0.1



def connect_settings(settings: Settings, name: str, max_connections: int | None = None) -> aioredis.Redis:
    """`connect` as configured by Settings (REDIS_URL, REDIS_CLUSTER, TABLETOP_REDIS_*).

    A service refuses to start against a server it would reach without a
    password, unless the operator says so explicitly (TABLETOP_REDIS_INSECURE=1,
    which the local launcher sets only for a password-less REDIS_URL it was given)."""
    if not urllib.parse.urlsplit(settings.redis_url).password and not settings.redis_insecure:
        raise SystemExit(
            "tabletop: refusing to start: REDIS_URL carries no password "
            "(redis://user:password@host:port/0, or TABLETOP_REDIS_PASSWORD_FILE); "
            "TABLETOP_REDIS_INSECURE=1 accepts a server without one"
        )
    return connect(
        settings.redis_url,
        settings.redis_cluster,
        max_connections=max_connections or settings.redis_max_connections,
        pool_timeout=settings.redis_pool_timeout,
        timeout=settings.redis_timeout,
        name=name,
    )


def subscriber(url: str, cluster: bool, client: aioredis.Redis, name: str = "") -> aioredis.Redis:
    """A client for SUBSCRIBE. On one server: `client` itself (the subscription
    takes one connection of its pool). On a cluster, PUBLISH reaches every node,
    so one plain connection to the node in `url` hears every channel."""
    if not cluster:
        return client
    options: _Options = {
        "decode_responses": False,
        "socket_connect_timeout": CONNECT_TIMEOUT,
        "socket_timeout": LONGEST_BLOCK + 3.0,
    }
    if name:
        options["client_name"] = name
    return aioredis.from_url(url, max_connections=2, **options)  # type: ignore[no-untyped-call]
