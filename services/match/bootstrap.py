"""The match process's clients and app, remote or in process per contract as the settings say."""

from __future__ import annotations

import redis.asyncio as aioredis

from services.bootstrap import dial, rules_clients
from services.common import keys, tls
from services.common.adapters import DeckClient, DiceClient
from services.common.config import Settings
from services.common.ports import DeckPort, DicePort
from services.common.redis_store import RedisEventStore
from services.deck.app import DeckApp
from services.deck.servicer import DeckServicer, DicePermuter
from services.dice.app import DiceApp
from services.dice.servicer import DiceServicer
from services.match.app import MatchApp
from services.match.directory import RedisDirectory


def dice_client(settings: Settings, redis: aioredis.Redis) -> DicePort:
    if settings.dice_transport == "inprocess":
        return DiceClient.in_process(DiceServicer(DiceApp(redis)), tls.identity(settings))
    return DiceClient.remote(settings.dice_addr, dial(settings, "dice"))


def deck_client(settings: Settings, redis: aioredis.Redis, dice: DicePort) -> DeckPort:
    if settings.deck_transport == "inprocess":
        app = DeckApp(redis, DicePermuter(dice))
        return DeckClient.in_process(DeckServicer(app), tls.identity(settings))
    return DeckClient.remote(settings.deck_addr, dial(settings, "deck"))


def match_app(settings: Settings, redis: aioredis.Redis) -> MatchApp:
    dice = dice_client(settings, redis)
    deck = deck_client(settings, redis, dice)

    async def announce(match_id: str, game: str) -> None:
        # At least once: the ratings projection also rescans logs when rebuilt.
        await redis.xadd(keys.FINISHED_STREAM, {"match_id": match_id, "game": game})

    return MatchApp(
        RedisEventStore(redis, settings.match_lease_ms), rules_clients(settings), dice, deck, settings.snapshot_every, announce,
        RedisDirectory(redis),
    )
