"""A server stream ends with the draining error when the process drains, whether
the drain finds it waiting for its next message or sending one; a client's
cancellation stays a cancellation; the inner stream is always closed."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from services.common.errors import Unavailable
from services.common.rpc.gate import DRAINING
from services.common.rpc.server import _until


class Source:
    """Yields what the test puts; records whether it was closed."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[int] = asyncio.Queue()
        self.closed = False

    async def items(self) -> AsyncIterator[int]:
        try:
            while True:
                yield await self.queue.get()
        finally:
            self.closed = True


async def test_items_pass_until_a_drain_while_waiting_ends_the_stream() -> None:
    source, stop = Source(), asyncio.get_running_loop().create_future()
    got: list[int] = []

    async def consume() -> None:
        async for item in _until(source.items(), stop):
            got.append(item)

    consumer = asyncio.ensure_future(consume())
    for i in range(3):
        source.queue.put_nowait(i)
    await asyncio.sleep(0.01)
    stop.set_result(None)
    with pytest.raises(Unavailable) as ended:
        await consumer
    assert ended.value.reason == DRAINING
    assert got == [0, 1, 2] and source.closed


async def test_a_drain_while_the_consumer_holds_a_message_ends_before_the_next() -> None:
    source, stop = Source(), asyncio.get_running_loop().create_future()
    source.queue.put_nowait(1)
    source.queue.put_nowait(2)
    stream = _until(source.items(), stop)
    assert await anext(stream) == 1
    stop.set_result(None)  # the consumer is "sending" 1: not waiting inside the stream
    await asyncio.sleep(0)
    with pytest.raises(Unavailable):
        await anext(stream)
    assert source.closed


async def test_a_client_cancellation_is_not_a_drain() -> None:
    source, stop = Source(), asyncio.get_running_loop().create_future()

    async def consume() -> None:
        async for _ in _until(source.items(), stop):
            pass

    consumer = asyncio.ensure_future(consume())
    await asyncio.sleep(0.01)
    consumer.cancel()
    with pytest.raises(asyncio.CancelledError):
        await consumer
    assert source.closed and not stop.done()
