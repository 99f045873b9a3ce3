"""The dice process."""


from services.common import config, redis_client, runtime, tls
from services.common.grants import GrantChecker
from services.common.grpc_server import serve
from services.dice.app import DiceApp
from services.dice.servicer import register


async def main() -> None:
    settings = config.load()
    grants = GrantChecker(tls.material(settings).ca)
    client = redis_client.connect_settings(settings, "tabletop-dice")
    app = DiceApp(client)
    await serve("dice", settings, lambda server: register(server, app, grants), on_stop=client.aclose, redis=client)


if __name__ == "__main__":
    runtime.run(main)
