"""Traces across the carriers of internal calls (services/common/tracing.py): an Exchange
message, a Batch item, a call of its own, an in-process call, each a span of its own
and each the child of its caller's; nothing at all while tracing is off.

Real grpc.aio servers with the platform's interceptor (tests/unit/test_mux.py's dice),
spans kept by the SDK's in-memory exporter.
"""

from __future__ import annotations

import asyncio
import pathlib
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
import structlog
from opentelemetry import trace
from opentelemetry.instrumentation.grpc import GrpcAioInstrumentorClient
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.sampling import ParentBased
from tabletop.dice.v1 import dice_service_pb2_grpc as dice_grpc

from services.common import logging as tlog
from services.common import tracing
from services.common.errors import FailedPrecondition
from services.common.rpc.adapters import DiceClient
from services.common.rpc.gate import Gate
from services.common.rpc.server import ServiceInterceptor
from services.common.rpc.transport import InProcess
from services.common.security import authz, tls
from tests.unit import test_batch
from tests.unit.test_mux import Dice, client, material, pki_dir, roll, start

__all__ = ["pki_dir"]  # the fixture, shared with the Exchange tests

DICE_ROLL = f"/{authz.DICE}/RollDice"


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracing.use(provider)
    try:
        yield exporter
    finally:
        tracing.stop()


def _root(name: str) -> Any:
    assert tracing._tracer is not None
    return tracing._tracer.start_as_current_span(name)


def _by_name(exporter: InMemorySpanExporter, name: str) -> list[Any]:
    return [span for span in exporter.get_finished_spans() if span.name == name]


async def _one_client_and_server(exporter: InMemorySpanExporter, root: Any) -> tuple[Any, Any]:
    """The client and server spans of one RollDice in `root`'s trace.

    The server's span ends once its status is sent, which races the client's receipt
    of that status: wait (briefly) for both rather than read the exporter once.
    """
    trace_id = root.get_span_context().trace_id
    for _ in range(200):
        found = [s for s in _by_name(exporter, DICE_ROLL) if s.context.trace_id == trace_id]
        if len(found) >= 2:
            break
        await asyncio.sleep(0.01)
    kinds = {span.kind: span for span in found}
    assert len(found) == 2 and set(kinds) == {trace.SpanKind.CLIENT, trace.SpanKind.SERVER}, found
    return kinds[trace.SpanKind.CLIENT], kinds[trace.SpanKind.SERVER]


async def test_each_call_on_an_exchange_stream_is_a_client_and_a_server_span_of_its_callers_trace(
    pki_dir: pathlib.Path, spans: InMemorySpanExporter
) -> None:
    server, addr = await start(pki_dir, Dice(), Gate(0, 0))
    dice_client = client(pki_dir, addr)
    try:
        # Two callers at once: their calls share one stream, each stays in its own trace.
        async def one(counter: int) -> Any:
            with _root(f"caller {counter}") as root:
                await dice_client.RollDice(roll(counter))
                return root

        roots = await asyncio.gather(one(1), one(2))
        for root in roots:
            outgoing, served = await _one_client_and_server(spans, root)
            assert outgoing.parent.span_id == root.get_span_context().span_id
            assert served.parent.span_id == outgoing.context.span_id
            assert served.attributes[tracing.CARRIER_ATTRIBUTE] == "exchange"
            assert served.attributes["rpc.service"] == authz.DICE
        with _root("refused") as root, pytest.raises(FailedPrecondition):
            await dice_client.RollDice(roll(-1))
        outgoing, served = await _one_client_and_server(spans, root)
        for span in (outgoing, served):
            assert span.status.status_code == trace.StatusCode.ERROR
            assert span.attributes["rpc.grpc.status_code"] == grpc.StatusCode.FAILED_PRECONDITION.value[0]
        # The stream itself is no span: it carries many traces' calls.
        assert not [s for s in spans.get_finished_spans() if s.name.endswith("/Exchange")]
    finally:
        await dice_client.close()
        await server.stop(0)


async def test_each_batch_item_is_a_span_of_its_own_callers_trace(spans: InMemorySpanExporter) -> None:
    dice = test_batch.Dice()
    dice_client = test_batch.client(dice)
    # The coalescing client is told its service's name by the adapters; here, by hand.
    dice_client.transport._service = authz.DICE  # type: ignore[attr-defined]

    async def one(counter: int) -> Any:
        with _root(f"caller {counter}") as root:
            await dice_client.RollDice(roll(counter))
            return root

    roots = await asyncio.gather(*(one(n) for n in range(4)))
    assert any(entry.startswith("batch of") for entry in dice.handled)
    batched = [s for s in _by_name(spans, DICE_ROLL) if s.attributes.get(tracing.CARRIER_ATTRIBUTE) == "batch"]
    assert batched, "some calls went out in a batch"
    traces = {root.get_span_context().trace_id: root for root in roots}
    for span in batched:
        assert span.context.trace_id in traces  # never another caller's trace
    for served in (s for s in batched if s.kind == trace.SpanKind.SERVER):
        outgoing = next(s for s in batched if s.context.span_id == served.parent.span_id)
        assert outgoing.kind == trace.SpanKind.CLIENT
        assert outgoing.parent.span_id == traces[served.context.trace_id].get_span_context().span_id


async def test_a_call_of_its_own_is_traced_by_the_stock_interceptors_with_our_refusals_status(
    pki_dir: pathlib.Path, spans: InMemorySpanExporter
) -> None:
    instrumentor = GrpcAioInstrumentorClient()
    instrumentor.instrument(tracer_provider=tracing._provider)
    server = grpc.aio.server(interceptors=[*tracing.server_interceptors(), ServiceInterceptor(authorize=True)])
    dice_grpc.add_DiceServiceServicer_to_server(Dice(), server)
    port = server.add_secure_port("127.0.0.1:0", tls.server_credentials(material(pki_dir, "dice")))
    await server.start()
    dice_client = DiceClient.remote(f"127.0.0.1:{port}", tls.dial(material(pki_dir, "match"), "dice"), calls="unary")
    try:
        with _root("caller") as root:
            await dice_client.RollDice(roll(3))
        outgoing, served = await _one_client_and_server(spans, root)
        assert served.parent.span_id == outgoing.context.span_id
        with _root("refused") as root, pytest.raises(FailedPrecondition):
            await dice_client.RollDice(roll(-1))
        _, served = await _one_client_and_server(spans, root)
        assert served.status.status_code == trace.StatusCode.ERROR
        assert served.attributes["rpc.grpc.status_code"] == grpc.StatusCode.FAILED_PRECONDITION.value[0]
    finally:
        await dice_client.close()
        await server.stop(0)
        instrumentor.uninstrument()


async def test_an_in_process_call_is_a_span_named_as_its_rpc(spans: InMemorySpanExporter) -> None:
    dice_client = DiceClient(InProcess(Dice(), authz.DICE, "match"))
    with _root("caller") as root:
        await dice_client.RollDice(roll(2))
    (span,) = _by_name(spans, DICE_ROLL)
    assert span.parent.span_id == root.get_span_context().span_id
    assert span.attributes[tracing.CARRIER_ATTRIBUTE] == "inprocess"


async def test_off_nothing_is_traced_and_no_call_carries_a_context(pki_dir: pathlib.Path) -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracing.use(provider)
    tracing.stop()
    assert not tracing.ENABLED and tracing.server_interceptors() == []
    assert tracing.configure("dice", env={}) is False  # no endpoint: off
    server, addr = await start(pki_dir, Dice(), Gate(0, 0))
    dice_client = client(pki_dir, addr)
    sent: list[Any] = []
    lane = dice_client.transport.inner._lanes[0]  # type: ignore[attr-defined]
    original = lane.call

    async def spy(*args: Any) -> Any:
        sent.append(args)
        return await original(*args)

    lane.call = spy
    try:
        await dice_client.RollDice(roll(1))
        await DiceClient(InProcess(Dice(), authz.DICE, "match")).RollDice(roll(1))
    finally:
        await dice_client.close()
        await server.stop(0)
    assert exporter.get_finished_spans() == ()
    assert [len(args) for args in sent] == [3]  # rpc, request, parser: no metadata


def test_sampling_is_parent_based_ratio_by_default_and_the_sdks_names_otherwise() -> None:
    chosen = tracing.sampler({"OTEL_TRACES_SAMPLER_ARG": "0.01"})
    assert isinstance(chosen, ParentBased)
    assert "0.01" in chosen.get_description()
    assert "1.0" in tracing.sampler({}).get_description()
    # Any other name the SDK knows is left to it (it reads the same variables).
    assert tracing.sampler({"OTEL_TRACES_SAMPLER": "always_off"}) is None


def test_redis_commands_open_spans_only_inside_a_kept_trace(spans: InMemorySpanExporter) -> None:
    assert tracing._provider is not None
    within = tracing.WithinTraces(tracing._provider).get_tracer("redis")
    with within.start_as_current_span("GET") as span:
        assert not span.is_recording()  # no trace: nothing built
    with _root("caller"), within.start_as_current_span("GET") as span:
        assert span.is_recording()
    assert [s.name for s in spans.get_finished_spans()] == ["GET", "caller"]


def test_log_lines_carry_the_trace_and_span_ids(spans: InMemorySpanExporter) -> None:
    saved = structlog.get_config()
    try:
        tlog.configure("test")
        assert tracing.add_trace_ids in structlog.get_config()["processors"]
        with _root("caller") as root:
            inside = tracing.add_trace_ids(None, "info", {"event": "inside"})
        outside = tracing.add_trace_ids(None, "info", {"event": "outside"})
        tracing.stop()
        tlog.configure("test")
        assert tracing.add_trace_ids not in structlog.get_config()["processors"]  # off: not even called
    finally:
        structlog.configure(**saved)
    context = root.get_span_context()
    assert inside["trace_id"] == f"{context.trace_id:032x}" and inside["span_id"] == f"{context.span_id:016x}"
    assert "trace_id" not in outside


def test_the_stock_server_interceptor_skips_streams_and_carriers() -> None:
    assert tracing._is_plain_unary(DICE_ROLL)
    assert not tracing._is_plain_unary(f"/{authz.DICE}/Exchange")
    assert not tracing._is_plain_unary(f"/{authz.DICE}/Batch")
    assert not tracing._is_plain_unary("/tabletop.gateway.v1.PlayService/Play")
    assert not tracing._is_plain_unary("/grpc.health.v1.Health/Check")
