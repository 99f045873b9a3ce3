"""The deck process: its dice client is always remote (hidden shuffles ask the dice service)."""


from bootstrap import dial
from services.common import config
from services.common.redis import client as redis_client
from services.common.rpc.adapters import DiceClient
from services.common.rpc.server import serve
from services.common.security import tls
from services.common.security.grants import GrantChecker
from services.deck.app import DeckApp
from services.deck.servicer import DicePermuter, register


async def main() -> None:
    settings = config.load()
    grants = GrantChecker(tls.material(settings).ca)
    client = redis_client.connect_settings(settings, "tabletop-deck")
    dice = DiceClient.remote(settings.dice_addr, dial(settings, "dice"), calls=settings.internal_calls)
    app = DeckApp(client, DicePermuter(dice))

    async def close() -> None:
        await dice.close()
        await client.aclose()

    await serve("deck", settings, lambda server: register(server, app, grants), on_stop=close, redis=client)

