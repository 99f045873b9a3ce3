"""The match process."""


from services.common import config, redis_client, runtime
from services.common.grpc_server import serve
from services.match.bootstrap import match_app
from services.match.servicer import register


async def main() -> None:
    settings = config.load()
    client = redis_client.connect_settings(settings, "tabletop-match")
    app = match_app(settings, client)
    await serve("match", settings, lambda server: register(server, app), on_stop=client.aclose, redis=client)


if __name__ == "__main__":
    runtime.run(main)
