"""The dice process."""


from services.common import config
from services.common.redis import client as redis_client
from services.common.rpc.server import serve
from services.common.security import tls
from services.common.security.grants import GrantChecker
from services.dice.app import DiceApp
from services.dice.servicer import register


async def main() -> None:
    settings = config.load()
    grants = GrantChecker(tls.material(settings).ca)
    client = redis_client.connect_settings(settings, "tabletop-dice")
    app = DiceApp(client)
    await serve("dice", settings, lambda server: register(server, app, grants), on_stop=client.aclose, redis=client)

