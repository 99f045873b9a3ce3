"""Pools partitioned among matchmaker replicas by rendezvous hashing."""

from __future__ import annotations

from collections import Counter

from services.matchmaker import partition

POOLS = [f"pig/2/opts-{i}" for i in range(600)]


def test_every_pool_has_exactly_one_owner_whoever_computes_it():
    replicas = ["mm-a", "mm-b", "mm-c"]
    shares = [partition.owned(POOLS, replica, replicas) for replica in replicas]
    assert sorted(pool for share in shares for pool in share) == sorted(POOLS)
    # Every replica computes the same owner from the same membership, in any order.
    assert all(partition.owner(p, replicas) == partition.owner(p, list(reversed(replicas))) for p in POOLS)


def test_the_pools_spread_evenly():
    counts = Counter(partition.owner(pool, ["mm-a", "mm-b", "mm-c"]) for pool in POOLS)
    assert all(150 <= n <= 250 for n in counts.values()), counts


def test_a_replica_leaving_moves_only_its_own_pools_and_one_joining_takes_about_its_share():
    before = {p: partition.owner(p, ["mm-a", "mm-b", "mm-c"]) for p in POOLS}
    without_c = {p: partition.owner(p, ["mm-a", "mm-b"]) for p in POOLS}
    assert all(without_c[p] == before[p] for p in POOLS if before[p] != "mm-c")
    with_d = {p: partition.owner(p, ["mm-a", "mm-b", "mm-c", "mm-d"]) for p in POOLS}
    moved = [p for p in POOLS if with_d[p] != before[p]]
    assert all(with_d[p] == "mm-d" for p in moved) and 100 <= len(moved) <= 200


def test_a_replica_that_read_a_membership_without_itself_still_counts_itself():
    assert partition.owned(POOLS, "mm-new", []) == POOLS
    mine = partition.owned(POOLS, "mm-new", ["mm-a"])
    assert 0 < len(mine) < len(POOLS)
