"""Per-caller rate limits: a token bucket per key (a seat, or a peer address)."""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass

from services.common.errors import ResourceExhausted

MAX_KEYS = 100_000


@dataclass
class _Bucket:
    tokens: float
    stamp: float


class RateLimiter:
    """`rate` calls per second on average, bursts up to `burst`, per key."""

    def __init__(self, rate: float, burst: float) -> None:
        self._rate = rate
        self._burst = burst
        self._buckets: OrderedDict[str, _Bucket] = OrderedDict()

    def take(self, key: str, what: str) -> None:
        """Spend one token of `key`; ResourceExhausted when there is none."""
        if self._rate <= 0:
            return
        now = time.monotonic()
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = _Bucket(self._burst, now)
            if len(self._buckets) > MAX_KEYS:
                self._buckets.popitem(last=False)
        bucket.tokens = min(self._burst, bucket.tokens + (now - bucket.stamp) * self._rate)
        bucket.stamp = now
        if bucket.tokens < 1:
            raise ResourceExhausted(f"too many {what}; slow down", "rate_limited")
        bucket.tokens -= 1
        self._buckets.move_to_end(key)
