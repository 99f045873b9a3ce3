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
    connection fails (a redis-py error is raised; the caller resubscribes).

    Each reply is read straight off the subscription's connection, where redis-py's
    `get_message` wraps every one in a retry, a health check, a callback lookup and a
    dict: a gateway reads one of these for every append of every match it follows."""
    pubsub = client.pubsub()
    try:
        await pubsub.subscribe(APPENDED_CHANNEL)
        connection = pubsub.connection  # subscribe() took it from the pool
        if connection is None:
            raise RedisConnectionError("the subscription has no connection")
        yield SUBSCRIBED
        loop = asyncio.get_running_loop()
        heard = loop.time()
        while True:
            # None when PING_EVERY passed in silence (a timeout the caller asked for
            # leaves the connection as it is).
            reply = await connection.read_response(timeout=PING_EVERY)
            now = loop.time()
            if reply is None:
                if now - heard > DEAD_AFTER:
                    raise RedisConnectionError("the subscription went silent")
                await connection.send_command("PING")  # a failure to send raises, as a read would
                continue
            heard = now
            # [b"message", channel, data]; the subscription's confirmation and the
            # answers to pings ([b"pong", b""]) only show the connection is alive.
            if isinstance(reply, list) and len(reply) == 3 and reply[0] == b"message":
                yield parse(reply[2])
    finally:
        await pubsub.aclose()  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
