"""The ratings read model: finished matches folded into openskill ratings.

Keys (all in the hash slot `{ratings}`):
  tabletop:{ratings}:r:<game>      hash player -> "mu sigma matches matchmade"
  tabletop:{ratings}:board:<game>  sorted set player -> ordinal (the leaderboard: guests below
                                   the minimum of matchmade games are rated but not on it)
  tabletop:{ratings}:counted       set of match ids already counted
  tabletop:{ratings}:cursor        id of the last tabletop:finished entry applied
  tabletop:{ratings}:games         games with ratings

Matches are applied strictly in the order of the finished stream: each
application is one script that checks the cursor is still where the caller
read it, advances it, and (unless the match was counted before) writes the
new ratings and adds the match to the counted set. Replicas race harmlessly:
the loser re-reads and goes on. So the live ratings equal a rebuild's, a
match is counted once however often it is announced or replayed.

Only trusted matches are rated (ratings.py `untrusted`: matchmade tables, custom
ones where the operator allows, never one player in two seats, never a game a
safety cap stopped); the others only
move the cursor. Whether a table is matchmade is read from its log
(MatchCreated.matchmade), so a rebuild decides as the live path did.
"""

from __future__ import annotations

from dataclasses import dataclass

import redis.asyncio as aioredis
from tabletop.match.v1 import events_pb2 as ev

from services.common import logging as tlog
from services.common import players
from services.common.players import is_bot
from services.common.redis import keys
from services.common.redis.commands import commands
from services.common.store.event_store import EventStore
from services.common.store.redis_store import INDEX_KEY
from services.games.common.engine import STOPPED_REASON
from services.matchmaker.ratings import DEFAULT, DEFAULT_RULES, Rating, RatingRules, Result, on_board, rate, untrusted

log = tlog.get("matchmaker.ratings")
PREFIX = "tabletop:{ratings}:"
COUNTED = PREFIX + "counted"
CURSOR = PREFIX + "cursor"
GAMES = PREFIX + "games"
START = "0-0"


def ratings_key(game: str) -> str:
    return f"{PREFIX}r:{game}"


def board_key(game: str) -> str:
    return f"{PREFIX}board:{game}"


# KEYS: cursor, counted, ratings, board, games. ARGV: expected cursor, new cursor,
# match id, game, count ('1' to write), then player, rating, ordinal triples (an empty
# ordinal: rated, but not on the leaderboard).
_APPLY = """
local cur = redis.call('GET', KEYS[1]) or '0-0'
if cur ~= ARGV[1] then return -1 end
redis.call('SET', KEYS[1], ARGV[2])
if ARGV[5] ~= '1' or redis.call('SISMEMBER', KEYS[2], ARGV[3]) == 1 then return 0 end
redis.call('SADD', KEYS[2], ARGV[3])
redis.call('SADD', KEYS[5], ARGV[4])
for i = 6, #ARGV, 3 do
  redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1])
  if ARGV[i + 2] == '' then
    redis.call('ZREM', KEYS[4], ARGV[i])
  else
    redis.call('ZADD', KEYS[4], ARGV[i + 2], ARGV[i])
  end
end
return 1
"""


async def match_result(store: EventStore, match_id: str) -> Result | None:
    """The players and outcome of a finished match, from its log; None if it has not ended."""
    game, matchmade = "", False
    seated: list[str] = []
    for stored in await store.read(keys.match_stream(match_id)):
        if stored.type == "tabletop.match.v1.MatchCreated":
            created = ev.MatchCreated.FromString(stored.data)
            game, seated, matchmade = created.game, [""] * created.seat_count, created.matchmade
        elif stored.type == "tabletop.match.v1.PlayerJoined":
            joined = ev.PlayerJoined.FromString(stored.data)
            seated[joined.seat] = joined.player_id
        elif stored.type == "tabletop.match.v1.PlayerLeft":
            seated[ev.PlayerLeft.FromString(stored.data).seat] = ""
        elif stored.type == "tabletop.match.v1.MatchEnded":
            outcome = ev.MatchEnded.FromString(stored.data).outcome
            coop = outcome.cooperative_win if outcome.HasField("cooperative_win") else None
            stopped = outcome.detail.get("reason") == STOPPED_REASON
            return Result(game, tuple(seated), tuple(outcome.ranking), coop, matchmade, stopped)
    return None


@dataclass(frozen=True)
class Standing:
    """A player's rating, and whether it is provisional: rated, but not on the leaderboard yet."""

    rating: Rating
    provisional: bool


class RatingsProjection:
    """Applies finished matches to the ratings, in finish order, each once."""

    def __init__(self, client: aioredis.Redis, store: EventStore, rules: RatingRules = DEFAULT_RULES) -> None:
        self._redis = commands(client)
        self._store = store
        self._rules = rules
        self._apply = client.register_script(_APPLY)

    async def rating(self, game: str, player_id: str) -> Rating | None:
        raw = await self._redis.hget(ratings_key(game), player_id)
        return Rating.decode(raw) if raw is not None else None

    async def standing(self, game: str, player_id: str) -> Standing | None:
        """The player's rating and whether the leaderboard shows it, in one round trip."""
        async with self._redis.pipeline(transaction=False) as pipe:
            pipe.hget(ratings_key(game), player_id)
            pipe.zscore(board_key(game), player_id)
            raw, score = await pipe.execute()
        return Standing(Rating.decode(raw), score is None) if raw is not None else None

    async def leaderboard(self, game: str, limit: int, offset: int = 0) -> list[tuple[str, Rating]]:
        ranked = await self._redis.zrevrange(board_key(game), offset, offset + limit - 1)
        if not ranked:
            return []
        raws = await self._redis.hmget(ratings_key(game), ranked)
        return [(p.decode(), Rating.decode(r)) for p, r in zip(ranked, raws) if r is not None]

    async def cursor(self) -> str:
        raw = await self._redis.get(CURSOR)
        return raw.decode() if raw is not None else START

    async def catch_up(self, upto: str | None = None) -> int:
        """Apply finished matches after the cursor (up to entry `upto`); returns how many this call counted."""
        counted = 0
        while True:
            cursor = await self.cursor()
            if upto is not None and _after(cursor, upto):
                return counted
            entries = await self._redis.xrange(keys.FINISHED_STREAM, min=f"({cursor}", max="+", count=100)
            if not entries:
                return counted
            for entry_id, fields in entries:
                ident = entry_id.decode()
                if upto is not None and _after(ident, upto) and ident != upto:
                    return counted
                done = await self.apply(cursor, ident, fields[b"match_id"].decode())
                if done < 0:
                    break  # another replica moved the cursor: read it again
                counted += done
                cursor = ident

    async def apply(self, expected: str, new_cursor: str, match_id: str) -> int:
        """Apply one match if the cursor is at `expected`: 1 counted, 0 already counted, -1 cursor moved."""
        result = await match_result(self._store, match_id)
        args: list[str | float] = [expected, new_cursor, match_id, result.game if result else "", "0"]
        refused = untrusted(result, self._rules) if result is not None else None
        if result is not None and refused is None:
            args[4] = "1"
            for player, rating, shown in await self._rated(result):
                args += [player, rating.encode(), rating.ordinal if shown else ""]
        game = result.game if result else ""
        keys_ = [CURSOR, COUNTED, ratings_key(game), board_key(game), GAMES]
        done = int(await self._apply(keys=keys_, args=args))
        if done == 1:
            log.info("match_rated", match_id=match_id, game=game)
        elif done == 0 and refused is not None:
            log.info("match_not_rated", match_id=match_id, game=game, reason=refused)
        return done

    async def _rated(self, result: Result) -> list[tuple[str, Rating, bool]]:
        """Each human's new rating, and whether the leaderboard shows it."""
        humans = [p for p in result.players if p and not is_bot(p)]
        raws = await self._redis.hmget(ratings_key(result.game), humans) if humans else []
        kinds = dict(zip(humans, await players.kinds(self._redis, humans)))
        stored = {p: Rating.decode(r) for p, r in zip(humans, raws) if r is not None}
        current = [stored.get(p, DEFAULT) for p in result.players]
        new = rate(result, current)
        return [(p, r, on_board(r, kinds[p], self._rules)) for p, r in zip(result.players, new) if p and not is_bot(p)]

    async def rebuild(self) -> int:
        """Reset the ratings and recompute them from the match logs; returns the matches counted."""
        games = [g.decode() for g in await self._redis.smembers(GAMES)]
        await self._redis.delete(COUNTED, CURSOR, GAMES, *map(ratings_key, games), *map(board_key, games))
        order = await self._finish_order()
        counted = 0
        cursor = START
        for entry_id, match_id in order:
            new_cursor = entry_id or cursor
            done = await self.apply(cursor, new_cursor, match_id)
            if done < 0:
                raise RuntimeError("the ratings cursor moved during a rebuild: stop the replicas' projection")
            counted += done
            cursor = new_cursor
        return counted

    async def _finish_order(self) -> list[tuple[str, str]]:
        """(finished-stream entry id, match id) in finish order; matches finished but never
        announced follow in creation order with an empty entry id."""
        order: list[tuple[str, str]] = []
        seen: set[str] = set()
        for entry_id, fields in await self._redis.xrange(keys.FINISHED_STREAM):
            order.append((entry_id.decode(), fields[b"match_id"].decode()))
            seen.add(fields[b"match_id"].decode())
        for name in await self._redis.zrange(INDEX_KEY, 0, -1):
            stream = name.decode()
            match_id = stream.removeprefix("match:")
            if stream.startswith("match:") and match_id not in seen and await _ended(self._store, match_id):
                order.append(("", match_id))
        return order


async def _ended(store: EventStore, match_id: str) -> bool:
    return await match_result(store, match_id) is not None


def _after(a: str, b: str) -> bool:
    """Whether stream id `a` is at or after `b`."""
    return _parse(a) >= _parse(b)


def _parse(entry_id: str) -> tuple[int, int]:
    ms, _, seq = entry_id.partition("-")
    return int(ms), int(seq or 0)

