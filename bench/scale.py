"""`make scale`: does another machine add capacity?

For K in SCALE_KS (1, 2, 4) the stack runs on the embedded three-master Redis
Cluster with K replicas of every stateless tier (gateway, match, each game's
rules, dice, deck, matchmaker), each replica in a cgroup of its own capped at
SCALE_CPU of a core (one small machine; bench/scale_cgroup.py), Redis and the
load generator uncapped. At each K, one after the other for SCALE_SECONDS each:

  actions           bots playing 2-seat pig matches through the gateways
  tickets_hot_pool  players queueing for one 2-seat table (one game, one size,
                    default options: a single pool, split into SCALE_SHARDS sub-pools)
  tickets_pools     the same over eight pools at once

with the CPU per action or ticket of every process, and the machine's idle
share meanwhile (/proc/stat): a run under 15 % idle measured a saturated
machine, not the stack, and is marked invalid. Efficiency at K is
throughput(K) / (K * throughput(1)), each throughput the median of SCALE_REPEATS
runs (3; the workloads interleaved): one run's rate moved by a third from one
run to the next at K = 1, and so did the efficiency. The baseline (bench/scale_floor.py: one
gRPC round trip and one fsynced append) is measured in the same run, at each K;
`ticket_cpu_x_baseline` is the stack's whole CPU per placed ticket over it (the
worst of the ticket workloads and Ks). SCALE_FAULTS=1 adds, after them, a run at
K=4 (or the largest K) that kills -9 one replica of each tier in turn every
SCALE_FAULT_EVERY seconds under the actions and hot-pool loads at once
(bench/scale_faults.py): the summary's "faults" holds each tier's recovery time
and what was lost (nothing should be).

The last line printed is one line of JSON.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bench import cpu, scale_faults, scale_floor, scale_load
from bench.scale_cgroup import CpuGroups, Idle, held, idle_share
from bench.scale_stack import ScaleStack, scale_env, tier_of

MIN_IDLE = 0.15
WORKLOADS = ("actions", "tickets_hot_pool", "tickets_pools")
POOLS = 8


@dataclass(frozen=True)
class Settings:
    ks: tuple[int, ...] = (1, 2, 4)
    cores: float = 0.05
    seconds: float = 30.0
    lanes: int = 6  # matches in play per replica
    players: int = 24  # players queueing per replica
    shards: int = 4  # sub-pools per pool: at least the largest K, so each replica gets one
    period_us: int = 20_000
    cap: bool = True
    faults: bool = False
    fault_every: float = 8.0  # seconds between the fault run's kills
    verify: int = 5
    repeats: int = 3  # runs of each workload at each K, interleaved; the median run counts
    workloads: tuple[str, ...] = WORKLOADS  # SCALE_WORKLOADS narrows them (a comma list)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        d = cls()
        return cls(
            ks=tuple(int(k) for k in env.get("SCALE_KS", ",".join(map(str, d.ks))).split(",") if k.strip()),
            cores=float(env.get("SCALE_CPU", d.cores)),
            seconds=float(env.get("SCALE_SECONDS", d.seconds)),
            lanes=int(env.get("SCALE_LANES", d.lanes)),
            players=int(env.get("SCALE_PLAYERS", d.players)),
            shards=int(env.get("SCALE_SHARDS", d.shards)),
            period_us=int(env.get("SCALE_PERIOD_US", d.period_us)),
            cap=env.get("SCALE_CAP", "1") not in ("0", "off", "false"),
            faults=env.get("SCALE_FAULTS", "0") not in ("", "0", "off", "false"),
            fault_every=float(env.get("SCALE_FAULT_EVERY", d.fault_every)),
            verify=int(env.get("SCALE_VERIFY", d.verify)),
            repeats=max(1, int(env.get("SCALE_REPEATS", d.repeats))),
            workloads=_workloads(env.get("SCALE_WORKLOADS", "")),
        )


def _workloads(listed: str) -> tuple[str, ...]:
    """The workloads SCALE_WORKLOADS names (all of them when empty), in their usual order."""
    wanted = {name.strip() for name in listed.split(",") if name.strip()}
    unknown = wanted - set(WORKLOADS)
    if unknown:
        raise SystemExit(f"SCALE_WORKLOADS: no workload {sorted(unknown)}; they are {', '.join(WORKLOADS)}")
    return tuple(name for name in WORKLOADS if not wanted or name in wanted)


@dataclass
class Measured:
    """One workload at one K: its count, the window, CPU by process, the machine's idle share."""

    workload: str
    replicas: int
    count: int
    seconds: float
    cpu_seconds: dict[str, float]
    idle: float
    capped: bool
    caps_held: bool
    problems: list[str] = field(default_factory=list)
    waits: list[float] = field(default_factory=list)

    @property
    def per_s(self) -> float:
        return self.count / self.seconds if self.seconds else 0.0

    @property
    def valid(self) -> bool:
        return self.idle >= MIN_IDLE

    def cpu_ms_per_op(self) -> dict[str, float]:
        return {n: round(1000 * s / self.count, 3) if self.count else 0.0 for n, s in sorted(self.cpu_seconds.items())}

    def cpu_ms_per_op_by_tier(self) -> dict[str, float]:
        tiers: dict[str, float] = {}
        for name, seconds in self.cpu_seconds.items():
            tiers[tier_of(name)] = tiers.get(tier_of(name), 0.0) + seconds
        return {t: round(1000 * s / self.count, 3) if self.count else 0.0 for t, s in sorted(tiers.items())}

    @property
    def stack_cpu_ms_per_op(self) -> float:
        stack = sum(s for n, s in self.cpu_seconds.items() if n != "load")
        return 1000 * stack / self.count if self.count else 0.0


def efficiency(per_s: Mapping[int, float]) -> dict[int, float]:
    """throughput(K) / (K * throughput(1)) for each K measured (1.0 at K=1)."""
    one = per_s.get(1, 0.0)
    return {k: round(v / (k * one), 3) if one else 0.0 for k, v in sorted(per_s.items())}


def median_run(runs: Sequence[Measured]) -> Measured:
    """The run whose rate is the median of `runs` (the lower middle of an even count):
    its rate, CPU and waits are the ones reported."""
    ordered = sorted(runs, key=lambda m: m.per_s)
    return ordered[(len(ordered) - 1) // 2]


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] if ordered else 0.0


class Probe:
    """CPU of every process and the machine's idle share between `open` and `close`."""

    def __init__(self, pids: Callable[[], dict[str, int]]) -> None:
        self._pids = pids
        self._meter: cpu.Meter | None = None
        self._idle: Idle | None = None
        self.cpu: dict[str, float] = {}
        self.idle = 0.0
        self.wall = 0.0
        self._started = 0.0

    def open(self) -> None:
        self._meter = cpu.Meter({**self._pids(), "load": os.getpid()})
        self._meter.start()
        self._idle = Idle.now()
        self._started = time.perf_counter()

    def close(self) -> None:
        assert self._meter is not None and self._idle is not None
        self.cpu = self._meter.stop()
        self.idle = idle_share(self._idle, Idle.now())
        self.wall = time.perf_counter() - self._started


def _held(probe: Probe, stack: ScaleStack, groups: CpuGroups) -> bool:
    """Whether every capped process stayed within its cap over the window."""
    if not groups.capped:
        return False
    capped = {n for names in stack.tiers.values() for n in names}
    return all(held(s, probe.wall, groups.cores) for n, s in probe.cpu.items() if n in capped)


async def _workload(name: str, stack: ScaleStack, settings: Settings, groups: CpuGroups, repeat: int = 0) -> Measured:
    k, addrs = stack.replicas, stack.gateway_addrs
    probe = Probe(stack.pids)
    window = scale_load.Window(settings.seconds, probe.open, probe.close)
    stop = asyncio.Event()
    problems: list[str] = []
    waits: list[float] = []
    if name == "actions":
        found = await scale_load.play(addrs, "pig", settings.lanes * k, window, stop)
        count = window.count(found.done)
        problems += await scale_load.log_problems(addrs[0], found, settings.verify, verify_match(addrs[0]))
    else:
        pools = POOLS if name == "tickets_pools" else 0
        # Players of their own in each run: one still queued from an earlier run (its ticket being
        # formed as that run stopped) would otherwise be matched with a player of this one.
        tickets = await scale_load.queue(addrs, settings.players * k, pools, window, stop, run=f"{name}-{k}-{repeat}")
        count = window.count(tickets.done)
        problems += scale_load.placement_problems(tickets)
        waits = [p.waited for p in tickets.placed if window.start <= p.at < window.end]
    measured = Measured(name, k, count, window.end - window.start, probe.cpu, probe.idle, groups.capped,
                        _held(probe, stack, groups), problems, waits)
    _say(measured)
    return measured


def verify_match(addr: str) -> Callable[[str], Any]:
    """`tabletop verify` of a finished match, in process: its differences, if any."""
    from cli.api import Gateway
    from ops.verify import log_entries
    from services.games import registry
    from services.match import audit

    registry.add_package("pig", "tests.fixtures.pig")

    async def check(match_id: str) -> list[str]:
        async with Gateway(addr) as gateway:
            verdict = audit.verify(log_entries(await gateway.log(match_id)), match_id)
        return [] if verdict.ok else [f"verify {match_id}: {p}" for p in verdict.problems[:3]]

    return check


def _say(m: Measured) -> None:
    tiers = ", ".join(f"{t} {v}" for t, v in m.cpu_ms_per_op_by_tier().items())
    print(f"[scale K={m.replicas} {m.workload}] {m.per_s:.1f}/s over {m.seconds:.1f} s, idle {m.idle:.0%}"
          f"{'' if m.valid else ' INVALID (machine under 15% idle)'}, caps "
          f"{'held' if m.caps_held else ('BROKEN' if m.capped else 'off')}; CPU ms/op by tier: {tiers}; "
          f"stack {m.stack_cpu_ms_per_op:.2f} ms/op; problems {len(m.problems)}", file=sys.stderr, flush=True)
    for problem in m.problems[:5]:
        print(f"    {problem}", file=sys.stderr)


def run_k(k: int, settings: Settings) -> tuple[list[Measured], scale_floor.Baseline]:
    groups = CpuGroups.open(settings.cores, settings.period_us, settings.cap)
    if k == settings.ks[0]:
        print(f"[scale] caps: {groups.why if groups.capped or not settings.cap else groups.why + '; running uncapped'}",
              file=sys.stderr, flush=True)
    stack = ScaleStack(replicas=k, groups=groups, games=("pig",), extra_env=scale_env(settings.shards))
    try:
        started = time.perf_counter()
        stack.start()
        print(f"[scale K={k}] {len(stack.procs)} processes up in {time.perf_counter() - started:.0f} s",
              file=sys.stderr, flush=True)
        baseline = scale_floor.measure()
        results = [
            asyncio.run(_workload(name, stack, settings, groups, repeat))
            for repeat in range(settings.repeats)
            for name in settings.workloads
        ]
    finally:
        stack.stop()
        groups.close()
    return results, baseline


def report(results: Sequence[Measured], baselines: Mapping[int, scale_floor.Baseline],
           faults: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The one-line summary: per workload and K its rate and efficiency, and the rest."""
    summary: dict[str, Any] = {}
    worst = 0.0
    measured = [name for name in WORKLOADS if any(m.workload == name for m in results)]
    for name in measured:
        runs: dict[int, list[Measured]] = {}
        for m in results:
            if m.workload == name:
                runs.setdefault(m.replicas, []).append(m)
        rows = {k: median_run(found) for k, found in runs.items()}
        eff = efficiency({k: m.per_s for k, m in rows.items()})
        summary[name] = {}
        for k, m in sorted(rows.items()):
            row: dict[str, Any] = {"per_s": round(m.per_s, 1), "efficiency": eff[k], "idle": round(m.idle, 3),
                                   "per_s_runs": [round(r.per_s, 1) for r in runs[k]],
                                   "valid": all(r.valid for r in runs[k]),
                                   "stack_cpu_ms_per_op": round(m.stack_cpu_ms_per_op, 3),
                                   "cpu_ms_per_op_by_tier": m.cpu_ms_per_op_by_tier(),
                                   "problems": sum(len(r.problems) for r in runs[k])}
            if name != "actions" and k in baselines and baselines[k].cpu_ms_per_op:
                row["cpu_x_baseline"] = round(m.stack_cpu_ms_per_op / baselines[k].cpu_ms_per_op, 2)
                row["wait_p50_ms"] = round(1000 * percentile(m.waits, 0.5), 1)
                row["wait_p99_ms"] = round(1000 * percentile(m.waits, 0.99), 1)
                worst = max(worst, row["cpu_x_baseline"])
            summary[name][str(k)] = row
    summary["ticket_cpu_x_baseline"] = round(worst, 2)
    summary["baseline_cpu_ms_per_op"] = {str(k): round(b.cpu_ms_per_op, 3) for k, b in sorted(baselines.items())}
    summary["capped"] = bool(results) and all(m.capped and m.caps_held for m in results)
    summary["valid"] = bool(results) and all(m.valid for m in results)
    summary["targets_met"] = {
        "efficiency_k4_0.85": {n: summary[n].get("4", {}).get("efficiency", 0.0) >= 0.85 for n in measured},
        "ticket_cpu_x_baseline_6": 0 < worst <= 6,
    }
    if faults is not None:
        summary["faults"] = faults
    return summary


def main() -> int:
    settings = Settings.from_env()
    results: list[Measured] = []
    baselines: dict[int, scale_floor.Baseline] = {}
    for k in settings.ks:
        found, baselines[k] = run_k(k, settings)
        results += found
    faults = scale_faults.run(settings, verify_match) if settings.faults else None
    summary = report(results, baselines, faults)
    for name in settings.workloads:
        line = ", ".join(f"K={k} {r['per_s']}/s eff {r['efficiency']}" for k, r in summary[name].items())
        print(f"[scale] {name}: {line}", file=sys.stderr)
    print(json.dumps(summary, separators=(",", ":")), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
