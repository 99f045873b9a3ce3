"""A matchmaker replica (`main`: run as many as you like against one Redis): it groups
the pools it owns, forms their matches, seats bots and applies ratings, and serves the
ticket calls of gateways that send them here. A gateway may serve the ticket calls
itself instead (bootstrap/tickets.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
from collections.abc import Mapping

from bootstrap import dial
from bots.policies import parse_budget
from services.common import config
from services.common.redis import client as redis_client
from services.common.redis import keys
from services.common.rpc.adapters import MatchClient
from services.common.rpc.server import serve
from services.common.store.redis_store import RedisEventStore
from services.matchmaker import config as mm_config
from services.matchmaker.app import MatchmakerApp
from services.matchmaker.backfill import BotPlayer
from services.matchmaker.claims import WorkQueue, forever
from services.matchmaker.formation import Former
from services.matchmaker.projection import RatingsProjection
from services.matchmaker.servicer import register
from services.matchmaker.store import BOTS, JOBS, Job, TicketStore


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
