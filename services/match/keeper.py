"""The clock keeper: wakes up at clocked matches' deadlines and applies the policy,
and at idle lobbies' to close them (services/match/timekeeping.py `Timekeeper.wake`).

Every match replica runs one. It polls the wake-up list (deadlines.py) a few
times a second, claims what is due, asks the timekeeper to time out every seat
whose deadline has passed (Timekeeper.expire: the deadline is read from the log,
the timeout appended as events) and settles the wake-up at the match's next
deadline. Nothing lives only in this process: a keeper killed at any point
leaves its claims to run out, and the next poll of any replica (this one
restarted, or another) picks them up.
"""

from __future__ import annotations

import asyncio

from services.common import logging as tlog
from services.common.errors import NotFound, ServiceError
from services.match.timekeeping import Timekeeper

log = tlog.get("keeper")
POLL_SECONDS = 0.2
# How long a claim holds before another keeper may take the match.
CLAIM_MS = 3_000
BATCH = 100


class ClockKeeper:
    def __init__(self, clocks: Timekeeper, poll_seconds: float = POLL_SECONDS) -> None:
        self._clocks = clocks
        self._poll = poll_seconds

    async def run(self) -> None:
        """Poll until cancelled; a failed look is retried when its claim runs out."""
        while True:
            try:
                await self.sweep()
            except asyncio.CancelledError:
                raise
            except Exception as error:  # noqa: BLE001 - the keeper must outlive a failed poll (Redis away)
                log.warning("keeper_poll_failed", error=str(error))
            await asyncio.sleep(self._poll)

    async def sweep(self) -> int:
        """Look at every match due now; how many were looked at."""
        now = self._clocks.now_ms()
        due = await self._clocks.deadlines.claim(now, CLAIM_MS, BATCH)
        for match_id, claimed in due:
            try:
                next_ms = await self._clocks.wake(match_id)
            except NotFound:
                next_ms = None
            except ServiceError as error:
                log.warning("clock_expire_failed", match_id=match_id, reason=error.reason)
                continue
            await self._clocks.deadlines.settle(match_id, claimed, next_ms)
        return len(due)
