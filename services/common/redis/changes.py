"""Hearing of appends: one subscription to the channel every append publishes
on (redis_store.APPENDED_CHANNEL), for every stream at once.

Pub/sub delivers nothing twice and keeps nothing for a subscriber that is
away, so a listener must re-read what it follows after every (re)subscription;
`listen` marks that moment with SUBSCRIBED.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError

from services.common.store.redis_store import APPENDED_CHANNEL

SUBSCRIBED = ("", 0)
# A silent subscription is probed with PING this often, and given up (to be
# reopened) when nothing, not even the PONG, came back for DEAD_AFTER s:
# a paused or unreachable server must not leave followers waiting forever.
PING_EVERY = 1.0
DEAD_AFTER = 3.0


def parse(data: bytes) -> tuple[str, int]:
    stream, _, version = data.decode().rpartition(" ")
    return stream, int(version)


async def listen(client: aioredis.Redis) -> AsyncIterator[tuple[str, int]]:
    """SUBSCRIBED, then (stream, last version) for every append, until the
    connection fails (a redis-py error is raised; the caller resubscribes)."""
    pubsub = client.pubsub()
    try:
        await pubsub.subscribe(APPENDED_CHANNEL)
        yield SUBSCRIBED
        heard = asyncio.get_running_loop().time()
        while True:
            message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=PING_EVERY)
            now = asyncio.get_running_loop().time()
            if message is None:
                if now - heard > DEAD_AFTER:
                    raise RedisConnectionError("the subscription went silent")
                await pubsub.ping()
                continue
            heard = now
            if message["type"] == "message":
                yield parse(message["data"])
    finally:
        await pubsub.aclose()  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
