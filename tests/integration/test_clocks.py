"""Turn clocks on the real stack: a deadline read from the log fires within a
second, even when the match process and the game's rules process were killed
with SIGKILL in the middle of the turn; the timeout is in every viewer's log;
acting and undoing takes no time from the other seat."""

from __future__ import annotations

import asyncio
import time

import grpc
import pytest
from tabletop.gateway.v1 import gateway_pb2 as gpb
from tabletop.match.v1 import events_pb2 as ev
from tabletop.match.v1 import match_service_pb2 as mpb

from cli.api import Gateway, Seat
from deploy.stack import Stack
from tests.integration.test_platform import HOLD
from tests.integration.test_undo import refusal_reason, until_hold_is_legal

pytestmark = pytest.mark.integration

# Within a second of the deadline, as the issue asks; the poll below adds at most 50 ms.
LATE_AT_MOST_S = 1.0


@pytest.fixture(scope="module")
def pig_stack(redis_url: str):
    stack = Stack(redis_url=redis_url, extra_env={"TABLETOP_EXTRA_GAMES": "pig=tests.fixtures.pig"},
                  games=("pig",), matchmakers=0)
    stack.start()
    try:
        yield stack
    finally:
        stack.stop()


async def _clocked_pig(gateway: Gateway, seconds: int, policy: str) -> list[Seat]:
    config = {"clock": "move", "clock_seconds": str(seconds), "clock_timeout": policy}
    match_id = (await gateway.create("pig", 2, config)).match.match_id
    seats = [await gateway.join(match_id, f"clocked-{i}") for i in range(2)]
    await gateway.start(seats[0])
    return seats


def _deadline_s(summary: mpb.MatchSummary, seat: int) -> float:
    (clock,) = [c for c in summary.clocks if c.seat == seat]
    assert clock.running and clock.deadline_ms > 0
    return clock.deadline_ms / 1000


async def _timed_out_at(gateway: Gateway, match_id: str, version: int, limit_s: float) -> float:
    """When the match first moved past `version` (polled every 50 ms)."""
    stop = time.time() + limit_s
    while time.time() < stop:
        if (await gateway.view(match_id)).match.version > version:
            return time.time()
        await asyncio.sleep(0.05)
    raise AssertionError(f"match {match_id} did not move within {limit_s} s")


async def _expired(gateway: Gateway, match_id: str) -> list[ev.ClockExpired]:
    found = []
    for entry in await gateway.log(match_id):
        if entry.type == ev.ClockExpired.DESCRIPTOR.full_name:
            found.append(ev.ClockExpired.FromString(entry.event.value))
    return found


async def test_the_games_list_shows_the_clock_options(pig_stack: Stack):
    async with Gateway(pig_stack.gateway_addr) as gateway:
        games = (await gateway.stub.ListGames(gpb.ListGamesRequest())).games
        (pig,) = [g for g in games if g.game == "pig"]
        names = [option.name for option in pig.options]
        assert {"clock", "clock_seconds", "clock_increment", "clock_timeout"} <= set(names)


async def test_a_seat_that_runs_out_passes_within_a_second_of_its_deadline(pig_stack: Stack):
    async with Gateway(pig_stack.gateway_addr) as gateway:
        seats = await _clocked_pig(gateway, 5, "pass")
        summary = (await gateway.view(seats[0].match_id)).match
        deadline = _deadline_s(summary, 0)
        moved = await _timed_out_at(gateway, seats[0].match_id, summary.version, 15)
        assert deadline <= moved + 0.05 and moved - deadline <= LATE_AT_MOST_S
        # Pig offers no Hold before the first roll: the clock rolls (a bot move), then holds,
        # or the roll of a one ends the turn; either way seat 0's whole turn is played out.
        # The timeouts of one turn are appended one by one: wait for the last.
        for _ in range(40):
            after = (await gateway.view(seats[0].match_id)).match
            if list(after.to_move) != [0]:
                break
            await asyncio.sleep(0.05)
        expired = await _expired(gateway, seats[0].match_id)
        assert expired and {e.seat for e in expired} == {0}
        assert expired[0].policy == "bot" and {e.policy for e in expired} <= {"pass", "bot"}
        assert list(after.to_move) == [1]


async def test_the_deadline_holds_through_a_kill_9_of_the_match_and_rules_processes(pig_stack: Stack):
    async with Gateway(pig_stack.gateway_addr) as gateway:
        seats = await _clocked_pig(gateway, 10, "forfeit")
        summary = (await gateway.view(seats[0].match_id)).match
        deadline = _deadline_s(summary, 0)
        # Mid-turn: nothing of the clock lives in either process.
        pig_stack.kill("match")
        pig_stack.kill("rules-pig")
        pig_stack.restart("rules-pig")
        pig_stack.restart("match")
        assert time.time() < deadline - 1, "the restart took too long for this test to mean anything"
        moved = await _timed_out_at(gateway, seats[0].match_id, summary.version, 25)
        assert moved - deadline <= LATE_AT_MOST_S
        ended = (await gateway.view(seats[0].match_id)).match
        assert ended.status == mpb.MATCH_STATUS_FINISHED
        assert list(ended.outcome.ranking) == [2, 1] and ended.outcome.detail["reason"] == "timeout"
        assert [(e.seat, e.policy) for e in await _expired(gateway, seats[0].match_id)] == [(0, "forfeit")]


def _clocks(summary: mpb.MatchSummary) -> dict[int, mpb.SeatClockView]:
    return {c.seat: c for c in summary.clocks}


async def test_act_and_undo_never_runs_the_other_seats_clock_down(pig_stack: Stack):
    # Issue 27 item 2: under a game clock, hold (the other seat's bank starts), undo, again:
    # the other seat's bank drained to nothing and the keeper forfeited it.
    async with Gateway(pig_stack.gateway_addr) as gateway:
        config = {"clock": "game", "clock_seconds": "30", "clock_timeout": "forfeit"}
        match_id = (await gateway.create("pig", 2, config)).match.match_id
        seats = [await gateway.join(match_id, f"undoer-{i}") for i in range(2)]
        await gateway.start(seats[0])
        attacker = await until_hold_is_legal(gateway, seats)
        victim = seats[1 - attacker.seat].seat
        before = _clocks((await gateway.view(match_id)).match)
        for _ in range(3):
            held = await gateway.submit(attacker, HOLD)
            assert _clocks(held.match)[victim].running  # the victim's bank ran while the hold stood
            undone = (await gateway.undo(attacker)).match
            after = _clocks(undone)
            # The victim's bank is exactly what it was, stopped; the attacker's deadline never moved
            # and its time left shrank by all the time the hold and the undo took.
            assert (after[victim].remaining_ms, after[victim].running) == (before[victim].remaining_ms, False)
            assert after[attacker.seat].running
            assert after[attacker.seat].deadline_ms == before[attacker.seat].deadline_ms
            assert after[attacker.seat].remaining_ms < before[attacker.seat].remaining_ms
        # A fourth undo in the same turn is refused by name.
        await gateway.submit(attacker, HOLD)
        assert await refusal_reason(gateway.undo(attacker)) == (grpc.StatusCode.FAILED_PRECONDITION, "undo.limit")
