"""A hot pool split into sub-pools: names, owners, stragglers (services/matchmaker/partition.py, pool.py)."""

from __future__ import annotations

from collections import Counter

from services.matchmaker import partition
from services.matchmaker.config import MatchmakerConfig
from services.matchmaker.pool import Ticket, form_groups, stragglers
from services.matchmaker.store import pool_name

POOL = pool_name("pig", {})
ODD = pool_name("pig", {"target": "a}#3"})  # an option value that looks like a sub-pool's mark
IDS = [f"ticket-{i}" for i in range(4000)]


def test_one_shard_keeps_every_ticket_in_the_pool_itself():
    assert {partition.sub_pool(POOL, t, 1) for t in IDS} == {POOL}


def test_tickets_spread_evenly_over_the_sub_pools_and_each_names_its_pool():
    counts = Counter(partition.sub_pool(POOL, t, 8) for t in IDS)
    assert len(counts) == 8 and all(400 <= n <= 600 for n in counts.values()), counts
    assert {partition.home(name) for name in counts} == {POOL}
    assert sorted(partition.split(name)[1] for name in counts) == list(range(8))


def test_a_pool_whose_options_look_like_a_sub_pool_is_still_its_own_pool():
    assert partition.split(ODD) == (ODD, 0)
    assert partition.split(f"{ODD}#3") == (ODD, 3)
    assert partition.split(f"{POOL}#0") == (f"{POOL}#0", 0)  # never made: no shard 0 suffix


def test_the_sub_pools_of_a_pool_go_evenly_to_the_replicas():
    shards = [POOL] + [f"{POOL}#{s}" for s in range(1, 8)]
    for replicas in (["mm-a"], ["mm-a", "mm-b"], ["mm-a", "mm-b", "mm-c", "mm-d"]):
        owners = Counter(partition.owner(name, replicas) for name in shards)
        assert sorted(owners.values()) == [8 // len(replicas)] * len(replicas), owners
        # Every replica computes the same owners from the same membership, in any order.
        assert all(partition.owner(n, replicas) == partition.owner(n, replicas[::-1]) for n in shards)
    # Sub-pool 0 is the pool itself: the owner it always had.
    assert partition.owner(POOL, ["mm-a", "mm-b"]) == max(["mm-a", "mm-b"], key=lambda r: partition._weight(POOL, r))


def test_many_hot_pools_each_split_evenly():
    pools = [pool_name("pig", {"target": str(i)}) for i in range(8)]
    names = [p if s == 0 else f"{p}#{s}" for p in pools for s in range(4)]
    replicas = ["mm-a", "mm-b", "mm-c", "mm-d"]
    shares = [partition.owned(names, r, replicas) for r in replicas]
    assert sorted(n for share in shares for n in share) == sorted(names)
    assert [len(share) for share in shares] == [8, 8, 8, 8]


def _ticket(i: int, queued: float, rating: float = 25.0) -> Ticket:
    return Ticket(f"t{i}", f"p{i}", 2, 2, rating, queued)


def test_stragglers_are_the_unseated_tickets_that_waited_long_enough():
    tickets = [_ticket(0, 0.0), _ticket(1, 0.1), _ticket(2, 0.2), _ticket(3, 9.8)]
    groups = form_groups(tickets[:2], 10.0, MatchmakerConfig())
    late = stragglers(tickets, groups, now=10.0, after=0.5)
    assert [t.ticket_id for t in late] == ["t2"]  # t0, t1 seated; t3 has waited only 0.2 s
