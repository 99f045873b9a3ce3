"""Provably fair randomness: every roll and permutation from a secret seed.

Pure functions of (seed, counter). The seed's SHA-256 is published when a
match is created; when it ends the seed is revealed and anyone can recompute
each outcome from the counter recorded next to it in the log.

Each draw uses HMAC-SHA256(seed, "<kind>:<counter>:<index>:<attempt>") as a
256-bit number; a value is accepted only below the largest multiple of the
range, so every face is exactly equally likely (rejection sampling).

A roll window (`window`) is, for a run of draw numbers and dice indices, the
attempt-0 digests of those rolls: whoever holds it computes exactly the values
`roll` gives (`roll_from_window`), except where attempt 0 is rejected (odds below
faces / 2**256), when it must ask for the roll itself. Permutations use other
labels ("perm:..."), so no window says anything about a shuffle.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

SEED_BYTES = 32
DIGEST_BYTES = 32
_SPACE = 1 << 256
# The largest die the dice service rolls (and a window answers for).
MAX_FACES = 1_000_000


@dataclass(frozen=True)
class Window:
    """The attempt-0 roll digests of draw numbers first..first+counters-1, dice 0..dice-1:
    `digests` is their concatenation, draw number by draw number, die by die."""

    first: int
    dice: int
    digests: bytes

    @property
    def counters(self) -> int:
        return len(self.digests) // (DIGEST_BYTES * self.dice) if self.dice > 0 else 0

    @property
    def end(self) -> int:
        """The first draw number past the window."""
        return self.first + self.counters

    def covers(self, counter: int, count: int) -> bool:
        return self.first <= counter < self.end and 0 <= count <= self.dice

    def since(self, counter: int, counters: int) -> Window:
        """At most `counters` draw numbers of this window from `counter` on (empty past its end)."""
        start = min(max(counter, self.first), self.end)
        stop = min(start + max(counters, 0), self.end)
        size = DIGEST_BYTES * self.dice
        return Window(start, self.dice, self.digests[(start - self.first) * size : (stop - self.first) * size])

    def then(self, following: Window) -> Window:
        """This window followed by `following`, which starts at its end."""
        if following.first != self.end or following.dice != self.dice:
            raise ValueError("a window continues only from the end of one with as many dice")
        return Window(self.first, self.dice, self.digests + following.digests)


def new_seed() -> bytes:
    """A fresh 256-bit secret seed."""
    return secrets.token_bytes(SEED_BYTES)


def commitment(seed: bytes) -> str:
    """The public SHA-256 commitment to `seed`, hex encoded."""
    return hashlib.sha256(seed).hexdigest()


def _digest(seed: bytes, label: str, attempt: int) -> bytes:
    return hmac.new(seed, f"{label}:{attempt}".encode(), hashlib.sha256).digest()


def _limit(bound: int) -> int:
    """Values at or above this are rejected: below it, every residue mod `bound` is equally frequent."""
    return _SPACE - (_SPACE % bound)


def _uniform(seed: bytes, label: str, bound: int) -> int:
    """A uniform integer in [0, bound) derived from `seed` and `label`."""
    limit = _limit(bound)
    attempt = 0
    while True:
        value = int.from_bytes(_digest(seed, label, attempt), "big")
        if value < limit:
            return value % bound
        attempt += 1


def roll(seed: bytes, counter: int, faces: int, count: int) -> tuple[int, ...]:
    """`count` dice with faces 1..`faces`, draw number `counter` of the match."""
    if faces < 1 or count < 0:
        raise ValueError("a die needs at least one face")
    return tuple(1 + _uniform(seed, f"roll:{counter}:{i}", faces) for i in range(count))


def window(seed: bytes, first: int, counters: int, dice: int) -> Window:
    """The roll window of draw numbers first..first+counters-1, `dice` dice each."""
    if first < 0 or counters < 0 or dice < 1:
        raise ValueError("a window starts at a draw number and holds at least one die")
    parts = [_digest(seed, f"roll:{c}:{i}", 0) for c in range(first, first + counters) for i in range(dice)]
    return Window(first, dice, b"".join(parts))


def roll_from_window(held: Window, counter: int, faces: int, count: int) -> tuple[int, ...] | None:
    """What `roll(seed, counter, faces, count)` gives, from a window of that seed; None when
    the window does not cover the roll or attempt 0 of a die is rejected (then only the
    seed can say: ask the dice)."""
    if faces < 1 or count < 0:
        raise ValueError("a die needs at least one face")
    if not held.covers(counter, count):
        return None
    limit = _limit(faces)
    start = (counter - held.first) * held.dice * DIGEST_BYTES
    values = []
    for i in range(count):
        at = start + i * DIGEST_BYTES
        value = int.from_bytes(held.digests[at : at + DIGEST_BYTES], "big")
        if value >= limit:
            return None
        values.append(1 + value % faces)
    return tuple(values)


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
