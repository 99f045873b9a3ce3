"""The in-process shape with the match app inside the gateway: no match process
on the action path, the same answers, and the matchmaker still served."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Iterator

import pytest
from tabletop.match.v1 import match_service_pb2 as mpb

from cli import autoplay
from cli.api import Gateway, Seat
from cli.queue import queue
from deploy.stack import Stack
from services.dice.verify import verify
from tests.integration.conftest import PIG
from tests.integration.test_platform import ROLL, started_pig, to_move

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def embedded(redis_url: str) -> Iterator[Stack]:
    stack = Stack(redis_url=redis_url, extra_env=PIG, games=("pig",), matchmakers=0, shape="inprocess")
    with stack as running:
        yield running


async def test_a_whole_match_is_played_with_no_match_process(embedded: Stack):
    assert "match" not in embedded.procs, "nothing but the gateway serves matches"
    async with Gateway(embedded.gateway_addr) as gateway:
        result = await autoplay.play_match(gateway, "pig", 2, seed=3)
        assert result.summary.status == mpb.MATCH_STATUS_FINISHED
        entries = await gateway.log(result.match_id)
        assert verify((e.version, e.type, e.event.value) for e in entries).ok


async def test_the_gateway_keeps_the_clocks_of_the_matches_it_hosts(embedded: Stack):
    async with Gateway(embedded.gateway_addr) as gateway:
        config = {"clock": "move", "clock_seconds": "5", "clock_timeout": "forfeit"}
        match_id = (await gateway.create("pig", 2, config)).match.match_id
        seats = [await gateway.join(match_id, f"timed-{i}") for i in range(2)]
        await gateway.start(seats[0])
        (clock,) = [c for c in (await gateway.view(match_id)).match.clocks if c.running]
        while (summary := (await gateway.view(match_id)).match).status != mpb.MATCH_STATUS_FINISHED:
            assert time.time() < clock.deadline_ms / 1000 + 1.0, "the clock did not fire within a second"
            await asyncio.sleep(0.05)
        assert summary.outcome.detail["reason"] == "timeout"


async def test_a_retried_action_answers_as_the_first_time(embedded: Stack):
    async with Gateway(embedded.gateway_addr) as gateway:
        seats = await started_pig(gateway)
        mover = seats[(await to_move(gateway, seats[0].match_id))[0]]
        first = await gateway.submit(mover, ROLL, command_id="once")
        again = await gateway.submit(mover, ROLL, command_id="once")
        assert (again.version, again.duplicate, first.duplicate) == (first.version, True, False)
        assert (await gateway.view(mover.match_id)).match.version == first.version


async def test_the_matchmaker_forms_matches_through_a_match_process_that_never_holds_the_gateway_up(
    redis_url: str,
):
    stack = Stack(redis_url=redis_url, extra_env=PIG, games=("pig",), matchmakers=1, shape="inprocess")
    with stack:
        assert stack.procs["match"].env["TABLETOP_MATCH_LEASE_MS"] == "0", "it takes no leases"
        # A queue of its own: tickets other tests left in the shared store must not join it.
        options = {"target": f"embedded-{uuid.uuid4().hex[:8]}"}
        queued = (queue(stack.gateway_addr, "pig", 2, 2, options, f"embedded-device-{i}") for i in range(2))
        async with asyncio.timeout(60):
            found = await asyncio.gather(*queued)
        assert found[0]["match_id"] == found[1]["match_id"]
        seats = [Seat(str(f["match_id"]), int(f["seat"]), str(f["token"])) for f in found]
        async with Gateway(stack.gateway_addr) as gateway:
            moving = await to_move(gateway, seats[0].match_id)
            mover = next(s for s in seats if s.seat in moving)
            started = time.monotonic()
            moved = await gateway.submit(mover, ROLL)
            assert time.monotonic() - started < 1.0, "the gateway's app waits out no lease of the match process"
            assert (await gateway.view(mover.match_id)).match.version == moved.version
