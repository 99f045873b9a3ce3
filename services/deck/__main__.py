"""The deck process."""

import asyncio

from tabletop.dice.v1 import dice_service_pb2_grpc

from services.common import config, redis_client, wiring
from services.common.grpc_server import serve
from services.common.transport import RemoteClient
from services.deck.app import DeckApp
from services.deck.servicer import DicePermuter, register


async def main() -> None:
    settings = config.load()
    client = redis_client.connect_settings(settings, "tabletop-deck")
    dice = RemoteClient(dice_service_pb2_grpc.DiceServiceStub, settings.dice_addr, wiring.dial(settings, "dice"))
    app = DeckApp(client, DicePermuter(dice))

    async def close() -> None:
        await dice.close()
        await client.aclose()

    await serve("deck", settings, lambda server: register(server, app), on_stop=close, redis=client)


if __name__ == "__main__":
    asyncio.run(main())
