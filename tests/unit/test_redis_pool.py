"""The pool skips redis-py's per-command probe only for connections used a moment ago:
a connection the server closed while it sat idle is still found and replaced before
the next command, so that command does not fail."""

from __future__ import annotations

import asyncio

import redis.asyncio as aioredis

from services.common import redis_client


async def test_a_connection_closed_while_idle_is_replaced_before_the_next_command(redis_url: str) -> None:
    client = redis_client.connect(redis_url, max_connections=4, name="pool-test")
    admin = aioredis.Redis.from_url(redis_url)
    try:
        assert isinstance(client.connection_pool, redis_client.IdleProbingPool)
        await client.set("pool-test", "1")
        killed = await admin.client_kill_filter(_type="normal", skipme=True)
        assert killed >= 1, "the pooled connection was closed by the server"
        await asyncio.sleep(0.15)  # longer than PROBE_IDLE_S
        assert await client.get("pool-test") == b"1"
    finally:
        await client.aclose()
        await admin.aclose()
