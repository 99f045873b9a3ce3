"""The pool and its connections: redis-py's bounded pool, handing out idle connections
without a turn of the loop (a connection the server closed while it sat idle, or one
holding an unread reply, is found and replaced before the next command); commands are
packed as redis-py packs them; the pool stays bounded and hands freed connections to
waiters."""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import DataError, ResponseError

from services.common.redis import client as redis_client
from services.common.redis import internals as redis_internals


async def test_a_connection_closed_while_idle_is_replaced_before_the_next_command(redis_url: str) -> None:
    client = redis_client.connect(redis_url, max_connections=4, name="pool-test")
    admin = aioredis.Redis.from_url(redis_url)
    try:
        assert isinstance(client.connection_pool, aioredis.BlockingConnectionPool)
        await client.set("pool-test", "1")
        killed = await admin.client_kill_filter(_type="normal", skipme=True)
        assert killed >= 1, "the pooled connection was closed by the server"
        await asyncio.sleep(0.15)
        assert await client.get("pool-test") == b"1"
    finally:
        await client.aclose()
        await admin.aclose()


async def test_an_idle_connection_holding_an_unread_reply_is_not_handed_out_as_it_is(redis_url: str) -> None:
    """The pool hands out an idle connection without a turn of the loop, but not one
    whose stream holds a reply nobody read: its next command would read that one."""
    client = redis_client.connect(redis_url, max_connections=1, name="pool-unread")
    pool = client.connection_pool
    try:
        assert isinstance(pool, redis_internals.LeanPool)
        await client.set("pool-unread", "mine")
        stray = await pool.get_connection()
        await stray.send_command("PING")
        while not stray._reader._buffer:  # the PONG has reached the stream, unread
            await asyncio.sleep(0.01)
        await pool.release(stray)
        assert await client.get("pool-unread") == b"mine"
        assert await client.ping()
    finally:
        await client.aclose()


def test_commands_are_packed_as_redis_py_packs_them() -> None:
    """hiredis packs in C what redis-py's own packer writes, word for word."""
    lean = redis_internals.LeanConnection()
    plain = aioredis.Connection()
    for args in (
        ("SET", "key", "välue"),
        ("ZADD", b"k", 1.5, 0.1, 7, b"member"),
        ("CLIENT SETNAME", "tabletop"),
        (b"CONFIG GET", b"maxmemory"),
        ("EVALSHA", "0" * 40, 2, "a", "b", b"\x00\xff" * 100_000),
    ):
        assert b"".join(lean.pack_command(*args)) == b"".join(plain.pack_command(*args)), args


def test_a_value_redis_cannot_take_is_refused_as_redis_py_refuses_it() -> None:
    for bad in (None, True, [1]):
        with pytest.raises(DataError):
            redis_internals.LeanConnection().pack_command("SET", "key", bad)


async def test_the_pool_stays_bounded_and_hands_freed_connections_to_waiters(redis_url: str) -> None:
    """Past the bound a command waits for a connection and gets the next one freed;
    one that waits longer than the pool's timeout fails. The pool never grows."""
    client = redis_client.connect(redis_url, max_connections=2, pool_timeout=0.5, name="pool-bound")
    pool = client.connection_pool
    try:
        # Two blocking reads hold both connections; a third command waits for one.
        blockers = [asyncio.ensure_future(client.xread({"pool-bound:never": "$"}, block=300)) for _ in range(2)]
        await asyncio.sleep(0.05)
        assert len(pool._in_use_connections) == 2
        assert await client.set("pool-bound", "1"), "served once a reader let go, within the pool's timeout"
        await asyncio.gather(*blockers)
        assert len(pool._in_use_connections) + len(pool._available_connections) <= 2
        blockers = [asyncio.ensure_future(client.xread({"pool-bound:never": "$"}, block=1500)) for _ in range(2)]
        await asyncio.sleep(0.05)
        with pytest.raises(RedisConnectionError):
            await client.get("pool-bound")
        await asyncio.gather(*blockers)
        results = await asyncio.gather(*(client.incr("pool-bound:n") for _ in range(50)))
        assert sorted(results) == list(range(1, 51))
        assert len(pool._in_use_connections) + len(pool._available_connections) <= 2
    finally:
        await client.aclose()



async def test_commands_that_find_the_free_connections_taken_wait_instead_of_failing(redis_url: str) -> None:
    """A burst on a pool whose connections sat idle: each is probed before its
    command, and commands that came while the probes ran find none left. They wait
    for one, as the bounded pool promises, and none fails for want of a connection."""
    client = redis_client.connect(redis_url, max_connections=2, pool_timeout=2.0, name="pool-burst")
    pool = client.connection_pool
    try:
        for _round in range(3):
            await asyncio.gather(*(client.ping() for _ in range(2)))
            assert len(pool._available_connections) == 2
            await asyncio.sleep(0.15)  # both sat idle: each is probed before its next command
            results = await asyncio.gather(*(client.incr("pool-burst:n") for _ in range(20)))
            assert len(results) == 20
        assert len(pool._in_use_connections) + len(pool._available_connections) <= 2
    finally:
        await client.aclose()


async def test_a_connection_released_for_reconnection_does_not_let_the_pool_grow(redis_url: str) -> None:
    """A connection marked for reconnection is disconnected as it goes back; while that
    is awaited, a command that asks for a connection waits instead of opening one past
    the bound."""
    client = redis_client.connect(redis_url, max_connections=2, pool_timeout=2.0, name="pool-reconnect")
    pool = client.connection_pool
    try:
        held = [await pool.get_connection() for _ in range(2)]
        for connection in held:
            await connection.send_command("PING")
            await connection.read_response()
        held[0].mark_for_reconnect()
        released = asyncio.ensure_future(pool.release(held[0]))
        taken = asyncio.ensure_future(pool.get_connection())
        await asyncio.gather(released, taken)
        assert len(pool._in_use_connections) + len(pool._available_connections) <= 2
        await pool.release(taken.result())
        await pool.release(held[1])
        assert await client.ping()
    finally:
        await client.aclose()


async def test_replies_read_already_are_taken_without_a_timer_and_checked_as_redis_py_checks_them(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pipeline's replies arrive together: only the first waits on the socket, under
    redis-py's read timeout; the rest are taken from the parser at once. An error reply
    among them is still an error, and the connection still serves the next command."""
    import redis.asyncio.connection as redis_connection

    timed = 0
    stock = redis_connection.async_timeout

    def counting(delay: float | None) -> asyncio.Timeout:
        nonlocal timed
        timed += 1
        return stock(delay)

    monkeypatch.setattr(redis_connection, "async_timeout", counting)
    client = redis_client.connect(redis_url, max_connections=1, name="pool-buffered")
    try:
        await client.set("pool-buffered", "word")
        await client.set("pool-buffered-n", "1")
        timed = 0
        pipe = client.pipeline(transaction=False)
        pipe.incr("pool-buffered-n").incr("pool-buffered").get("pool-buffered").incr("pool-buffered-n")
        first, failed, word, last = await pipe.execute(raise_on_error=False)
        assert (first, word, last) == (2, b"word", 3)
        assert isinstance(failed, ResponseError), "the error reply is raised as redis-py raises it"
        assert timed < 4, "replies read already waited on no timer of their own"
        assert await client.get("pool-buffered-n") == b"3"
        with pytest.raises(ResponseError):
            await client.incr("pool-buffered")
    finally:
        await client.aclose()
