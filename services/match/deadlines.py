"""When to look at a clocked match again: one sorted set of match id -> unix ms.

The set is only a wake-up list; the deadlines themselves are in each match's
log (services/match/clocks.py). A batch's earliest deadline is scheduled
BEFORE the batch is appended (`schedule` only ever brings a wake-up earlier),
so a process killed between the two leaves at worst a wake-up with nothing
due, never a deadline nobody watches. A keeper claims what is due by pushing
its score a lease ahead (a claimer that dies is retried when the lease ends),
then settles it at the match's next deadline, unless a batch scheduled an
earlier one meanwhile.

Lobbies use the same list to expire (Timekeeper.wake): every batch that leaves a
match in the lobby first `postpone`s its wake-up to when it would be idle, so
the list only ever says "due" once no lobby command has been written for the
idle time. A postpone that lands and an append that does not (a refusal, a
crash) makes the lobby expire late, never early.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import redis.asyncio as aioredis

DEADLINES_KEY = "tabletop:clock-deadlines"

# Claim what is due: push each a lease ahead, answer [id, claimed score, ...].
_CLAIM = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
local out = {}
for _, id in ipairs(due) do
  redis.call('ZADD', KEYS[1], ARGV[2], id)
  out[#out + 1] = id
end
return out
"""

# Settle a claimed wake-up: only if nobody rescheduled it since the claim.
_SETTLE = """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or tonumber(score) ~= tonumber(ARGV[2]) then return 0 end
if ARGV[3] == '' then redis.call('ZREM', KEYS[1], ARGV[1]) else redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1]) end
return 1
"""


class Deadlines(Protocol):
    async def schedule(self, match_id: str, at_ms: int) -> None:
        """Wake up for `match_id` at `at_ms`, or earlier if already asked to."""

    async def postpone(self, match_id: str, at_ms: int) -> None:
        """Wake up for `match_id` at `at_ms`, or later if already asked to (a lobby's idle time)."""

    async def claim(self, now_ms: int, lease_ms: int, limit: int) -> list[tuple[str, int]]:
        """The matches due by `now_ms`, each with the score it is claimed at."""

    async def settle(self, match_id: str, claimed_ms: int, next_ms: int | None) -> None:
        """After a claimed match was looked at: its next wake-up (None: none)."""


class MemoryDeadlines:
    def __init__(self) -> None:
        self._due: dict[str, int] = {}

    async def schedule(self, match_id: str, at_ms: int) -> None:
        self._due[match_id] = min(at_ms, self._due.get(match_id, at_ms))

    async def postpone(self, match_id: str, at_ms: int) -> None:
        self._due[match_id] = max(at_ms, self._due.get(match_id, at_ms))

    async def claim(self, now_ms: int, lease_ms: int, limit: int) -> list[tuple[str, int]]:
        due = sorted((at, m) for m, at in self._due.items() if at <= now_ms)[:limit]
        for _, match_id in due:
            self._due[match_id] = now_ms + lease_ms
        return [(match_id, now_ms + lease_ms) for _, match_id in due]

    async def settle(self, match_id: str, claimed_ms: int, next_ms: int | None) -> None:
        if self._due.get(match_id) != claimed_ms:
            return
        if next_ms is None:
            del self._due[match_id]
        else:
            self._due[match_id] = next_ms

    def pending(self) -> dict[str, int]:
        return dict(self._due)


class RedisDeadlines:
    def __init__(self, redis: aioredis.Redis) -> None:
        self._redis = redis
        self._claim = redis.register_script(_CLAIM)
        self._settle = redis.register_script(_SETTLE)

    async def schedule(self, match_id: str, at_ms: int) -> None:
        # LT: only ever earlier (a new member is added as it is).
        await self._redis.zadd(DEADLINES_KEY, {match_id: at_ms}, lt=True)

    async def postpone(self, match_id: str, at_ms: int) -> None:
        # GT: only ever later (a new member is added as it is).
        await self._redis.zadd(DEADLINES_KEY, {match_id: at_ms}, gt=True)

    async def claim(self, now_ms: int, lease_ms: int, limit: int) -> list[tuple[str, int]]:
        claimed = now_ms + lease_ms
        ids = await self._claim(keys=[DEADLINES_KEY], args=[now_ms, claimed, limit])
        return [(i.decode() if isinstance(i, bytes) else str(i), claimed) for i in ids]

    async def settle(self, match_id: str, claimed_ms: int, next_ms: int | None) -> None:
        await self._settle(keys=[DEADLINES_KEY], args=[match_id, claimed_ms, "" if next_ms is None else next_ms])
