"""The floor's server: the least a grpc.aio server can do for one action.

Per action: one message in on a bidi stream (a seat's Play), one XADD of a
200-byte entry to the stack's embedded server (fsync on every write), one
message back on that stream, then one message to each of two server streams
(the match's two seats' watches). No protobuf, no TLS, no authorisation: raw
bytes through generic handlers, so what it costs is gRPC, asyncio and one
durable append, which every action of any design pays at the least.

`python -m bench.bare_server` reads the server's URL from BENCH_FLOOR_REDIS_URL
(it carries a password: never a command line, which `ps` shows), serves
plaintext on a free loopback port and prints that port on its first line; it
stops when its stdin closes, so it never outlives the bench that started it.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator

from services.common import grpc_io

grpc_io.choose()  # the stack's gRPC I/O path: the floor pays what the stack pays

import grpc  # noqa: E402 -- after the I/O path is chosen
import redis.asyncio as aioredis  # noqa: E402

SERVICE = "bench.floor.v1.Floor"
PLAY = f"/{SERVICE}/Play"  # bidi: each message names its lane (its match), and is echoed back
WATCH = f"/{SERVICE}/Watch"  # server stream: a lane's seat; READY, then one message per action
PAYLOAD = b"x" * 200
READY = b"ready"


def stream_key(lane: bytes) -> bytes:
    """The stream a lane appends to: one per lane, as one per match."""
    return b"bench:{floor}:" + lane


class Floor:
    """Play and Watch; a lane's actions go to every watch of that lane."""

    def __init__(self, store: aioredis.Redis) -> None:
        self.store = store
        self.watchers: dict[bytes, list[asyncio.Queue[bytes]]] = {}

    async def play(self, requests: AsyncIterator[bytes], context: grpc.aio.ServicerContext[bytes, bytes]
                   ) -> AsyncIterator[bytes]:
        async for lane in requests:
            await self.store.xadd(stream_key(lane), {"d": PAYLOAD})
            yield lane
            for watcher in self.watchers.get(lane, ()):
                watcher.put_nowait(lane)

    async def watch(self, lane: bytes, context: grpc.aio.ServicerContext[bytes, bytes]) -> AsyncIterator[bytes]:
        queue: asyncio.Queue[bytes] = asyncio.Queue()
        self.watchers.setdefault(lane, []).append(queue)
        try:
            yield READY  # registered: the client may start its clock
            while True:
                yield await queue.get()
        finally:
            self.watchers[lane].remove(queue)
            if not self.watchers[lane]:
                del self.watchers[lane]


async def serve() -> None:
    store = aioredis.Redis.from_url(os.environ["BENCH_FLOOR_REDIS_URL"])
    floor = Floor(store)
    server = grpc.aio.server()
    handlers = {
        "Play": grpc.stream_stream_rpc_method_handler(floor.play),
        "Watch": grpc.unary_stream_rpc_method_handler(floor.watch),
    }
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, handlers),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    print(port, flush=True)
    # Until the parent closes our stdin (or dies).
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    await server.stop(0)
    await store.aclose()


if __name__ == "__main__":
    asyncio.run(serve())
