"""OpenTelemetry traces across every hop: gateway, match, rules, dice, deck, Redis.

Off unless OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is
set: then each process exports its spans over OTLP/gRPC in batches, sampled as
OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG say (by default
"parentbased_traceidratio" at 1.0: a trace is kept or dropped at its root, and
every later hop follows the root's decision).

Off, nothing is imported and nothing is built: every hook on the hot path reads
`ENABLED` (one global) and goes on as before. On, the hops are:

- a call of its own over gRPC (the gateway's public unary RPCs, internal calls
  with TABLETOP_INTERNAL_CALLS=unary, the edge's calls to the gateway): the stock
  grpc instrumentation, its server interceptor (grpc_server.py) and its client
  interceptors (every grpc.aio channel made after `configure`);
- a call carried as a message (an Exchange stream's, services/common/rpc/mux.py, or
  a Batch item, services/common/rpc/coalesce.py): the stock interceptors would see
  one stream, or one batch, for many callers' calls; so the caller opens a client
  span per call and writes its context (W3C traceparent) into the call's own
  metadata, and the server opens a server span per call from it (batch.py `one`);
- an in-process call (transport.py `InProcess`): one span per call, named as
  the rpc it stands for;
- Redis commands: the stock redis instrumentation, within a kept trace only (a
  background loop's commands start no trace of their own);
- the edge's HTTP requests: the stock ASGI middleware (`asgi`).

Log lines carry trace_id and span_id (logging.py) while tracing is on.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
from collections.abc import Awaitable, Callable, Iterator, Mapping, MutableMapping, Sequence
from typing import TYPE_CHECKING, ParamSpec, TypeVar, cast

import grpc

if TYPE_CHECKING:
    # Only named in annotations: nothing of opentelemetry is imported while tracing is off.
    from opentelemetry.context import Context
    from opentelemetry.sdk.trace.sampling import Sampler
    from opentelemetry.trace import Link, Span, SpanKind, Tracer, TracerProvider
    from opentelemetry.util.types import Attributes
    from starlette.types import ASGIApp
    from structlog.typing import EventDict

# Read on the hot path: True once `configure` set up an exporter in this process.
ENABLED = False
DEFAULT_SAMPLER, DEFAULT_RATIO = "parentbased_traceidratio", 1.0
# The internal services' methods that carry other calls: their spans are the carried calls'.
CARRIERS = ("Exchange", "Batch")
# How a call travelled, on each span this module opens.
CARRIER_ATTRIBUTE = "tabletop.carrier"

P = ParamSpec("P")
R = TypeVar("R")
_provider: TracerProvider | None = None
# Set whenever ENABLED is: the hooks below, which run only then, use it as set.
_tracer: Tracer | None = None


def endpoint(env: Mapping[str, str]) -> str:
    return env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") or env.get("OTEL_EXPORTER_OTLP_ENDPOINT", "")


def process_name() -> str:
    """"dice" for `python -m services.dice`, "edge" for `python -m gateway.edge`: the
    service name this process's spans carry."""
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    module = (spec.name if spec is not None else "") or "tabletop"
    return module.removesuffix(".__main__").rsplit(".", 1)[-1]


def configure(service: str, env: Mapping[str, str] | None = None) -> bool:
    """Set up tracing for this process (once) if an OTLP endpoint is configured; whether it is on."""
    env = os.environ if env is None else env
    if _provider is not None or not endpoint(env):
        return ENABLED
    from opentelemetry import trace
    from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    resource = Resource.create({"service.name": service, "service.namespace": "tabletop"})
    provider = TracerProvider(resource=resource, sampler=sampler(env))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    use(provider)
    trace.set_tracer_provider(provider)
    _instrument_libraries(provider)
    return True


def use(provider: TracerProvider) -> None:
    """Trace through `provider` from now on (configure's, or a test's with an in-memory exporter)."""
    global ENABLED, _provider, _tracer
    _provider = provider
    _tracer = provider.get_tracer("tabletop")
    ENABLED = True


def stop() -> None:
    """Back to off (tests)."""
    global ENABLED, _provider, _tracer
    ENABLED, _provider, _tracer = False, None, None


def sampler(env: Mapping[str, str]) -> Sampler | None:
    """OTEL_TRACES_SAMPLER and its argument, parent-based ratio sampling by default;
    None for any other sampler the SDK knows by name (it reads the variables itself)."""
    from opentelemetry.sdk.trace import sampling

    name = env.get("OTEL_TRACES_SAMPLER", DEFAULT_SAMPLER).strip().lower()
    if name != DEFAULT_SAMPLER:
        return None
    ratio = float(env.get("OTEL_TRACES_SAMPLER_ARG", str(DEFAULT_RATIO)) or DEFAULT_RATIO)
    return sampling.ParentBased(sampling.TraceIdRatioBased(min(1.0, max(0.0, ratio))))


def _instrument_libraries(provider: TracerProvider) -> None:
    """The stock instrumentations: every grpc.aio channel made from now on, and redis-py's clients."""
    from opentelemetry.instrumentation.grpc import GrpcAioInstrumentorClient, filters
    from opentelemetry.instrumentation.redis import RedisInstrumentor

    from services.common.store import group_commit

    carried = filters.any_of(*(filters.method_name(name) for name in CARRIERS), filters.health_check())
    # The instrumentations ship no type hints: called as documented.
    GrpcAioInstrumentorClient(filter_=filters.negate(carried)).instrument(  # type: ignore[no-untyped-call]
        tracer_provider=provider
    )
    RedisInstrumentor().instrument(tracer_provider=WithinTraces(provider))  # type: ignore[arg-type]
    # The instrumentation sees what goes through redis-py's clients: the appends' batches
    # then go through the pool's pipeline too, not the group commit's own connections.
    group_commit.through_the_client()


def shutdown(timeout_millis: int = 2000) -> None:
    """Export what is still buffered (a process about to exit)."""
    if _provider is not None and hasattr(_provider, "force_flush"):
        _provider.force_flush(timeout_millis)


# ------------------------------------------------------------------ servers


def server_interceptors() -> list[grpc.aio.ServerInterceptor]:
    """The stock server interceptor for calls of their own (unary methods but Batch), or none when off."""
    if not ENABLED:
        return []
    from opentelemetry.instrumentation.grpc import aio_server_interceptor

    return [aio_server_interceptor(tracer_provider=_provider, filter_=_traced_alone)]  # type: ignore[no-untyped-call]


def _traced_alone(details: grpc.HandlerCallDetails) -> bool:
    return _is_plain_unary(str(details.method))


@functools.cache
def _is_plain_unary(full_method: str) -> bool:
    """A unary method that carries nothing but itself. Streams get no span of their own:
    a Play stream lasts a match, an Exchange carries many callers' calls."""
    from google.protobuf import descriptor_pool

    service, _, method = full_method.lstrip("/").partition("/")
    if service.startswith("grpc.") or method in CARRIERS:
        return False
    try:
        described = descriptor_pool.Default().FindServiceByName(service).methods_by_name[method]
    except KeyError:
        return False
    return not described.client_streaming and not described.server_streaming


def carried_server_span(
    service: str, method: str, metadata: Mapping[str, str], carrier: str
) -> contextlib.AbstractContextManager[Span]:
    """The server span of one call carried in an Exchange message or a Batch item, a child
    of the caller's span its metadata names (a root when it names none)."""
    from opentelemetry import propagate, trace

    parent = propagate.extract(metadata) if metadata else None
    return cast("Tracer", _tracer).start_as_current_span(
        f"/{service}/{method}", context=parent, kind=trace.SpanKind.SERVER,
        attributes=_rpc_attributes(service, method, carrier), record_exception=False, set_status_on_exception=False,
    )


def failed(span: Span, code: grpc.StatusCode, message: str = "") -> None:
    """Mark `span` with the status a call ended with."""
    from opentelemetry.trace import Status, StatusCode

    span.set_attribute("rpc.grpc.status_code", code.value[0])
    if code != grpc.StatusCode.OK:
        span.set_status(Status(StatusCode.ERROR, f"{code.name}: {message}" if message else code.name))


def current_failed(code: grpc.StatusCode, message: str = "") -> None:
    """Mark the current span (the stock server interceptor's) with a refusal's status:
    it sees our aborts (abort_with_status) as successes."""
    if ENABLED:
        from opentelemetry import trace

        failed(trace.get_current_span(), code, message)


# ------------------------------------------------------------------ clients


@contextlib.contextmanager
def carried_client_span(service: str, method: str, metadata: MutableMapping[str, str], carrier: str) -> Iterator[Span]:
    """The client span of one call carried as a message; its context written into `metadata`,
    which travels with the call. A failure (ServiceError) marks the span with its code."""
    from opentelemetry import propagate, trace

    from services.common.errors import ServiceError

    with cast("Tracer", _tracer).start_as_current_span(
        f"/{service}/{method}", kind=trace.SpanKind.CLIENT, attributes=_rpc_attributes(service, method, carrier),
        record_exception=False, set_status_on_exception=False,
    ) as span:
        propagate.inject(metadata)
        try:
            yield span
        except ServiceError as error:
            failed(span, error.code, error.reason)
            raise


def _rpc_attributes(service: str, method: str, carrier: str) -> dict[str, str | int]:
    return {
        "rpc.system": "grpc", "rpc.service": service, "rpc.method": method, "rpc.grpc.status_code": 0,
        CARRIER_ATTRIBUTE: carrier,
    }


async def in_process(service: str, method: str, call: Awaitable[R]) -> R:
    """An in-process call (transport.InProcess) under a span named as the rpc it stands for."""
    from opentelemetry import trace

    from services.common.errors import ServiceError

    with cast("Tracer", _tracer).start_as_current_span(
        f"/{service}/{method}", kind=trace.SpanKind.INTERNAL, attributes=_rpc_attributes(service, method, "inprocess"),
        record_exception=False, set_status_on_exception=False,
    ) as span:
        try:
            return await call
        except ServiceError as error:
            failed(span, error.code, error.reason)
            raise


def traced(name: str) -> Callable[[Callable[P, Awaitable[R]]], Callable[P, Awaitable[R]]]:
    """A coroutine function run under a server span `name` while tracing is on (a message
    of a stream that is served like a call of its own: a submit on a Play stream)."""

    def wrap(function: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
        @functools.wraps(function)
        async def call(*args: P.args, **kwargs: P.kwargs) -> R:
            if not ENABLED:
                return await function(*args, **kwargs)
            from opentelemetry import trace

            from services.common.errors import ServiceError

            with cast("Tracer", _tracer).start_as_current_span(
                name, kind=trace.SpanKind.SERVER, record_exception=False, set_status_on_exception=False
            ) as span:
                try:
                    return await function(*args, **kwargs)
                except ServiceError as error:
                    failed(span, error.code, error.reason)
                    raise

        return call

    return wrap


# ------------------------------------------------------------------ Redis, HTTP, logs


class WithinTraces:
    """A tracer provider for the Redis instrumentation whose spans open only inside a
    kept (recording) span: a command outside any trace, or in a dropped one, builds no span."""

    def __init__(self, provider: TracerProvider) -> None:
        self._provider = provider

    def get_tracer(
        self,
        instrumenting_module_name: str,
        instrumenting_library_version: str | None = None,
        schema_url: str | None = None,
        attributes: Attributes = None,
    ) -> _WithinTracesTracer:
        """The SDK's tracer for the instrumentation (TracerProvider.get_tracer's arguments)."""
        return _WithinTracesTracer(
            self._provider.get_tracer(instrumenting_module_name, instrumenting_library_version, schema_url, attributes)
        )


class _WithinTracesTracer:
    """The SDK's tracer, opening spans only inside a recording one; the methods take
    Tracer's own arguments (a `kind` of None is the SDK's default, SpanKind.INTERNAL)."""

    def __init__(self, tracer: Tracer) -> None:
        self._tracer = tracer

    def start_as_current_span(
        self,
        name: str,
        context: Context | None = None,
        kind: SpanKind | None = None,
        attributes: Attributes = None,
        links: Sequence[Link] | None = None,
        start_time: int | None = None,
        record_exception: bool = True,
        set_status_on_exception: bool = True,
        end_on_exit: bool = True,
    ) -> contextlib.AbstractContextManager[Span]:
        from opentelemetry import trace

        if not trace.get_current_span().is_recording():
            return contextlib.nullcontext(trace.INVALID_SPAN)
        return self._tracer.start_as_current_span(
            name, context, trace.SpanKind.INTERNAL if kind is None else kind, attributes, links, start_time,
            record_exception, set_status_on_exception, end_on_exit,
        )

    def start_span(
        self,
        name: str,
        context: Context | None = None,
        kind: SpanKind | None = None,
        attributes: Attributes = None,
        links: Sequence[Link] | None = None,
        start_time: int | None = None,
        record_exception: bool = True,
        set_status_on_exception: bool = True,
    ) -> Span:
        from opentelemetry import trace

        if not trace.get_current_span().is_recording():
            return trace.INVALID_SPAN
        return self._tracer.start_span(
            name, context, trace.SpanKind.INTERNAL if kind is None else kind, attributes, links, start_time,
            record_exception, set_status_on_exception,
        )


def asgi(app: ASGIApp) -> ASGIApp:
    """The edge's ASGI app under the stock middleware (a server span per HTTP request), or `app` when off."""
    if not ENABLED:
        return app
    from opentelemetry.instrumentation.asgi import OpenTelemetryMiddleware

    return OpenTelemetryMiddleware(app, tracer_provider=_provider)


def add_trace_ids(logger: object, method: str, event: EventDict) -> EventDict:
    """A structlog processor: the current span's trace_id and span_id on each log line."""
    from opentelemetry import trace

    context = trace.get_current_span().get_span_context()
    if context.is_valid:
        event["trace_id"] = format(context.trace_id, "032x")
        event["span_id"] = format(context.span_id, "016x")
    return event
