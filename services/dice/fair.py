"""Provably fair randomness: every roll and permutation from a secret seed.

Pure functions of (seed, counter). The seed's SHA-256 is published when a
match is created; when it ends the seed is revealed and anyone can recompute
each outcome from the counter recorded next to it in the log.

Each draw uses HMAC-SHA256(seed, "<kind>:<counter>:<index>:<attempt>") as a
256-bit number; a value is accepted only below the largest multiple of the
range, so every face is exactly equally likely (rejection sampling).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

SEED_BYTES = 32
_SPACE = 1 << 256


def new_seed() -> bytes:
    """A fresh 256-bit secret seed."""
    return secrets.token_bytes(SEED_BYTES)


def commitment(seed: bytes) -> str:
    """The public SHA-256 commitment to `seed`, hex encoded."""
    return hashlib.sha256(seed).hexdigest()


def _uniform(seed: bytes, label: str, bound: int) -> int:
    """A uniform integer in [0, bound) derived from `seed` and `label`."""
    limit = _SPACE - (_SPACE % bound)
    attempt = 0
    while True:
        digest = hmac.new(seed, f"{label}:{attempt}".encode(), hashlib.sha256).digest()
        value = int.from_bytes(digest, "big")
        if value < limit:
            return value % bound
        attempt += 1


def roll(seed: bytes, counter: int, faces: int, count: int) -> tuple[int, ...]:
    """`count` dice with faces 1..`faces`, draw number `counter` of the match."""
    if faces < 1 or count < 0:
        raise ValueError("a die needs at least one face")
    return tuple(1 + _uniform(seed, f"roll:{counter}:{i}", faces) for i in range(count))


def permutation(seed: bytes, counter: int, n: int) -> tuple[int, ...]:
    """A uniform permutation of range(n) (Fisher-Yates), draw number `counter`."""
    order = list(range(n))
    for i in range(n - 1, 0, -1):
        j = _uniform(seed, f"perm:{counter}:{i}", i + 1)
        order[i], order[j] = order[j], order[i]
    return tuple(order)


def shuffled(seed: bytes, counter: int, cards: tuple[str, ...]) -> tuple[str, ...]:
    """`cards` in the order of permutation number `counter`, top card first."""
    return tuple(cards[i] for i in permutation(seed, counter, len(cards)))
