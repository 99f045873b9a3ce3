"""A rules process: serves the game named by TABLETOP_GAME."""


from services.bootstrap import load_extra_games
from services.common import config, runtime
from services.common.grpc_server import serve
from services.games.registry import game
from services.rules.app import EngineHost
from services.rules.servicer import register


async def main() -> None:
    settings = config.load()
    load_extra_games(settings)
    host = EngineHost(game(settings.game))
    await serve(f"rules-{settings.game}", settings, lambda server: register(server, host))


if __name__ == "__main__":
    runtime.run(main)
