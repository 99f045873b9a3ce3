"""Tickets and pools in Redis; every state change is one server-side script.

Keys (all in the hash slot `{mm}`, so the scripts also run on Redis Cluster):
  tabletop:{mm}:t:<ticket>      hash: p player, g game, o options (canonical JSON),
                                pool, lo/hi seat range, r rating, q queued (ms),
                                s state (waiting|forming|assigned|failed|cancelled|expired|
                                withdrawn|abandoned), w its open watches, left (set when the
                                last watch ended),
                                m match id, seat, h the seat's tenure (when formed in a batch), err
  tabletop:{mm}:pool:<pool>     sorted set of the pool's waiting tickets by queued time
  tabletop:{mm}:heard           sorted set of waiting (and forming) tickets by when their watcher was last heard of
                                (ms): queueing counts as heard, then each replica refreshes the tickets
                                it streams to a watcher; one unheard for the grace period is abandoned
  tabletop:{mm}:live:<game>:<player>  the player's ticket for the game, while it may still be placed:
                                a second FindMatch answers it instead of queueing another
  tabletop:{mm}:pools           set of pools that may hold waiting tickets
  tabletop:{mm}:jobs            stream of formation jobs (consumer group `formers`)
  tabletop:{mm}:bots            stream of bot-play jobs (consumer group `bots`)
  tabletop:{mm}:job:<match>     epoch of a formation job: bumped by each replica that takes it up
  tabletop:{mm}:events          stream of ticket changes (queued/assigned/failed/cancelled/expired)
                                that every replica follows to wake its watchers; an 'assigned' entry
                                of ASSIGN_MANY carries each ticket's match and seat ('m', 'seat'),
                                so its watchers are told without reading the ticket
  tabletop:{mm}:cmd:<id>        FindMatch command id -> ticket id (a day)
  tabletop:{mm}:botseq          counter behind bot player ids
  tabletop:{mm}:lock:<pool>     short lease: one replica groups a pool at a time
  tabletop:{mm}:replicas        zset replica -> last pass (ms): the live replicas, among
                                which the pools are partitioned (partition.py)

A ticket moves waiting -> forming (CLAIM, atomically with its pool removal and
the job's XADD) -> assigned (ASSIGN) or back to waiting or failed (RETURN);
a waiting ticket older than the time-to-live -> expired (EXPIRE, atomically
with its pool removal, so a ticket is never both expired and claimed); a
waiting ticket whose watcher has been gone longer than the grace period ->
abandoned (ABANDON, likewise). A waiting ticket whose last watch ends ->
withdrawn at once (UNWATCH: out of its pool), back to waiting if a watch of
its player opens within the grace period (WATCHED), else abandoned. A ticket
is claimed only if its watcher was heard of within the grace period, and a
formation job's first take-up (TAKE_UP) places nobody who left: the others go
back to waiting. Each
script checks the ticket is still where the caller believes it is, so a
ticket is placed in at most one match.

A formation job can be in two replicas' hands at once: one that stalled (alive
but slow) and the one that took the job over. Each replica taking the job up
bumps its epoch (a fencing token); ASSIGN and RETURN accept only the current
epoch, so the stale copy can never move the tickets again.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import redis.asyncio as aioredis

from services.common import players
from services.common.errors import Aborted
from services.common.redis.commands import commands
from services.matchmaker import partition
from services.matchmaker.pool import Group, Ticket

PREFIX = "tabletop:{mm}:"
POOLS = PREFIX + "pools"
REPLICAS = PREFIX + "replicas"
JOBS = PREFIX + "jobs"
BOTS = PREFIX + "bots"
EVENTS = PREFIX + "events"
BOT_SEQ = PREFIX + "botseq"
DONE_TTL = 86_400
# Reason of the Aborted a replica gets when it writes for a job another replica has taken over.
SUPERSEDED = "matchmaker.job_superseded"
HEARD = PREFIX + "heard"
EVENTS_MAXLEN = 20_000
# States in which a ticket may still be placed: a player's second FindMatch for the game answers it.
LIVE_STATES = ("waiting", "forming")


def ticket_key(ticket_id: str) -> str:
    return f"{PREFIX}t:{ticket_id}"


def pool_key(pool: str) -> str:
    return f"{PREFIX}pool:{pool}"


def job_key(match_id: str) -> str:
    return f"{PREFIX}job:{match_id}"


def lock_key(pool: str) -> str:
    return f"{PREFIX}lock:{pool}"


def live_key(game: str, player_id: str) -> str:
    return f"{PREFIX}live:{game}:{player_id}"


def pool_name(game: str, options: Mapping[str, str]) -> str:
    """Tickets of one game with equal options share a pool."""
    return f"{game}:{canonical(options)}"


def canonical(options: Mapping[str, str]) -> str:
    return json.dumps(dict(sorted(options.items())), separators=(",", ":"))


# KEYS: ticket, pool, pools, events, command, heard, live, the live ticket (or the new one).
# ARGV: id, pool, player, game, options, lo, hi, rating, queued_ms, has_command, maxlen, live id seen,
# '1' when the caller watches the new ticket from its first moment (a Queue stream: 'w' starts at 1).
# Returns {ticket id, how}: how is 'new', 'command' (the command id's ticket), 'live' (the
# player's ticket for the game that may still be placed) or 'retry' (the live ticket changed
# since the caller read it: read again).
_FIND = """
if ARGV[10] == '1' then
  local prev = redis.call('GET', KEYS[5])
  if prev then return {prev, 'command'} end
end
local live = redis.call('GET', KEYS[7]) or ''
if live ~= ARGV[12] then return {'', 'retry'} end
if live ~= '' then
  local s = redis.call('HGET', KEYS[8], 's')
  if s == 'waiting' or s == 'forming' then return {live, 'live'} end
end
if ARGV[10] == '1' then redis.call('SET', KEYS[5], ARGV[1], 'EX', 86400) end
redis.call('HSET', KEYS[1], 'p', ARGV[3], 'g', ARGV[4], 'o', ARGV[5], 'pool', ARGV[2],
  'lo', ARGV[6], 'hi', ARGV[7], 'r', ARGV[8], 'q', ARGV[9], 's', 'waiting')
if ARGV[13] == '1' then redis.call('HSET', KEYS[1], 'w', 1) end
redis.call('ZADD', KEYS[2], ARGV[9], ARGV[1])
redis.call('ZADD', KEYS[6], ARGV[9], ARGV[1])
redis.call('SET', KEYS[7], ARGV[1], 'EX', 86400)
redis.call('SADD', KEYS[3], ARGV[2])
redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[11], '*', 'k', 'queued', 't', ARGV[1], 'pool', ARGV[2])
return {ARGV[1], 'new'}
"""

# KEYS: pool, jobs, botseq, heard, tickets... ARGV: match_id, bots, pool, cutoff (ms; 0: none), ticket ids...
# A ticket whose watcher was last heard of before the cutoff is not placed (nor its group).
_CLAIM = """
local n = #KEYS - 4
local cutoff = tonumber(ARGV[4])
for i = 1, n do
  if not redis.call('ZSCORE', KEYS[1], ARGV[4 + i]) then return 0 end
  if cutoff > 0 and (tonumber(redis.call('ZSCORE', KEYS[4], ARGV[4 + i]) or 0) < cutoff) then return 0 end
end
local players = {}
for i = 1, n do
  redis.call('ZREM', KEYS[1], ARGV[4 + i])
  redis.call('HSET', KEYS[4 + i], 's', 'forming', 'm', ARGV[1])
  players[i] = redis.call('HGET', KEYS[4 + i], 'p')
end
for b = 1, tonumber(ARGV[2]) do
  players[n + b] = 'bot-' .. redis.call('INCR', KEYS[3])
end
local tickets = {}
for i = 1, n do tickets[i] = ARGV[4 + i] end
redis.call('XADD', KEYS[2], '*', 'm', ARGV[1], 'g', redis.call('HGET', KEYS[5], 'g'),
  'o', redis.call('HGET', KEYS[5], 'o'), 'pool', ARGV[3],
  't', table.concat(tickets, ','), 'p', table.concat(players, ','))
return 1
"""

# Many groups of one pool in one call. KEYS: pool, jobs, botseq, heard, the pool's lease, then each
# group's tickets. ARGV: pool, '1' to end the lease after, the cutoff (ms; 0: none), then per group:
# match_id, bots, ticket count, ticket ids... Each group is claimed (as CLAIM does, with its own job
# entry) or skipped whole (a ticket gone from the pool, or unheard of since the cutoff); 1/0 per group.
_CLAIM_MANY = """
local done = {}
local cutoff = tonumber(ARGV[3])
local a, k = 4, 6
while a <= #ARGV do
  local match, bots, n = ARGV[a], tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
  local ok = 1
  for i = 1, n do
    if not redis.call('ZSCORE', KEYS[1], ARGV[a + 2 + i]) then ok = 0 break end
    if cutoff > 0 and (tonumber(redis.call('ZSCORE', KEYS[4], ARGV[a + 2 + i]) or 0) < cutoff) then ok = 0 break end
  end
  if ok == 1 then
    local players, tickets = {}, {}
    for i = 1, n do
      local id = ARGV[a + 2 + i]
      redis.call('ZREM', KEYS[1], id)
      redis.call('HSET', KEYS[k + i - 1], 's', 'forming', 'm', match)
      players[i] = redis.call('HGET', KEYS[k + i - 1], 'p')
      tickets[i] = id
    end
    for b = 1, bots do players[n + b] = 'bot-' .. redis.call('INCR', KEYS[3]) end
    redis.call('XADD', KEYS[2], '*', 'm', match, 'g', redis.call('HGET', KEYS[k], 'g'),
      'o', redis.call('HGET', KEYS[k], 'o'), 'pool', ARGV[1],
      't', table.concat(tickets, ','), 'p', table.concat(players, ','))
  end
  done[#done + 1] = ok
  a, k = a + 3 + n, k + n
end
if ARGV[2] == '1' then redis.call('DEL', KEYS[5]) end
return done
"""

# KEYS: ticket, heard, the player's live key for the game, the ticket's pool, pools, events.
# ARGV: ticket id, player, now (ms), the ticket's pool as read, events maxlen.
# A watch opening: if `player` queued the ticket, one more watcher ('w'), heard of now. A ticket
# withdrawn when its last watcher left is back in its pool (its queued time kept) if it is still
# the player's ticket for the game; if another took its place it is abandoned. The ticket's
# fields after that (HGETALL), or {} when its pool moved since the caller read it (read again).
_WATCHED = """
if ARGV[2] ~= '' and redis.call('HGET', KEYS[1], 'p') == ARGV[2] then
  if redis.call('HGET', KEYS[1], 'pool') ~= ARGV[4] then return {} end
  local s = redis.call('HGET', KEYS[1], 's')
  if s == 'withdrawn' then
    local live = redis.call('GET', KEYS[3])
    if not live or live == ARGV[1] then
      redis.call('HSET', KEYS[1], 's', 'waiting')
      redis.call('PERSIST', KEYS[1])
      redis.call('ZADD', KEYS[4], redis.call('HGET', KEYS[1], 'q'), ARGV[1])
      redis.call('SET', KEYS[3], ARGV[1], 'EX', 86400)
      redis.call('SADD', KEYS[5], ARGV[4])
      redis.call('XADD', KEYS[6], 'MAXLEN', '~', ARGV[5], '*', 'k', 'waiting', 't', ARGV[1], 'pool', ARGV[4])
      s = 'waiting'
    else
      redis.call('HSET', KEYS[1], 's', 'abandoned')
      redis.call('ZREM', KEYS[2], ARGV[1])
      s = 'abandoned'
    end
  end
  if s == 'waiting' or s == 'forming' then
    redis.call('HINCRBY', KEYS[1], 'w', 1)
    redis.call('HDEL', KEYS[1], 'left')
    redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
  end
end
return redis.call('HGETALL', KEYS[1])
"""

# KEYS: ticket, its pool, heard, events. ARGV: ticket id, the pool as read, now (ms), events maxlen.
# A watch ending: one watcher fewer. When the last has gone the ticket is marked 'left' (a formation
# taking it up leaves it out), and a waiting one is withdrawn at once: out of its pool, placed with
# nobody, its grace period counted from now (a watch opening within it puts it back: _WATCHED).
# 1 withdrawn, 0 nothing to withdraw, -2 its pool moved since the caller read it (read again).
_UNWATCH = """
local s = redis.call('HGET', KEYS[1], 's')
if not s then return 0 end
if redis.call('HGET', KEYS[1], 'pool') ~= ARGV[2] then return -2 end
if redis.call('HINCRBY', KEYS[1], 'w', -1) > 0 then return 0 end
redis.call('HSET', KEYS[1], 'w', 0, 'left', 1)
if s ~= 'waiting' then return 0 end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HSET', KEYS[1], 's', 'withdrawn')
redis.call('EXPIRE', KEYS[1], 3600)
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1])
redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[4], '*', 'k', 'withdrawn', 't', ARGV[1])
return 1
"""

# Taking formation jobs up, checking at the first take-up that every ticket's player is still
# there. KEYS: heard, events, pools, then per job: its epoch key, its pool, its tickets.
# ARGV: ttl, cutoff (ms; 0: none), events maxlen, then per job: match_id, pool, ticket count, ids...
# Per job, its next epoch (as OWN). At a job's first take-up (epoch 1) a ticket is live while its
# watcher has not left and was heard of since the cutoff; if one is not, the job is void: the live
# tickets go back to their pool (their queued time kept: the grouping places them again), the
# others are withdrawn (abandoned once the grace period has passed, unless watched again), the
# epoch key is set far below zero (a later take-up gets a negative epoch: nothing to do) and the
# answer is 0. Nothing is formed with a player who left, and the match never existed.
VOID_EPOCH = -1_000_000_000
_TAKE_UP = """
local out = {}
local cutoff = tonumber(ARGV[2])
local a, k = 4, 4
while a <= #ARGV do
  local match, pool, n = ARGV[a], ARGV[a + 1], tonumber(ARGV[a + 2])
  local epoch = redis.call('INCR', KEYS[k])
  redis.call('EXPIRE', KEYS[k], ARGV[1])
  if epoch == 1 then
    local live, all = {}, true
    for i = 1, n do
      local t, id = KEYS[k + 1 + i], ARGV[a + 2 + i]
      local ok = redis.call('HGET', t, 's') == 'forming' and redis.call('HGET', t, 'm') == match
        and not redis.call('HGET', t, 'left')
        and (cutoff == 0 or tonumber(redis.call('ZSCORE', KEYS[1], id) or 0) >= cutoff)
      live[i] = ok
      if not ok then all = false end
    end
    if not all then
      local back = {}
      for i = 1, n do
        local t, id = KEYS[k + 1 + i], ARGV[a + 2 + i]
        if redis.call('HGET', t, 's') == 'forming' and redis.call('HGET', t, 'm') == match then
          redis.call('HDEL', t, 'm')
          if live[i] then
            redis.call('HSET', t, 's', 'waiting')
            redis.call('ZADD', KEYS[k + 1], redis.call('HGET', t, 'q'), id)
            back[#back + 1] = id
          else
            redis.call('HSET', t, 's', 'withdrawn')
            redis.call('EXPIRE', t, 3600)
            redis.call('ZADD', KEYS[1], 'NX', 0, id)
          end
        end
      end
      redis.call('SET', KEYS[k], '-1000000000', 'EX', ARGV[1])
      if #back > 0 then
        redis.call('SADD', KEYS[3], pool)
        redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[3], '*', 'k', 'waiting', 't', table.concat(back, ','),
          'pool', pool)
      end
      epoch = 0
    end
  end
  out[#out + 1] = epoch
  a, k = a + 3 + n, k + 2 + n
end
return out
"""

# KEYS: the jobs' epoch keys. ARGV: ttl. Each job's next epoch, as OWN, in one call.
_OWN_MANY = """
local epochs = {}
for i = 1, #KEYS do
  epochs[i] = redis.call('INCR', KEYS[i])
  redis.call('EXPIRE', KEYS[i], ARGV[1])
end
return epochs
"""

# Many jobs' ASSIGN in one call, one events entry for all of them. KEYS: events, bots, then per
# job: its epoch key and its tickets. ARGV: maxlen, ttl, then per job: match_id, bot seats, epoch,
# ticket count, (ticket id, seat tenure)... Returns ASSIGN's answer per job (-1, 0, 1 or 2). The
# events entry carries each assigned ticket's match ('m'), seat ('seat') and the seat's tenure
# ('h'), so watchers need not read them.
_ASSIGN_MANY = """
local outcome, ids, matches, seats, tenures = {}, {}, {}, {}, {}
local a, k = 3, 3
while a <= #ARGV do
  local match, bots, epoch, n = ARGV[a], ARGV[a + 1], ARGV[a + 2], tonumber(ARGV[a + 3])
  local r = 1
  if redis.call('GET', KEYS[k]) ~= epoch then r = -1 end
  if r == 1 then
    for i = 1, n do
      local t = KEYS[k + i]
      if redis.call('HGET', t, 'm') ~= match then r = 0 break end
      local s = redis.call('HGET', t, 's')
      if s ~= 'forming' and s ~= 'assigned' then r = 0 break end
    end
  end
  if r == 1 and redis.call('HGET', KEYS[k + 1], 's') == 'assigned' then r = 2 end
  if r == 1 then
    for i = 1, n do
      redis.call('HSET', KEYS[k + i], 's', 'assigned', 'seat', i - 1, 'h', ARGV[a + 3 + n + i])
      redis.call('EXPIRE', KEYS[k + i], ARGV[2])
      ids[#ids + 1] = ARGV[a + 3 + i]
      matches[#matches + 1] = match
      seats[#seats + 1] = i - 1
      tenures[#tenures + 1] = ARGV[a + 3 + n + i]
    end
    if bots ~= '' then redis.call('XADD', KEYS[2], '*', 'm', match, 'seats', bots) end
  end
  outcome[#outcome + 1] = r
  a, k = a + 4 + 2 * n, k + 1 + n
end
if #ids > 0 then
  redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'k', 'assigned', 't', table.concat(ids, ','),
    'm', table.concat(matches, ','), 'seat', table.concat(seats, ','), 'h', table.concat(tenures, ','))
end
return outcome
"""

# KEYS: events, bots, job, tickets... ARGV: match_id, bot seats, epoch, ticket ids..., maxlen, ttl.
# -1: the caller's epoch is not the job's (another replica owns the job now).
_ASSIGN = """
if redis.call('GET', KEYS[3]) ~= ARGV[3] then return -1 end
for i = 4, #KEYS do
  if redis.call('HGET', KEYS[i], 'm') ~= ARGV[1] then return 0 end
  local s = redis.call('HGET', KEYS[i], 's')
  if s ~= 'forming' and s ~= 'assigned' then return 0 end
end
if redis.call('HGET', KEYS[4], 's') == 'assigned' then return 2 end
local tickets = {}
for i = 4, #KEYS do
  redis.call('HSET', KEYS[i], 's', 'assigned', 'seat', i - 4)
  redis.call('EXPIRE', KEYS[i], ARGV[#ARGV])
  tickets[i - 3] = ARGV[i]
end
redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[#ARGV - 1], '*', 'k', 'assigned',
  't', table.concat(tickets, ','), 'm', ARGV[1])
if ARGV[2] ~= '' then redis.call('XADD', KEYS[2], '*', 'm', ARGV[1], 'seats', ARGV[2]) end
return 1
"""

# KEYS: pool, pools, events, job, heard, tickets... ARGV: match_id, pool, state, error, epoch, now (ms),
# ticket ids... State 'waiting' puts the tickets back in the pool (their watchers heard of now:
# the grace starts again); 'failed' ends them with `error`.
# -1: the caller's epoch is not the job's (another replica owns the job now).
_RETURN = """
if redis.call('GET', KEYS[4]) ~= ARGV[5] then return -1 end
local moved = {}
for i = 6, #KEYS do
  if redis.call('HGET', KEYS[i], 's') == 'forming' and redis.call('HGET', KEYS[i], 'm') == ARGV[1] then
    local id = ARGV[i + 1]
    redis.call('HDEL', KEYS[i], 'm')
    redis.call('HSET', KEYS[i], 's', ARGV[3])
    if ARGV[3] == 'waiting' then
      redis.call('ZADD', KEYS[1], redis.call('HGET', KEYS[i], 'q'), id)
      redis.call('ZADD', KEYS[5], ARGV[6], id)
    else
      redis.call('HSET', KEYS[i], 'err', ARGV[4])
      redis.call('EXPIRE', KEYS[i], 86400)
    end
    moved[#moved + 1] = id
  end
end
if #moved > 0 then
  if ARGV[3] == 'waiting' then redis.call('SADD', KEYS[2], ARGV[2]) end
  redis.call('XADD', KEYS[3], 'MAXLEN', '~', 20000, '*', 'k', ARGV[3], 't', table.concat(moved, ','), 'pool', ARGV[2])
end
return #moved
"""

# KEYS: ticket, pool, events, heard. ARGV: ticket id. -1 unknown/ended, 0 not waiting, 1 cancelled.
_CANCEL = """
local s = redis.call('HGET', KEYS[1], 's')
if not s or s == 'cancelled' or s == 'expired' or s == 'abandoned' then return -1 end
if s ~= 'waiting' and s ~= 'withdrawn' then return 0 end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[4], ARGV[1])
redis.call('HSET', KEYS[1], 's', 'cancelled')
redis.call('EXPIRE', KEYS[1], 3600)
redis.call('XADD', KEYS[3], 'MAXLEN', '~', 20000, '*', 'k', 'cancelled', 't', ARGV[1])
return 1
"""

# KEYS: pool, events, heard, tickets... ARGV: cutoff (ms), events maxlen, ticket ids...
# Ends the tickets still waiting in the pool since before the cutoff; returns their ids.
_EXPIRE = """
local gone = {}
for i = 4, #KEYS do
  local id = ARGV[i - 1]
  local queued = redis.call('ZSCORE', KEYS[1], id)
  if queued and tonumber(queued) <= tonumber(ARGV[1]) and redis.call('HGET', KEYS[i], 's') == 'waiting' then
    redis.call('ZREM', KEYS[1], id)
    redis.call('ZREM', KEYS[3], id)
    redis.call('HSET', KEYS[i], 's', 'expired')
    redis.call('EXPIRE', KEYS[i], 3600)
    gone[#gone + 1] = id
  end
end
if #gone > 0 then
  redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], '*', 'k', 'expired', 't', table.concat(gone, ','))
end
return gone
"""

# KEYS: heard, events, then (pool, ticket) pairs. ARGV: cutoff (ms), events maxlen, ticket ids...
# Ends the waiting tickets whose watcher was last heard of before the cutoff (a watcher that
# came back since refreshed its score); drops from `heard` the ones that no longer wait.
_ABANDON = """
local gone = {}
for i = 1, #ARGV - 2 do
  local id, pool, ticket = ARGV[i + 2], KEYS[1 + 2 * i], KEYS[2 + 2 * i]
  local heard = redis.call('ZSCORE', KEYS[1], id)
  if heard and tonumber(heard) <= tonumber(ARGV[1]) then
    redis.call('ZREM', KEYS[1], id)
    local s = redis.call('HGET', ticket, 's')
    if s == 'waiting' or s == 'withdrawn' then
      redis.call('ZREM', pool, id)
      redis.call('HSET', ticket, 's', 'abandoned')
      redis.call('EXPIRE', ticket, 3600)
      gone[#gone + 1] = id
    end
  end
end
if #gone > 0 then
  redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], '*', 'k', 'abandoned', 't', table.concat(gone, ','))
end
return gone
"""

# KEYS: sub-pool, its pool, pools, events, tickets... ARGV: the pool's name, events maxlen, ticket ids...
# Moves the tickets still waiting in the sub-pool to the pool (sub-pool 0), their queued time kept;
# returns the ids moved. The 'waiting' entry wakes the pool's owner.
_REHOME = """
local moved = {}
for i = 5, #KEYS do
  local id = ARGV[i - 2]
  local queued = redis.call('ZSCORE', KEYS[1], id)
  if queued and redis.call('HGET', KEYS[i], 's') == 'waiting' then
    redis.call('ZREM', KEYS[1], id)
    redis.call('ZADD', KEYS[2], queued, id)
    redis.call('HSET', KEYS[i], 'pool', ARGV[1])
    moved[#moved + 1] = id
  end
end
if #moved > 0 then
  redis.call('SADD', KEYS[3], ARGV[1])
  redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[2], '*', 'k', 'waiting', 't', table.concat(moved, ','),
    'pool', ARGV[1])
end
return moved
"""

# KEYS: job. ARGV: ttl. The job's next epoch (a script rather than MULTI: the same on Redis Cluster).
_OWN = """
local epoch = redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], ARGV[1])
return epoch
"""

# KEYS: pool, pools. ARGV: pool. Forget an empty pool (atomic with FIND's SADD).
_PRUNE = """
if redis.call('ZCARD', KEYS[1]) == 0 then redis.call('SREM', KEYS[2], ARGV[1]) return 1 end
return 0
"""


@dataclass(frozen=True)
class TicketState:
    """A ticket as stored."""

    ticket_id: str
    player_id: str
    game: str
    state: str
    match_id: str = ""
    seat: int = -1
    error: str = ""
    # The seat's tenure when its match was formed (0: not known).
    tenure: int = 0


@dataclass(frozen=True)
class Job:
    """A formation job: create match `match_id` with `players` in seat order."""

    match_id: str
    game: str
    options: dict[str, str]
    pool: str
    tickets: tuple[str, ...]
    # Ticket players first (seat i = tickets[i]), then bot player ids.
    players: tuple[str, ...]

    @classmethod
    def from_fields(cls, fields: Mapping[bytes, bytes]) -> Job:
        return cls(
            match_id=fields[b"m"].decode(), game=fields[b"g"].decode(), options=json.loads(fields[b"o"]),
            pool=fields[b"pool"].decode(), tickets=tuple(fields[b"t"].decode().split(",")),
            players=tuple(fields[b"p"].decode().split(",")),
        )

    @property
    def bot_seats(self) -> tuple[int, ...]:
        return tuple(range(len(self.tickets), len(self.players)))


class TicketStore:
    """The matchmaker's Redis adapter."""

    def __init__(self, client: aioredis.Redis) -> None:
        self._redis = commands(client)
        self._find = client.register_script(_FIND)
        self._claim = client.register_script(_CLAIM)
        self._assign = client.register_script(_ASSIGN)
        self._return = client.register_script(_RETURN)
        self._cancel = client.register_script(_CANCEL)
        self._prune = client.register_script(_PRUNE)
        self._expire = client.register_script(_EXPIRE)
        self._own = client.register_script(_OWN)
        self._abandon = client.register_script(_ABANDON)
        self._claim_many = client.register_script(_CLAIM_MANY)
        self._watched = client.register_script(_WATCHED)
        self._own_many = client.register_script(_OWN_MANY)
        self._assign_many = client.register_script(_ASSIGN_MANY)
        self._unwatch = client.register_script(_UNWATCH)
        self._take_up = client.register_script(_TAKE_UP)
        self._rehome = client.register_script(_REHOME)

    async def add(self, ticket_id: str, player_id: str, game: str, options: Mapping[str, str],
                  players: tuple[int, int], rating: float, command_id: str = "") -> str:
        """Queue a ticket; returns its id (the earlier one's for a repeated command id, or
        the player's ticket for the game that may still be placed)."""
        return (await self.enqueue(ticket_id, player_id, game, options, players, rating, command_id))[0]

    async def enqueue(self, ticket_id: str, player_id: str, game: str, options: Mapping[str, str],
                      players: tuple[int, int], rating: float, command_id: str = "",
                      seen: str | None = None, shards: int = 1, watched: bool = False) -> tuple[str, str]:
        """Queue a ticket: (its id, how). `how` is 'new'; 'command' when the command id was
        used before (its ticket's id); 'live' when the player already has a ticket for the
        game that may still be placed (that ticket's id: one ticket per player and game).
        The ticket waits in one of the pool's `shards` sub-pools (partition.sub_pool).
        `watched`: the caller watches a new ticket from its first moment (a Queue stream),
        and ends that watch with `unwatch`."""
        pool = partition.sub_pool(pool_name(game, options), ticket_id, shards)
        # A command id belongs to its player: another player's same id is another command.
        command = f"{PREFIX}cmd:{player_id}:{command_id}" if command_id else f"{PREFIX}cmd:{ticket_id}"
        live = live_key(game, player_id)
        for _ in range(8):
            # `seen`: the live ticket id the caller read just before (live_and_field), else read now.
            seen_id = seen if seen is not None else _text(await self._redis.get(live) or b"")
            seen = None
            args: list[str | int | float] = [
                ticket_id, pool, player_id, game, canonical(options), players[0], players[1], rating,
                int(time.time() * 1000), "1" if command_id else "0", EVENTS_MAXLEN, seen_id,
                "1" if watched else "0",
            ]
            keys = [ticket_key(ticket_id), pool_key(pool), POOLS, EVENTS, command, HEARD, live,
                    ticket_key(seen_id or ticket_id)]
            found, how = (_text(v) for v in await self._find(keys=keys, args=args))
            if how != "retry":
                return found, how
        raise Aborted("this player's tickets are changing too fast; retry", "matchmaker.contention")

    async def live_and_field(self, game: str, player_id: str, key: str, field: str) -> tuple[str, bytes | None]:
        """The player's live ticket id for `game` ("" if none), and field `field` of hash `key`
        (another slot is fine: two plain reads), in one round trip."""
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.get(live_key(game, player_id))
            pipe.hget(key, field)
            live, value = await pipe.execute()
        return (live.decode() if live is not None else ""), value

    async def heard(self, ticket_ids: Sequence[str]) -> None:
        """The watchers of `ticket_ids` are there now (tickets no longer waiting are left alone)."""
        if ticket_ids:
            now = int(time.time() * 1000)
            await self._redis.zadd(HEARD, dict.fromkeys(ticket_ids, now), xx=True)

    async def abandon(self, unheard_since: float, limit: int) -> list[str]:
        """End up to `limit` waiting tickets whose watcher was last heard of before `unheard_since`."""
        cutoff = int(unheard_since * 1000)
        ids = [i.decode() for i in await self._redis.zrangebyscore(HEARD, "-inf", cutoff, start=0, num=limit)]
        if not ids:
            return []
        async with self._redis.pipeline(transaction=False) as pipe:
            for ticket_id in ids:
                pipe.hget(ticket_key(ticket_id), "pool")
            pools = await pipe.execute()
        keys = [HEARD, EVENTS]
        for ticket_id, pool in zip(ids, pools):
            keys += [pool_key(pool.decode() if pool is not None else ""), ticket_key(ticket_id)]
        gone = await self._abandon(keys=keys, args=[cutoff, EVENTS_MAXLEN, *ids])
        return [_text(g) for g in gone]

    async def get(self, ticket_id: str) -> TicketState | None:
        return _state(ticket_id, await self._redis.hgetall(ticket_key(ticket_id)))

    async def get_heard(self, ticket_id: str, player_id: str) -> TicketState | None:
        """A watch of the ticket opening: the ticket, and if `player_id` queued it one watcher more,
        heard of now (a ticket withdrawn when its last watcher left is back in its pool, if it is
        still the player's ticket for the game: _WATCHED). End the watch with `unwatch`."""
        for _ in range(8):
            pool, game = await self._redis.hmget(ticket_key(ticket_id), ["pool", "g"])
            if pool is None or game is None:
                return None
            keys = [ticket_key(ticket_id), HEARD, live_key(game.decode(), player_id), pool_key(pool.decode()),
                    POOLS, EVENTS]
            flat = await self._watched(keys=keys, args=[ticket_id, player_id, int(time.time() * 1000),
                                                        pool.decode(), EVENTS_MAXLEN])
            if flat:
                return _state(ticket_id, dict(zip(flat[::2], flat[1::2])))
        raise Aborted("this ticket is moving between pools too fast; retry", "matchmaker.contention")

    async def unwatch(self, ticket_id: str) -> bool:
        """A watch of the ticket ending: one watcher fewer; the last one gone, a waiting ticket is
        withdrawn at once (_UNWATCH). Whether it was withdrawn."""
        for _ in range(8):
            pool = await self._redis.hget(ticket_key(ticket_id), "pool")
            if pool is None:
                return False
            keys = [ticket_key(ticket_id), pool_key(pool.decode()), HEARD, EVENTS]
            done = int(await self._unwatch(keys=keys, args=[ticket_id, pool.decode(), int(time.time() * 1000),
                                                             EVENTS_MAXLEN]))
            if done != -2:
                return done == 1
        return False

    async def request_of(self, ticket_id: str) -> tuple[str, int, int] | None:
        """(pool, players_min, players_max) a ticket asked for; None if it is gone."""
        pool, low, high = await self._redis.hmget(ticket_key(ticket_id), ["pool", "lo", "hi"])
        if pool is None:
            return None
        assert low is not None and high is not None  # a ticket's fields are written together
        return pool.decode(), int(low), int(high)

    async def cancel(self, ticket_id: str) -> int:
        """1 cancelled, 0 no longer waiting, -1 unknown or already cancelled."""
        pool = await self._redis.hget(ticket_key(ticket_id), "pool")
        if pool is None:
            return -1
        return int(await self._cancel(keys=[ticket_key(ticket_id), pool_key(pool.decode()), EVENTS, HEARD],
                                      args=[ticket_id]))

    async def ticket_events(self, after: str, block_ms: int) -> list[tuple[str, Mapping[bytes, bytes]]]:
        """Ticket events after entry `after` ("$": from now on), waiting up to `block_ms` for one."""
        reply = await self._redis.xread({EVENTS: after}, count=1000, block=block_ms)
        return [(entry_id.decode(), fields) for _, entries in reply or () for entry_id, fields in entries]

    async def last_event(self) -> str | None:
        """The id of the newest ticket event, None while there is none."""
        newest = await self._redis.xrevrange(EVENTS, count=1)
        return newest[0][0].decode() if newest else None

    async def display_names(self, player_ids: Sequence[str]) -> list[str]:
        """Each player's display name, "" for one who never gave one (or a bot), in one round trip."""
        return await players.display_names(self._redis, player_ids)

    async def pools(self) -> list[str]:
        return sorted(p.decode() for p in await self._redis.smembers(POOLS))

    async def live_replicas(self, replica: str, now_ms: int, ttl_ms: int) -> list[str]:
        """Announce `replica` as live now, forget replicas silent for `ttl_ms`, and answer
        the live ones, in one round trip."""
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.zadd(REPLICAS, {replica: now_ms})
            pipe.zremrangebyscore(REPLICAS, "-inf", now_ms - ttl_ms)
            pipe.zrange(REPLICAS, 0, -1)
            *_, live = await pipe.execute()
        return [r.decode() for r in live]

    async def lease(self, pool: str, owner: str, ms: int) -> bool:
        """Try to become the one replica grouping `pool` for the next `ms`."""
        return bool(await self._redis.set(lock_key(pool), owner, nx=True, px=ms))

    async def unlease(self, pool: str) -> None:
        await self._redis.delete(lock_key(pool))

    async def waiting(self, pool: str, limit: int) -> list[Ticket]:
        """The oldest `limit` waiting tickets of a pool."""
        return await self._tickets(pool, [i.decode() for i in await self._redis.zrange(pool_key(pool), 0, limit - 1)])

    async def lease_waiting(self, pool: str, owner: str, ms: int, limit: int) -> list[Ticket] | None:
        """`lease` and then `waiting`, the lease and the ids in one round trip; None (nothing
        read) when another replica holds the lease."""
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.set(lock_key(pool), owner, nx=True, px=ms)
            pipe.zrange(pool_key(pool), 0, limit - 1)
            leased, ids = await pipe.execute()
        if not leased:
            return None
        return await self._tickets(pool, [i.decode() for i in ids])

    async def claim_and_unlease(self, pool: str, groups: Sequence[tuple[str, Group]],
                                unheard_since: float = 0.0) -> list[bool]:
        """`claim_many` and then `unlease`, in one round trip."""
        if not groups:
            await self.unlease(pool)
            return []
        keys, args = _claims(pool, groups, unlease=True, unheard_since=unheard_since)
        return [bool(int(done)) for done in await self._claim_many(keys=keys, args=args)]

    async def _tickets(self, pool: str, ids: list[str]) -> list[Ticket]:
        """The grouping's view of the waiting tickets `ids` of `pool` (one pipeline)."""
        if not ids:
            await self._prune(keys=[pool_key(pool), POOLS], args=[pool])
            return []
        async with self._redis.pipeline(transaction=False) as pipe:
            for ticket_id in ids:
                pipe.hmget(ticket_key(ticket_id), ["p", "lo", "hi", "r", "q"])
            rows = await pipe.execute()
        return [
            Ticket(ticket_id, p.decode(), int(lo), int(hi), float(r), int(q) / 1000)
            for ticket_id, (p, lo, hi, r, q) in zip(ids, rows)
            if p is not None
        ]

    async def claim(self, pool: str, match_id: str, group: Group, unheard_since: float = 0.0) -> bool:
        """Take the group's tickets out of the pool and queue its formation job, all or nothing;
        nothing if a ticket's watcher was last heard of before `unheard_since` (epoch seconds;
        0: not checked): a player gone is placed with nobody."""
        ids = [t.ticket_id for t in group.tickets]
        keys = [pool_key(pool), JOBS, BOT_SEQ, HEARD, *(ticket_key(i) for i in ids)]
        cutoff = int(unheard_since * 1000)
        return bool(await self._claim(keys=keys, args=[match_id, group.bots, pool, cutoff, *ids]))

    async def claim_many(self, pool: str, groups: Sequence[tuple[str, Group]],
                         unheard_since: float = 0.0) -> list[bool]:
        """Claim many (match id, group) of one pool in one round trip: each as `claim` does,
        all or nothing per group; whether each was claimed."""
        if not groups:
            return []
        keys, args = _claims(pool, groups, unlease=False, unheard_since=unheard_since)
        return [bool(int(done)) for done in await self._claim_many(keys=keys, args=args)]

    async def expire(self, pool: str, queued_before: float, limit: int) -> list[str]:
        """End up to `limit` tickets waiting in `pool` since before `queued_before` (epoch seconds)."""
        cutoff = int(queued_before * 1000)
        ids = [i.decode() for i in await self._redis.zrangebyscore(pool_key(pool), "-inf", cutoff, start=0, num=limit)]
        if not ids:
            return []
        keys = [pool_key(pool), EVENTS, HEARD, *(ticket_key(i) for i in ids)]
        gone = await self._expire(keys=keys, args=[cutoff, EVENTS_MAXLEN, *ids])
        return [_text(g) for g in gone]

    async def rehome(self, sub_pool: str, ticket_ids: Sequence[str]) -> list[str]:
        """Move tickets still waiting in `sub_pool` to its pool (sub-pool 0); the ids moved."""
        if not ticket_ids:
            return []
        pool = partition.home(sub_pool)
        keys = [pool_key(sub_pool), pool_key(pool), POOLS, EVENTS, *(ticket_key(i) for i in ticket_ids)]
        return [_text(t) for t in await self._rehome(keys=keys, args=[pool, EVENTS_MAXLEN, *ticket_ids])]

    async def own(self, job: Job) -> int:
        """Take the job up: its next epoch, which fences off every replica that held it before."""
        return int(await self._own(keys=[job_key(job.match_id)], args=[DONE_TTL]))

    async def own_many(self, jobs: Sequence[Job]) -> list[int]:
        """Take many jobs up in one round trip: each one's next epoch, as `own`."""
        if not jobs:
            return []
        return [int(e) for e in await self._own_many(keys=[job_key(j.match_id) for j in jobs], args=[DONE_TTL])]

    async def take_up(self, jobs: Sequence[Job], unheard_since: float = 0.0) -> list[int]:
        """`own_many`, checking at each job's first take-up that its players are still there
        (_TAKE_UP): a job with one gone is void (0), its other tickets back in their pool; a
        negative epoch is a job voided before. `unheard_since`: epoch seconds, 0 not checked."""
        if not jobs:
            return []
        keys = [HEARD, EVENTS, POOLS]
        args: list[str | int] = [DONE_TTL, int(unheard_since * 1000), EVENTS_MAXLEN]
        for job in jobs:
            keys += [job_key(job.match_id), pool_key(job.pool), *(ticket_key(i) for i in job.tickets)]
            args += [job.match_id, job.pool, len(job.tickets), *job.tickets]
        return [int(e) for e in await self._take_up(keys=keys, args=args)]

    async def take_up_named(self, jobs: Sequence[Job], unheard_since: float = 0.0) -> tuple[list[int], list[str]]:
        """`take_up`, and `display_names` of every job's players in seat order, side by side."""
        epochs, names = await asyncio.gather(self.take_up(jobs, unheard_since),
                                             self.display_names([p for job in jobs for p in job.players]))
        return epochs, names

    async def own_many_named(self, jobs: Sequence[Job]) -> tuple[list[int], list[str]]:
        """`own_many`, and `display_names` of every job's players in seat order (all the
        jobs' players one after the other), side by side."""
        # Side by side, not one pipeline: a script in a Redis Cluster pipeline is never loaded.
        epochs, names = await asyncio.gather(self.own_many(jobs),
                                             self.display_names([p for job in jobs for p in job.players]))
        return epochs, names

    async def assign_many(self, jobs: Sequence[tuple[Job, int, Sequence[int]]]) -> list[int]:
        """`assign` for many (job, epoch, each ticket's seat tenure) in one round trip: each job's
        answer, -1 where the epoch is no longer the job's (nothing of that job moved)."""
        if not jobs:
            return []
        keys = [EVENTS, BOTS]
        args: list[str | int] = [EVENTS_MAXLEN, DONE_TTL]
        for job, epoch, tenures in jobs:
            keys += [job_key(job.match_id), *(ticket_key(i) for i in job.tickets)]
            args += [job.match_id, ",".join(str(s) for s in job.bot_seats), epoch, len(job.tickets), *job.tickets,
                     *(tenures[i] if i < len(tenures) else 0 for i in range(len(job.tickets)))]
        return [int(r) for r in await self._assign_many(keys=keys, args=args)]

    async def ensure_owner(self, job: Job, epoch: int) -> None:
        """Raise Aborted if another replica has taken the job over (a hint: the scripts re-check)."""
        current = await self._redis.get(job_key(job.match_id))
        _owned(job, 0 if current is not None and int(current) == epoch else -1)

    async def assign(self, job: Job, epoch: int) -> int:
        """Mark the job's tickets assigned (1; 2 if they already were; 0 if they were taken back).

        Raises Aborted when `epoch` is no longer the job's: another replica has taken it over.
        """
        bots = ",".join(str(s) for s in job.bot_seats)
        keys = [EVENTS, BOTS, job_key(job.match_id), *(ticket_key(i) for i in job.tickets)]
        args: list[str | int] = [job.match_id, bots, epoch, *job.tickets, EVENTS_MAXLEN, DONE_TTL]
        return _owned(job, int(await self._assign(keys=keys, args=args)))

    async def give_back(self, job: Job, epoch: int, state: str = "waiting", error: str = "") -> int:
        """Return the job's tickets to the pool ('waiting') or end them ('failed'); how many moved.

        Raises Aborted when `epoch` is no longer the job's: another replica has taken it over.
        """
        keys = [pool_key(job.pool), POOLS, EVENTS, job_key(job.match_id), HEARD,
                *(ticket_key(i) for i in job.tickets)]
        now = int(time.time() * 1000)
        args: list[str | int] = [job.match_id, job.pool, state, error, epoch, now, *job.tickets]
        return _owned(job, int(await self._return(keys=keys, args=args)))


def _claims(pool: str, groups: Sequence[tuple[str, Group]], unlease: bool,
            unheard_since: float = 0.0) -> tuple[list[str], list[str | int]]:
    """CLAIM_MANY's keys and arguments."""
    keys = [pool_key(pool), JOBS, BOT_SEQ, HEARD, lock_key(pool)]
    args: list[str | int] = [pool, "1" if unlease else "0", int(unheard_since * 1000)]
    for match_id, group in groups:
        ids = [t.ticket_id for t in group.tickets]
        keys += [ticket_key(i) for i in ids]
        args += [match_id, group.bots, len(ids), *ids]
    return keys, args


def _state(ticket_id: str, fields: Mapping[bytes, bytes]) -> TicketState | None:
    if not fields:
        return None
    text = {k.decode(): v.decode() for k, v in fields.items()}
    return TicketState(ticket_id, text.get("p", ""), text.get("g", ""), text.get("s", ""),
                       text.get("m", ""), int(text.get("seat", "-1")), text.get("err", ""), int(text.get("h", "0")))


def _owned(job: Job, outcome: int) -> int:
    if outcome < 0:
        raise Aborted(f"formation job {job.match_id} was taken over by another replica", SUPERSEDED)
    return outcome


def _text(value: bytes | str | int) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def placed_of(entry: Mapping[bytes, bytes]) -> dict[str, tuple[str, int, int]]:
    """Ticket id -> (match id, seat, tenure) of an 'assigned' events entry that carries them
    (assign_many's); empty for any other entry (its watchers read the ticket)."""
    seats = entry.get(b"seat")
    if entry.get(b"k") != b"assigned" or not seats:
        return {}
    ids, matches = entry[b"t"].decode().split(","), entry[b"m"].decode().split(",")
    tenures = entry.get(b"h", b"").decode().split(",")
    return {t: (m, int(s), int(tenures[i]) if i < len(tenures) and tenures[i] else 0)
            for i, (t, m, s) in enumerate(zip(ids, matches, seats.decode().split(",")))}


def ids_of(entry: Mapping[bytes, bytes]) -> Sequence[str]:
    """Ticket ids named by an events-stream entry."""
    raw = entry.get(b"t", b"")
    return raw.decode().split(",") if raw else ()
