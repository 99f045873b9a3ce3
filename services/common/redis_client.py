"""Redis clients: one server, or a Redis Cluster when REDIS_CLUSTER is set.

Every key of one match shares the hash tag `{match:<id>}` (and the matchmaker's
share `{mm}`), and every script touches keys of one tag only, so the same code
runs on both.
"""

from __future__ import annotations

from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster


def connect(url: str, cluster: bool = False, max_connections: int | None = None) -> Any:
    """An asyncio client with bytes replies."""
    if cluster:
        return RedisCluster.from_url(url, decode_responses=False)
    if max_connections is not None:
        return aioredis.from_url(url, decode_responses=False, max_connections=max_connections)
    return aioredis.from_url(url, decode_responses=False)
