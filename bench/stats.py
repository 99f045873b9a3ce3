"""Latency percentiles and rates, the same arithmetic for every side of the bench."""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any


def percentile(samples: Sequence[float], q: float) -> float:
    """The nearest-rank percentile: the smallest sample with at least `q` of all at or below it."""
    if not samples:
        return 0.0
    if not 0 < q <= 1:
        raise ValueError(f"q must be in (0, 1], got {q}")
    ordered = sorted(samples)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


@dataclass(frozen=True)
class Run:
    """One measured run: what was done, in what time, with what server CPU."""

    count: int  # actions, moves or calls
    wall_seconds: float
    cpu_seconds: float
    p50_ms: float
    p99_ms: float
    # CPU seconds by process name (where measured): what the total is made of.
    cpu_by_process: dict[str, float] = field(default_factory=dict)
    # Calls to the store by command, per action (where measured): bench/redisstats.py.
    redis_per_action: dict[str, float] = field(default_factory=dict)

    @property
    def per_second(self) -> float:
        return self.count / self.wall_seconds if self.wall_seconds else 0.0

    @property
    def cpu_ms_each(self) -> float:
        return 1000 * self.cpu_seconds / self.count if self.count else math.inf

    def figures(self) -> dict[str, Any]:
        found: dict[str, Any] = {**asdict(self), "per_second": self.per_second, "cpu_ms_each": self.cpu_ms_each}
        found["cpu_ms_by_process"] = {
            name: 1000 * used / self.count for name, used in self.cpu_by_process.items() if self.count and used > 0
        }
        del found["cpu_by_process"]
        return found


def run_of(
    latencies: Sequence[float],
    wall_seconds: float,
    cpu_seconds: float | None = None,
    cpu_by_process: dict[str, float] | None = None,
) -> Run:
    """A Run from latencies in seconds (one per action); its CPU given, or the sum of the split."""
    split = cpu_by_process or {}
    return Run(
        count=len(latencies),
        wall_seconds=wall_seconds,
        cpu_seconds=sum(split.values()) if cpu_seconds is None else cpu_seconds,
        p50_ms=1000 * percentile(latencies, 0.5),
        p99_ms=1000 * percentile(latencies, 0.99),
        cpu_by_process=split,
    )


def ratio(a: float, b: float) -> float:
    """a / b, or NaN when b is zero or either is not a finite number (printed as "-")."""
    return a / b if b and math.isfinite(a) and math.isfinite(b) else math.nan


def median(values: Iterable[float]) -> float:
    """The median of the finite values, NaN when there are none."""
    kept = [v for v in values if math.isfinite(v)]
    return statistics.median(kept) if kept else math.nan


def median_of_ratios(pairs: Iterable[tuple[float, float]]) -> float:
    """The median over repetitions of a / b, each pair measured in the same repetition: a drift
    in the machine's speed between repetitions cancels in each ratio, as it would not in the
    ratio of the two medians."""
    return median(ratio(a, b) for a, b in pairs)
