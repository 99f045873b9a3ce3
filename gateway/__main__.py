"""The gateway process."""

import asyncio

from tabletop.match.v1 import match_service_pb2_grpc
from tabletop.matchmaker.v1 import matchmaker_service_pb2_grpc

from gateway.limits import CallerLimits, RateLimiter
from gateway.matchmaking import replicas_client
from gateway.servicer import GatewayServicer, register
from gateway.subscriptions import Subscriptions
from services.common import config, redis_changes, redis_client, wiring
from services.common.grpc_server import serve
from services.common.redis_store import RedisEventStore
from services.common.tokens import TokenAuthority
from services.common.transport import RemoteClient


async def main() -> None:
    settings = config.load()
    client = redis_client.connect_settings(settings, "tabletop-gateway")
    store = RedisEventStore(client)
    # Live updates: one subscription for every watched match (see subscriptions.py).
    listener = redis_client.subscriber(settings.redis_url, settings.redis_cluster, client, "tabletop-gateway")
    feeds = Subscriptions(store, lambda: redis_changes.listen(listener))
    limits = CallerLimits(settings)
    match = RemoteClient(match_service_pb2_grpc.MatchServiceStub, settings.match_addr, timeout=10.0)
    # One address or several ("ipv4:host:port,host:port"): any matchmaker replica answers any call.
    matchmaker = replicas_client(matchmaker_service_pb2_grpc.MatchmakerServiceStub, settings.matchmaker_addr)
    servicer = GatewayServicer(
        match,
        wiring.rules_clients(settings),
        store,
        TokenAuthority(settings.token_secret),
        matchmaker=matchmaker,
        limiter=RateLimiter(settings.seat_action_rate, settings.seat_action_burst),
        feeds=feeds,
        limits=limits,
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
        redis=client,
        admission=limits.admit,
    )


if __name__ == "__main__":
    asyncio.run(main())
