"""Configuration: environment variables read once into a frozen dataclass.

Every variable has a local default, so `make run` needs none.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

DEV_TOKEN_SECRET = "tabletop-local-development-secret"


@dataclass(frozen=True)
class Settings:
    """Everything a process may be configured with."""

    # Empty: start the embedded Redis-compatible server (make run only).
    redis_url: str = ""
    # Talk to a Redis Cluster (REDIS_CLUSTER=1) through `redis_url`, any of its nodes.
    redis_cluster: bool = False
    host: str = "127.0.0.1"
    # 0 picks a free port; the chosen one is written to ready_file.
    port: int = 0
    metrics_port: int = -1  # -1: no metrics endpoint; 0: any free port
    ready_file: str = ""
    log_level: str = "info"
    token_secret: str = DEV_TOKEN_SECRET
    gateway_addr: str = "127.0.0.1:50051"
    match_addr: str = "127.0.0.1:50052"
    dice_addr: str = "127.0.0.1:50053"
    deck_addr: str = "127.0.0.1:50054"
    matchmaker_addr: str = "127.0.0.1:50055"
    # game -> address of its rules process
    rules_addrs: Mapping[str, str] = field(default_factory=dict)
    # "grpc" (separate process) or "inprocess" (same servicer, no socket), per contract.
    rules_transport: str = "grpc"
    dice_transport: str = "grpc"
    deck_transport: str = "grpc"
    # Serve only this game (a rules process).
    game: str = ""
    snapshot_every: int = 50
    # SIGTERM: seconds in-flight calls get to finish (longer than a normal action).
    grace_seconds: float = 10.0
    # Redis connections per process (every pool is bounded); seconds a command waits
    # for a free one before failing UNAVAILABLE; seconds a command may take.
    redis_max_connections: int = 64
    redis_pool_timeout: float = 2.0
    redis_timeout: float = 5.0
    # Load shedding: unary calls in flight per process before RESOURCE_EXHAUSTED.
    max_inflight: int = 512
    # Open streams per process before RESOURCE_EXHAUSTED.
    max_streams: int = 20_000
    # Matchmaker: seconds before a waiting ticket is backfilled with bots (0: never).
    bot_backfill_after: float = 0.0
    replica_name: str = ""
    # Gateway: actions per second per seat (average, burst); 0 disables the limit.
    seat_action_rate: float = 50.0
    seat_action_burst: float = 100.0
    # Gateway, per caller (a peer address, or a player id): concurrent unary calls,
    # open streams (WatchMatch, Play, WatchTicket), CreateMatch and FindMatch rates.
    caller_calls: int = 64
    caller_streams: int = 64
    create_rate: float = 2.0
    create_burst: float = 20.0
    ticket_rate: float = 2.0
    ticket_burst: float = 20.0
    # Extra engine packages, name -> package (the platform tests' own game).
    extra_games: Mapping[str, str] = field(default_factory=dict)


def _addrs(raw: str) -> dict[str, str]:
    pairs = (item.split("=", 1) for item in raw.split(",") if "=" in item)
    return {k.strip(): v.strip() for k, v in pairs}


def load(env: Mapping[str, str] | None = None) -> Settings:
    """Settings from the environment (TABLETOP_* and REDIS_URL)."""
    env = os.environ if env is None else env
    d = Settings()

    def get(name: str, default: str) -> str:
        return env.get(f"TABLETOP_{name}", default)

    return Settings(
        redis_url=env.get("REDIS_URL", d.redis_url),
        redis_cluster=env.get("REDIS_CLUSTER", "") not in ("", "0", "false"),
        host=get("HOST", d.host),
        port=int(get("PORT", str(d.port))),
        metrics_port=int(get("METRICS_PORT", str(d.metrics_port))),
        ready_file=get("READY_FILE", d.ready_file),
        log_level=get("LOG_LEVEL", d.log_level),
        token_secret=get("TOKEN_SECRET", d.token_secret),
        gateway_addr=get("GATEWAY_ADDR", d.gateway_addr),
        match_addr=get("MATCH_ADDR", d.match_addr),
        dice_addr=get("DICE_ADDR", d.dice_addr),
        deck_addr=get("DECK_ADDR", d.deck_addr),
        matchmaker_addr=get("MATCHMAKER_ADDR", d.matchmaker_addr),
        rules_addrs=_addrs(get("RULES_ADDRS", "")),
        rules_transport=get("RULES_TRANSPORT", d.rules_transport),
        dice_transport=get("DICE_TRANSPORT", d.dice_transport),
        deck_transport=get("DECK_TRANSPORT", d.deck_transport),
        game=get("GAME", d.game),
        snapshot_every=int(get("SNAPSHOT_EVERY", str(d.snapshot_every))),
        grace_seconds=float(get("GRACE_SECONDS", str(d.grace_seconds))),
        redis_max_connections=int(get("REDIS_MAX_CONNECTIONS", str(d.redis_max_connections))),
        redis_pool_timeout=float(get("REDIS_POOL_TIMEOUT", str(d.redis_pool_timeout))),
        redis_timeout=float(get("REDIS_TIMEOUT", str(d.redis_timeout))),
        max_inflight=int(get("MAX_INFLIGHT", str(d.max_inflight))),
        max_streams=int(get("MAX_STREAMS", str(d.max_streams))),
        bot_backfill_after=float(get("BOT_BACKFILL_AFTER", str(d.bot_backfill_after))),
        replica_name=get("REPLICA_NAME", d.replica_name),
        seat_action_rate=float(get("SEAT_ACTION_RATE", str(d.seat_action_rate))),
        seat_action_burst=float(get("SEAT_ACTION_BURST", str(d.seat_action_burst))),
        caller_calls=int(get("CALLER_CALLS", str(d.caller_calls))),
        caller_streams=int(get("CALLER_STREAMS", str(d.caller_streams))),
        create_rate=float(get("CREATE_RATE", str(d.create_rate))),
        create_burst=float(get("CREATE_BURST", str(d.create_burst))),
        ticket_rate=float(get("TICKET_RATE", str(d.ticket_rate))),
        ticket_burst=float(get("TICKET_BURST", str(d.ticket_burst))),
        extra_games=_addrs(get("EXTRA_GAMES", "")),
    )
