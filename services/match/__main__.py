"""The match process: the match service and its clock keeper."""

import asyncio

from services.common import config, runtime
from services.common.redis import client as redis_client
from services.common.rpc.server import serve
from services.match.bootstrap import match_app
from services.match.keeper import ClockKeeper
from services.match.servicer import register


async def main() -> None:
    settings = config.load()
    client = redis_client.connect_settings(settings, "tabletop-match")
    app = match_app(settings, client)
    keeper = asyncio.create_task(ClockKeeper(app.timekeeper).run())

    async def stop() -> None:
        keeper.cancel()
        await asyncio.gather(keeper, return_exceptions=True)
        await client.aclose()

    await serve("match", settings, lambda server: register(server, app), on_stop=stop, redis=client)


if __name__ == "__main__":
    runtime.run(main)
