"""Work shared by replicas through a Redis stream and its consumer group.

Each entry is delivered to one replica and stays in that replica's pending
list until it is acknowledged. While a replica works on an entry it keeps the
entry's idle time low (a heartbeat XCLAIM to itself); an entry idle longer
than `idle_ms` belongs to a replica that died or failed it, and any replica
takes it over with XAUTOCLAIM. Handlers are therefore idempotent: an entry
may be handled twice, never lost.

A replica that only stalled (alive but slow) may still be handling an entry
another replica has taken over. Its handler then raises Aborted (it lost the
entry: see the formation epochs in store.py), and the entry is left
unacknowledged: acknowledging it would drop the job from the new holder's
pending list, and a crash of that holder would lose it. The heartbeat
refreshes only the entries this replica still holds, and cancels its work on
the others, so a replica waking from a stall neither takes its entries back
nor keeps working on them.

An entry whose handler keeps failing is not redelivered forever: each failure
is counted (in Redis, so it survives the replica), and the entry that fails
`max_failures` times is handed to the queue's `on_dead` hook (which settles
what the entry held, e.g. a formation's tickets) and then moved, with its last
error, to the dead-letter stream `<stream>:dead` and acknowledged, in one
script. Failures that say only "try later" (Unavailable: the match service or
Redis away) are not counted: an outage delays work, it does not kill it.

A queue with a batch handler (`handle_many`) reads as a group commit: at most
`batches` batches at once, and each read takes every entry that arrived
while they ran (up to `batch_limit`), handed to the batch handler together.
What the batch handler finishes is acknowledged in one call; what it says
another replica holds is left pending; anything else (or everything, if it
raises) goes through the one-entry handler above, with its failure counts
and dead letters. Entries claimed back from a dead replica always take the
one-entry path. An entry of a running batch that another consumer takes over
is not cancelled with the batch (the batch holds others too): it is marked
lost, and neither acknowledged nor retried alone by this consumer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping

import redis.asyncio as aioredis
from prometheus_client import Counter
from redis.exceptions import ResponseError

from services.common import logging as tlog
from services.common.errors import Aborted, Unavailable
from services.common.redis.commands import commands

log = tlog.get("matchmaker.claims")
DEAD_LETTERS = Counter("tabletop_work_dead_letters_total", "Work entries moved to a dead-letter stream after "
                       "failing too often", ["stream"])
# How long a failure count outlives its entry's last failure (an entry done since leaves it behind).
FAILURES_TTL = 86_400

# KEYS: stream, dead stream, failures. ARGV: group, entry id, error, failures, then field, value...
# Moves the entry to the dead-letter stream and acknowledges it, at once: never both lost and
# still pending, never dead twice (a second call finds it acknowledged and does nothing).
_BURY = """
local held = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[2], ARGV[2], 1)
if not held[1] then return 0 end
local fields = {'entry', ARGV[2], 'error', ARGV[3], 'failures', ARGV[4]}
for i = 5, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('XADD', KEYS[2], 'MAXLEN', '~', 10000, '*', unpack(fields))
redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])
redis.call('DEL', KEYS[3])
return 1
"""

# KEYS: stream. ARGV: group, consumer, entry ids... Resets the idle time of the entries this
# consumer still holds; returns those another consumer holds now. (An entry no longer pending is
# left alone: most likely our own acknowledgement crossed this call.)
_HEARTBEAT = """
local lost = {}
for i = 3, #ARGV do
  local held = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[i], ARGV[i], 1)
  if held[1] then
    if held[1][2] == ARGV[2] then
      redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[i], 'JUSTID')
    else
      lost[#lost + 1] = ARGV[i]
    end
  end
end
return lost
"""

Handler = Callable[[str, Mapping[bytes, bytes]], Awaitable[None]]
"""Called with (entry id, fields); the entry is acknowledged when it returns, and left pending
when it raises (Aborted: another replica holds the entry now)."""

BatchHandler = Callable[[list[tuple[str, Mapping[bytes, bytes]]]], Awaitable[dict[str, bool]]]
"""Called with entries read together: entry id -> True for each it finished (acknowledged, all in
one call), False for each it must leave pending (another replica holds it now); an entry it does
not answer, or every entry when it raises, goes through the one-entry Handler."""

OnDead = Callable[[str, Mapping[bytes, bytes], str], Awaitable[None]]
"""Called with (entry id, fields, last error) before an entry moves to the dead-letter stream;
if it raises, the entry stays pending and is tried again."""


# How often a consumer that takes no new entries looks again (WorkQueue's `taking`).
TAKING_RECHECK_S = 0.1


def dead_letters(stream: str) -> str:
    """The dead-letter stream of a work stream."""
    return f"{stream}:dead"


class WorkQueue:
    """One replica's share of the entries of `stream` under consumer group `group`."""

    def __init__(self, client: aioredis.Redis, stream: str, group: str, consumer: str, handle: Handler,
                 idle_ms: int = 3000, concurrency: int = 16, block_ms: int = 1000,
                 max_failures: int = 5, on_dead: OnDead | None = None,
                 handle_many: BatchHandler | None = None, batch_limit: int = 256, batches: int = 2,
                 taking: Callable[[], bool] | None = None) -> None:
        self._redis = commands(client)
        self.stream, self.group, self.consumer = stream, group, consumer
        self._handle = handle
        self._handle_many = handle_many
        # With handle_many: at most `batches` batches at once, each of up to `batch_limit` entries.
        # The next read waits for a batch to end, and takes every entry that arrived meanwhile
        # (a group commit: the busier the stream, the larger the batches).
        self._batch_limit = batch_limit
        self._batch_slots = asyncio.Semaphore(batches)
        # Failures (not counting Unavailable) after which an entry is dead (0: never).
        self._max_failures = max_failures
        self._on_dead = on_dead
        self._bury = client.register_script(_BURY)
        self._idle_ms = idle_ms
        self._slots = asyncio.Semaphore(concurrency)
        self._concurrency = concurrency
        self._block_ms = block_ms
        # Entry id -> the task handling it.
        self._inflight: dict[str, asyncio.Task[None]] = {}
        # Entries of a batch still running that another consumer holds now: not cancelled (the
        # batch holds others too), but never acknowledged or retried alone by this one.
        self._lost: set[str] = set()
        self._batches: set[asyncio.Task[None]] = set()
        self._beat = client.register_script(_HEARTBEAT)
        # Whether this consumer takes new entries now (None: always). Pending ones of its
        # own, and entries another consumer left idle, it takes whatever this says.
        self._taking = taking

    async def ensure_group(self) -> None:
        try:
            await self._redis.xgroup_create(self.stream, self.group, id="0", mkstream=True)
        except ResponseError as error:
            if "BUSYGROUP" not in str(error):
                raise

    async def run(self) -> None:
        """Read, reclaim and heartbeat until cancelled."""
        await self.ensure_group()
        loops = [self._read(), self._reclaim(), self._heartbeat()]
        try:
            await asyncio.gather(*loops)
        finally:
            for task in list(self._inflight.values()):
                task.cancel()

    async def _read(self) -> None:
        # First whatever this consumer name held before a restart, then new entries.
        start, pending = "0", True
        while True:
            if not pending and self._taking is not None and not self._taking():
                await asyncio.sleep(TAKING_RECHECK_S)  # a poll of a local flag, no round trip
                continue
            free = max(1, self._concurrency - len(self._inflight))
            if self._handle_many is not None:
                await self._batch_slots.acquire()
                free = self._batch_limit
            try:
                reply = await self._redis.xreadgroup(self.group, self.consumer, {self.stream: start},
                                                     count=free, block=None if pending else self._block_ms)
            except BaseException:
                if self._handle_many is not None:
                    self._batch_slots.release()
                raise
            entries = reply[0][1] if reply else []
            if pending:
                start = _text(entries[-1][0]) if entries else ">"
                pending = bool(entries)
            live: list[tuple[str, Mapping[bytes, bytes]]] = [
                (_text(entry_id), fields) for entry_id, fields in entries if fields
            ]
            if self._handle_many is not None:
                self._start_batch(live)  # the batch slot is the batch's now
                continue
            for entry_id, fields in live:
                await self._start(entry_id, fields)

    async def _reclaim(self) -> None:
        cursor = "0-0"
        while True:
            await asyncio.sleep(self._idle_ms / 3000)  # a timer: claims are about idle time
            reply = await self._redis.xautoclaim(self.stream, self.group, self.consumer, self._idle_ms,
                                                 start_id=cursor, count=self._concurrency)
            cursor = reply[0].decode() if isinstance(reply[0], bytes) else str(reply[0])
            for item in reply[1]:
                if item is None or item[1] is None:
                    continue
                entry_id, fields = item
                log.info("claimed_back", stream=self.stream, entry=_text(entry_id))
                await self._start(entry_id, fields)

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(self._idle_ms / 3000)  # a timer: keeps our entries from looking abandoned
            if not self._inflight:
                continue
            lost = await self._beat(keys=[self.stream], args=[self.group, self.consumer, *self._inflight])
            for ident in map(_text, lost):
                task = self._inflight.get(ident)
                if task is not None:
                    log.info("work_lost", stream=self.stream, entry=ident)
                    if task in self._batches:
                        # The batch's fenced writes skip it (its epoch is no longer ours); the
                        # batch's other entries are still ours to finish.
                        self._lost.add(ident)
                    else:
                        task.cancel()  # another replica holds the entry now: its work, not ours

    async def _start(self, entry_id: bytes | str, fields: Mapping[bytes, bytes]) -> None:
        ident = _text(entry_id)
        if ident in self._inflight:
            return
        await self._slots.acquire()
        if ident in self._inflight:  # started while we waited for a slot
            self._slots.release()
            return
        self._inflight[ident] = asyncio.create_task(self._work(ident, fields))

    def _start_batch(self, entries: list[tuple[str, Mapping[bytes, bytes]]]) -> None:
        """Entries read together, handled by one task holding a batch slot: heartbeats cover
        each of them. (Entries another task is on already, reclaimed ones, are left to it.)"""
        fresh = [(ident, fields) for ident, fields in entries if ident not in self._inflight]
        if not fresh:
            self._batch_slots.release()
            return
        task = asyncio.create_task(self._work_batch(fresh))
        self._batches.add(task)
        task.add_done_callback(self._batches.discard)
        for ident, _ in fresh:
            self._inflight[ident] = task

    async def _work_batch(self, entries: list[tuple[str, Mapping[bytes, bytes]]]) -> None:
        assert self._handle_many is not None
        try:
            try:
                answered = await self._handle_many(entries)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("batch_failed", stream=self.stream, entries=len(entries))
                answered = {}
            done = [ident for ident, finished in answered.items() if finished and ident not in self._lost]
            if done:
                await self._redis.xack(self.stream, self.group, *done)
            for ident, finished in answered.items():
                if not finished:
                    log.info("work_superseded", stream=self.stream, entry=ident)
            # What the batch did not settle, one entry at a time (their own errors, failure counts).
            rest = [(ident, fields) for ident, fields in entries if ident not in answered and ident not in self._lost]
            await asyncio.gather(*(self._one(ident, fields) for ident, fields in rest))
        finally:
            for ident, _ in entries:
                self._inflight.pop(ident, None)
                self._lost.discard(ident)
            self._batch_slots.release()

    async def _work(self, ident: str, fields: Mapping[bytes, bytes]) -> None:
        try:
            await self._one(ident, fields)
        finally:
            self._inflight.pop(ident, None)
            self._slots.release()

    async def _one(self, ident: str, fields: Mapping[bytes, bytes]) -> None:
        try:
            await self._handle(ident, fields)
            await self._redis.xack(self.stream, self.group, ident)
        except asyncio.CancelledError:
            raise
        except Aborted as lost:
            log.info("work_superseded", stream=self.stream, entry=ident, reason=lost.reason)
        except Unavailable as away:
            log.warning("work_deferred", stream=self.stream, entry=ident, reason=away.reason)
        except Exception as failure:
            log.exception("work_failed", stream=self.stream, entry=ident)
            await self._failed(ident, fields, f"{type(failure).__name__}: {failure}")


    async def _failed(self, ident: str, fields: Mapping[bytes, bytes], error: str) -> None:
        """Count a failure of the entry; the one that reaches the limit buries it."""
        if self._max_failures <= 0:
            return
        counter = f"{self.stream}:failures:{ident}"
        try:
            failures = int(await self._redis.incr(counter))
            await self._redis.expire(counter, FAILURES_TTL)
            if failures < self._max_failures:
                return
            if self._on_dead is not None:
                await self._on_dead(ident, fields, error)
            flat = [item for pair in fields.items() for item in pair]
            buried = await self._bury(keys=[self.stream, dead_letters(self.stream), counter],
                                      args=[self.group, ident, error[:1000], failures, *flat])
        except Exception:
            # Redis away, or the hook failed: the entry stays pending and is tried again.
            log.exception("dead_letter_failed", stream=self.stream, entry=ident)
            return
        if buried:
            DEAD_LETTERS.labels(self.stream).inc()
            log.error("work_dead", stream=self.stream, entry=ident, failures=failures, error=error[:200])


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


async def forever(name: str, loop: Callable[[], Awaitable[None]], backoff: float = 1.0) -> None:
    """Run a replica loop until cancelled, restarting it after a failure (Redis or the match service away)."""
    while True:
        try:
            await loop()
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("loop_failed", loop=name)
            await asyncio.sleep(backoff)  # back off before restarting a failed loop
