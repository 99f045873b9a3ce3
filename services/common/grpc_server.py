"""One `serve()` for every process: grpc.aio server, the error-mapping,
authorization and logging interceptor, health, reflection, metrics, graceful shutdown.

Internal services listen with mutual TLS only and check every call against
the policy table (services/common/authz.py); the gateway's client-facing port
is plaintext (players authenticate with tokens there)."""

from __future__ import annotations

import asyncio
import pathlib
import signal
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any

import grpc
import structlog
from google.protobuf.message import DecodeError
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from services.common import authz, lifeline, metrics, tls
from services.common import logging as tlog
from services.common.config import Settings
from services.common.errors import InvalidArgument, ServiceError, to_status

log = tlog.get("grpc")
_CONTEXT_FIELDS = ("match_id", "seat", "command_id", "ticket_id")


def _bind_request(request: Any) -> None:
    """Put the ids a request carries into the log context of this call."""
    fields = {}
    for name in _CONTEXT_FIELDS:
        if hasattr(request, "DESCRIPTOR") and name in request.DESCRIPTOR.fields_by_name:
            fields[name] = getattr(request, name)
    structlog.contextvars.bind_contextvars(**fields)


class _Malformed:
    """Stands for a request body that did not parse; the handler wrapper refuses it."""


MALFORMED = _Malformed()


def _tolerant(deserializer: Callable[[bytes], Any] | None) -> Callable[[bytes], Any] | None:
    """A deserializer that hands the handler MALFORMED instead of raising: grpc would
    answer a body that does not parse with INTERNAL, a client's mistake as a server fault."""
    if deserializer is None:
        return None

    def parse(data: bytes) -> Any:
        try:
            return deserializer(data)
        except (DecodeError, RecursionError):
            return MALFORMED

    return parse


def _refuse_malformed(request: Any) -> None:
    if request is MALFORMED:
        raise InvalidArgument("the request body is not a valid message of this method's request type",
                              "request.malformed")


async def _checked(requests: AsyncIterator[Any]) -> AsyncIterator[Any]:
    async for request in requests:
        _refuse_malformed(request)
        yield request


async def _fail(context: grpc.aio.ServicerContext, method: str, error: ServiceError) -> None:
    metrics.RPCS.labels(method, error.code.name).inc()
    log.info("refused", method=method, code=error.code.name, reason=error.reason)
    await context.abort_with_status(to_status(error))


class ServiceInterceptor(grpc.aio.ServerInterceptor):
    """Maps ServiceError to statuses (the one place that aborts), authorizes, logs, measures.

    With `authorize`, every application call is checked against the policy
    table for the identity of the caller's certificate. Health and reflection
    (`/grpc.*`) are open to any caller the TLS handshake admitted.
    """

    def __init__(self, authorize: bool = False) -> None:
        self._authorize = authorize

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(details)
        if handler is None or details.method.startswith("/grpc."):
            return handler
        method = details.method.rsplit("/", 1)[-1]
        guard = details.method if self._authorize else ""
        if handler.unary_unary:
            return grpc.unary_unary_rpc_method_handler(
                _unary(handler.unary_unary, method, guard),
                request_deserializer=_tolerant(handler.request_deserializer),
                response_serializer=handler.response_serializer,
            )
        if handler.unary_stream:
            return grpc.unary_stream_rpc_method_handler(
                _streaming(handler.unary_stream, method, guard),
                request_deserializer=_tolerant(handler.request_deserializer),
                response_serializer=handler.response_serializer,
            )
        if handler.stream_stream:
            return grpc.stream_stream_rpc_method_handler(
                _streaming(handler.stream_stream, method, guard),
                request_deserializer=_tolerant(handler.request_deserializer),
                response_serializer=handler.response_serializer,
            )
        return handler


def _authorize(guard: str, context: grpc.aio.ServicerContext) -> None:
    """Raise PermissionDenied unless the caller's identity may call `guard` ('' checks nothing)."""
    if guard:
        caller = tls.caller(context)
        structlog.contextvars.bind_contextvars(caller=caller)
        authz.check(guard, caller)


def _unary(inner: Any, method: str, guard: str) -> Any:
    async def call(request: Any, context: grpc.aio.ServicerContext) -> Any:
        structlog.contextvars.clear_contextvars()
        _bind_request(request)
        started = time.perf_counter()
        try:
            _authorize(guard, context)
            _refuse_malformed(request)
            response = await inner(request, context)
        except ServiceError as error:
            await _fail(context, method, error)
            return None
        finally:
            metrics.RPC_SECONDS.labels(method).observe(time.perf_counter() - started)
        metrics.RPCS.labels(method, "OK").inc()
        return response

    return call


def _streaming(inner: Any, method: str, guard: str) -> Any:
    async def call(request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
        structlog.contextvars.clear_contextvars()
        _bind_request(request)
        try:
            _authorize(guard, context)
            _refuse_malformed(request)
            if hasattr(request, "__aiter__"):  # a client stream: check each message as it comes
                request = _checked(request)
            async for response in inner(request, context):
                yield response
        except ServiceError as error:
            await _fail(context, method, error)
            return
        metrics.RPCS.labels(method, "OK").inc()

    return call


Register = Callable[[grpc.aio.Server], Sequence[str]]
"""Adds servicers to a server; returns their full service names."""


async def serve(
    name: str,
    settings: Settings,
    register: Register,
    on_stop: Callable[[], Awaitable[None]] | None = None,
    public: bool = False,
) -> None:
    """Run a server until SIGTERM/SIGINT, then drain gracefully.

    Only the gateway is `public` (plaintext, no per-method policy); every other
    process serves mutual TLS and exits at once without its credentials.
    """
    own = tls.material(settings)
    lifeline.hold()
    tlog.configure(name, settings.log_level)
    server = grpc.aio.server(
        interceptors=[ServiceInterceptor(authorize=not public)],
        options=[
            ("grpc.so_reuseport", 0),
            ("grpc.max_receive_message_length", 8 * 1024 * 1024),
            # Clients keep long watch streams alive with pings every 30 s
            # (transport.CHANNEL_OPTIONS); accept them instead of closing the
            # connection with "too many pings".
            ("grpc.keepalive_permit_without_calls", 1),
            ("grpc.http2.min_recv_ping_interval_without_data_ms", 10_000),
            ("grpc.http2.max_ping_strikes", 0),
        ],
    )
    names = list(register(server))
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection([*names, health.SERVICE_NAME, reflection.SERVICE_NAME], server)
    address = f"{settings.host}:{settings.port}"
    if public:
        port = server.add_insecure_port(address)
    else:
        port = server.add_secure_port(address, tls.server_credentials(own))
    await server.start()
    for service in ["", *names]:
        await health_servicer.set(service, health_pb2.HealthCheckResponse.SERVING)
    metrics_port = metrics.expose(settings.metrics_port)
    log.info("serving", port=port, metrics_port=metrics_port, services=names, identity=own.identity, tls=not public)
    if settings.ready_file:
        # "<grpc port> <metrics port>", written whole so a reader never sees half.
        ready = pathlib.Path(settings.ready_file)
        ready.with_suffix(".tmp").write_text(f"{port} {metrics_port}\n")
        ready.with_suffix(".tmp").replace(ready)

    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stopping.set)
    await stopping.wait()
    log.info("stopping", grace=settings.grace_seconds)
    await health_servicer.enter_graceful_shutdown()
    await server.stop(settings.grace_seconds)
    if on_stop is not None:
        await on_stop()
    log.info("stopped")
