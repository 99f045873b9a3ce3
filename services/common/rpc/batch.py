"""Batch: several unary calls of one internal service in one round trip.

An internal service's `Batch` takes calls of its own unary methods by name, each
with its serialized request, and answers each on its own: its serialized
response, or the error it met. Every call is held to the policy table as if it
had come alone (the caller may batch only what it may call), and a call that
fails fails only itself. The calls run concurrently, as separate calls would.

What a batch saves is the round trip: a call's cost on either side is mostly
gRPC's own machinery, not the handler (services/common/rpc/coalesce.py gathers a
busy caller's concurrent calls into one).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from functools import cache
from typing import Protocol, cast

import grpc
import structlog
from google.protobuf import descriptor_pool, message_factory
from google.protobuf.message import DecodeError, Message
from tabletop.common.v1 import batch_pb2

from services.common import errors, metrics, tracing
from services.common import logging as tlog
from services.common.errors import InvalidArgument, ServiceError
from services.common.redis import faults as redis_faults
from services.common.security import authz, tls

log = structlog.get_logger()

MAX_CALLS = 256
BATCH = "Batch"
# How an unknown method is counted: its name is the caller's, not a label.
UNKNOWN_METHOD = "?"


class ExchangeCalls(Protocol):
    """A service's ExchangeRequest (each service declares its own, with this one field)."""

    @property
    def calls(self) -> Iterable[batch_pb2.ExchangeCall]: ...


# What a batched call's handler is: one of the servicer's unary methods, looked up by name.
Handler = Callable[[Message, tls.Authenticated], Awaitable[Message]]


async def answer(
    servicer: object, service: str, calls: Sequence[batch_pb2.BatchCall], context: object
) -> list[batch_pb2.BatchResult]:
    """Each call of `calls` answered by `servicer` (the full gRPC name of its service: `service`)."""
    if len(calls) > MAX_CALLS:
        raise InvalidArgument(f"at most {MAX_CALLS} calls per batch", "batch.too_many")
    # `object` as some servicers type their Batch's context; every one names its peer
    # (grpc's context, or a tls.KnownPeer).
    caller = tls.caller(cast(tls.Authenticated, context))
    peer = tls.KnownPeer(caller)  # read once for every call of the batch
    requests = request_types(service)
    return list(await asyncio.gather(*(one(servicer, service, requests, caller, call, peer) for call in calls)))


async def one(
    servicer: object,
    service: str,
    requests: dict[str, Callable[[bytes], Message]],
    caller: str,
    call: batch_pb2.BatchCall | batch_pb2.ExchangeCall,
    context: tls.Authenticated,
) -> batch_pb2.BatchResult:
    """One call by name, held to the policy as if it had come alone; its result or error,
    counted as a unary call of its own (and, while tracing is on, under a server span of its own)."""
    method = call.method
    parse = requests.get(method)
    if parse is None:
        error = InvalidArgument(f"no method {method[:64]!r} to batch", "batch.unknown_method")
        return failed(service, UNKNOWN_METHOD, error)
    calls = metrics.served(metrics.UNARY, service, method)
    calls.started.inc()
    carrier = "exchange" if isinstance(call, batch_pb2.ExchangeCall) else "batch"
    metrics.carried(service, method, carrier).inc()
    started = time.perf_counter()
    try:
        if not tracing.ENABLED:
            return await _answered(servicer, service, method, parse, caller, call, context)
        with tracing.carried_server_span(service, method, call.metadata, carrier) as span:
            result = await _answered(servicer, service, method, parse, caller, call, context)
            if result.WhichOneof("result") == "error":
                tracing.failed(span, _CODES.get(result.error.code, grpc.StatusCode.UNKNOWN), result.error.reason)
            return result
    finally:
        calls.seconds.observe(time.perf_counter() - started)


async def _answered(
    servicer: object,
    service: str,
    method: str,
    parse: Callable[[bytes], Message],
    caller: str,
    call: batch_pb2.BatchCall | batch_pb2.ExchangeCall,
    context: tls.Authenticated,
) -> batch_pb2.BatchResult:
    try:
        authz.check(f"/{service}/{method}", caller)
        try:
            request = parse(call.request)
        except (DecodeError, RecursionError):
            raise errors.malformed_request() from None
        tlog.bind_request(request)  # this call's own task: its log lines carry its ids
        handler: Handler = getattr(servicer, method)
        reply = await handler(request, context)
    except ServiceError as error:
        return failed(service, method, error)
    except redis_faults.FAULTS as fault:
        return failed(service, method, redis_faults.logged(fault, method))
    except Exception:  # a fault of ours: it fails this call alone, not its batch-mates
        log.exception("batched_call_failed", method=method)
        return failed(service, method, errors.of_code(grpc.StatusCode.INTERNAL, "internal error", "internal"))
    # Counted per method, as a call of its own is (the Batch call is counted as well).
    metrics.served(metrics.UNARY, service, method).handled("OK")
    return batch_pb2.BatchResult(response=reply.SerializeToString())


def failed(service: str, method: str, error: ServiceError) -> batch_pb2.BatchResult:
    metrics.served(metrics.UNARY, service, method).handled(error.code.name)
    return batch_pb2.BatchResult(error=error_message(error))


@cache
def request_types(service: str) -> dict[str, Callable[[bytes], Message]]:
    """Each unary method of `service` (but Batch itself) with its request's parser."""
    described = descriptor_pool.Default().FindServiceByName(service)
    return {
        method.name: message_factory.GetMessageClass(method.input_type).FromString
        for method in described.methods
        if method.name != BATCH and not method.client_streaming and not method.server_streaming
    }


def error_message(error: ServiceError) -> batch_pb2.BatchError:
    return batch_pb2.BatchError(
        code=error.code.value[0], message=error.message, reason=error.reason, metadata=error.metadata
    )


def error_of(message: batch_pb2.BatchError) -> ServiceError:
    """The ServiceError a batched call's error stands for, as a call of its own would raise it."""
    code = _CODES.get(message.code, grpc.StatusCode.UNKNOWN)
    return errors.of_code(code, message.message or code.name, message.reason, dict(message.metadata))


_CODES = {code.value[0]: code for code in grpc.StatusCode}
