"""Exchange: an internal service's unary calls carried over one long-lived stream.

Through Python's grpc.aio a unary call costs about three times what a message on
an open bidirectional stream costs, on both sides together (measured on this
project's 2-core machine: 240 against 85 us of CPU at 16-64 in flight, 510
against 190 alone): each call sets up an HTTP/2 stream, its metadata, a
deadline and a server task. So a client of an internal service keeps one
`Exchange` stream open to each replica and sends its unary calls as messages on
it, each with an id; the server runs each call as a call of its own would run
(the same per-method policy, parsing and error mapping as services/common/rpc/batch.py)
and answers each as it completes. What is asked in one turn of the caller's loop
goes out in one message, and results that complete together go back in one.

Who may call what is unchanged: the stream is opened over mutual TLS, so the
server knows the caller's identity, and every call on it is checked against the
policy table on its own. A call fails as it would alone: its own error, or
UNAVAILABLE when the stream breaks, when no answer comes within the client's
timeout, or when the server drains (it answers what is in flight, refuses what
comes later with `server.draining`, then ends the stream; the client reopens on
its next call, to another replica where there is one).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import itertools
import zlib
from collections.abc import AsyncIterator, Callable, Iterable
from typing import TypeVar

import grpc
from google.protobuf.message import Message
from tabletop.common.v1 import batch_pb2

from services.common import errors, tracing
from services.common import logging as tlog
from services.common.errors import ServiceError, Unavailable
from services.common.rpc import batch
from services.common.rpc.gate import Gate
from services.common.rpc.transport import Remote
from services.common.security import tls

log = tlog.get("mux")
Response = TypeVar("Response", bound=Message)

EXCHANGE = "Exchange"
# Results sent in one message at most (bytes of responses): well under the 8 MB a message may carry.
MESSAGE_BYTES = 1 << 20
# The gate of the server a stream arrived at; set by the interceptor (grpc_server.py) per stream.
GATE: contextvars.ContextVar[Gate | None] = contextvars.ContextVar("exchange_gate", default=None)


# ------------------------------------------------------------------ server


async def answer(
    servicer: object,
    service: str,
    requests: AsyncIterator[batch.ExchangeCalls],
    context: tls.Authenticated,
    response_type: Callable[..., Response],
) -> AsyncIterator[Response]:
    """The Exchange of `servicer` (full gRPC name `service`): each call on `requests` run
    concurrently as a call of its own, its result sent once it completes."""
    caller = tls.caller(context)
    # The stream's peer, read once: every call on it is that peer's.
    peer = tls.KnownPeer(caller)
    parsers = batch.request_types(service)
    gate = GATE.get()
    done: list[batch_pb2.ExchangeResult] = []
    running: set[asyncio.Task[None]] = set()
    wake = asyncio.Event()
    ended = False

    async def run(call: batch_pb2.ExchangeCall) -> None:
        try:
            with gate.unary() if gate is not None else contextlib.nullcontext():
                result = await batch.one(servicer, service, parsers, caller, call, peer)
        except ServiceError as refused:  # the gate's: overloaded, or draining
            result = batch.failed(service, call.method, refused)
        done.append(batch_pb2.ExchangeResult(id=call.id, result=result))
        wake.set()

    async def read() -> None:
        nonlocal ended
        try:
            async for message in requests:
                for call in message.calls:
                    task = asyncio.ensure_future(run(call))
                    running.add(task)
                    task.add_done_callback(running.discard)
        finally:
            ended = True
            wake.set()

    reader = asyncio.ensure_future(read())
    stop = gate.stop_signal() if gate is not None else None
    if stop is not None:
        stop.add_done_callback(lambda _: wake.set())
    try:
        while True:
            await wake.wait()
            wake.clear()
            while done:
                yield response_type(results=_taken(done))
            # Once the client is done, or the server drains, the stream ends with nothing in flight.
            if not running and (ended or (stop is not None and stop.done())):
                return
    finally:
        reader.cancel()
        for task in list(running):
            task.cancel()


def _taken(done: list[batch_pb2.ExchangeResult]) -> list[batch_pb2.ExchangeResult]:
    """The oldest results that fit in one message (at least one), removed from `done`."""
    size, count = 0, 0
    for result in done:
        size += len(result.result.response)
        count += 1
        if size > MESSAGE_BYTES:
            break
    taken = done[:count]
    del done[:count]
    return taken


# ------------------------------------------------------------------ client

# (the caller's future, the response parser, when the call was asked: loop time)
_Pending = tuple["asyncio.Future[Message]", Callable[[bytes], Message], float]


class Lane:
    """One Exchange stream to one server: calls out, results back, reopened after a break."""

    def __init__(
        self,
        open_stream: Callable[[], grpc.aio.StreamStreamCall],
        request_type: Callable[..., Message],
        service: str,
        timeout: float,
    ) -> None:
        self._open = open_stream
        self._request_type = request_type
        self._service = service
        self._timeout = timeout
        self._ids = itertools.count(1)
        self._pending: dict[int, _Pending] = {}
        self._outbox: list[batch_pb2.ExchangeCall] = []
        self._wake = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        # Its last stream ended (the server went away, or drained) and no answer has come
        # since: the caller sends it nothing until its channel is READY again.
        self.broken = False

    @property
    def load(self) -> int:
        return len(self._pending)

    async def call(
        self, rpc: str, request: Message, parse: Callable[[bytes], Message], metadata: dict[str, str] | None = None
    ) -> Message:
        loop = asyncio.get_running_loop()
        call_id = next(self._ids)
        answer: asyncio.Future[Message] = loop.create_future()
        self._pending[call_id] = (answer, parse, loop.time())
        self._outbox.append(
            batch_pb2.ExchangeCall(id=call_id, method=rpc, request=request.SerializeToString(), metadata=metadata)
        )
        if not self._tasks:
            self._tasks = [asyncio.ensure_future(self._run()), asyncio.ensure_future(self._sweep())]
        self._wake.set()
        try:
            return await answer
        finally:
            self._pending.pop(call_id, None)

    async def _run(self) -> None:
        """Open the stream, write what is asked and read what comes back, until it breaks;
        then fail what was in flight and open a new one for the calls that follow."""
        while True:
            await self._wake.wait()
            stream = self._open()
            reader = asyncio.ensure_future(self._read(stream))
            try:
                await self._write(stream, reader)
            except grpc.aio.AioRpcError as broken:
                self._fail_all(self._broken(broken))
            except asyncio.CancelledError:
                reader.cancel()
                stream.cancel()
                raise
            reader.cancel()
            stream.cancel()
            self.broken = True

    async def _write(self, stream: grpc.aio.StreamStreamCall, reader: asyncio.Task[None]) -> None:
        while not reader.done():
            await self._wake.wait()
            self._wake.clear()
            if reader.done():
                break
            if self._outbox:
                calls, self._outbox = self._outbox, []
                try:
                    await stream.write(self._request_type(calls=calls))
                except (grpc.aio.AioRpcError, asyncio.InvalidStateError):
                    # The stream ended under this write (grpc then reports INTERNAL "Internal
                    # error from Core"): these calls were never read, but the answers the server
                    # sent before its end may still wait for the reader. Fail these alone now.
                    self._fail([call.id for call in calls], self._unavailable())
                    await asyncio.wait([reader], timeout=self._timeout)
                    break
        # The stream ended: whatever it was carrying fails; the outbox waits for the next one.
        error = reader.exception() if reader.done() and not reader.cancelled() else None
        if isinstance(error, grpc.aio.AioRpcError):
            self._fail_all(self._broken(error), keep_unsent=True)
        else:
            self._fail_all(self._unavailable(), keep_unsent=True)
        if self._outbox:
            self._wake.set()

    async def _read(self, stream: grpc.aio.StreamStreamCall) -> None:
        try:
            while True:
                message = await stream.read()
                if message is grpc.aio.EOF:
                    return
                self.broken = False
                for result in message.results:
                    self._settle(result)
        finally:
            self._wake.set()

    def _settle(self, result: batch_pb2.ExchangeResult) -> None:
        pending = self._pending.pop(result.id, None)
        if pending is None or pending[0].done():
            return  # timed out or cancelled meanwhile
        answer, parse, _ = pending
        if result.result.WhichOneof("result") == "error":
            answer.set_exception(batch.error_of(result.result.error))
            return
        try:
            answer.set_result(parse(result.result.response))
        except Exception:  # noqa: BLE001 -- an unreadable answer is the service's fault, not the caller's
            answer.set_exception(errors.of_code(grpc.StatusCode.INTERNAL, "unreadable answer", "batch.unanswered"))

    async def _sweep(self) -> None:
        """Fail calls unanswered past the timeout: one timer per stream, not one per call."""
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(self._timeout / 4)
            late = loop.time() - self._timeout
            expired = [i for i, (answer, _, asked) in self._pending.items() if asked <= late and not answer.done()]
            if expired:
                self._fail(expired, self._unavailable())
                self._restart()

    def _restart(self) -> None:
        """Drop a stream that let a call go unanswered past its timeout (one opened while
        the server was away can wait for ever) and open a new one for the calls to come."""
        runner = self._tasks[0]
        runner.cancel()
        self.broken = True
        self._tasks[0] = asyncio.ensure_future(self._run())
        if self._outbox:
            self._wake.set()

    def _fail(self, call_ids: Iterable[int], error: ServiceError) -> None:
        """These calls fail with `error` and are forgotten."""
        for call_id in call_ids:
            pending = self._pending.pop(call_id, None)
            if pending is not None and not pending[0].done():
                pending[0].set_exception(error)

    def _fail_all(self, error: ServiceError, keep_unsent: bool = False) -> None:
        unsent = {call.id for call in self._outbox} if keep_unsent else set()
        self._fail([call_id for call_id in self._pending if call_id not in unsent], error)
        if not keep_unsent:
            self._outbox = []

    def _broken(self, error: grpc.aio.AioRpcError) -> ServiceError:
        gone = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED, grpc.StatusCode.DEADLINE_EXCEEDED)
        if error.code() in gone or errors.connection_broke(error):
            return self._unavailable()
        return errors.from_rpc_error(error)

    def _unavailable(self) -> Unavailable:
        return Unavailable(f"the {self._service} service is unavailable", f"{self._service}.unavailable")

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        self._fail_all(self._unavailable())
        self._tasks = []


class Exchanging:
    """A transport (services/common/rpc/transport.py): the unary methods in `replies` over
    Exchange lanes to `remote`'s address, one lane per replica it lists; anything else
    (server streams, methods not listed) over `remote` as before."""

    def __init__(
        self,
        remote: Remote,
        service: str,
        exchange: tuple[type[Message], type[Message]],
        replies: dict[str, Callable[[bytes], Message]],
        timeout: float,
    ) -> None:
        self._remote = remote
        self._replies = replies
        self._service = service
        request_type, response_type = exchange
        # One lane per replica, each on a channel of its own: a lane whose replica went
        # away reopens to that replica once it is back, so a restarted replica gets its
        # share again (lanes over one round-robin channel stayed on the replicas that
        # were up when they reopened: the restarted one got none).
        self._channels = remote.replica_channels()
        self._addrs = [addr.encode() for addr in remote.replica_addrs]
        self._lanes = [
            Lane(_opener(channel, service, request_type, response_type), request_type, remote.service, timeout)
            for channel in self._channels
        ]

    async def unary(self, rpc: str, request: Message) -> Message:
        parse = self._replies.get(rpc)
        if parse is None:
            return await self._remote.unary(rpc, request)
        lanes = self._lanes
        lane = lanes[0] if len(lanes) == 1 else self._lane_for(request)
        if tracing.ENABLED:
            return await self._traced(lane, rpc, request, parse)
        return await lane.call(rpc, request, parse)

    def _lane_for(self, request: Message) -> Lane:
        """For a request naming a match: the lane of the replica with the highest
        hash(match id, replica) among those not known to be away, the same in every
        caller. Otherwise the least loaded such lane (any lane, if all are away). A match's
        calls then find its state, its piles and its seed cached on one replica: spread
        evenly instead, each call of a match met a cold cache (`make scale`, actions at
        K=4: 0.68 of four times K=1's rate, the match tier's CPU per action 1.5 times)."""
        up = [i for i, channel in enumerate(self._channels) if self._up(i, channel)]
        candidates = up or range(len(self._lanes))
        match_id = getattr(request, "match_id", "")
        if match_id:
            key = match_id.encode()
            return self._lanes[max(candidates, key=lambda i: zlib.crc32(self._addrs[i], zlib.crc32(key)))]
        return min((self._lanes[i] for i in candidates), key=lambda lane: lane.load)

    def _up(self, index: int, channel: grpc.aio.Channel) -> bool:
        """Whether the lane's replica can take a call now. A killed server's channel goes
        IDLE, not TRANSIENT_FAILURE: a lane whose stream broke waits for READY (and is told
        to reconnect), or the dead replica, having no calls in flight, would draw every new
        one, each then waiting out the timeout."""
        state = channel.get_state()
        if state in _AWAY:
            return False
        if not self._lanes[index].broken or state == grpc.ChannelConnectivity.READY:
            return True
        channel.get_state(try_to_connect=True)
        return False

    async def _traced(self, lane: Lane, rpc: str, request: Message, parse: Callable[[bytes], Message]) -> Message:
        """The call under a client span of its own, whose context the call's metadata carries."""
        metadata: dict[str, str] = {}
        with tracing.carried_client_span(self._service, rpc, metadata, "exchange"):
            return await lane.call(rpc, request, parse, metadata)

    async def stream(self, rpc: str, request: Message) -> AsyncIterator[Message]:
        async for item in self._remote.stream(rpc, request):
            yield item

    async def close(self) -> None:
        for lane in self._lanes:
            await lane.close()
        await self._remote.close()


# A channel in these states has no server to talk to right now (CONNECTING: a connect
# to a server that went away can take long, and calls sent meanwhile would wait on it).
_AWAY = (
    grpc.ChannelConnectivity.CONNECTING,
    grpc.ChannelConnectivity.TRANSIENT_FAILURE,
    grpc.ChannelConnectivity.SHUTDOWN,
)


def _opener(
    channel: grpc.aio.Channel, service: str, request_type: type[Message], response_type: type[Message]
) -> Callable[[], grpc.aio.StreamStreamCall]:
    """What opens a lane's Exchange stream on `channel` (waiting for its server to be ready)."""
    opened = channel.stream_stream(
        f"/{service}/{EXCHANGE}",
        request_serializer=request_type.SerializeToString,
        response_deserializer=response_type.FromString,
    )
    return lambda: opened(wait_for_ready=True)
