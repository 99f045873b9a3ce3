"""Configuration: environment variables read once into a frozen dataclass.

Every variable has a local default, so `make run` needs none.
"""

from __future__ import annotations

import enum
import os
import pathlib
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field


class Transport(enum.StrEnum):
    """How a process reaches a contract it calls."""

    GRPC = "grpc"  # a process of its own, over mutual TLS
    INPROCESS = "inprocess"  # the same servicer object in the calling process, no socket


@dataclass(frozen=True)
class Shape:
    """A supported deployment shape: where the match runs for the gateway, and where the
    match's rules, dice and deck run."""

    name: str
    match: Transport
    rules: Transport
    dice: Transport
    deck: Transport
    what: str


APART, LOCAL = Transport.GRPC, Transport.INPROCESS
# The supported shapes, checked once when a process loads its settings (`shape_of`); any
# other mix of TABLETOP_{MATCH,RULES,DICE,DECK}_TRANSPORT is refused at start.
SHAPES = (
    Shape("services", APART, APART, APART, APART,
          "the reference: match, each game's rules, dice and deck in processes of their own"),
    Shape("rules-local", APART, LOCAL, APART, APART,
          "the match process runs the rules; dice and deck apart (piles stay in the deck)"),
    Shape("match-local", APART, LOCAL, LOCAL, LOCAL,
          "the match process runs rules, dice and deck; the gateway calls it"),
    Shape("inprocess", LOCAL, LOCAL, LOCAL, LOCAL,
          "the gateway runs match, rules, dice and deck: no socket before Redis"),
)


@dataclass(frozen=True)
class Settings:
    """Everything a process may be configured with."""

    # Empty: start the embedded Redis-compatible server (make run only).
    redis_url: str = field(default="", repr=False)  # it carries a password
    # Talk to a Redis Cluster (REDIS_CLUSTER=1) through `redis_url`, any of its nodes.
    redis_cluster: bool = False
    host: str = "127.0.0.1"
    # 0 picks a free port; the chosen one is written to ready_file.
    port: int = 0
    # An internal service also listens here (a Unix domain socket path, same mutual TLS):
    # callers on the same host dial "unix:<path>" and skip the TCP stack. "": TCP alone.
    unix_socket: str = ""
    metrics_port: int = -1  # -1: no metrics endpoint; 0: any free port
    # A plaintext port that serves the gRPC health service alone, for probes that
    # cannot present a client certificate (a kubelet's gRPC probe). -1: none; 0: any free port.
    health_port: int = -1
    ready_file: str = ""
    log_level: str = "info"
    # The gateway's token signing keys: a key ring file (JSON, mode 0600) or
    # the ring itself inline. No default: the gateway refuses to start without.
    token_keys_file: str = ""
    token_keys: str = ""
    # Seconds a session, a refresh token and a seat token stay valid.
    session_ttl: int = 3600
    refresh_ttl: int = 30 * 24 * 3600
    seat_token_ttl: int = 24 * 3600
    # Sign-in with a custom id (an id from the operator's account system).
    auth_custom: bool = True
    # An external identity provider: its JWKS URL or a PEM public key file,
    # and the issuer and audience its tokens must carry.
    auth_jwks_url: str = ""
    auth_jwt_public_key_file: str = ""
    auth_jwt_issuer: str = ""
    auth_jwt_audience: str = ""
    gateway_addr: str = "127.0.0.1:50051"
    match_addr: str = "127.0.0.1:50052"
    dice_addr: str = "127.0.0.1:50053"
    deck_addr: str = "127.0.0.1:50054"
    matchmaker_addr: str = "127.0.0.1:50055"
    # game -> address of its rules process
    rules_addrs: Mapping[str, str] = field(default_factory=dict)
    # Per contract: a process of its own or the same servicer in process; together
    # they make one of SHAPES (with the match's: "inprocess", the gateway runs the match app itself).
    rules_transport: Transport = Transport.GRPC
    dice_transport: Transport = Transport.GRPC
    deck_transport: Transport = Transport.GRPC
    match_transport: Transport = Transport.GRPC
    # The gateway's ticket calls (FindMatch, WatchTicket, CancelTicket, ratings): "grpc" (a
    # matchmaker replica at matchmaker_addr) or "inprocess" (the gateway serves them on the
    # tickets in Redis itself: bootstrap/matchmaker.py); the replicas group and form either way.
    matchmaker_transport: Transport = Transport.GRPC
    # How a "grpc" contract carries unary calls: "stream" (one Exchange stream per peer
    # replica, services/common/rpc/mux.py) or "unary" (a gRPC call each, busy callers' batched).
    internal_calls: str = "stream"
    # How long a match process keeps a match's write lease after its last append
    # (services/common/store/event_store.py); 0: it takes none, and reads always check the log.
    match_lease_ms: int = 3000
    # Serve only this game (a rules process).
    game: str = ""
    # A rules process resolves the chance after a move itself, under the match's grant,
    # through the dice and the deck at dice_addr and deck_addr (False: the match does).
    rules_chance: bool = True
    snapshot_every: int = 50
    # A lobby with no event for this long is closed (LobbyExpired); 0 keeps lobbies open forever.
    lobby_idle_seconds: float = 3600.0
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
    # Gateway: matches created and tickets queued per second per player (average, burst).
    create_rate: float = 2.0
    create_burst: float = 30.0
    # Gateway, per caller address: concurrent unary calls, open streams (WatchMatch,
    # Play, WatchTicket), CreateMatch and FindMatch rates; 0 disables a limit.
    caller_calls: int = 64
    caller_streams: int = 64
    caller_create_rate: float = 5.0
    caller_create_burst: float = 60.0
    caller_ticket_rate: float = 5.0
    caller_ticket_burst: float = 60.0
    # Sign-ins per second per caller address (each may create a player).
    # Accept a REDIS_URL without a password (a local server with no users).
    redis_insecure: bool = False
    caller_signin_rate: float = 2.0
    caller_signin_burst: float = 30.0
    # Key per-caller limits by the address the HTTP edge forwards (gateway/forwarded.py);
    # only for a gateway port that nothing but the edge can reach.
    trust_forwarded: bool = False
    # Extra engine packages, name -> package (the platform tests' own game).
    extra_games: Mapping[str, str] = field(default_factory=dict)
    # Mutual TLS between platform processes (PEM files; see services/common/security/tls.py).
    # No defaults: every process refuses to start without them.
    tls_ca: str = ""
    tls_cert: str = ""
    tls_key: str = ""


def _addrs(raw: str) -> dict[str, str]:
    """"game=addr,game=addr"; an item without "=" continues the address before it, so a
    game's address may list several replicas ("pig=ipv4:h:p,h:p,el_dorado=h:p")."""
    found: dict[str, str] = {}
    last = ""
    for item in raw.split(","):
        if "=" in item:
            last, addr = (part.strip() for part in item.split("=", 1))
            found[last] = addr
        elif last and item.strip():
            found[last] += "," + item.strip()
    return found


def _redis_url(env: Mapping[str, str], url: str) -> str:
    """REDIS_URL, with the user and the password of TABLETOP_REDIS_USER and
    TABLETOP_REDIS_PASSWORD_FILE when given (a mounted secret, not an env var)."""
    password_file = env.get("TABLETOP_REDIS_PASSWORD_FILE", "")
    if not url or not password_file:
        return url
    password = urllib.parse.quote(pathlib.Path(password_file).read_text().strip(), safe="")
    parts = urllib.parse.urlsplit(url)
    user = urllib.parse.quote(env.get("TABLETOP_REDIS_USER", parts.username or ""), safe="")
    host = f"{parts.hostname}:{parts.port}" if parts.port else str(parts.hostname)
    return urllib.parse.urlunsplit(parts._replace(netloc=f"{user}:{password}@{host}"))


def shape_named(name: str) -> Shape:
    """The shape of that name; ValueError naming the shapes if there is none."""
    for shape in SHAPES:
        if shape.name == name:
            return shape
    raise ValueError(f"no deployment shape {name!r}; the shapes are: {', '.join(s.name for s in SHAPES)}")


def shape_of(settings: Settings) -> Shape:
    """The named shape the settings' transports make; ValueError, listing the shapes, if none."""
    chosen = (settings.match_transport, settings.rules_transport, settings.dice_transport, settings.deck_transport)
    for shape in SHAPES:
        if (shape.match, shape.rules, shape.dice, shape.deck) == chosen:
            return shape
    named = "; ".join(
        f"{s.name} (match {s.match}, rules {s.rules}, dice {s.dice}, deck {s.deck}: {s.what})" for s in SHAPES
    )
    raise ValueError(
        "TABLETOP_{MATCH,RULES,DICE,DECK}_TRANSPORT = "
        f"{', '.join(chosen)} is not a supported deployment shape; the shapes are: {named}"
    )


def _transport(get: Callable[[str, str], str], name: str) -> Transport:
    value = get(name, Transport.GRPC.value)
    try:
        return Transport(value)
    except ValueError:
        allowed = " or ".join(t.value for t in Transport)
        raise ValueError(f"TABLETOP_{name}={value!r}: expected {allowed}") from None


def load(env: Mapping[str, str] | None = None) -> Settings:
    """Settings from the environment (TABLETOP_* and REDIS_URL)."""
    env = os.environ if env is None else env
    d = Settings()

    def get(name: str, default: str) -> str:
        return env.get(f"TABLETOP_{name}", default)

    settings = Settings(
        redis_url=_redis_url(env, env.get("REDIS_URL", d.redis_url)),
        redis_cluster=env.get("REDIS_CLUSTER", "") not in ("", "0", "false"),
        host=get("HOST", d.host),
        port=int(get("PORT", str(d.port))),
        unix_socket=get("UNIX_SOCKET", d.unix_socket),
        metrics_port=int(get("METRICS_PORT", str(d.metrics_port))),
        health_port=int(get("HEALTH_PORT", str(d.health_port))),
        ready_file=get("READY_FILE", d.ready_file),
        log_level=get("LOG_LEVEL", d.log_level),
        token_keys_file=get("TOKEN_KEYS_FILE", d.token_keys_file),
        token_keys=get("TOKEN_KEYS", d.token_keys),
        session_ttl=int(get("SESSION_TTL", str(d.session_ttl))),
        refresh_ttl=int(get("REFRESH_TTL", str(d.refresh_ttl))),
        seat_token_ttl=int(get("SEAT_TOKEN_TTL", str(d.seat_token_ttl))),
        auth_custom=get("AUTH_CUSTOM", "on") not in ("off", "0", "false"),
        auth_jwks_url=get("AUTH_JWKS_URL", d.auth_jwks_url),
        auth_jwt_public_key_file=get("AUTH_JWT_PUBLIC_KEY_FILE", d.auth_jwt_public_key_file),
        auth_jwt_issuer=get("AUTH_JWT_ISSUER", d.auth_jwt_issuer),
        auth_jwt_audience=get("AUTH_JWT_AUDIENCE", d.auth_jwt_audience),
        gateway_addr=get("GATEWAY_ADDR", d.gateway_addr),
        match_addr=get("MATCH_ADDR", d.match_addr),
        dice_addr=get("DICE_ADDR", d.dice_addr),
        deck_addr=get("DECK_ADDR", d.deck_addr),
        matchmaker_addr=get("MATCHMAKER_ADDR", d.matchmaker_addr),
        rules_addrs=_addrs(get("RULES_ADDRS", "")),
        rules_transport=_transport(get, "RULES_TRANSPORT"),
        dice_transport=_transport(get, "DICE_TRANSPORT"),
        deck_transport=_transport(get, "DECK_TRANSPORT"),
        match_transport=_transport(get, "MATCH_TRANSPORT"),
        matchmaker_transport=_transport(get, "MATCHMAKER_TRANSPORT"),
        internal_calls=get("INTERNAL_CALLS", d.internal_calls),
        match_lease_ms=int(get("MATCH_LEASE_MS", str(d.match_lease_ms))),
        game=get("GAME", d.game),
        rules_chance=get("RULES_CHANCE", "1") not in ("0", "false", "no"),
        snapshot_every=int(get("SNAPSHOT_EVERY", str(d.snapshot_every))),
        lobby_idle_seconds=float(get("LOBBY_IDLE_SECONDS", str(d.lobby_idle_seconds))),
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
        create_rate=float(get("CREATE_RATE", str(d.create_rate))),
        create_burst=float(get("CREATE_BURST", str(d.create_burst))),
        caller_calls=int(get("CALLER_CALLS", str(d.caller_calls))),
        caller_streams=int(get("CALLER_STREAMS", str(d.caller_streams))),
        caller_create_rate=float(get("CALLER_CREATE_RATE", str(d.caller_create_rate))),
        caller_create_burst=float(get("CALLER_CREATE_BURST", str(d.caller_create_burst))),
        caller_ticket_rate=float(get("CALLER_TICKET_RATE", str(d.caller_ticket_rate))),
        caller_ticket_burst=float(get("CALLER_TICKET_BURST", str(d.caller_ticket_burst))),
        redis_insecure=get("REDIS_INSECURE", "") in ("1", "true", "yes"),
        caller_signin_rate=float(get("CALLER_SIGNIN_RATE", str(d.caller_signin_rate))),
        caller_signin_burst=float(get("CALLER_SIGNIN_BURST", str(d.caller_signin_burst))),
        trust_forwarded=get("TRUST_FORWARDED", "") in ("1", "true", "yes"),
        extra_games=_addrs(get("EXTRA_GAMES", "")),
        tls_ca=get("TLS_CA", d.tls_ca),
        tls_cert=get("TLS_CERT", d.tls_cert),
        tls_key=get("TLS_KEY", d.tls_key),
    )
    shape_of(settings)  # refused here, at start, if the transports make no supported shape
    return settings
