"""Health follows Redis: NOT_SERVING while it does not answer, SERVING again
when it does, so load balancers and launchers stop sending calls that can only
fail UNAVAILABLE."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import redis.asyncio as aioredis

from services.common import logging as tlog
from services.common.redis.commands import commands
from services.common.redis.faults import FAULTS_AND_TIMEOUTS

log = tlog.get("redis_health")
PROBE_EVERY = 0.5
PROBE_TIMEOUT = 1.0


class Probe:
    """PING over a connection of its own, outside the client's pool: a pool busy
    with calls is not a Redis that is down. (The cluster client pings through
    its own per-node pools.)"""

    def __init__(self, client: aioredis.Redis) -> None:
        self._client = commands(client)
        pool = getattr(client, "connection_pool", None)
        self._connection = pool.make_connection() if pool is not None else None

    async def ping(self) -> None:
        if self._connection is None:
            await self._client.ping()
            return
        answered = False
        try:
            await self._connection.send_command("PING")
            await self._connection.read_response()
            answered = True
        finally:
            if not answered:  # a fault or a cancelled wait: the next probe starts afresh
                await self._connection.disconnect()

    async def close(self) -> None:
        if self._connection is not None:
            await self._connection.disconnect()


async def answers(probe: Probe, timeout: float = PROBE_TIMEOUT) -> bool:
    """Whether Redis answers a PING within `timeout` s."""
    try:
        await asyncio.wait_for(probe.ping(), timeout)
    except FAULTS_AND_TIMEOUTS:
        return False
    return True


async def watch(
    probe: Probe, report: Callable[[bool], Awaitable[None]], up: bool, every: float = PROBE_EVERY
) -> None:
    """Probe forever; `report(up)` on every change from `up`, the state reported last."""
    while True:
        now = await answers(probe)
        if now != up:
            log.warning("redis_up" if now else "redis_down")
            await report(now)
            up = now
        await asyncio.sleep(every)  # the probe's period, not a wait for an event
