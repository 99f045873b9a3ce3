"""The dice process."""


from services.common import config, redis_client, runtime
from services.common.grpc_server import serve
from services.dice.app import DiceApp
from services.dice.servicer import register


async def main() -> None:
    settings = config.load()
    client = redis_client.connect_settings(settings, "tabletop-dice")
    app = DiceApp(client)
    await serve("dice", settings, lambda server: register(server, app), on_stop=client.aclose, redis=client)


if __name__ == "__main__":
    runtime.run(main)
