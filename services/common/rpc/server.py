"""One `serve()` for every process: grpc.aio server, the error-mapping,
authorization and logging interceptor, health, reflection, metrics, graceful shutdown.

Internal services listen with mutual TLS only and check every call against
the policy table (services/common/security/authz.py); the gateway's client-facing port
is plaintext (players authenticate with tokens there)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import pathlib
import signal
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractContextManager
from typing import TypeGuard, TypeVar

import grpc
import redis.asyncio as aioredis
import structlog
from google.protobuf import descriptor_pool
from google.protobuf.message import DecodeError, Message
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from services.common import lifeline, metrics, tracing
from services.common import logging as tlog
from services.common.config import Settings
from services.common.errors import ServiceError, malformed_request, to_status
from services.common.redis import faults as redis_faults
from services.common.redis import health as redis_health
from services.common.rpc import mux
from services.common.rpc.gate import Gate, draining_error
from services.common.security import authz, tls

log = tlog.get("grpc")
# How long the statuses of the last calls answered may take to be sent before the exit.
STOP_FLUSH_SECONDS = 1.0
# A health service name that says only "this process runs": SERVING from start to drain,
# whatever Redis does, for liveness probes (a lost Redis must take pods out of rotation,
# which the overall status does, not restart them all).
LIVENESS_SERVICE = "tabletop.liveness"
T = TypeVar("T")


def _bind_request(request: object) -> None:
    """Put the ids a request carries into the log context of this call."""
    tlog.bind_request(request)


class _Malformed:
    """Stands for a request body that did not parse; the handler wrapper refuses it."""


MALFORMED = _Malformed()


Request = Message | _Malformed
"""What a handler receives: a parsed request, or MALFORMED."""


def _tolerant(deserializer: Callable[[bytes], Message] | None) -> Callable[[bytes], Request] | None:
    """A deserializer that hands the handler MALFORMED instead of raising: grpc would
    answer a body that does not parse with INTERNAL, a client's mistake as a server fault."""
    if deserializer is None:
        return None

    def parse(data: bytes) -> Request:
        try:
            return deserializer(data)
        except (DecodeError, RecursionError):
            return MALFORMED

    return parse


def _refuse_malformed(request: object) -> None:
    if request is MALFORMED:
        raise malformed_request()


def _is_client_stream(request: object) -> TypeGuard[AsyncIterator[object]]:
    return hasattr(request, "__aiter__")


async def _checked(requests: AsyncIterator[T]) -> AsyncIterator[T]:
    async for request in requests:
        _refuse_malformed(request)
        yield request


async def _fail(context: grpc.aio.ServicerContext, method: str, calls: metrics.Calls, error: ServiceError) -> None:
    calls.handled(error.code.name)
    tracing.current_failed(error.code, error.reason)
    log.info("refused", method=method, code=error.code.name, reason=error.reason)
    await context.abort_with_status(to_status(error))


Admission = Callable[[str, str], AbstractContextManager[object]]
"""(method name, peer) -> a context held for the call; raises ServiceError to refuse it."""


def _admit_all(method: str, peer: str) -> AbstractContextManager[object]:
    return contextlib.nullcontext()


CallerAddress = Callable[[grpc.aio.ServicerContext], str]
_Admit = Callable[[str, grpc.aio.ServicerContext], AbstractContextManager[object]]
"""The address a call's admission is keyed by; by default the connection's peer."""


def _peer(context: grpc.aio.ServicerContext) -> str:
    return str(context.peer())


class ServiceInterceptor(grpc.aio.ServerInterceptor):
    """The one place that turns failures into statuses: maps ServiceError and store
    faults, sheds load and refuses calls while draining (through the gate),
    authorizes, applies per-caller admission, logs, measures.

    With `authorize`, every application call is checked against the policy
    table for the identity of the caller's certificate. Health and reflection
    (`/grpc.*`) are open to any caller the TLS handshake admitted.
    """

    def __init__(
        self,
        authorize: bool = False,
        gate: Gate | None = None,
        admission: Admission | None = None,
        caller: CallerAddress | None = None,
    ) -> None:
        self._authorize = authorize
        self._gate = gate or Gate(0, 0)
        admit = admission or _admit_all
        address = caller or _peer
        # Admission sees one string per call: the address the caller's limits are keyed by.
        self._admit: _Admit = (
            lambda method, context: admit(method, address(context))
        )
        self._wrapped: dict[str, grpc.RpcMethodHandler] = {}

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        wrapped = self._wrapped.get(details.method)
        if wrapped is not None:
            return wrapped
        handler = await continuation(details)
        if handler is None or details.method.startswith("/grpc."):
            return handler
        # A method's handler never changes: wrapped once, not on every call.
        wrapped = self._wrapped[details.method] = self._wrap(handler, details.method)
        return wrapped

    def _wrap(self, handler: grpc.RpcMethodHandler, full_method: str) -> grpc.RpcMethodHandler:
        service, _, method = full_method.lstrip("/").rpartition("/")
        guard = full_method if self._authorize else ""
        if handler.unary_unary:
            return grpc.unary_unary_rpc_method_handler(
                _unary(handler.unary_unary, method, guard, self._gate, self._admit, metrics.served(
                    metrics.UNARY, service, method)),
                request_deserializer=_tolerant(handler.request_deserializer),
                response_serializer=handler.response_serializer,
            )
        if handler.unary_stream:
            return grpc.unary_stream_rpc_method_handler(
                _streaming(handler.unary_stream, method, guard, self._gate, self._admit, metrics.served(
                    metrics.SERVER_STREAM, service, method)),
                request_deserializer=_tolerant(handler.request_deserializer),
                response_serializer=handler.response_serializer,
            )
        if handler.stream_stream and method == mux.EXCHANGE:
            return grpc.stream_stream_rpc_method_handler(
                _exchange(handler.stream_stream, method, guard, self._gate, metrics.served(
                    metrics.BIDI_STREAM, service, method)),
                request_deserializer=_tolerant(handler.request_deserializer),
                response_serializer=handler.response_serializer,
            )
        if handler.stream_stream:
            return grpc.stream_stream_rpc_method_handler(
                _streaming(handler.stream_stream, method, guard, self._gate, self._admit, metrics.served(
                    metrics.BIDI_STREAM, service, method)),
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


# A servicer method as grpc hands it to the interceptor: the request (for a
# client stream, an async iterator of requests) and the call's context.
UnaryBehavior = Callable[[object, grpc.aio.ServicerContext], Awaitable[Message]]
StreamBehavior = Callable[[object, grpc.aio.ServicerContext], AsyncIterator[Message]]


def _unary(
    inner: UnaryBehavior, method: str, guard: str, gate: Gate, admit: _Admit, calls: metrics.Calls
) -> Callable[[object, grpc.aio.ServicerContext], Awaitable[Message | None]]:
    seconds, started_total = calls.seconds, calls.started

    async def call(request: object, context: grpc.aio.ServicerContext) -> Message | None:
        structlog.contextvars.clear_contextvars()
        _bind_request(request)
        started_total.inc()
        started = time.perf_counter()
        try:
            with gate.unary():
                _authorize(guard, context)
                with admit(method, context):
                    _refuse_malformed(request)
                    response = await inner(request, context)
        except ServiceError as error:
            await _fail(context, method, calls, error)
            return None
        except redis_faults.FAULTS as fault:
            await _fail(context, method, calls, redis_faults.logged(fault, method))
            return None
        finally:
            seconds.observe(time.perf_counter() - started)
        calls.handled("OK")
        return response

    return call


def _streaming(
    inner: StreamBehavior, method: str, guard: str, gate: Gate, admit: _Admit, calls: metrics.Calls
) -> Callable[[object, grpc.aio.ServicerContext], AsyncIterator[Message]]:

    async def call(request: object, context: grpc.aio.ServicerContext) -> AsyncIterator[Message]:
        structlog.contextvars.clear_contextvars()
        _bind_request(request)
        calls.started.inc()
        started = time.perf_counter()
        try:
            with gate.stream() as stop:
                _authorize(guard, context)
                with admit(method, context):
                    _refuse_malformed(request)
                    if _is_client_stream(request):  # a client stream: check each message as it comes
                        request = _checked(request)
                    async for response in _until(inner(request, context), stop):
                        yield response
        except ServiceError as error:
            await _fail(context, method, calls, error)
            return
        except redis_faults.FAULTS as fault:
            await _fail(context, method, calls, redis_faults.logged(fault, method))
            return
        finally:
            calls.seconds.observe(time.perf_counter() - started)
        calls.handled("OK")

    return call


def _exchange(
    inner: StreamBehavior, method: str, guard: str, gate: Gate, calls: metrics.Calls
) -> Callable[[object, grpc.aio.ServicerContext], AsyncIterator[Message]]:
    """An Exchange stream (services/common/rpc/mux.py): authorized as a whole, each call on it
    then held to the policy and the gate on its own. A drain does not cut it: the stream
    answers what is in flight, refuses what comes later, then ends."""

    async def call(request: object, context: grpc.aio.ServicerContext) -> AsyncIterator[Message]:
        structlog.contextvars.clear_contextvars()
        calls.started.inc()
        started = time.perf_counter()
        try:
            with gate.stream():
                _authorize(guard, context)
                mux.GATE.set(gate)
                assert _is_client_stream(request)
                async for response in inner(_checked(request), context):
                    yield response
        except ServiceError as error:
            await _fail(context, method, calls, error)
            return
        finally:
            calls.seconds.observe(time.perf_counter() - started)
        calls.handled("OK")

    return call


async def _until(responses: AsyncIterator[T], stop: asyncio.Future[None]) -> AsyncIterator[T]:
    """`responses` until they end or `stop` completes (drain: the stream ends UNAVAILABLE
    with reason server.draining, and the client resumes it elsewhere).

    The next response is awaited in this task, not raced in a task of its own (which
    cost 10 us per message). A drain that comes while this task waits for it cancels
    the task, and the cancellation becomes the draining error here; one that comes
    while the task is elsewhere (grpc sending the last response) is seen before the
    next wait. A cancellation that is not the drain's (the client went away) stays one."""
    task = asyncio.current_task()
    iterator = aiter(responses)
    waiting = draining = False

    def drain(_: asyncio.Future[None]) -> None:
        nonlocal draining
        draining = True
        if waiting and task is not None:
            task.cancel()

    stop.add_done_callback(drain)
    try:
        while True:
            if draining:
                raise draining_error()
            waiting = True
            try:
                item = await anext(iterator)
            except StopAsyncIteration:
                return
            except asyncio.CancelledError:
                if draining and task is not None and task.uncancel() == 0:
                    raise draining_error() from None
                raise
            finally:
                waiting = False
            if draining:
                raise draining_error()
            yield item
    finally:
        stop.remove_done_callback(drain)
        closing = getattr(responses, "aclose", None)
        if closing is not None:
            await closing()


Register = Callable[[grpc.aio.Server], Sequence[str]]
"""Adds servicers to a server; returns their full service names."""


async def serve(
    name: str,
    settings: Settings,
    register: Register,
    on_stop: Callable[[], Awaitable[None]] | None = None,
    public: bool = False,
    *,
    redis: aioredis.Redis | None = None,
    admission: Admission | None = None,
    reflect: Sequence[str] = (),
    caller: CallerAddress | None = None,
) -> None:
    """Run a server until SIGTERM/SIGINT, then drain gracefully.

    Only the gateway is `public` (plaintext, no per-method policy); every other
    process serves mutual TLS and exits at once without its credentials.
    `redis`: the client this process depends on; health is NOT_SERVING while it
    does not answer. `admission`: per-caller limits (the gateway's), keyed by
    `caller` (default: the connection's peer address).
    `reflect`: message names (beyond the services' own) that server reflection
    must resolve, e.g. the payloads carried in Any; reflection serves files by
    symbol from the default descriptor pool, so each must be imported by now
    (a missing one stops the start with KeyError).
    """
    own = tls.material(settings)
    lifeline.hold()
    tlog.configure(name, settings.log_level)
    gate = Gate(settings.max_inflight, settings.max_streams)
    metrics.INFLIGHT.set_function(lambda: gate.inflight)
    metrics.OPEN_STREAMS.set_function(lambda: gate.streams)
    server = grpc.aio.server(
        # The stock tracing interceptor first (while tracing is on): its span is current for the rest.
        interceptors=[
            *tracing.server_interceptors(),
            ServiceInterceptor(authorize=not public, gate=gate, admission=admission, caller=caller),
        ],
        options=[
            ("grpc.so_reuseport", 0),
            # Players send small messages (an action is at most 64 KiB, gateway/validate.py);
            # internal calls carry engine states.
            ("grpc.max_receive_message_length", (1 if public else 8) * 1024 * 1024),
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
    for symbol in reflect:
        descriptor_pool.Default().FindFileContainingSymbol(symbol)
    reflection.enable_server_reflection([*names, health.SERVICE_NAME, reflection.SERVICE_NAME], server)
    address = f"{settings.host}:{settings.port}"
    if public:
        port = server.add_insecure_port(address)
    else:
        credentials = tls.server_credentials(own)
        port = server.add_secure_port(address, credentials)
        if settings.unix_socket:
            # A socket left by a killed predecessor would refuse the bind.
            pathlib.Path(settings.unix_socket).unlink(missing_ok=True)
            server.add_secure_port(f"unix:{settings.unix_socket}", credentials)
    await server.start()
    # Held to the end: the probe port serves until the process exits (_exit_now), never stopped.
    _probes, health_port = await _serve_health_alone(health_servicer, settings)

    async def report(up: bool) -> None:
        status = health_pb2.HealthCheckResponse.SERVING if up else health_pb2.HealthCheckResponse.NOT_SERVING
        for service in ["", *names]:
            await health_servicer.set(service, status)

    probe = redis_health.Probe(redis) if redis is not None else None
    up = probe is None or await redis_health.answers(probe)
    await report(up)
    await health_servicer.set(LIVENESS_SERVICE, health_pb2.HealthCheckResponse.SERVING)
    watcher = asyncio.create_task(redis_health.watch(probe, report, up)) if probe is not None else None
    metrics_port = metrics.expose(settings.metrics_port, metrics.roles(name, settings))
    log.info("serving", port=port, metrics_port=metrics_port, health_port=health_port, services=names,
             identity=own.identity, tls=not public)
    if settings.ready_file:
        # "<grpc port> <metrics port> <health port>", written whole so a reader never sees half.
        ready = pathlib.Path(settings.ready_file)
        ready.with_suffix(".tmp").write_text(f"{port} {metrics_port} {health_port}\n")
        ready.with_suffix(".tmp").replace(ready)

    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stopping.set)
    await stopping.wait()
    await _drain(gate, health_servicer, watcher, settings.grace_seconds)
    if probe is not None:
        await probe.close()
    if on_stop is not None:
        await on_stop()
    await _answers_sent(STOP_FLUSH_SECONDS)
    log.info("stopped", refused=gate.refused)
    tracing.shutdown()  # the spans still buffered: the exit below runs no atexit handler
    _exit_now()


async def _serve_health_alone(
    health_servicer: health.aio.HealthServicer, settings: Settings
) -> tuple[grpc.aio.Server | None, int]:
    """A plaintext server for the health service alone (TABLETOP_HEALTH_PORT), or (None, -1).

    Internal ports speak mutual TLS, which an orchestrator's gRPC probe cannot; this
    port tells only what the health service tells on the main port (the same
    servicer: SERVING, NOT_SERVING while Redis is away or while draining) and
    serves no other method, so it gives nothing away.
    """
    if settings.health_port < 0:
        return None, -1
    probes = grpc.aio.server(options=[("grpc.so_reuseport", 0)])
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, probes)
    port = probes.add_insecure_port(f"{settings.host}:{settings.health_port}")
    await probes.start()
    return probes, port


async def _drain(
    gate: Gate,
    health_servicer: health.aio.HealthServicer,
    watcher: asyncio.Task[None] | None,
    grace: float,
) -> None:
    """NOT_SERVING, refuse new calls (UNAVAILABLE server.draining), end streams (the same),
    and let the calls in flight finish within `grace` s.

    The server keeps serving meanwhile, and is never stopped: grpc's own stop cancels
    (CANCELLED, a code clients are not told to expect) every call that reaches it after
    the stop began, on connections whose clients have not yet seen its GOAWAY, and a
    client sending steadily always has some on the way. So the gate answers every call
    that arrives until the process exits (_exit_now), and what is still on the wire then
    meets a closed connection, which its client sees as UNAVAILABLE."""
    log.info("stopping", grace=grace, inflight=gate.inflight, streams=gate.streams)
    if watcher is not None:
        watcher.cancel()
    # NOT_SERVING for every service, and it stays so (later sets are ignored).
    await health_servicer.enter_graceful_shutdown()
    gate.drain()
    finished = await gate.drained(grace)
    log.info("drained" if finished else "grace_expired", inflight=gate.inflight, streams=gate.streams)


# The name grpc.aio gives the task of each call it serves (grpc/_cython/_cygrpc/aio/server.pyx.pxi).
_RPC_TASK = "rpc_task"


async def _answers_sent(bound: float) -> None:
    """Wait (at most `bound` s) until grpc has sent the status of every call it was serving:
    a handler that has returned, a refusal or a stream ended by the drain, is not on the
    wire yet. grpc offers no event for it; its tasks end once the status is sent."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + bound
    this = asyncio.current_task()
    while loop.time() < deadline and any(
        task is not this and not task.done() and task.get_name() == _RPC_TASK for task in asyncio.all_tasks()
    ):
        await asyncio.sleep(0.005)


def _exit_now() -> None:
    """End the process once drained: nothing it runs is needed any more, and whatever would
    still run (asyncio's teardown cancelling every task, its executor's threads, grpc's own
    shutdown of the server, which cancels the calls just arriving) only delays the exit and
    answers late callers CANCELLED. The kernel closes every connection at once."""
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    os._exit(0)
