"""The match process."""

import asyncio

from services.common import config, keys, redis_client, wiring
from services.common.grpc_server import serve
from services.common.redis_store import RedisEventStore
from services.match.app import MatchApp
from services.match.directory import RedisDirectory
from services.match.servicer import register


async def main() -> None:
    settings = config.load()
    client = redis_client.connect_settings(settings, "tabletop-match")
    store = RedisEventStore(client)
    dice = wiring.dice_client(settings, client)
    deck = wiring.deck_client(settings, client, dice)

    async def announce(match_id: str, game: str) -> None:
        # At least once: the ratings projection also rescans logs when rebuilt.
        await client.xadd(keys.FINISHED_STREAM, {"match_id": match_id, "game": game})

    app = MatchApp(
        store, wiring.rules_clients(settings), dice, deck, settings.snapshot_every, announce, RedisDirectory(client)
    )
    await serve("match", settings, lambda server: register(server, app), on_stop=client.aclose, redis=client)


if __name__ == "__main__":
    asyncio.run(main())
