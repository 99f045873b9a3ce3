"""Calls to the store per action, by command: INFO commandstats read before and
after a run, the difference divided by the run's actions.

Counts, unlike times, do not move with the machine's load: an action that
makes one more round trip shows it in any run, on any day.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import redis.asyncio as aioredis

# The readings' own calls that land between them: the first INFO is counted once it has
# answered, so the second reading holds it (and not itself).
OWN_CALLS = {"info": 1}


def calls(info: Mapping[str, Any]) -> dict[str, int]:
    """Calls so far by command, from redis-py's parsed INFO commandstats
    ({"cmdstat_xadd": {"calls": 3, "usec": ...}, ...})."""
    return {
        name.removeprefix("cmdstat_").lower(): int(stats["calls"])
        for name, stats in info.items()
        if name.startswith("cmdstat_")
    }


def per_action(before: Mapping[str, int], after: Mapping[str, int], actions: int) -> dict[str, float]:
    """Each command's calls between two readings, per action, without the readings' own."""
    if actions <= 0:
        return {}
    made = {command: count - before.get(command, 0) - OWN_CALLS.get(command, 0) for command, count in after.items()}
    return {command: n / actions for command, n in sorted(made.items()) if n > 0}


class Commands:
    """Readings of one server's command counters around a run (inside one event loop)."""

    def __init__(self, url: str) -> None:
        self._client = aioredis.Redis.from_url(url)
        self._before: dict[str, int] = {}

    async def start(self) -> None:
        self._before = calls(await self._client.info("commandstats"))

    async def stop(self, actions: int) -> dict[str, float]:
        """Calls per action since `start`; the connection is closed after."""
        try:
            return per_action(self._before, calls(await self._client.info("commandstats")), actions)
        finally:
            await self._client.aclose()
