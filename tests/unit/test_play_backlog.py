"""The Play stream holds a bounded backlog for a client that stops reading: its watch
waits for the client instead of queueing every update of the match in the gateway."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import Any

from tabletop.gateway.v1 import gateway_pb2 as pb

from gateway import watching
from gateway.watching import Watching


class _Callers:
    def any_seat(self, context: object) -> None:
        return None

    def viewer(self, context: object, match_id: str) -> None:
        return None


async def _requests(stop: asyncio.Event) -> AsyncIterator[pb.PlayRequest]:
    yield pb.PlayRequest(watch=pb.WatchMatchRequest(match_id="m-1"))
    await stop.wait()


async def test_a_client_that_stops_reading_holds_back_its_watch_not_the_gateways_memory() -> None:
    made = 0

    async def updates(
        request: pb.WatchMatchRequest, claim: object, envelope: Callable[[], tuple[Any, pb.WatchMatchResponse]]
    ) -> AsyncGenerator[Any, None]:
        nonlocal made
        for version in range(1, 10_000):
            made += 1
            sent, update = envelope()
            update.version = version
            yield sent

    stub: Any = None
    play = Watching(stub, stub, stub, _Callers(), stub)  # type: ignore[arg-type]
    play._updates = updates  # type: ignore[method-assign]
    stop = asyncio.Event()
    stream = play.Play(_requests(stop), context=None)  # type: ignore[arg-type]
    try:
        first = await stream.__anext__()
        assert first.update.version == 1
        await asyncio.sleep(0.2)  # the client reads nothing more meanwhile
        assert made <= watching.PLAY_BACKLOG + 2, made
        # Reading on, the client gets every update in order, none lost.
        seen = [first.update.version] + [(await stream.__anext__()).update.version for _ in range(500)]
        assert seen == list(range(1, 502))
    finally:
        stop.set()
        await stream.aclose()
