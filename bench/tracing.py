"""A local OTLP/gRPC trace sink: what the processes' exporters send spans to when
`make bench` measures tracing (BENCH_TRACING) and in the tracing tests.

It answers every Export and keeps each span as a `Span` (or only counts them):
the cost of a real collector is no part of what the bench measures, only the
exporting processes' own.
"""

from __future__ import annotations

import threading
from concurrent import futures
from dataclasses import dataclass
from typing import Any

import grpc
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2 as otlp
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2_grpc as otlp_grpc

# The sampling ratios a BENCH_TRACING run measures, each beside tracing off.
RATIOS = (0.0, 0.01, 1.0)


@dataclass(frozen=True)
class Span:
    service: str  # the exporting process's service.name
    trace_id: str
    span_id: str
    parent_id: str  # "" for a root
    name: str
    kind: int  # opentelemetry.proto.trace.v1.Span.SpanKind
    attributes: dict[str, Any]
    status: int  # 0 unset, 1 ok, 2 error
    start_ns: int = 0  # unix nanoseconds, as exported
    end_ns: int = 0


def _value(any_value: Any) -> Any:
    kind = any_value.WhichOneof("value")
    return getattr(any_value, kind) if kind is not None else None


class _Servicer(otlp_grpc.TraceServiceServicer):
    def __init__(self, sink: Sink) -> None:
        self._sink = sink

    def Export(self, request: otlp.ExportTraceServiceRequest, context: Any) -> otlp.ExportTraceServiceResponse:
        self._sink.take(request)
        return otlp.ExportTraceServiceResponse()


class Sink:
    """An OTLP/gRPC trace collector on 127.0.0.1 (`endpoint`), in a thread of this process."""

    def __init__(self, keep: bool = True) -> None:
        self._keep = keep
        self._lock = threading.Lock()
        self._spans: list[Span] = []
        self.count = 0
        self._server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        otlp_grpc.add_TraceServiceServicer_to_server(_Servicer(self), self._server)  # type: ignore[no-untyped-call]
        self.port = self._server.add_insecure_port("127.0.0.1:0")

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def env(self, ratio: float | None = None, every_ms: int = 100) -> dict[str, str]:
        """The environment that points a process's exporter here, exporting every `every_ms`
        (tests wait for the spans: a tenth of a second), sampling `ratio` of the traces."""
        env = {
            "OTEL_EXPORTER_OTLP_ENDPOINT": self.endpoint,
            "OTEL_EXPORTER_OTLP_INSECURE": "true",
            "OTEL_BSP_SCHEDULE_DELAY": str(every_ms),
        }
        if ratio is not None:
            env["OTEL_TRACES_SAMPLER"] = "parentbased_traceidratio"
            env["OTEL_TRACES_SAMPLER_ARG"] = str(ratio)
        return env

    def take(self, request: otlp.ExportTraceServiceRequest) -> None:
        found = []
        for resource_spans in request.resource_spans:
            attributes = {a.key: _value(a.value) for a in resource_spans.resource.attributes}
            service = str(attributes.get("service.name", ""))
            for scope in resource_spans.scope_spans:
                for span in scope.spans:
                    found.append(Span(
                        service, span.trace_id.hex(), span.span_id.hex(), span.parent_span_id.hex(), span.name,
                        span.kind, {a.key: _value(a.value) for a in span.attributes}, span.status.code,
                        span.start_time_unix_nano, span.end_time_unix_nano,
                    ))
        with self._lock:
            self.count += len(found)
            if self._keep:
                self._spans.extend(found)

    def tree(self, trace_id: str) -> str:
        """One trace as an indented tree: each span's process, kind, name and duration."""
        spans = [span for span in self.spans() if span.trace_id == trace_id]
        children: dict[str, list[Span]] = {}
        for span in sorted(spans, key=lambda span: span.start_ns):
            children.setdefault(span.parent_id, []).append(span)
        kinds = {1: "internal", 2: "server", 3: "client", 4: "producer", 5: "consumer"}
        lines: list[str] = []

        def walk(parent: str, depth: int) -> None:
            for span in children.get(parent, []):
                took = (span.end_ns - span.start_ns) / 1e6
                kind = kinds.get(span.kind, '?')
                lines.append(f"{'  ' * depth}{span.service:9s} {kind:8s} {span.name}  {took:.2f} ms")
                walk(span.span_id, depth + 1)

        walk("", 0)
        return "\n".join(lines)

    def spans(self) -> list[Span]:
        with self._lock:
            return list(self._spans)

    def __enter__(self) -> Sink:
        self._server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.stop(0)


# ------------------------------------------------------------------ BENCH_TRACING

# Each run's concurrent matches, and the settings compared: tracing off, then on at each ratio.
MATCHES = 16
OFF = "off"
# How often the processes export while measured: within a run, so that its CPU is counted.
EXPORT_EVERY_MS = 500


def settings() -> list[tuple[str, float | None]]:
    return [(OFF, None), *((f"{ratio:g}", ratio) for ratio in RATIOS)]


def overhead(chosen: Any, stack_env: dict[str, str]) -> dict[str, Any]:
    """dice_hand at MATCHES matches in both shapes, tracing off and on at each of RATIOS, every
    stack up throughout and the runs interleaved as the main bench's; CPU per action of each
    setting as a ratio to tracing off in the same repetition (median over the repetitions)."""
    import asyncio
    import contextlib
    import statistics

    from bench import report
    from bench.load import load_run
    from bench.plan import MINIMAL, SHAPES
    from deploy.stack import Stack

    runs: list[dict[str, Any]] = []
    with Sink(keep=False) as sink, contextlib.ExitStack() as up:
        stacks = {}
        for shape in SHAPES:
            for label, ratio in settings():
                env = {**stack_env, **(sink.env(ratio, EXPORT_EVERY_MS) if ratio is not None else {})}
                stacks[(shape, label)] = up.enter_context(Stack(
                    games=(MINIMAL,), shape=shape, matchmakers=0, extra_env=env))
        for stack in stacks.values():
            asyncio.run(load_run(stack, MINIMAL, 4, chosen.warmup_seconds))
        order = list(stacks)
        for repeat in range(chosen.repeats):
            for shape, label in order if repeat % 2 == 0 else order[::-1]:
                before = sink.count
                run, failed = asyncio.run(load_run(stacks[(shape, label)], MINIMAL, MATCHES, chosen.seconds))
                report.progress(f"tracing {label} repetition {repeat + 1} [{shape}] {MINIMAL} x{MATCHES}", run, failed)
                runs.append({"repeat": repeat, "shape": shape, "setting": label, "failed": failed,
                             "spans": sink.count - before, **run.figures()})
    summary = []
    for shape in SHAPES:
        for label, _ in settings():
            mine = [r for r in runs if r["shape"] == shape and r["setting"] == label]
            off = {r["repeat"]: r["cpu_ms_each"] for r in runs if r["shape"] == shape and r["setting"] == OFF}
            ratios = [row["cpu_ms_each"] / off[row["repeat"]] for row in mine]
            summary.append({
                "shape": shape, "setting": label,
                "cpu_ms_each": statistics.median(r["cpu_ms_each"] for r in mine),
                "vs_off": statistics.median(ratios),
                # Spans the sink got per action, while the run lasted (some arrive after it).
                "spans_each": statistics.median(r["spans"] / r["count"] if r["count"] else 0.0 for r in mine),
            })
    return {"matches": MATCHES, "runs": runs, "summary": summary}


def print_table(found: dict[str, Any]) -> None:
    from rich.table import Table

    from bench import report

    table = Table(title=f"Tracing: CPU per action, dice_hand at {found['matches']} matches "
                        "(vs off: the ratio to tracing off in the same repetition, median)")
    for header in ("shape", "tracing", "CPU ms/action", "vs off", "spans/action"):
        table.add_column(header)
    for row in found["summary"]:
        table.add_row(row["shape"], row["setting"], f"{row['cpu_ms_each']:.3f}", f"{row['vs_off']:.3f}x",
                      f"{row['spans_each']:.2f}")
    report.console.print(table)
