"""Redis clients: one server, or a Redis Cluster when REDIS_CLUSTER is set.

Every key of one match shares the hash tag `{match:<id>}` (and the matchmaker's
share `{mm}`), and every script touches keys of one tag only, so the same code
runs on both.

Every pool is bounded: a process holds at most `max_connections` connections
(per cluster node), however many callers it serves. A command that finds the
pool empty waits `pool_timeout` s for a connection, then fails (ConnectionError,
which the server maps to UNAVAILABLE) instead of opening one more. The one-server
pool (LeanPool, redis-py's bounded pool without its per-command probe), its
connections (LeanConnection) and the cluster client that uses them (LeanCluster)
reach into redis-py's internals, so they live in services/common/redis/internals.py.
"""

from __future__ import annotations

import urllib.parse
from typing import TypedDict, cast

import redis.asyncio as aioredis

from services.common.config import Settings
from services.common.redis.internals import LeanCluster, LeanConnection, LeanPool

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
        return cast(aioredis.Redis, LeanCluster.from_url(url, **options))  # type: ignore[no-untyped-call]
    pool = LeanPool.from_url(
        url, timeout=pool_timeout, connection_class=LeanConnection, **options
    )
    return aioredis.Redis(connection_pool=pool)


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
