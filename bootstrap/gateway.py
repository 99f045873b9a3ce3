"""The gateway process: its clients, servicer and server.

Players reach the gateway in plaintext (tokens identify them); the gateway
reaches internal services over mutual TLS as the identity "gateway".
"""

from __future__ import annotations

import asyncio
import pathlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import redis.asyncio as aioredis

from bootstrap import dial, rules_clients
from bootstrap.match import embedded_match
from bootstrap.tickets import embedded_tickets
from contract import payloads
from gateway.callers import Callers
from gateway.forwarded import caller_address
from gateway.identity import ExternalConfig, ExternalIdentities, Players
from gateway.limits import CallerLimits, RateLimiter
from gateway.lobby import Lobby
from gateway.matchmaking import Matchmaking
from gateway.play import Moves
from gateway.servicer import GatewayParts, register
from gateway.signin import SeatTokens, SignIn
from gateway.subscriptions import Subscriptions
from gateway.tables import GameCatalog
from gateway.watching import Watching
from services.common import config
from services.common.config import Settings
from services.common.redis import changes as redis_changes
from services.common.redis import client as redis_client
from services.common.rpc.adapters import MatchClient, MatchmakerClient
from services.common.rpc.server import serve
from services.common.rpc.transport import ROUND_ROBIN
from services.common.security import keyring
from services.common.security.tokens import Lifetimes, TokenAuthority
from services.common.store.redis_store import RedisEventStore
from services.games import registry
from services.match.app import MatchApp
from services.match.keeper import ClockKeeper


def token_authority(settings: Settings) -> TokenAuthority:
    """The signing keys the settings name; KeyRingError without strong ones (no key is built in)."""
    if settings.token_keys:
        ring = keyring.loads(settings.token_keys)
    elif settings.token_keys_file:
        ring = keyring.load_file(settings.token_keys_file)
    else:
        raise keyring.KeyRingError(
            "no token signing keys: set TABLETOP_TOKEN_KEYS_FILE to a key ring "
            "(`python -m services.common.security.keyring create PATH` makes one)"
        )
    lifetimes = Lifetimes(settings.session_ttl, settings.refresh_ttl, settings.seat_token_ttl)
    return TokenAuthority(ring, lifetimes)


def external_identities(settings: Settings) -> ExternalIdentities | None:
    pem = pathlib.Path(settings.auth_jwt_public_key_file).read_text() if settings.auth_jwt_public_key_file else ""
    if not (settings.auth_jwks_url or pem):
        return None
    return ExternalIdentities(
        ExternalConfig(settings.auth_jwks_url, pem, settings.auth_jwt_issuer, settings.auth_jwt_audience)
    )


def match_client(settings: Settings, client: aioredis.Redis) -> tuple[MatchClient, MatchApp | None]:
    """The match process over mutual TLS, or (TABLETOP_MATCH_TRANSPORT=inprocess) the
    match app inside this process (then an action crosses no socket before the store,
    and this process keeps the clocks: the app is answered too)."""
    if settings.match_transport == "inprocess":
        return embedded_match(settings, client)
    return MatchClient.remote(
        settings.match_addr, dial(settings, "match"), timeout=10.0, calls=settings.internal_calls
    ), None


def matchmaker_client(
    settings: Settings, client: aioredis.Redis
) -> tuple[MatchmakerClient, Callable[[], Awaitable[None]]]:
    """The matchmaker replicas, or (TABLETOP_MATCHMAKER_TRANSPORT=inprocess) the ticket calls
    served here on the tickets in Redis (bootstrap/tickets.py); and what stops it."""
    if settings.matchmaker_transport == "inprocess":
        return embedded_tickets(settings, client)

    async def nothing() -> None:
        return None

    # One address or several ("ipv4:host:port,host:port"): any matchmaker replica answers any call.
    remote = MatchmakerClient.remote(settings.matchmaker_addr, dial(settings, "matchmaker"), options=ROUND_ROBIN)
    return remote, nothing


@dataclass(frozen=True)
class Gateway:
    parts: GatewayParts
    games: list[str]  # the games offered, for server reflection
    close: Callable[[], Awaitable[None]]


def build_gateway(settings: Settings, tokens: TokenAuthority, client: aioredis.Redis) -> Gateway:
    store = RedisEventStore(client)
    # Live updates: one subscription for every watched match (see subscriptions.py).
    listener = redis_client.subscriber(settings.redis_url, settings.redis_cluster, client, "tabletop-gateway")
    feeds = Subscriptions(store, lambda: redis_changes.listen(listener))
    match, embedded = match_client(settings, client)
    keeper = asyncio.get_running_loop().create_task(ClockKeeper(embedded.timekeeper).run()) if embedded else None
    matchmaker, close_tickets = matchmaker_client(settings, client)
    rules = rules_clients(settings)
    players = Players(client, external_identities(settings), settings.auth_custom)
    callers, games = Callers(tokens), GameCatalog(rules)
    seats = SeatTokens(match, tokens)
    # Creates and tickets per player share one limiter, keyed by purpose.
    # (Per caller address, the server's admission hook applies gateway.limits.CallerLimits.)
    per_player = RateLimiter(settings.create_rate, settings.create_burst)
    moves = Moves(match, callers, RateLimiter(settings.seat_action_rate, settings.seat_action_burst), feeds=feeds)
    parts = GatewayParts(
        SignIn(players, tokens, callers, seats),
        Lobby(match, games, callers, tokens, players, per_player),
        moves,
        Watching(match, store, feeds, callers, moves),
        Matchmaking(matchmaker, games, callers, seats, players, per_player),
    )

    async def close() -> None:
        if keeper is not None:
            keeper.cancel()
            await asyncio.gather(keeper, return_exceptions=True)
        await feeds.close()
        await match.close()
        await matchmaker.close()
        await close_tickets()
        if listener is not client:
            await listener.aclose()

    return Gateway(parts, list(rules), close)


async def main() -> None:
    settings = config.load()
    try:
        tokens = token_authority(settings)
    except keyring.KeyRingError as error:
        raise SystemExit(f"tabletop: refusing to start: {error}") from None
    client = redis_client.connect_settings(settings, "tabletop-gateway")
    built = build_gateway(settings, tokens, client)

    async def stop() -> None:
        await built.close()
        await client.aclose()

    await serve(
        "gateway",
        settings,
        lambda server: register(server, built.parts),
        on_stop=stop,
        public=True,
        redis=client,
        admission=CallerLimits(settings).admit,
        # Reflection resolves every view, action and event a client receives or sends in an Any.
        reflect=payloads.reflected_names(name for name in built.games if name in registry.available()),
        caller=caller_address(settings.trust_forwarded),
    )
