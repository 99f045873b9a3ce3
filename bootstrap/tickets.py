"""The ticket calls served inside the gateway (TABLETOP_MATCHMAKER_TRANSPORT=inprocess).

FindMatch, WatchTicket and CancelTicket only read and write the tickets in
Redis, and a watch is woken by the ticket events stream: no replica state is
involved. Served in the gateway, they cross no socket to a matchmaker
replica: a ticket costs the gateway its Redis round trips instead of two gRPC
calls on both sides, and the matchmaker replicas keep only the per-pool and
per-match work (grouping, claims, formation, bots, ratings), which is what is
partitioned among them. The gateway then follows the events stream for its
own watchers and says they are there (the abandonment heartbeat), as a
replica does for the watches it serves. Ratings and the leaderboard are read
in process too. A module of its own, so that a gateway imports none of what
only a replica runs (formation, bots).
"""

from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import Awaitable, Callable

import redis.asyncio as aioredis

from services.common.config import Settings
from services.common.rpc.adapters import MatchmakerClient
from services.common.store.redis_store import RedisEventStore
from services.matchmaker import config as mm_config
from services.matchmaker.app import MatchmakerApp
from services.matchmaker.claims import forever
from services.matchmaker.projection import RatingsProjection
from services.matchmaker.servicer import MatchmakerServicer
from services.matchmaker.store import TicketStore


def embedded_tickets(
    settings: Settings, client: aioredis.Redis, caller: str = "gateway"
) -> tuple[MatchmakerClient, Callable[[], Awaitable[None]]]:
    """An in-process matchmaker client for `caller`, and the coroutine that stops its loops."""
    app = MatchmakerApp(
        TicketStore(client),
        RatingsProjection(client, RedisEventStore(client)),
        mm_config.load(settings),
        # Never a grouping replica: this name takes no part in the partition of pools.
        f"desk-{socket.gethostname()}-{os.getpid()}",
    )
    loop = asyncio.get_running_loop()
    tasks = [loop.create_task(forever("tickets-notifier", app.run_notifier)),
             loop.create_task(forever("tickets-heartbeats", app.run_heartbeats))]

    async def close() -> None:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    return MatchmakerClient.in_process(MatchmakerServicer(app), caller), close
