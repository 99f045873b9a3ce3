"""Builds the internal clients a process needs, remote or in-process per contract.

Remote clients dial with this process's certificate and check the server's
identity; in-process clients call as this process's identity, so the policy
table (services/common/authz.py) applies either way.
"""

from __future__ import annotations

from typing import Any

import redis.asyncio as aioredis
from tabletop.deck.v1 import deck_service_pb2_grpc
from tabletop.dice.v1 import dice_service_pb2_grpc
from tabletop.rules.v1 import rules_service_pb2_grpc

from services.common import authz, tls
from services.common.config import Settings
from services.common.transport import LocalClient, RemoteClient


def load_extra_games(settings: Settings) -> None:
    """Register the extra engine packages the settings name."""
    from services.games import registry

    for name, package in settings.extra_games.items():
        registry.add_package(name, package)


def dice_client(settings: Settings, redis: aioredis.Redis) -> Any:
    if settings.dice_transport == "inprocess":
        from services.dice.app import DiceApp
        from services.dice.servicer import DiceServicer

        return LocalClient(DiceServicer(DiceApp(redis)), authz.DICE, tls.identity(settings))
    return RemoteClient(dice_service_pb2_grpc.DiceServiceStub, settings.dice_addr, dial(settings, "dice"))


def deck_client(settings: Settings, redis: aioredis.Redis, dice: Any) -> Any:
    if settings.deck_transport == "inprocess":
        from services.deck.app import DeckApp
        from services.deck.servicer import DeckServicer, DicePermuter

        return LocalClient(DeckServicer(DeckApp(redis, DicePermuter(dice))), authz.DECK, tls.identity(settings))
    return RemoteClient(deck_service_pb2_grpc.DeckServiceStub, settings.deck_addr, dial(settings, "deck"))


def rules_clients(settings: Settings) -> dict[str, Any]:
    """One client per game: the configured addresses, or every built-in engine in process."""
    load_extra_games(settings)
    if settings.rules_transport == "inprocess":
        from services.games.registry import available, game
        from services.rules.app import EngineHost
        from services.rules.servicer import RulesServicer

        caller = tls.identity(settings)
        return {name: LocalClient(RulesServicer(EngineHost(game(name))), authz.RULES, caller) for name in available()}
    how = dial(settings, "rules")
    return {
        name: RemoteClient(rules_service_pb2_grpc.RulesServiceStub, addr, how)
        for name, addr in settings.rules_addrs.items()
    }


def dial(settings: Settings, target: str) -> tls.Dial:
    """Credentials for calling the platform identity `target` as this process."""
    return tls.dial(tls.material(settings), target)
