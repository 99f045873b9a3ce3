"""Which replica groups which pool: rendezvous hashing over the live replicas.

Every replica announces itself on each grouping pass; a replica that has not
for `ttl` is gone. Each pool belongs to the live replica with the highest
hash of (pool, replica), so every replica computes the same owner from the
same membership, the pools spread evenly, and a replica joining or leaving
moves only the pools it takes or held (about 1/N of them). A pool's lease
still guards the moment two replicas briefly see different memberships; a
pool whose owner died waits at most `ttl` for its new owner.

A hot pool is split into sub-pools (`sub_pool`): each ticket lands in one of
`shards` by a hash of its id, so one pool's grouping and formation are spread
over the replicas instead of bounded by one. Sub-pool 0 is the pool itself
(with one shard nothing changes); sub-pool s > 0 is named `<pool>#<s>`, which
no pool name is (a pool's name ends with its canonical JSON options, "}").
The sub-pools of one pool go to the live replicas in the order of their hash
of the pool (`owner`): sub-pool s to the s-th modulo their number, so S
sub-pools over K replicas give each S/K when K divides S, where hashing each
sub-pool apart would leave some replica with one more than its share. A
ticket that waited too long in a sub-pool is moved to sub-pool 0, where the
stragglers of all of them meet (pool.py `stragglers`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence

_SUB_POOL = re.compile(r"(?s)(.*\})#([1-9][0-9]*)")


def owner(pool: str, replicas: Sequence[str]) -> str:
    """The replica that groups `pool` or sub-pool `pool` (replicas must not be empty)."""
    base, shard = split(pool)
    if shard == 0:
        return max(replicas, key=lambda replica: _weight(base, replica))
    ranked = sorted(replicas, key=lambda replica: (_weight(base, replica), replica), reverse=True)
    return ranked[shard % len(ranked)]


def sub_pool(pool: str, ticket_id: str, shards: int) -> str:
    """The sub-pool of `pool` a new ticket waits in: one of `shards`, by its id."""
    if shards <= 1:
        return pool
    shard = int.from_bytes(hashlib.blake2b(ticket_id.encode(), digest_size=4).digest(), "big") % shards
    return pool if shard == 0 else f"{pool}#{shard}"


def split(name: str) -> tuple[str, int]:
    """(the pool, the shard) a pool or sub-pool name stands for; shard 0 is the pool itself."""
    found = _SUB_POOL.fullmatch(name)
    return (found.group(1), int(found.group(2))) if found else (name, 0)


def home(name: str) -> str:
    """The pool a sub-pool belongs to (a pool is its own)."""
    return split(name)[0]


def owned(pools: Iterable[str], replica: str, replicas: Sequence[str]) -> list[str]:
    """The pools `replica` groups; it counts itself live whatever it last read."""
    everyone = sorted({*replicas, replica})
    return [pool for pool in pools if owner(pool, everyone) == replica]


def _weight(pool: str, replica: str) -> bytes:
    return hashlib.blake2b(f"{pool}\x1f{replica}".encode(), digest_size=8).digest()
