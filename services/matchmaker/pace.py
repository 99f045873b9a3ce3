"""How long a grouping pass waits for more arrivals: longer the busier the pools are.

A pass costs a few Redis round trips whatever it groups, so under load the
matchmaker's CPU per ticket falls as passes carry more tickets; when tickets
trickle in, waiting gathers nobody and only delays the match. The wait is the
configured window scaled by the recent arrival rate: the whole window from
`FULL_RATE` tickets a second up, a tenth of it at a tenth of that rate, never
less than `MIN_WAIT`; the rate follows a rush within a fraction of a second and
forgets it over about one. Measured (bench.matchmaking, one replica, 2,000 tickets of
a 2-seat game): a fixed 10 ms window gave the matchmaker 0.30-0.33 ms CPU per
ticket and 46 ms from FindMatch to assignment for a lone pair; a fixed 50 ms,
0.15-0.19 ms and 167 ms.
"""

from __future__ import annotations

import math

# Tickets a second at which a pass waits the whole window.
FULL_RATE = 200.0
# The shortest wait: lets arrivals of the same moment land in one pass.
MIN_WAIT = 0.002
# How fast the rate estimate follows the arrivals (seconds of history it mostly
# reflects): quickly up, so a rush is batched from its start, slowly down, so a
# lull between two busy moments does not undo it.
RISE_SECONDS = 0.2
FALL_SECONDS = 1.0


class Pace:
    """An arrival rate, smoothed, and the wait it calls for."""

    def __init__(self, window: float) -> None:
        self._window = window
        self._rate = 0.0
        self._at: float | None = None

    def arrived(self, count: int, now: float) -> None:
        """`count` tickets arrived at monotonic time `now`."""
        if self._at is None:
            self._at = now
            return
        elapsed = max(now - self._at, 1e-3)
        self._at = now
        seen = count / elapsed
        kept = math.exp(-elapsed / (RISE_SECONDS if seen > self._rate else FALL_SECONDS))
        self._rate = kept * self._rate + (1 - kept) * seen

    @property
    def rate(self) -> float:
        return self._rate

    def wait(self) -> float:
        """Seconds the next pass should wait for arrivals after the first."""
        return max(MIN_WAIT, self._window * min(1.0, self._rate / FULL_RATE))
