"""What splitting a hot pool costs in match quality: the real grouping (pool.py) over
simulated arrivals, one pool against the same pool split into sub-pools.

Players arrive at RATE a second (ratings normal around 25, sigma 8, as openskill's
spread after some games), each ticket to a sub-pool by its id (partition.sub_pool);
each sub-pool is grouped every PASS seconds, and at each tick a sub-pool's
stragglers older than `shard_merge_after` move to sub-pool 0 (pool.stragglers),
as the replicas do. Reported: rating spread of formed 2-seat matches (mean and
p99 of |a - b|) and the wait from arrival to grouping (p50, p99).

`python -m bench.scale_quality` prints one JSON line.
"""

from __future__ import annotations

import json
import random
from typing import Any

from services.matchmaker import partition
from services.matchmaker.config import MatchmakerConfig
from services.matchmaker.pool import Ticket, form_groups, stragglers

PASS = 0.05
TICK = 0.25


def simulate(rate: float, shards: int, seconds: float = 120.0, seed: int = 7) -> dict[str, Any]:
    config = MatchmakerConfig(pool_shards=shards)
    rng = random.Random(seed)
    pools: dict[str, list[Ticket]] = {}
    spreads: list[float] = []
    waits: list[float] = []
    now, n, next_arrival, next_tick = 0.0, 0, rng.expovariate(rate), TICK
    while now < seconds:
        now += PASS
        while next_arrival <= now:
            ticket = Ticket(f"t{n}", f"p{n}", 2, 2, rng.gauss(25.0, 8.0), next_arrival)
            pools.setdefault(partition.sub_pool("pig:{}", ticket.ticket_id, shards), []).append(ticket)
            n += 1
            next_arrival += rng.expovariate(rate)
        tick = now >= next_tick
        if tick:
            next_tick += TICK
        for name in list(pools):
            groups = form_groups(pools[name], now, config)
            for group in groups:
                a, b = group.tickets
                spreads.append(abs(a.rating - b.rating))
                waits += [now - a.queued_at, now - b.queued_at]
            seated = {t.ticket_id for g in groups for t in g.tickets}
            left = [t for t in pools[name] if t.ticket_id not in seated]
            if tick and partition.home(name) != name:
                late = {t.ticket_id for t in stragglers(left, [], now, config.shard_merge_after)}
                pools.setdefault(partition.home(name), []).extend(t for t in left if t.ticket_id in late)
                left = [t for t in left if t.ticket_id not in late]
            pools[name] = left
    return {"rate": rate, "shards": shards, "matches": len(spreads),
            "spread_mean": round(sum(spreads) / max(1, len(spreads)), 2), "spread_p99": round(_q(spreads, 0.99), 2),
            "wait_p50_ms": round(1000 * _q(waits, 0.5)), "wait_p99_ms": round(1000 * _q(waits, 0.99))}


def _q(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] if ordered else 0.0


def run() -> list[dict[str, Any]]:
    return [simulate(rate, shards) for rate in (2.0, 20.0, 200.0) for shards in (1, 4)]


if __name__ == "__main__":
    print(json.dumps(run()))
