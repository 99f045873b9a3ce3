"""Matchmaker tuning: environment variables read once into a frozen dataclass."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from bots.policies import KINDS
from services.common.config import Settings
from services.matchmaker.ratings import DEFAULT_RULES, RatingRules


@dataclass(frozen=True)
class MatchmakerConfig:
    """How tickets are grouped and how work is shared between replicas."""

    # Accepted rating spread (in mu units) of a ticket that has just arrived ...
    spread_base: float = 3.0
    # ... widened by this much per second of waiting ...
    spread_per_second: float = 0.5
    # ... and unbounded once a ticket has waited this long (seconds): nobody waits forever.
    spread_unbounded_after: float = 30.0
    # Seconds before a waiting ticket is backfilled with bots (0: never).
    bot_backfill_after: float = 0.0
    # Seconds a ticket may wait in its pool before it expires (0: never); players who left
    # without cancelling must not be seated forever after.
    ticket_ttl: float = 600.0
    # Seconds a waiting ticket may go without a watcher (WatchTicket, Queue) before it is
    # abandoned (0: never), and past which it is never placed. Counted from FindMatch, and again
    # from the last watch's end, which withdraws it at once: a client that reconnects within it
    # gets it back, with its place.
    watch_grace: float = 3.0
    # Bots stop playing a match whose log has not moved for this many seconds (0: never):
    # the humans abandoned it, and a bot job must not block on it forever.
    bot_idle: float = 600.0
    # A formation or bot job idle this long (ms) in a dead replica's hands is claimed back.
    claim_idle_ms: int = 3000
    # Failures of a formation or bot job (not counting "unavailable") after which it moves to the
    # dead-letter stream (<stream>:dead) and a formation's tickets fail (0: retry forever).
    max_failures: int = 5
    # Oldest tickets of one pool considered per grouping pass.
    batch: int = 500
    # Formation jobs one replica works on at once.
    concurrency: int = 32
    # Backfill bots' level: random legal actions, or the information-set search (docs/bots.md) ...
    bot_level: str = "random"
    # ... with this budget per decision: iterations, or milliseconds with "ms".
    bot_budget: str = "40"
    # Seconds between grouping passes when nothing new arrives (widening and backfill need time).
    tick: float = 0.25
    # Seconds a pass waits after the first new ticket for others arriving with it, when
    # tickets come 200 a second or faster; less the fewer come (services/matchmaker/pace.py).
    batch_window: float = 0.05
    # Sub-pools each pool is split into (services/matchmaker/partition.py): one hot pool's
    # grouping and formation spread over that many replicas' passes; 1: no split.
    pool_shards: int = 1
    # Seconds a ticket waits unseated in a sub-pool before it moves to sub-pool 0, where
    # the stragglers of every sub-pool meet.
    shard_merge_after: float = 0.5
    # What is rated and shown (TABLETOP_RATE_CUSTOM_TABLES, TABLETOP_RATE_GUEST_MIN_MATCHES):
    # matchmade tables only, and guests on the leaderboard after 10 of them (RATINGS.md).
    ratings: RatingRules = DEFAULT_RULES


def load(settings: Settings, env: Mapping[str, str] | None = None) -> MatchmakerConfig:
    """The config from TABLETOP_MM_* variables and the shared settings."""
    env = os.environ if env is None else env
    d = MatchmakerConfig()

    def num(name: str, default: float) -> float:
        return float(env.get(f"TABLETOP_MM_{name}", str(default)))

    return MatchmakerConfig(
        spread_base=num("SPREAD_BASE", d.spread_base),
        spread_per_second=num("SPREAD_PER_SECOND", d.spread_per_second),
        spread_unbounded_after=num("SPREAD_UNBOUNDED_AFTER", d.spread_unbounded_after),
        bot_backfill_after=settings.bot_backfill_after,
        ticket_ttl=num("TICKET_TTL", d.ticket_ttl),
        watch_grace=num("WATCH_GRACE", d.watch_grace),
        bot_idle=num("BOT_IDLE", d.bot_idle),
        claim_idle_ms=int(num("CLAIM_IDLE_MS", d.claim_idle_ms)),
        max_failures=int(num("MAX_FAILURES", d.max_failures)),
        batch=int(num("BATCH", d.batch)),
        concurrency=int(num("CONCURRENCY", d.concurrency)),
        tick=num("TICK", d.tick),
        batch_window=num("BATCH_WINDOW", d.batch_window),
        pool_shards=max(1, int(num("POOL_SHARDS", d.pool_shards))),
        shard_merge_after=num("SHARD_MERGE_AFTER", d.shard_merge_after),
        bot_level=_level(env.get("TABLETOP_MM_BOT_LEVEL", d.bot_level)),
        bot_budget=env.get("TABLETOP_MM_BOT_BUDGET", d.bot_budget),
        ratings=RatingRules(
            rate_custom_tables=_switch(env, "TABLETOP_RATE_CUSTOM_TABLES", d.ratings.rate_custom_tables),
            guest_min_matches=_count(env, "TABLETOP_RATE_GUEST_MIN_MATCHES", d.ratings.guest_min_matches),
        ),
    )


def _switch(env: Mapping[str, str], name: str, default: bool) -> bool:
    value = env.get(name, "").strip().lower()
    if not value:
        return default
    if value not in ("on", "off", "1", "0", "true", "false"):
        raise ValueError(f"{name} must be on or off, not {value!r}")
    return value in ("on", "1", "true")


def _count(env: Mapping[str, str], name: str, default: int) -> int:
    value = int(env.get(name, str(default)))
    if value < 0:
        raise ValueError(f"{name} must not be negative, not {value}")
    return value


def _level(value: str) -> str:
    if value not in KINDS:
        raise ValueError(f"TABLETOP_MM_BOT_LEVEL must be one of {', '.join(KINDS)}, not {value!r}")
    return value
