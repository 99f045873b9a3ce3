"""Admission of calls into one process: load shedding and graceful drain.

Pure bookkeeping, no gRPC: the server interceptor asks the gate before every
call. A unary call is refused RESOURCE_EXHAUSTED when `max_inflight` are
already running, so a saturated process answers at once instead of queueing
work until every caller's latency explodes; a stream likewise past
`max_streams`. Once draining, every new call is refused UNAVAILABLE
("server.draining": retry elsewhere), open streams are told to end, and
`drained()` waits for the calls in flight to finish.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator

from services.common.errors import ResourceExhausted, Unavailable

DRAINING = "server.draining"


def draining_error() -> Unavailable:
    return Unavailable("the server is shutting down; retry, or resume the stream from its last version", DRAINING)


class Gate:
    def __init__(self, max_inflight: int, max_streams: int) -> None:
        self._max_inflight = max_inflight
        self._max_streams = max_streams
        self.inflight = 0
        self.streams = 0
        # Calls refused because the process drains (logged at the exit).
        self.refused = 0
        self._draining = False
        self._idle = asyncio.Event()
        self._idle.set()
        self._stop: asyncio.Future[None] | None = None

    @property
    def draining(self) -> bool:
        return self._draining

    @contextlib.contextmanager
    def unary(self) -> Iterator[None]:
        if self._draining:
            self.refused += 1
            raise draining_error()
        if self._max_inflight and self.inflight >= self._max_inflight:
            raise ResourceExhausted("the server is busy; retry shortly", "server.overloaded")
        with self._counted("inflight"):
            yield

    @contextlib.contextmanager
    def stream(self) -> Iterator[asyncio.Future[None]]:
        """Admits a stream; yields a future that completes when the stream must end."""
        if self._draining:
            self.refused += 1
            raise draining_error()
        if self._max_streams and self.streams >= self._max_streams:
            raise ResourceExhausted("too many open streams; retry shortly", "server.overloaded")
        with self._counted("streams"):
            yield self.stop_signal()

    def stop_signal(self) -> asyncio.Future[None]:
        if self._stop is None:
            self._stop = asyncio.get_running_loop().create_future()
        return self._stop

    @contextlib.contextmanager
    def _counted(self, which: str) -> Iterator[None]:
        setattr(self, which, getattr(self, which) + 1)
        self._idle.clear()
        try:
            yield
        finally:
            setattr(self, which, getattr(self, which) - 1)
            if not self.inflight and not self.streams:
                self._idle.set()

    def drain(self) -> None:
        """Refuse new calls from now on and tell open streams to end."""
        self._draining = True
        stop = self.stop_signal()
        if not stop.done():
            stop.set_result(None)

    async def drained(self, grace: float) -> bool:
        """True once nothing is in flight, False if `grace` s passed first."""
        try:
            await asyncio.wait_for(self._idle.wait(), grace)
        except TimeoutError:
            return False
        return True
