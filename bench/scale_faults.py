"""`SCALE_FAULTS=1`: faults at scale. At K=4 (or the largest K measured) the actions
workload and the hot-pool ticket workload run at once while one replica of each stateless
tier in turn (gateway, match, rules, dice, deck, matchmaker) is killed with SIGKILL, every
SCALE_FAULT_EVERY seconds (the first after two such intervals of steady load), and started
again at once (back in its capped cgroup).

Both workloads at once: each kill then hits both, as it would in production, and the run
takes one stretch instead of two. The load generator is one uncapped process; the idle share
of the machine is reported beside the figures, as for the other runs.

Per kill, for each workload: the level before it (the mean rate over the LEVEL_SECONDS
before) and the recovery time, the seconds from the kill to the start of the first
1-second window whose rate is back to within TOLERANCE of that level (at least 90 % of it;
more is a backlog draining, which counts as recovered). 0.0: no 1-second dip at all. None:
not back before the next kill (or the run's end). Then what must not happen: an
acknowledged action missing from its match's log, a placed ticket whose mate never heard of
its match, a ticket placed twice, a finished match `tabletop verify` rejects.
"""

from __future__ import annotations

import asyncio
import bisect
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bench import scale_load
from bench.scale_cgroup import CpuGroups, Idle, idle_share
from bench.scale_stack import ScaleStack, scale_env
from deploy.stack import ProcessFailed

if TYPE_CHECKING:
    from bench.scale import Settings

# The tiers, in the order their replicas are killed.
FAULT_TIERS = ("gateway", "match", "rules", "dice", "deck", "matchmaker")
LEVEL_SECONDS = 5.0  # the level before a kill: the mean rate over this many seconds
TOLERANCE = 0.10  # recovered: a 1-second rate at least (1 - TOLERANCE) of the level
TARGET_S = 5.0  # the recovery a tier should manage
STEP_S = 0.1  # how finely the 1-second window slides looking for the recovery
SETTLE_KILLS = 2  # the first kill this many kill intervals into the window

Check = Callable[[str], Awaitable[list[str]]]


def fault_k(ks: Sequence[int]) -> int:
    """The K of the fault run: 4 if it was measured, else the largest."""
    return 4 if 4 in ks else max(ks)


def count_between(ordered: Sequence[float], start: float, end: float) -> int:
    """How many of the sorted times fall in [start, end)."""
    return bisect.bisect_left(ordered, end) - bisect.bisect_left(ordered, start)


def level_before(ordered: Sequence[float], at: float, seconds: float = LEVEL_SECONDS) -> float:
    """The mean rate per second over the `seconds` before `at`."""
    return count_between(ordered, at - seconds, at) / seconds


def recovery_s(ordered: Sequence[float], at: float, level: float, until: float,
               tolerance: float = TOLERANCE, step: float = STEP_S) -> float | None:
    """Seconds from `at` to the start of the first 1-second window (sliding by `step`, ending
    by `until`) with at least (1 - tolerance) of `level` in it; None if there is none, or
    there was no level to recover to."""
    if level <= 0:
        return None
    wanted = (1 - tolerance) * level
    steps = 0
    while at + steps * step + 1.0 <= until + 1e-9:
        start = at + steps * step
        if count_between(ordered, start, start + 1.0) >= wanted:
            return round(steps * step, 1)
        steps += 1
    return None


def per_second(ordered: Sequence[float], start: float, end: float) -> list[int]:
    """The count in each whole second from `start` to `end`."""
    return [count_between(ordered, start + s, start + s + 1) for s in range(int(end - start))]


@dataclass
class Kill:
    """One replica killed: when, and how long its restart took (or why it failed)."""

    tier: str
    name: str
    at: float
    restart_s: float = 0.0
    restart_error: str = ""


def victims(stack: ScaleStack) -> list[tuple[str, str]]:
    """(tier, replica) to kill, one per tier in FAULT_TIERS, a different replica index each."""
    return [(tier, stack.tiers[tier][i % len(stack.tiers[tier])]) for i, tier in enumerate(FAULT_TIERS)]


async def kill_in_turn(stack: ScaleStack, chosen: Sequence[tuple[str, str]], opened: asyncio.Event,
                       started: Callable[[], float], every: float, first_at: float) -> list[Kill]:
    """Once the window opens, SIGKILL each chosen replica `every` seconds apart (the first
    `first_at` seconds in), each started again at once. The stack's calls block: run in
    threads, so the load generator's loop never waits on them."""
    await opened.wait()
    kills: list[Kill] = []
    for index, (tier, name) in enumerate(chosen):
        await asyncio.sleep(max(0.0, started() + first_at + every * index - time.perf_counter()))
        kill = Kill(tier, name, time.perf_counter())
        await asyncio.to_thread(stack.kill, name)
        try:
            await asyncio.to_thread(stack.restart, name)
        except ProcessFailed as error:
            kill.restart_error = str(error).splitlines()[0]
        kill.restart_s = time.perf_counter() - kill.at
        kills.append(kill)
        print(f"[scale faults K={stack.replicas}] {name} killed (SIGKILL) at {kill.at - started():.1f} s; "
              f"{'restart FAILED: ' + kill.restart_error if kill.restart_error else 'restarted'} "
              f"after {kill.restart_s:.1f} s", file=sys.stderr, flush=True)
    return kills


def tier_figures(kill: Kill, series: dict[str, list[float]], start: float, until: float) -> dict[str, Any]:
    """One kill's figures: per workload its level before and recovery; overall the slowest."""
    row: dict[str, Any] = {"replica": kill.name, "killed_at_s": round(kill.at - start, 1),
                           "restart_s": round(kill.restart_s, 1)}
    if kill.restart_error:
        row["restart_error"] = kill.restart_error
    recoveries: list[float | None] = []
    for workload, ordered in series.items():
        level = level_before(ordered, kill.at)
        recovered = recovery_s(ordered, kill.at, level, until)
        recoveries.append(recovered)
        row[workload] = {"level_before_per_s": round(level, 1), "recovered_s": recovered,
                         "within_5s": recovered is not None and recovered <= TARGET_S}
    known = [r for r in recoveries if r is not None]
    row["recovered_s"] = max(known) if len(known) == len(recoveries) else None
    row["within_5s"] = all(row[w]["within_5s"] for w in series)
    return row


def figures(kills: Sequence[Kill], series: dict[str, list[float]], start: float, end: float) -> dict[str, Any]:
    """Every tier's figures, each kill's recovery looked for until the next kill (or the end)."""
    ordered = {w: sorted(times) for w, times in series.items()}
    found: dict[str, Any] = {}
    for index, kill in enumerate(kills):
        until = kills[index + 1].at if index + 1 < len(kills) else end
        found[kill.tier] = tier_figures(kill, ordered, start, until)
    return found


def run(settings: Settings, verifier: Callable[[str], Check]) -> dict[str, Any]:
    """The fault run on a stack of its own; the summary's "faults" entry."""
    k = fault_k(settings.ks)
    groups = CpuGroups.open(settings.cores, settings.period_us, settings.cap)
    stack = ScaleStack(replicas=k, groups=groups, games=("pig",), extra_env=scale_env(settings.shards))
    try:
        started = time.perf_counter()
        stack.start()
        print(f"[scale faults K={k}] {len(stack.procs)} processes up in {time.perf_counter() - started:.0f} s; "
              f"killing one replica per tier every {settings.fault_every:g} s", file=sys.stderr, flush=True)
        return asyncio.run(_faulted(stack, settings, verifier))
    finally:
        stack.stop()
        groups.close()


async def _faulted(stack: ScaleStack, settings: Settings, verifier: Callable[[str], Check]) -> dict[str, Any]:
    k, addrs = stack.replicas, stack.gateway_addrs
    opened = asyncio.Event()
    # The first kill SETTLE_KILLS intervals in: both loads at once take seconds to reach their
    # steady rates (the players queue behind the bots), and the level before must not be that ramp.
    first_at = settings.fault_every * SETTLE_KILLS
    actions_window = scale_load.Window(first_at + settings.fault_every * len(FAULT_TIERS), opened.set)
    tickets_window = scale_load.Window(actions_window.seconds)
    idle_from = Idle.now()
    played, tickets, kills = await asyncio.gather(
        scale_load.play(addrs, "pig", settings.lanes * k, actions_window, asyncio.Event()),
        scale_load.queue(addrs, settings.players * k, 0, tickets_window, asyncio.Event(), run=f"faults-{k}"),
        kill_in_turn(stack, victims(stack), opened, lambda: actions_window.start, settings.fault_every, first_at),
    )
    idle = idle_share(idle_from, Idle.now())
    start, end = actions_window.start, actions_window.end
    series = {"actions": played.done, "tickets_hot_pool": tickets.done}
    found: dict[str, Any] = {"measured": True, "replicas": k, "every_s": settings.fault_every,
                             "seconds": round(end - start, 1), "idle": round(idle, 3),
                             "capped": groups_capped(stack), **figures(kills, series, start, end)}
    found |= await losses(addrs[0], played, tickets, verifier(addrs[0]), settings.verify)
    found["reconnects"] = {"actions": played.failed, "tickets": tickets.failed}
    found["resumed_matches"] = len(played.resumed)
    found["rerouted_actions"] = played.rerouted
    found["per_second"] = {w: per_second(sorted(t), start, end) for w, t in series.items()}
    say(found, kills)
    return found


def groups_capped(stack: ScaleStack) -> bool:
    return stack.groups is not None and stack.groups.capped


async def losses(addr: str, played: scale_load.Actions, tickets: scale_load.Tickets, check: Check,
                 verify: int) -> dict[str, Any]:
    """What the faults must not have cost: acknowledged actions missing from the logs, tickets
    placed unseen (their match without a mate), tickets placed twice, finished matches that
    fail `tabletop verify` (every resumed one, and `verify` more)."""
    shortfalls = await scale_load.log_shortfalls(addr, played)
    resumed = [m for m in played.finished if m in set(played.resumed)]
    checked = resumed + [m for m in played.finished if m not in set(resumed)][:verify]
    rejected: list[str] = []
    for match_id in checked:
        rejected += (await check(match_id))[:1]
    problems = [p for _, p in shortfalls] + scale_load.placement_problems(tickets) + rejected
    return {
        "lost_actions": sum(missing for missing, _ in shortfalls),
        "lost_tickets": len(scale_load.unpaired_matches(tickets)),
        "double_placed": len(scale_load.double_placements(tickets)),
        "verify_failures": len(rejected),
        "verified_matches": len(checked),
        "problems": problems[:10],
    }


def say(found: dict[str, Any], kills: Sequence[Kill]) -> None:
    """A line per kill, the per-second rates and the losses, on stderr."""
    k = found["replicas"]
    for kill in kills:
        row = found[kill.tier]
        parts = [f"{w} {row[w]['level_before_per_s']}/s before, "
                 + (f"back within 10% after {row[w]['recovered_s']} s" if row[w]["recovered_s"] is not None
                    else "NOT back before the next kill")
                 for w in ("actions", "tickets_hot_pool")]
        print(f"[scale faults K={k}] {kill.tier} ({kill.name}) killed at {row['killed_at_s']} s: "
              f"{'; '.join(parts)}; {'within' if row['within_5s'] else 'NOT within'} 5 s",
              file=sys.stderr, flush=True)
    for workload, rates in found["per_second"].items():
        print(f"[scale faults K={k}] {workload} per second: {' '.join(map(str, rates))}", file=sys.stderr)
    print(f"[scale faults K={k}] lost actions {found['lost_actions']}, lost tickets {found['lost_tickets']}, "
          f"placed twice {found['double_placed']}, verify failures {found['verify_failures']} "
          f"of {found['verified_matches']}; reconnects {found['reconnects']}, idle {found['idle']:.0%}",
          file=sys.stderr, flush=True)
    for problem in found["problems"][:5]:
        print(f"    {problem}", file=sys.stderr)
