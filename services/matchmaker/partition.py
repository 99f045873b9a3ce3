"""Which replica groups which pool: rendezvous hashing over the live replicas.

Every replica announces itself on each grouping pass; a replica that has not
for `ttl` is gone. Each pool belongs to the live replica with the highest
hash of (pool, replica), so every replica computes the same owner from the
same membership, the pools spread evenly, and a replica joining or leaving
moves only the pools it takes or held (about 1/N of them). A pool's lease
still guards the moment two replicas briefly see different memberships; a
pool whose owner died waits at most `ttl` for its new owner.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence


def owner(pool: str, replicas: Sequence[str]) -> str:
    """The replica that groups `pool` (replicas must not be empty)."""
    return max(replicas, key=lambda replica: _weight(pool, replica))


def owned(pools: Iterable[str], replica: str, replicas: Sequence[str]) -> list[str]:
    """The pools `replica` groups; it counts itself live whatever it last read."""
    everyone = sorted({*replicas, replica})
    return [pool for pool in pools if owner(pool, everyone) == replica]


def _weight(pool: str, replica: str) -> bytes:
    return hashlib.blake2b(f"{pool}\x1f{replica}".encode(), digest_size=8).digest()
