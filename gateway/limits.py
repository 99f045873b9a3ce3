"""Per-caller limits, keyed by any string (a seat, a peer address, a player id):
token-bucket rates and concurrency counts, and the gateway's set of them."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass

from services.common.config import Settings
from services.common.errors import ResourceExhausted
from services.common.lru import LRU

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
        self._buckets: LRU[str, _Bucket] = LRU(MAX_KEYS)

    def take(self, key: str, what: str) -> None:
        """Spend one token of `key`; ResourceExhausted when there is none."""
        if self._rate <= 0:
            return
        now = time.monotonic()
        bucket = self._buckets.peek(key)
        if bucket is None:
            bucket = self._buckets.put(key, _Bucket(self._burst, now))
        bucket.tokens = min(self._burst, bucket.tokens + (now - bucket.stamp) * self._rate)
        bucket.stamp = now
        if bucket.tokens < 1:
            raise ResourceExhausted(f"too many {what}; slow down", "rate_limited")
        bucket.tokens -= 1
        self._buckets.put(key, bucket)  # the newest: a refused take leaves its place


class Concurrency:
    """At most `limit` at once per key; a key's count is forgotten at zero."""

    def __init__(self, limit: int, what: str) -> None:
        self._limit = limit
        self._what = what
        self._held: dict[str, int] = {}

    def held(self, key: str) -> int:
        return self._held.get(key, 0)

    @contextlib.contextmanager
    def hold(self, key: str) -> Iterator[None]:
        """One slot of `key` for the block; ResourceExhausted when all are taken."""
        if self._limit <= 0:
            yield
            return
        if self.held(key) >= self._limit:
            raise ResourceExhausted(f"too many {self._what} at once; retry later", "caller.too_many")
        self._held[key] = self.held(key) + 1
        try:
            yield
        finally:
            left = self._held[key] - 1
            if left:
                self._held[key] = left
            else:
                del self._held[key]


# Gateway methods that hold a stream open; every other method is a unary call.
STREAMS = frozenset({"WatchMatch", "Play", "WatchTicket", "Queue"})
# Methods that queue a ticket: each spends one of the address's ticket rate.
TICKETS = frozenset({"FindMatch", "Queue"})


class CallerLimits:
    """Per-caller limits at the gateway, keyed by any string.

    The interceptor applies them per peer address (`admit`); code that knows a
    verified player id applies the same limits to it with the methods below,
    e.g. `limits.check_create(player_id)` before creating a match."""

    def __init__(self, settings: Settings) -> None:
        self.calls = Concurrency(settings.caller_calls, "calls")
        self.streams = Concurrency(settings.caller_streams, "open streams")
        self.creates = RateLimiter(settings.caller_create_rate, settings.caller_create_burst)
        self.tickets = RateLimiter(settings.caller_ticket_rate, settings.caller_ticket_burst)
        self.sign_ins = RateLimiter(settings.caller_signin_rate, settings.caller_signin_burst)

    def check_create(self, key: str) -> None:
        """Spend one CreateMatch of `key`; ResourceExhausted past the rate."""
        self.creates.take(key, "matches created")

    def check_ticket(self, key: str) -> None:
        """Spend one FindMatch of `key`; ResourceExhausted past the rate."""
        self.tickets.take(key, "match requests")

    def call(self, key: str) -> contextlib.AbstractContextManager[None]:
        """Hold one concurrent unary call of `key` for the block."""
        return self.calls.hold(key)

    def stream(self, key: str) -> contextlib.AbstractContextManager[None]:
        """Hold one open stream of `key` for the block."""
        return self.streams.hold(key)

    @contextlib.contextmanager
    def admit(self, method: str, peer: str) -> Iterator[None]:
        """The server's admission hook: the limits of the caller's address."""
        key = peer_address(peer)
        if method in TICKETS:
            self.check_ticket(key)
        if method in STREAMS:
            with self.stream(key):
                yield
            return
        if method == "CreateMatch":
            self.check_create(key)
        elif method in ("Authenticate", "RefreshSession"):
            # Each new device or custom id is a new player: bound how fast one address makes them.
            self.sign_ins.take(key, "sign-ins")
        with self.call(key):
            yield


def peer_address(peer: str) -> str:
    """The caller's address without its port: 'ipv4:10.0.0.7:51234' -> 'ipv4:10.0.0.7'.
    Every connection of one host shares its limits."""
    kind, _, rest = peer.partition(":")
    if kind in ("ipv4", "ipv6") and ":" in rest:
        return f"{kind}:{rest.rsplit(':', 1)[0]}"
    return peer
