"""The scale harness's short version: two replicas of every stateless tier on the embedded
three-master cluster, each in a capped cgroup where this machine lets us (else uncapped),
bots playing through both gateways and players queueing for one hot pool split over both
matchmakers; nothing acknowledged is lost and no ticket is placed twice, also while a match
replica and a gateway are killed."""

from __future__ import annotations

import asyncio
import pathlib
from collections.abc import Iterator

import pytest

from bench import scale_faults, scale_load
from bench.scale import verify_match
from bench.scale_cgroup import CpuGroups
from bench.scale_stack import ScaleStack, scale_env

pytestmark = pytest.mark.integration
# A fifth of a core each: small machines, but the test stays within its minute.
CORES = 0.2


@pytest.fixture(scope="module")
def scaled() -> Iterator[tuple[ScaleStack, CpuGroups]]:
    groups = CpuGroups.open(CORES)
    stack = ScaleStack(replicas=2, groups=groups, games=("pig",), extra_env=scale_env(shards=2))
    try:
        yield stack.start(), groups
    finally:
        stack.stop()
        groups.close()


@pytest.fixture(autouse=True)
def short_warmup(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scale_load, "WARMUP", 0.5)
    monkeypatch.setattr(scale_load, "DRAIN", 3.0)


def test_every_tier_runs_twice_each_replica_in_its_own_capped_group(scaled: tuple[ScaleStack, CpuGroups]) -> None:
    stack, groups = scaled
    assert {tier: len(names) for tier, names in stack.tiers.items()} == {
        "dice": 2, "deck": 2, "rules": 2, "match": 2, "matchmaker": 2, "gateway": 2}
    if groups.capped:
        for names in stack.tiers.values():
            for name in names:
                pid = stack.procs[name].process.pid  # type: ignore[union-attr]
                assert f"/{name}" in pathlib.Path(f"/proc/{pid}/cgroup").read_text()


async def test_bots_play_through_both_gateways_and_every_action_is_logged(
    scaled: tuple[ScaleStack, CpuGroups],
) -> None:
    stack, _ = scaled
    window = scale_load.Window(4.0)
    played = await scale_load.play(stack.gateway_addrs, "pig", 4, window, asyncio.Event())
    assert window.count(played.done) > 0 and played.failed == 0
    problems = await scale_load.log_problems(stack.gateway_addrs[1], played, 2, verify_match(stack.gateway_addrs[1]))
    assert problems == []


async def test_a_hot_pool_is_placed_by_both_matchmakers_each_ticket_once(
    scaled: tuple[ScaleStack, CpuGroups],
) -> None:
    stack, _ = scaled
    window = scale_load.Window(4.0)
    tickets = await scale_load.queue(stack.gateway_addrs, 16, 0, window, asyncio.Event(), run="test-hot")
    assert window.count(tickets.done) >= 4 and tickets.failed == 0
    assert scale_load.placement_problems(tickets) == []
    # The one pool's sub-pools are grouped, and their matches formed, by both replicas.
    formed = {name: stack.tail(name, 10_000).count('"matches_formed"') for name in stack.tiers["matchmaker"]}
    assert all(n > 0 for n in formed.values()), formed


async def test_a_killed_match_replica_and_gateway_lose_nothing_acknowledged(
    scaled: tuple[ScaleStack, CpuGroups],
) -> None:
    """Last here: it kills (and restarts) replicas of the shared stack. Bots and players
    whose gateway dies carry on through the other one; nothing they were told is lost."""
    stack, _ = scaled
    addrs = stack.gateway_addrs
    opened = asyncio.Event()
    window, tickets_window = scale_load.Window(8.0, opened.set), scale_load.Window(8.0)
    chosen = [("match", stack.tiers["match"][0]), ("gateway", stack.tiers["gateway"][1])]
    played, tickets, kills = await asyncio.gather(
        scale_load.play(addrs, "pig", 4, window, asyncio.Event()),
        scale_load.queue(addrs, 8, 0, tickets_window, asyncio.Event(), run="test-faults"),
        scale_faults.kill_in_turn(stack, chosen, opened, lambda: window.start, 2.0, 2.0),
    )
    assert [kill.restart_error for kill in kills] == ["", ""]
    # The lanes of the killed gateway moved on: they played through the other one (whether
    # the kill broke their streams mid-match or refused their next match's opening), and
    # actions and placements went on after both kills.
    assert played.failed > 0 and played.rerouted > 0
    assert sum(1 for t in played.done if t > kills[-1].at) > 0
    assert sum(1 for t in tickets.done if t > kills[-1].at) > 0
    found = await scale_faults.losses(addrs[0], played, tickets, verify_match(addrs[0]), 2)
    assert (found["lost_actions"], found["lost_tickets"], found["double_placed"], found["verify_failures"]) == (
        0, 0, 0, 0), found["problems"]
