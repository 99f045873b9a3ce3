"""A transport that sends a busy caller's concurrent calls to one service as one Batch.

A call asked while nothing else is under way goes out at once, unchanged: a
quiet caller pays nothing. A call asked while others are in flight waits for
the end of the current turn of the event loop; whatever was asked meanwhile goes
out together, in one `Batch` call (services/common/rpc/batch.py), and each caller
gets its own answer or error, as from a call of its own. The saving grows with
the load: the match service forming a batch of matches, or moving many at once.

A batch that fails as a whole (the service away, a refusal of the Batch call
itself) fails each of its calls with that error, as each call would have.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, TypeAlias, cast

import grpc
from google.protobuf.message import DecodeError, Message
from tabletop.common.v1 import batch_pb2

from services.common import errors, tracing
from services.common.errors import ServiceError
from services.common.rpc import batch
from services.common.rpc.transport import Transport

if TYPE_CHECKING:
    from tabletop.deck.v1 import deck_service_pb2 as deck_pb
    from tabletop.dice.v1 import dice_service_pb2 as dice_pb
    from tabletop.match.v1 import match_service_pb2 as match_pb
    from tabletop.rules.v1 import rules_service_pb2 as rules_pb

    # The BatchRequest and BatchResponse of each service with a Batch: each declares its own, alike.
    BatchRequest: TypeAlias = (
        dice_pb.BatchRequest | deck_pb.BatchRequest | rules_pb.BatchRequest | match_pb.BatchRequest
    )
    BatchResponse: TypeAlias = (
        dice_pb.BatchResponse | deck_pb.BatchResponse | rules_pb.BatchResponse | match_pb.BatchResponse
    )

# (method, request, where its answer goes, the caller's trace context: W3C headers, or None)
_Waiting = tuple[str, Message, "asyncio.Future[Message]", dict[str, str] | None]


class Coalescing:
    """`inner` with calls of the methods in `replies` gathered per turn of the loop into
    the service's Batch. `batch_request` is the service's BatchRequest class; `replies`
    maps each method to its response's parser (to read what a batch answers)."""

    def __init__(
        self,
        inner: Transport,
        batch_request: type[BatchRequest],
        replies: dict[str, Callable[[bytes], Message]],
        service: str = "",
    ) -> None:
        self._inner = inner
        self._request_type = batch_request
        # The full gRPC service name, as spans name it ("tabletop.rules.v1.RulesService").
        self._service = service
        self._replies = replies
        self._waiting: list[_Waiting] = []
        self._in_flight = 0  # calls and batches sent and not yet answered

    async def unary(self, rpc: str, request: Message) -> Message:
        if rpc not in self._replies:
            return await self._inner.unary(rpc, request)
        if not self._in_flight and not self._waiting:
            # Nothing under way: a quiet caller's call goes out at once, as it would without us.
            self._in_flight += 1
            try:
                return await self._inner.unary(rpc, request)
            finally:
                self._in_flight -= 1
        answer: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        if not self._waiting:
            asyncio.get_running_loop().call_soon(self._flush)
        if tracing.ENABLED:
            return await self._traced(rpc, request, answer)
        self._waiting.append((rpc, request, answer, None))
        return await answer

    async def _traced(self, rpc: str, request: Message, answer: asyncio.Future[Message]) -> Message:
        """A call that waits for the next batch, under a client span of its own whose context
        its batch item carries (the stock client span, if any, is the Batch call's)."""
        metadata: dict[str, str] = {}
        with tracing.carried_client_span(self._service, rpc, metadata, "batch"):
            self._waiting.append((rpc, request, answer, metadata))
            return await answer

    def _flush(self) -> None:
        waiting, self._waiting = self._waiting, []
        task = asyncio.ensure_future(self._send(waiting))
        _running.add(task)
        task.add_done_callback(_running.discard)

    async def _send(self, waiting: list[_Waiting]) -> None:
        self._in_flight += 1
        try:
            await self._send_now(waiting)
        finally:
            self._in_flight -= 1
            # Whatever went wrong on the way, no caller is left waiting for ever.
            for _, _, answer, _ in waiting:
                if not answer.done():
                    answer.set_exception(_unanswered())

    async def _send_now(self, waiting: list[_Waiting]) -> None:
        if len(waiting) == 1:
            ((rpc, request, answer, _),) = waiting
            try:
                _settle(answer, await self._inner.unary(rpc, request))
            except BaseException as error:  # noqa: BLE001 -- handed to the one caller, who raises it
                _fail(answer, error)
            return
        chunks = [waiting[start : start + batch.MAX_CALLS] for start in range(0, len(waiting), batch.MAX_CALLS)]
        await asyncio.gather(*(self._send_batch(chunk) for chunk in chunks))

    async def _send_batch(self, waiting: list[_Waiting]) -> None:
        request = self._request_type()
        for rpc, call, _, metadata in waiting:
            request.calls.add(method=rpc, request=call.SerializeToString(), metadata=metadata)
        try:
            # The service's Batch answers its BatchResponse.
            response = cast("BatchResponse", await self._inner.unary(batch.BATCH, request))
        except ServiceError as error:  # every call of the batch met it: each caller gets its own copy
            for _, _, answer, _ in waiting:
                _fail(answer, errors.of_code(error.code, error.message, error.reason, error.metadata))
            return
        except BaseException as error:  # noqa: BLE001 -- cancelled, or a fault of ours: handed on
            for _, _, answer, _ in waiting:
                _fail(answer, error)
            return
        results: list[batch_pb2.BatchResult] = list(response.results)
        if len(results) != len(waiting):
            return  # answered wrongly: every call fails as unanswered (_send)
        for (rpc, _, answer, _), result in zip(waiting, results, strict=True):
            if result.WhichOneof("result") == "error":
                _fail(answer, batch.error_of(result.error))
                continue
            with contextlib.suppress(DecodeError):  # unreadable: failed as unanswered (_send)
                _settle(answer, self._replies[rpc](result.response))

    async def stream(self, rpc: str, request: Message) -> AsyncIterator[Message]:
        async for item in self._inner.stream(rpc, request):
            yield item

    async def close(self) -> None:
        await self._inner.close()


def _unanswered() -> errors.ServiceError:
    """What a call learns if its batch ended without a usable answer for it: a fault of
    the service's, never the caller's, and like any other internal failure not retried here."""
    return errors.of_code(grpc.StatusCode.INTERNAL, "an internal call went unanswered", "batch.unanswered")

# Batches in flight, kept referenced until they finish (the loop holds tasks only weakly).
_running: set[asyncio.Task[None]] = set()


def _settle(answer: asyncio.Future[Message], reply: Message) -> None:
    if not answer.done():
        answer.set_result(reply)


def _fail(answer: asyncio.Future[Message], error: BaseException) -> None:
    if not answer.done():
        answer.set_exception(error)
