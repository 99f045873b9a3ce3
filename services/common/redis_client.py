"""Redis clients: one server, or a Redis Cluster when REDIS_CLUSTER is set.

Every key of one match shares the hash tag `{match:<id>}` (and the matchmaker's
share `{mm}`), and every script touches keys of one tag only, so the same code
runs on both.
"""

from __future__ import annotations

from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster

# Longer than any blocking read we issue (at most 10 s), so a blocking XREAD is
# never cut off by the client's own socket timeout, while a dead connection
# still fails instead of hanging.
SOCKET_TIMEOUT = 30.0


def connect(url: str, cluster: bool = False, max_connections: int | None = None) -> Any:
    """An asyncio client with bytes replies."""
    options: dict[str, Any] = {"decode_responses": False, "socket_timeout": SOCKET_TIMEOUT}
    if cluster:
        return RedisCluster.from_url(url, **options)  # type: ignore[no-untyped-call]
    if max_connections is not None:
        options["max_connections"] = max_connections
    return aioredis.from_url(url, **options)  # type: ignore[no-untyped-call]
