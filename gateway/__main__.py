"""The gateway process."""

import asyncio

import redis.asyncio as aioredis

from services.common.tokens import TokenAuthority
from gateway.servicer import GatewayServicer, register
from services.common import config, wiring
from services.common.grpc_server import serve
from services.common.redis_store import RedisEventStore
from services.common.transport import RemoteClient
from tabletop.match.v1 import match_service_pb2_grpc


async def main() -> None:
    settings = config.load()
    client = aioredis.from_url(settings.redis_url, decode_responses=False)
    match = RemoteClient(match_service_pb2_grpc.MatchServiceStub, settings.match_addr)
    servicer = GatewayServicer(
        match, wiring.rules_clients(settings), RedisEventStore(client), TokenAuthority(settings.token_secret)
    )
    await serve("gateway", settings, lambda server: register(server, servicer), on_stop=client.aclose)


if __name__ == "__main__":
    asyncio.run(main())
