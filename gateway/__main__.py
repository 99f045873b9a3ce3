"""The gateway process."""

import asyncio
import pathlib

from tabletop.match.v1 import match_service_pb2_grpc
from tabletop.matchmaker.v1 import matchmaker_service_pb2_grpc

from gateway import payloads
from gateway.forwarded import caller_address
from gateway.identity import ExternalConfig, ExternalIdentities, Players
from gateway.limits import CallerLimits, RateLimiter
from gateway.matchmaking import replicas_client
from gateway.servicer import GatewayServicer, register
from gateway.subscriptions import Subscriptions
from services.common import config, keyring, redis_changes, redis_client, wiring
from services.common.grpc_server import serve
from services.common.redis_store import RedisEventStore
from services.common.tokens import Lifetimes, TokenAuthority
from services.common.transport import RemoteClient
from services.games import registry


def token_authority(settings: config.Settings) -> TokenAuthority:
    """The signing keys the settings name; KeyRingError without strong ones (no key is built in)."""
    if settings.token_keys:
        ring = keyring.loads(settings.token_keys)
    elif settings.token_keys_file:
        ring = keyring.load_file(settings.token_keys_file)
    else:
        raise keyring.KeyRingError(
            "no token signing keys: set TABLETOP_TOKEN_KEYS_FILE to a key ring "
            "(`python -m services.common.keyring create PATH` makes one)"
        )
    lifetimes = Lifetimes(settings.session_ttl, settings.refresh_ttl, settings.seat_token_ttl)
    return TokenAuthority(ring, lifetimes)


def external_identities(settings: config.Settings) -> ExternalIdentities | None:
    pem = pathlib.Path(settings.auth_jwt_public_key_file).read_text() if settings.auth_jwt_public_key_file else ""
    if not (settings.auth_jwks_url or pem):
        return None
    return ExternalIdentities(
        ExternalConfig(settings.auth_jwks_url, pem, settings.auth_jwt_issuer, settings.auth_jwt_audience)
    )


async def main() -> None:
    settings = config.load()
    try:
        tokens = token_authority(settings)
    except keyring.KeyRingError as error:
        raise SystemExit(f"tabletop: refusing to start: {error}") from None
    client = redis_client.connect_settings(settings, "tabletop-gateway")
    store = RedisEventStore(client)
    # Live updates: one subscription for every watched match (see subscriptions.py).
    listener = redis_client.subscriber(settings.redis_url, settings.redis_cluster, client, "tabletop-gateway")
    feeds = Subscriptions(store, lambda: redis_changes.listen(listener))
    limits = CallerLimits(settings)
    # Players reach the gateway in plaintext (tokens identify them); the gateway
    # reaches internal services over mutual TLS as the identity "gateway".
    match = RemoteClient(
        match_service_pb2_grpc.MatchServiceStub, settings.match_addr, wiring.dial(settings, "match"), timeout=10.0
    )
    # One address or several ("ipv4:host:port,host:port"): any matchmaker replica answers any call.
    matchmaker = replicas_client(
        matchmaker_service_pb2_grpc.MatchmakerServiceStub, settings.matchmaker_addr, wiring.dial(settings, "matchmaker")
    )
    rules = wiring.rules_clients(settings)
    servicer = GatewayServicer(
        match,
        rules,
        store,
        tokens,
        Players(client, external_identities(settings), settings.auth_custom),
        matchmaker=matchmaker,
        limiter=RateLimiter(settings.seat_action_rate, settings.seat_action_burst),
        create_limiter=RateLimiter(settings.create_rate, settings.create_burst),
        feeds=feeds,
    )

    async def stop() -> None:
        await feeds.close()
        if listener is not client:
            await listener.aclose()
        await client.aclose()

    await serve(
        "gateway",
        settings,
        lambda server: register(server, servicer),
        on_stop=stop,
        public=True,
        redis=client,
        admission=limits.admit,
        # Reflection resolves every view, action and event a client receives or sends in an Any.
        reflect=payloads.reflected_names(name for name in rules if name in registry.available()),
        caller=caller_address(settings.trust_forwarded),
    )


if __name__ == "__main__":
    asyncio.run(main())
