"""The capacity model: what N concurrent matches at a pace of play need, tier by tier.

From what each tier costs, measured: CPU milliseconds per action and per
placed ticket (`make scale`, bench/scale.py: `cpu_ms_per_op_by_tier` of its
JSON summary) and resident bytes per match held and per watch stream held
(`python -m bench.scale_memory`, bench/scale_memory.py). For a load of N
matches at a actions/s each and t tickets/s, tier i needs

    cores_i    = (N a c_action_i + t c_ticket_i) / 1000
    replicas_i = ceil(cores_i / (r_i u)), at least 2

for replicas of r_i cores each run at utilisation u (0.70: what the
HorizontalPodAutoscalers aim at, so the reference count leaves the headroom
they scale on), and each replica's memory

    m_i = (idle_i + (N' b_match_i + N s b_stream_i) / replicas_i) h

with s watch streams per match (every seat holds one), N' the matches a
replica holds (N, or at most its cache's size times replicas_i where a tier
holds matches in a bounded cache) and h a headroom factor: the measurement
holds matches and idle streams, not the caches that fill in play nor the
requests in flight. deploy/kubernetes.py sizes the manifest with this model
for its reference load; docs/design-notes.md ("Capacity") gives the figures.

    python -m deploy.capacity --matches 10000 --actions-per-match-per-s 0.2 --tickets-per-s 50 [--from FILE]
    python -m bench.scale_memory

FILE holds `make scale`'s output (its last JSON line is read); without it the
figures deploy/kubernetes.py records are used.
"""

from __future__ import annotations

import argparse
import json
import math
import pathlib
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

# What the HorizontalPodAutoscalers aim at: the model sizes for it, so the count
# for a load leaves 30 % for a burst while the autoscaler adds replicas.
HPA_UTILISATION = 0.70
# A memory request is also the limit (an overrun is an OOM kill, not a slowdown),
# and Python's resident set seldom shrinks after a burst: twice what was measured.
MEMORY_HEADROOM = 2.0
# One replica to serve while a node drain evicts the other (the disruption budget's minAvailable 1).
MIN_REPLICAS = 2
MEMORY_STEP = 64 * 2**20
MILLICORE_STEP = 0.05


@dataclass(frozen=True)
class TierFigures:
    """What one tier costs, measured on the whole tier (every replica together)."""

    cpu_ms_per_action: float
    cpu_ms_per_ticket: float
    bytes_per_match: int = 0
    bytes_per_stream: int = 0
    # One replica's resident set with nothing open: the interpreter and its imports.
    idle_bytes: int = 0
    # Matches one replica keeps in memory at most (a bounded cache); None: no bound known.
    matches_held: int | None = None


@dataclass(frozen=True)
class Load:
    """What players ask of the platform at once."""

    matches: int
    actions_per_match_per_s: float
    tickets_per_s: float
    streams_per_match: float = 2.0  # one Play or WatchMatch stream per seat of a 2-seat match

    @property
    def actions_per_s(self) -> float:
        return self.matches * self.actions_per_match_per_s

    @property
    def streams(self) -> float:
        return self.matches * self.streams_per_match

    def share(self, fraction: float) -> Load:
        """The part of this load one of several equal shards serves (a game's rules, say)."""
        return replace(self, matches=math.ceil(self.matches * fraction), tickets_per_s=self.tickets_per_s * fraction)


@dataclass(frozen=True)
class Sizing:
    """How one tier is cut into replicas."""

    replica_cores: float = 0.5
    utilisation: float = HPA_UTILISATION
    memory_headroom: float = MEMORY_HEADROOM
    min_replicas: int = MIN_REPLICAS


@dataclass(frozen=True)
class TierNeed:
    """What the model asks for one tier under one load."""

    tier: str
    cores: float  # CPU the load keeps busy, every replica together
    replicas: int
    replica_cores: float  # each replica's CPU request
    memory_bytes: int  # each replica's memory request (and limit)


def cores_needed(figures: TierFigures, load: Load) -> float:
    """Cores the tier keeps busy: its CPU per action and per ticket times their rates."""
    return (load.actions_per_s * figures.cpu_ms_per_action + load.tickets_per_s * figures.cpu_ms_per_ticket) / 1000


def replicas_needed(cores: float, sizing: Sizing) -> int:
    """Replicas of `replica_cores` each that carry `cores` at the target utilisation."""
    wanted = math.ceil(round(cores / (sizing.replica_cores * sizing.utilisation), 6))
    return max(sizing.min_replicas, wanted)


def resident_bytes(figures: TierFigures, load: Load, replicas: int) -> float:
    """One replica's resident set under `load` spread evenly over `replicas`."""
    matches = load.matches / replicas
    if figures.matches_held is not None:
        matches = min(matches, figures.matches_held)
    streams = load.streams / replicas
    return figures.idle_bytes + matches * figures.bytes_per_match + streams * figures.bytes_per_stream


def round_up(value: float, step: float) -> float:
    return math.ceil(round(value / step, 6)) * step


def memory_request(figures: TierFigures, load: Load, replicas: int, sizing: Sizing) -> int:
    """A replica's memory request: its resident set times the headroom, in 64 MiB steps."""
    return int(round_up(resident_bytes(figures, load, replicas) * sizing.memory_headroom, MEMORY_STEP))


def need(tier: str, figures: TierFigures, load: Load, sizing: Sizing) -> TierNeed:
    cores = cores_needed(figures, load)
    replicas = replicas_needed(cores, sizing)
    return TierNeed(tier, cores, replicas, sizing.replica_cores, memory_request(figures, load, replicas, sizing))


def plan(figures: Mapping[str, TierFigures], load: Load, sizing: Mapping[str, Sizing]) -> list[TierNeed]:
    """Every tier's need under `load`, each cut as `sizing` says (Sizing() where it says nothing)."""
    return [need(tier, f, load, sizing.get(tier, Sizing())) for tier, f in figures.items()]


def millicores(cores: float) -> str:
    """A CPU quantity for Kubernetes, rounded up to 50m."""
    return f"{round(round_up(cores, MILLICORE_STEP) * 1000)}m"


def mebibytes(size: int) -> str:
    return f"{math.ceil(size / 2**20)}Mi"


# Reading the measurements back.


def last_json(text: str) -> dict[str, Any]:
    """The last line of `text` that is a JSON object (both benches end with one)."""
    for line in reversed(text.splitlines()):
        line = line.strip()
        if line.startswith("{"):
            found: dict[str, Any] = json.loads(line)
            return found
    raise ValueError("no JSON summary line found")


def cpu_from_scale(summary: Mapping[str, Any], k: int = 1, tickets: str = "tickets_hot_pool"
                   ) -> dict[str, tuple[float, float]]:
    """Per tier, (CPU ms per action, per ticket) at K replicas from a `make scale` summary;
    the load generator ("load") is no tier of the stack."""
    actions = summary["actions"][str(k)]["cpu_ms_per_op_by_tier"]
    placed = summary[tickets][str(k)]["cpu_ms_per_op_by_tier"]
    tiers = (set(actions) | set(placed)) - {"load"}
    return {t: (float(actions.get(t, 0.0)), float(placed.get(t, 0.0))) for t in sorted(tiers)}


def with_cpu(figures: Mapping[str, TierFigures], cpu: Mapping[str, tuple[float, float]]) -> dict[str, TierFigures]:
    """`figures` with the CPU of `cpu` wherever it has a tier; a tier only `cpu` knows joins."""
    merged = dict(figures)
    for tier, (per_action, per_ticket) in cpu.items():
        merged[tier] = replace(merged.get(tier, TierFigures(0.0, 0.0)), cpu_ms_per_action=per_action,
                               cpu_ms_per_ticket=per_ticket)
    return merged


def with_memory(figures: Mapping[str, TierFigures], measured: Mapping[str, Any]) -> dict[str, TierFigures]:
    """`figures` with the bytes per match and per stream and the idle sizes of a memory run,
    for the tiers `figures` knows (a tier without CPU figures would show as costing none)."""
    merged = dict(figures)
    for tier, per_match in measured["bytes_per_match"].items():
        if tier not in merged:
            continue
        merged[tier] = replace(merged.get(tier, TierFigures(0.0, 0.0)), bytes_per_match=max(0, per_match),
                               bytes_per_stream=max(0, measured["bytes_per_stream"].get(tier, 0)),
                               idle_bytes=measured["rss_idle"].get(tier, 0))
    return merged


def table(needs: Sequence[TierNeed], load: Load) -> str:
    lines = [f"{load.matches} matches at {load.actions_per_match_per_s:g} actions/s each "
             f"({load.actions_per_s:g} actions/s), {load.tickets_per_s:g} tickets/s, "
             f"{load.streams:g} streams",
             f"{'tier':<12}{'cores':>8}{'replicas':>10}{'cpu each':>10}{'memory each':>13}{'memory all':>12}"]
    for n in needs:
        lines.append(f"{n.tier:<12}{n.cores:>8.2f}{n.replicas:>10}{millicores(n.replica_cores):>10}"
                     f"{mebibytes(n.memory_bytes):>13}{mebibytes(n.memory_bytes * n.replicas):>12}")
    lines.append(f"{'total':<12}{sum(n.cores for n in needs):>8.2f}{sum(n.replicas for n in needs):>10}"
                 f"{'':>10}{'':>13}{mebibytes(sum(n.memory_bytes * n.replicas for n in needs)):>12}")
    if any(n.tier == "redis" for n in needs):
        lines.append("redis: replicas are the masters of a Redis Cluster (one thread each); its memory is the "
                     "matches in play only, not every match kept")
    return "\n".join(lines)


def _arguments(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m deploy.capacity", description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=2000)
    parser.add_argument("--actions-per-match-per-s", type=float, default=0.2)
    parser.add_argument("--tickets-per-s", type=float, default=20.0)
    parser.add_argument("--streams-per-match", type=float, default=2.0)
    parser.add_argument("--from", dest="scale", type=pathlib.Path, help="`make scale` output (its JSON line)")
    parser.add_argument("--k", type=int, default=1, help="the K of the scale run whose CPU per op to use")
    parser.add_argument("--tickets-workload", default="tickets_hot_pool", choices=("tickets_hot_pool", "tickets_pools"))
    parser.add_argument("--memory", type=pathlib.Path, help="`python -m bench.scale_memory` output")
    parser.add_argument("--replica-cores", type=float, help="every tier's replica size (default: the manifest's)")
    parser.add_argument("--utilisation", type=float, default=HPA_UTILISATION)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = _arguments(sys.argv[1:] if argv is None else argv)
    from deploy import kubernetes  # the recorded figures and the manifest's replica sizes

    figures: dict[str, TierFigures] = dict(kubernetes.MEASURED)
    if args.scale:
        figures = with_cpu(figures, cpu_from_scale(last_json(args.scale.read_text()), args.k, args.tickets_workload))
    if args.memory:
        figures = with_memory(figures, last_json(args.memory.read_text()))
    sizing = {t: replace(kubernetes.SIZING.get(t, Sizing()), utilisation=args.utilisation) for t in figures}
    if args.replica_cores:
        sizing = {t: replace(s, replica_cores=args.replica_cores) for t, s in sizing.items()}
    load = Load(args.matches, args.actions_per_match_per_s, args.tickets_per_s, args.streams_per_match)
    print(table(plan(figures, load, sizing), load))
    return 0


if __name__ == "__main__":
    sys.exit(main())
