"""Per-caller limits and the admission gate, as pure bookkeeping."""

from __future__ import annotations

import asyncio

import pytest

from gateway.limits import CallerLimits, peer_address
from services.common.config import Settings
from services.common.errors import ResourceExhausted, Unavailable
from services.common.rpc.gate import DRAINING, Gate


def limits(**overrides: float) -> CallerLimits:
    return CallerLimits(Settings(**overrides))  # type: ignore[arg-type]


def test_rates_are_per_key_and_any_string_is_a_key() -> None:
    caller = limits(caller_create_rate=0.001, caller_create_burst=2, caller_ticket_rate=0.001, caller_ticket_burst=1)
    caller.check_create("player:ana")
    caller.check_create("player:ana")
    with pytest.raises(ResourceExhausted):
        caller.check_create("player:ana")
    caller.check_create("player:ben")  # another key has its own budget
    caller.check_ticket("player:ana")  # and creates and tickets are separate
    with pytest.raises(ResourceExhausted):
        caller.check_ticket("player:ana")


def test_concurrency_is_released_when_a_call_ends() -> None:
    caller = limits(caller_calls=1, caller_streams=1)
    with caller.call("k"):
        with pytest.raises(ResourceExhausted), caller.call("k"):
            pass
        with caller.call("other"), caller.stream("k"):
            pass
    with caller.call("k"):
        pass


def test_admission_keys_by_address_without_the_port() -> None:
    assert peer_address("ipv4:10.0.0.7:51234") == "ipv4:10.0.0.7"
    assert peer_address("ipv6:[::1]:4000") == "ipv6:[::1]"
    caller = limits(caller_streams=1)
    with caller.admit("WatchMatch", "ipv4:10.0.0.7:1"):
        with pytest.raises(ResourceExhausted), caller.admit("Play", "ipv4:10.0.0.7:2"):
            pass
        with caller.admit("GetView", "ipv4:10.0.0.7:3"):
            pass


def test_queue_is_a_stream_that_spends_a_ticket() -> None:
    caller = limits(caller_streams=1, caller_ticket_rate=0.001, caller_ticket_burst=2)
    queued = caller.admit("Queue", "ipv4:10.0.0.8:1")
    with queued, pytest.raises(ResourceExhausted, match="open streams"), caller.admit("WatchTicket", "ipv4:10.0.0.8:2"):
        pass
    with caller.admit("FindMatch", "ipv4:10.0.0.8:3"):
        pass
    # Two tickets spent (Queue, FindMatch): the third is refused, and holds no stream.
    with pytest.raises(ResourceExhausted, match="match requests"), caller.admit("Queue", "ipv4:10.0.0.8:4"):
        pass
    with caller.admit("WatchMatch", "ipv4:10.0.0.8:5"):
        pass


async def test_gate_sheds_past_its_bound_and_drains() -> None:
    gate = Gate(max_inflight=2, max_streams=1)
    with gate.unary(), gate.unary():
        with pytest.raises(ResourceExhausted), gate.unary():
            pass
        with gate.stream() as stop:
            gate.drain()
            assert stop.done()
            with pytest.raises(Unavailable) as refused, gate.unary():
                pass
            assert refused.value.reason == DRAINING
            assert not await gate.drained(0.01)
    assert await asyncio.wait_for(gate.drained(1), 2)
