"""Health follows Redis: NOT_SERVING while it does not answer, SERVING again
when it does, so load balancers and launchers stop sending calls that can only
fail UNAVAILABLE."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from services.common import logging as tlog
from services.common.redis_faults import FAULTS_AND_TIMEOUTS

log = tlog.get("redis_health")
PROBE_EVERY = 0.5
PROBE_TIMEOUT = 1.0


async def answers(client: Any, timeout: float = PROBE_TIMEOUT) -> bool:
    """Whether Redis answers a PING within `timeout` s."""
    try:
        await asyncio.wait_for(client.ping(), timeout)
    except FAULTS_AND_TIMEOUTS:
        return False
    return True


async def watch(client: Any, report: Callable[[bool], Awaitable[None]], every: float = PROBE_EVERY) -> None:
    """Probe forever; `report(up)` on every change (and once at the start)."""
    up: bool | None = None
    while True:
        now = await answers(client)
        if now != up:
            log.warning("redis_up" if now else "redis_down")
            await report(now)
            up = now
        await asyncio.sleep(every)  # the probe's period, not a wait for an event
