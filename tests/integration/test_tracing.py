"""One action, one trace: a SubmitAction through the real processes of either shape is
one trace whose spans come from every hop it crossed, each the child of its caller's.

The processes export over OTLP/gRPC to a sink in this test process (bench/tracing.py).
dice_hand's move rolls two dice and draws a hidden card: the rules draw from the deck
under the match's grant, and the rolls come from a window of draw numbers the match
opens at the dice (OpenWindow) on the first roll it needs, then serves many moves from.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest

from bench.tracing import Sink, Span
from cli import autoplay
from cli.api import Gateway, Seat
from deploy.stack import Stack
from services.common.security import authz

pytestmark = pytest.mark.integration

GAMES = {"TABLETOP_EXTRA_GAMES": "dice_hand=tests.fixtures.dice_hand"}
SUBMIT = "/tabletop.gateway.v1.PlayService/SubmitAction"
SERVER, CLIENT = 2, 3  # opentelemetry.proto.trace.v1.Span.SpanKind
OPEN_WINDOW = f"/{authz.DICE}/OpenWindow"


@pytest.fixture(scope="module")
def sink() -> Iterator[Sink]:
    with Sink() as running:
        yield running


@pytest.fixture(scope="module")
def services(redis_url: str, sink: Sink) -> Iterator[Stack]:
    with Stack(redis_url=redis_url, extra_env={**GAMES, **sink.env()}, games=("dice_hand",), matchmakers=0) as up:
        yield up


@pytest.fixture(scope="module")
def embedded(redis_url: str, sink: Sink) -> Iterator[Stack]:
    with Stack(redis_url=redis_url, extra_env={**GAMES, **sink.env()}, games=("dice_hand",), matchmakers=0,
               shape="inprocess") as up:
        yield up


async def _submit_first_moves(stack: Stack, moves: int) -> None:
    """A new dice_hand match and its first `moves` moves, each a SubmitAction."""
    async with Gateway(stack.gateway_addr) as gateway:
        seats = await autoplay.open_match(gateway, "dice_hand", 2, seed=7)
        for _ in range(moves):
            mover, action = await _mover(gateway, seats)
            await gateway.submit(mover, action)


async def _mover(gateway: Gateway, seats: list[Seat]) -> tuple[Seat, object]:
    for seat in seats:
        legal = await gateway.legal_actions(seat)
        if legal.actions:
            return seat, legal.actions[0]
    raise AssertionError("no seat may move")


def _submit_traces(sink: Sink) -> list[str]:
    """The trace of each SubmitAction a gateway served, in the order they arrived (this
    module's tests are the gateways' only callers, one after the other)."""
    return [s.trace_id for s in sink.spans() if s.name == SUBMIT and s.kind == SERVER and s.service == "gateway"]


def _trace(sink: Sink, trace_id: str) -> list[Span]:
    return [span for span in sink.spans() if span.trace_id == trace_id]


async def _settled(sink: Sink, count: int, seconds: float = 20.0) -> list[str]:
    """The traces of the last `count` submits once their spans stop arriving."""
    deadline, last, still = time.monotonic() + seconds, -1, 0
    while time.monotonic() < deadline:
        traces = _submit_traces(sink)[-count:]
        size = sum(len(_trace(sink, t)) for t in traces) if len(traces) == count else -1
        still = still + 1 if size == last and size > 0 else 0
        if still >= 5:  # half a second without a new span (the exporters send every 0.1 s)
            return traces
        last = size
        await asyncio.sleep(0.1)
    raise AssertionError(f"the spans of {count} submits did not all arrive: {len(sink.spans())} spans")


def _assert_one_tree(spans: list[Span]) -> Span:
    """One root (the gateway's SubmitAction), every other span the child of one in the trace; the root."""
    by_id = {span.span_id: span for span in spans}
    roots = [span for span in spans if not span.parent_id]
    assert [root.name for root in roots] == [SUBMIT], roots
    orphans = [span for span in spans if span.parent_id and span.parent_id not in by_id]
    assert not orphans, orphans
    return roots[0]


async def test_one_submit_through_the_services_is_one_trace_across_every_process(
    services: Stack, sink: Sink
) -> None:
    await _submit_first_moves(services, 2)
    first, second = await _settled(sink, 2)
    spans = _trace(sink, first)
    _assert_one_tree(spans)
    print(sink.tree(first))  # shown with -s: the trace of one action, for the record
    by_id = {span.span_id: span for span in spans}
    # The first move of a match crosses every process: the match, its rules process, the
    # deck (the hidden draw, under the match's grant) and the dice: the rules leave the roll
    # to the match (no window yet), which opens its window at the dice and asks the rules again.
    assert {s.service for s in spans} >= {"gateway", "match", "rules", "deck", "dice"}, {s.service for s in spans}
    assert [s.service for s in spans if s.name == OPEN_WINDOW and s.kind == SERVER] == ["dice"]
    # Each hop between processes: a server span whose parent is its caller's client span, in the caller.
    for served in (s for s in spans if s.kind == SERVER and s.service != "gateway"):
        caller = by_id[served.parent_id]
        assert caller.kind == CLIENT and caller.name == served.name and caller.service != served.service, served
    # Carried as Exchange messages (the default), not as calls of their own.
    assert {s.attributes.get("tabletop.carrier") for s in spans if s.kind == SERVER and s.service != "gateway"} == {
        "exchange"}
    # The store's commands, within the trace.
    assert any(s.attributes.get("db.system") == "redis" or s.attributes.get("db.system.name") == "redis"
               for s in spans if s.service == "match")
    # The next move rolls from the window the first opened: no dice in its trace, the rest as before.
    later = _trace(sink, second)
    _assert_one_tree(later)
    assert "dice" not in {s.service for s in later}
    assert {s.service for s in later} >= {"gateway", "match", "rules", "deck"}


async def test_one_submit_in_process_is_one_trace_with_a_span_per_contract(embedded: Stack, sink: Sink) -> None:
    await _submit_first_moves(embedded, 1)
    (first,) = await _settled(sink, 1)
    spans = _trace(sink, first)
    _assert_one_tree(spans)
    assert {s.service for s in spans} == {"gateway"}  # one process
    contracts = {s.attributes.get("rpc.service") for s in spans if s.attributes.get("tabletop.carrier") == "inprocess"}
    assert contracts >= {authz.MATCH, authz.RULES, authz.DICE, authz.DECK}, contracts
