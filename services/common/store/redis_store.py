"""The Redis Streams backend of the event store.

Layout for a stream named N (all in hash slot of `{N}`):
  `{N}:log`   the stream; event v has entry id `v-0`, so versions are ids
  `{N}:cmd`   command id -> "first:last" versions of its append
  `{N}:snap`  the newest snapshot (fields v, d)
  `{N}:lease` the writer holding the stream's write lease (expires by itself)
  `{N}:want`  set while another writer waits for that lease
  `{N}:at`    when the last append landed: the writer's clock, epoch seconds
and one global sorted set `tabletop:streams` indexing stream names by creation.
Streams are never trimmed: the log is the truth and XLEN is the version.
An entry holds one field `e`: the event as a `tabletop.common.v1.LogEntry`
(type, data, audience, seat, redaction, command id). Logs written before it
hold those as separate fields (t, d, a, s, rt, rd, c) and read back the same.

Every append also publishes "<N> <last version>" on the channel
`tabletop:appended`, from inside the script, so a follower (the gateway's live
updates) hears of every append in order with one subscription for all streams,
on one server or a cluster (where PUBLISH reaches every node).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeVar, cast

import redis.asyncio as aioredis
from redis.commands.core import AsyncScript
from tabletop.common.v1 import log_pb2

from services.common.audience import Audience
from services.common.redis import client as redis_client
from services.common.store import log_entry
from services.common.store.event_store import (
    DEFAULT_LEASE_MS,
    WANT_MARGIN_S,
    AppendResult,
    CommandReused,
    Leased,
    NewEvent,
    Payload,
    Snapshot,
    StoredEvent,
    VersionConflict,
    check_sizes,
    check_snapshot,
    same_request,
    waiting_out_leases,
)
from services.common.store.group_commit import GroupCommit

if TYPE_CHECKING:
    from services.common.redis.commands import Commands

INDEX_KEY = "tabletop:streams"
APPENDED_CHANNEL = "tabletop:appended"

T = TypeVar("T")
# One XRANGE entry as the server sends it: its id, then its fields and values in turn
# (a two-item array on the wire, read as the pair it is).
RawEntry = tuple[bytes, list[bytes]]

# How logs written before LogEntry spell an audience.
_READ_AUDIENCE = {b"public": Audience.PUBLIC, b"seat": Audience.SEAT, b"server": Audience.SERVER}

# KEYS: log, commands, once, lease, want, at. ARGV: expected, command_id, n, fingerprint,
# owner, lease ms, want margin ms, then each event's LogEntry bytes, then the stream name,
# the channel to announce the append on and the writer's clock (epoch seconds, for `at`).
# A command's answer is stored as "first:last:fingerprint"; the same id with
# another fingerprint answers {-2, stored} and appends nothing.
# `once` is a short-lived key unique to this call: if the client library
# re-sends the script (a retry after a lost reply), the second run answers with
# the first run's result instead of appending again or reporting a conflict. A call
# with a command id needs none (its entry in `commands` answers a re-sent run first),
# so it neither reads nor writes one: two commands fewer on every action's append.
# `lease` names the writer holding the stream (PX: it lapses by itself); an
# append by anyone else answers {-4, ms left} and sets `want`, which keeps the
# holder from renewing, so the waiting writer gets its turn within one lease.
# A landed append answers {1, "first:last", ms of lease the caller holds}.
_APPEND = """
local cmd = ARGV[2]
if cmd ~= '' then
  local prev = redis.call('HGET', KEYS[2], cmd)
  if prev then
    local fp = string.match(prev, '^%d+:%d+:(.*)$') or ''
    if fp ~= '' and fp ~= ARGV[4] then return {-2, prev} end
    return {0, prev}
  end
end
if cmd == '' then
  local done = redis.call('GET', KEYS[3])
  if done then return {1, done, 0} end
end
local owner = ARGV[5]
local holder = redis.call('GET', KEYS[4])
if holder and holder ~= owner then
  local left = math.max(redis.call('PTTL', KEYS[4]), 1)
  redis.call('SET', KEYS[5], '1', 'PX', left + tonumber(ARGV[7]))
  return {-4, tostring(left)}
end
local cur = redis.call('XLEN', KEYS[1])
if cur ~= tonumber(ARGV[1]) then return {-1, tostring(cur)} end
local n = tonumber(ARGV[3])
local i = 8
for k = 1, n do
  redis.call('XADD', KEYS[1], (cur + k) .. '-0', 'e', ARGV[i])
  i = i + 1
end
local answer = (cur + 1) .. ':' .. (cur + n)
if cmd ~= '' then
  redis.call('HSET', KEYS[2], cmd, answer .. ':' .. ARGV[4])
else
  redis.call('SET', KEYS[3], answer, 'EX', 600)
end
redis.call('SET', KEYS[6], ARGV[i + 2])
redis.call('PUBLISH', ARGV[i + 1], ARGV[i] .. ' ' .. (cur + n))
local lease = 0
if owner ~= '' and tonumber(ARGV[6]) > 0 then
  if not holder then
    redis.call('DEL', KEYS[5])
    redis.call('SET', KEYS[4], owner, 'PX', ARGV[6])
    lease = tonumber(ARGV[6])
  elseif redis.call('EXISTS', KEYS[5]) == 1 then
    lease = math.max(redis.call('PTTL', KEYS[4]), 0)
  else
    redis.call('PEXPIRE', KEYS[4], ARGV[6])
    lease = tonumber(ARGV[6])
  end
end
return {1, answer, lease}
"""

# KEYS: snapshot. ARGV: version, data. Keeps only the newest.
_SNAPSHOT = """
local v = tonumber(redis.call('HGET', KEYS[1], 'v') or '-1')
if tonumber(ARGV[1]) > v then redis.call('HSET', KEYS[1], 'v', ARGV[1], 'd', ARGV[2]) end
return 1
"""


_WANT_MARGIN_MS = int(WANT_MARGIN_S * 1000)


def _keys(stream: str) -> tuple[str, str, str]:
    tag = "{" + stream + "}"
    return f"{tag}:log", f"{tag}:cmd", f"{tag}:snap"


def _appended_at_key(stream: str) -> str:
    """When the stream's last append landed (the entry ids are versions, not times)."""
    return "{" + stream + "}:at"


def _lease_keys(stream: str) -> tuple[str, str]:
    """Who holds the stream's write lease, and whether another writer waits for it."""
    tag = "{" + stream + "}"
    return f"{tag}:lease", f"{tag}:want"


class RedisEventStore:
    """EventStore on Redis Streams with one Lua script per append."""

    def __init__(self, client: aioredis.Redis, lease_ms: int = DEFAULT_LEASE_MS) -> None:
        self._lease_ms = lease_ms
        # Its replies typed as they come: bytes (decode_responses=False), which redis-py's types
        # cannot tell (services/common/redis/commands.py).
        self._redis = cast("Commands", client)
        self._ranges = _unparsed_ranges(client)
        self._append = client.register_script(_APPEND)
        # One server: the appends of a turn travel as one pipeline (group_commit.py). A
        # cluster's pipeline would split them by node again; there each goes on its own.
        self._run_append: GroupCommit | AsyncScript = (
            GroupCommit(client, self._append) if isinstance(client, aioredis.Redis) else self._append
        )
        self._snapshot = client.register_script(_SNAPSHOT)

    @property
    def client(self) -> aioredis.Redis:
        """The Redis client underneath (live updates subscribe through it)."""
        return cast(aioredis.Redis, self._redis)  # the client typed as its Commands above: the same object

    async def last_append_at(self, stream: str) -> float | None:
        """When the stream's last event was appended (epoch seconds, its writer's clock); None if
        empty or appended to only before append times were kept."""
        at = await self._redis.get(_appended_at_key(stream))
        return None if at is None else float(at)

    @classmethod
    def from_url(
        cls, url: str, cluster: bool = False, max_connections: int = 64, lease_ms: int = DEFAULT_LEASE_MS
    ) -> RedisEventStore:
        return cls(redis_client.connect(url, cluster, max_connections=max_connections), lease_ms)

    async def close(self) -> None:
        if isinstance(self._run_append, GroupCommit):
            await self._run_append.close()
        await self._redis.aclose()

    async def append(
        self,
        stream: str,
        expected_version: int,
        events: Sequence[NewEvent],
        command_id: str = "",
        fingerprint: str = "",
        owner: str = "",
    ) -> AppendResult:
        check_sizes(events)
        log, commands, _ = _keys(stream)
        lease, want = _lease_keys(stream)
        at = _appended_at_key(stream)
        # Named, in the family the ACLs give the match, even where it goes unused (a call with
        # a command id): a script's keys are declared, for the cluster's slot and the ACL.
        once = f"{{{stream}}}:once:{uuid.uuid4().hex if not command_id else 'unused'}"
        args: list[str | bytes | int] = [
            expected_version,
            command_id,
            len(events),
            fingerprint,
            owner,
            self._lease_ms,
            _WANT_MARGIN_MS,
        ]
        args += [log_entry.entry(e, command_id).SerializeToString() for e in events]
        args += [stream, APPENDED_CHANNEL, f"{time.time():.3f}"]

        async def attempt() -> AppendResult:
            reply = await self._run_append(keys=[log, commands, once, lease, want, at], args=args)
            # The script answers {status, payload, ...}: Lua's numbers come as ints, its strings as bytes.
            status, payload = reply[0], cast(bytes, reply[1])
            if status == -4:
                raise Leased(stream, int(payload))
            if status == -1:
                raise VersionConflict(stream, expected_version, int(payload))
            if status == -2:
                raise CommandReused(stream, command_id)
            first, last = _versions(payload)
            return AppendResult(first, last, duplicate=status == 0, lease_ms=int(reply[2]) if status == 1 else 0)

        result = await waiting_out_leases(stream, attempt)
        if not result.duplicate and expected_version == 0:
            await self._redis.zadd(INDEX_KEY, {stream: time.time()}, nx=True)
        return result

    async def command(self, stream: str, command_id: str, fingerprint: str = "") -> AppendResult | None:
        _, commands, _ = _keys(stream)
        answer = await self._redis.hget(commands, command_id)
        if answer is None:
            return None
        stored = answer.split(b":", 2)[2].decode() if answer.count(b":") >= 2 else ""
        if not same_request(stored, fingerprint):
            raise CommandReused(stream, command_id)
        first, last = _versions(answer)
        return AppendResult(first, last, duplicate=True)

    async def read(self, stream: str, after_version: int = 0, limit: int = 0) -> list[StoredEvent]:
        log, _, _ = _keys(stream)
        if self._ranges is None:
            entries = await self._redis.xrange(log, min=f"{after_version + 1}-0", max="+", count=limit or None)
            return [_decode(entry_id, fields) for entry_id, fields in entries]
        raw = await self._unparsed_range(log, after_version, limit)
        return [_decode_flat(entry_id, fields) for entry_id, fields in raw]

    async def read_payloads(self, stream: str, after_version: int = 0, limit: int = 0) -> list[Payload]:
        if self._ranges is None:
            events = await self.read(stream, after_version, limit)
            if events:
                _check_no_gap(stream, after_version, len(events), events[-1].version)
            return [(event.type, event.data) for event in events]
        raw = await self._unparsed_range(_keys(stream)[0], after_version, limit)
        if raw:
            _check_no_gap(stream, after_version, len(raw), int(raw[-1][0][:-2]))
        payloads: list[Payload] = []
        add, parse = payloads.append, _parse_entry
        for entry_id, fields in raw:
            if len(fields) == 2 and fields[0] == b"e":
                entry = parse(fields[1])
                add((entry.type, entry.data))
            else:
                event = _decode_flat(entry_id, fields)
                add((event.type, event.data))
        return payloads

    async def _unparsed_range(self, log: str, after_version: int, limit: int) -> list[RawEntry]:
        count = ("COUNT", limit) if limit else ()
        ranges = cast(aioredis.Redis, self._ranges)  # called only where there is one (not on a cluster)
        # redis-py leaves execute_command untyped: the reply is XRANGE's, as sent.
        return await ranges.execute_command("XRANGE", log, f"{after_version + 1}-0", "+", *count)  # type: ignore[no-untyped-call]

    async def version(self, stream: str) -> int:
        log, _, _ = _keys(stream)
        return int(await self._redis.xlen(log))

    async def wait(self, stream: str, after_version: int, timeout: float) -> list[StoredEvent]:
        log, _, _ = _keys(stream)
        # Never longer than the client's socket timeout allows; callers loop anyway.
        block = max(1, int(min(timeout, redis_client.LONGEST_BLOCK) * 1000))
        reply = await self._redis.xread({log: f"{after_version}-0"}, block=block)
        if not reply:
            return []
        return [_decode(entry_id, fields) for entry_id, fields in reply[0][1]]

    async def save_snapshot(self, stream: str, snapshot: Snapshot) -> None:
        check_snapshot(snapshot)
        _, _, snap = _keys(stream)
        await self._snapshot(keys=[snap], args=[snapshot.version, snapshot.data])

    async def load_snapshot(self, stream: str) -> Snapshot | None:
        _, _, snap = _keys(stream)
        fields = await self._redis.hgetall(snap)
        if not fields:
            return None
        return Snapshot(int(fields[b"v"]), fields[b"d"])

    async def streams(self, limit: int = 0) -> list[str]:
        names = await self._redis.zrevrange(INDEX_KEY, 0, (limit or 0) - 1)
        return [n.decode() for n in names]


def _check_no_gap(stream: str, after_version: int, count: int, last_version: int) -> None:
    """Versions are entry ids and an append writes them in a row; a log that breaks
    this was written by something else, and a fold that numbers events by place
    would misplace every event after the gap."""
    if last_version != after_version + count:
        raise RuntimeError(f"{stream}: a gap in the log after version {after_version}")


def _versions(answer: bytes) -> tuple[int, int]:
    first, last = answer.split(b":")[:2]
    return int(first), int(last)


_parse_entry = log_pb2.LogEntry.FromString


def _unparsed_ranges(client: aioredis.Redis) -> aioredis.Redis | None:
    """A client on the same connections as `client` whose XRANGE replies come as the
    server sends them: redis-py turns each entry's fields into a dict, which for a
    rebuild of thousands of one-field entries costs more than decoding them. None
    on a cluster, whose client routes by command and keeps the parsed form."""
    if not isinstance(client, aioredis.Redis):
        return None
    unparsed = aioredis.Redis(connection_pool=client.connection_pool)
    unparsed.set_response_callback("XRANGE", _as_sent)
    return unparsed


def _as_sent(response: T, **kwargs: object) -> T:
    return response


def _decode_flat(entry_id: bytes, fields: list[bytes]) -> StoredEvent:
    if len(fields) == 2 and fields[0] == b"e":
        return log_entry.stored(int(entry_id[:-2]), _parse_entry(fields[1]))
    return _decode_fields(entry_id, dict(zip(fields[::2], fields[1::2], strict=True)))


def _decode(entry_id: bytes, fields: dict[bytes, bytes]) -> StoredEvent:
    packed = fields.get(b"e")
    if packed is None:
        return _decode_fields(entry_id, fields)
    return log_entry.stored(int(entry_id[:-2]), _parse_entry(packed))  # id "<version>-0"


def _decode_fields(entry_id: bytes, fields: dict[bytes, bytes]) -> StoredEvent:
    """An entry as logs before LogEntry wrote it: one field per attribute."""
    return StoredEvent(
        version=int(entry_id.split(b"-")[0]),
        type=fields[b"t"].decode(),
        data=fields[b"d"],
        audience=_READ_AUDIENCE.get(fields[b"a"], Audience.SERVER),
        seat=int(fields[b"s"]),
        redacted_type=fields[b"rt"].decode(),
        redacted=fields[b"rd"],
        command_id=fields[b"c"].decode(),
    )
