"""A matchmaker replica (`main`: run as many as you like against one Redis), and the
ticket calls served inside the gateway (TABLETOP_MATCHMAKER_TRANSPORT=inprocess, `embedded_tickets`).

FindMatch, WatchTicket and CancelTicket only read and write the tickets in
Redis, and a watch is woken by the ticket events stream: no replica state is
involved. Served in the gateway, they cross no socket to a matchmaker
replica: a ticket costs the gateway its Redis round trips instead of two gRPC
calls on both sides, and the matchmaker replicas keep only the per-pool and
per-match work (grouping, claims, formation, bots, ratings), which is what is
partitioned among them. The gateway then follows the events stream for its
own watchers and says they are there (the abandonment heartbeat), as a
replica does for the watches it serves. Ratings and the leaderboard are read
in process too.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
from collections.abc import Awaitable, Callable, Mapping

import redis.asyncio as aioredis

from bootstrap import dial
from bots.policies import parse_budget
from services.common import config
from services.common.config import Settings
from services.common.redis import client as redis_client
from services.common.redis import keys
from services.common.rpc.adapters import MatchClient, MatchmakerClient
from services.common.rpc.server import serve
from services.common.store.redis_store import RedisEventStore
from services.matchmaker import config as mm_config
from services.matchmaker.app import MatchmakerApp
from services.matchmaker.backfill import BotPlayer
from services.matchmaker.claims import WorkQueue, forever
from services.matchmaker.formation import Former
from services.matchmaker.projection import RatingsProjection
from services.matchmaker.servicer import MatchmakerServicer, register
from services.matchmaker.store import BOTS, JOBS, Job, TicketStore


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


async def main() -> None:
    settings = config.load()
    tuning = mm_config.load(settings)
    replica = settings.replica_name or f"{socket.gethostname()}-{os.getpid()}"
    # Bots and work queues hold connections in blocking reads: a larger bound than the default.
    client = redis_client.connect_settings(settings, "tabletop-matchmaker", max_connections=256)
    events = RedisEventStore(client)
    match = MatchClient.remote(settings.match_addr, dial(settings, "match"), calls=settings.internal_calls)
    store = TicketStore(client)
    ratings = RatingsProjection(client, events, tuning.ratings)
    app = MatchmakerApp(store, ratings, tuning, replica)
    former = Former(match, store, batch=match, watch_grace=tuning.watch_grace)
    bots = BotPlayer(match, events, tuning.bot_idle, tuning.bot_level, parse_budget(tuning.bot_budget))

    async def form(entry_id: str, fields: Mapping[bytes, bytes]) -> None:
        await former.form(Job.from_fields(fields))

    async def form_many(entries: list[tuple[str, Mapping[bytes, bytes]]]) -> dict[str, bool]:
        jobs: dict[str, Job] = {}
        for entry_id, fields in entries:
            with contextlib.suppress(KeyError, ValueError):  # not a job: the one-entry path buries it
                jobs[entry_id] = Job.from_fields(fields)
        answered = await former.form_many(list(jobs.values()))
        return {entry_id: answered[job.match_id] for entry_id, job in jobs.items() if job.match_id in answered}

    async def play(entry_id: str, fields: Mapping[bytes, bytes]) -> None:
        seats = [int(s) for s in fields[b"seats"].decode().split(",")]
        await bots.play(fields[b"m"].decode(), seats)

    async def formation_dead(entry_id: str, fields: Mapping[bytes, bytes], error: str) -> None:
        try:
            job = Job.from_fields(fields)
        except (KeyError, ValueError):
            return  # not a job at all: nothing holds tickets, bury it as it is
        await former.give_up(job, error)

    idle, dead = tuning.claim_idle_ms, tuning.max_failures
    queues = {
        "formation": WorkQueue(client, JOBS, "formers", replica, form, idle, tuning.concurrency,
                               max_failures=dead, on_dead=formation_dead, handle_many=form_many,
                               # One FormMatches call forms a batch: well within the call's deadline.
                               batch_limit=64, taking=app.forms_matches),
        "bots": WorkQueue(client, BOTS, "bots", replica, play, idle, 64, max_failures=dead),
        # Ratings apply finished matches in order: an entry is never skipped (no dead letters).
        "ratings": WorkQueue(client, keys.FINISHED_STREAM, "ratings", replica, app.run_ratings, idle, 1,
                             max_failures=0),
    }
    loops = [forever("grouping", app.run_grouping), forever("notifier", app.run_notifier),
             forever("heartbeats", app.run_heartbeats),
             *(forever(name, queue.run) for name, queue in queues.items())]
    tasks = [asyncio.create_task(loop) for loop in loops]

    async def stop() -> None:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await match.close()
        await client.aclose()

    await serve("matchmaker", settings, lambda server: register(server, app), on_stop=stop, redis=client)
