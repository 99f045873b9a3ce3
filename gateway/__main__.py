"""The gateway process."""

import asyncio

from tabletop.match.v1 import match_service_pb2_grpc
from tabletop.matchmaker.v1 import matchmaker_service_pb2_grpc

from gateway.limits import RateLimiter
from gateway.matchmaking import replicas_client
from gateway.servicer import GatewayServicer, register
from services.common import config, redis_client, wiring
from services.common.grpc_server import serve
from services.common.redis_store import RedisEventStore
from services.common.tokens import TokenAuthority
from services.common.transport import RemoteClient


async def main() -> None:
    settings = config.load()
    client = redis_client.connect(settings.redis_url, settings.redis_cluster)
    # Players reach the gateway in plaintext (tokens identify them); the gateway
    # reaches internal services over mutual TLS as the identity "gateway".
    match = RemoteClient(
        match_service_pb2_grpc.MatchServiceStub, settings.match_addr, wiring.dial(settings, "match"), timeout=10.0
    )
    # One address or several ("ipv4:host:port,host:port"): any matchmaker replica answers any call.
    matchmaker = replicas_client(
        matchmaker_service_pb2_grpc.MatchmakerServiceStub, settings.matchmaker_addr, wiring.dial(settings, "matchmaker")
    )
    servicer = GatewayServicer(
        match,
        wiring.rules_clients(settings),
        RedisEventStore(client),
        TokenAuthority(settings.token_secret),
        matchmaker=matchmaker,
        limiter=RateLimiter(settings.seat_action_rate, settings.seat_action_burst),
    )
    await serve("gateway", settings, lambda server: register(server, servicer), on_stop=client.aclose, public=True)


if __name__ == "__main__":
    asyncio.run(main())
