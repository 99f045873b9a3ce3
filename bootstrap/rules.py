"""A rules process: serves the game named by TABLETOP_GAME.

Unless TABLETOP_RULES_CHANCE=0, it dials the dice and the deck too, to resolve the
chance after a move under the match's grant (services/rules/servicer.py): rolls from
the slice of the match's roll window the move carries (it may not call RollDice), so
it dials the dice only for public permutations.
"""


from bootstrap import dial, load_extra_games
from services.common import config
from services.common.draws import ChanceResolver, NoRolls
from services.common.rpc.adapters import DeckClient, DiceClient
from services.common.rpc.server import serve
from services.games.registry import game
from services.rules.app import EngineHost
from services.rules.servicer import register


async def main() -> None:
    settings = config.load()
    load_extra_games(settings)
    host = EngineHost(game(settings.game))
    resolver = None
    clients: list[DiceClient | DeckClient] = []
    if settings.rules_chance:
        dice = DiceClient.remote(settings.dice_addr, dial(settings, "dice"), calls=settings.internal_calls)
        deck = DeckClient.remote(settings.deck_addr, dial(settings, "deck"), calls=settings.internal_calls)
        clients = [dice, deck]
        resolver = ChanceResolver(dice, deck, NoRolls())

    async def close() -> None:
        for client in clients:
            await client.close()

    await serve(f"rules-{settings.game}", settings, lambda server: register(server, host, resolver), on_stop=close)

