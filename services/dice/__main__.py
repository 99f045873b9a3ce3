"""The dice process."""

import asyncio

import redis.asyncio as aioredis

from services.common import config
from services.common.grpc_server import serve
from services.dice.app import DiceApp
from services.dice.servicer import register


async def main() -> None:
    settings = config.load()
    client = aioredis.from_url(settings.redis_url, decode_responses=False)
    app = DiceApp(client)
    await serve("dice", settings, lambda server: register(server, app), on_stop=client.aclose)


if __name__ == "__main__":
    asyncio.run(main())
