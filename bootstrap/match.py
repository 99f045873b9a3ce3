"""The match process: its clients and app, remote or in process per contract as the settings say.

The gateway may run the match app itself (TABLETOP_MATCH_TRANSPORT=inprocess,
`embedded_match`): then no socket lies on the action path, and the app calls
its rules, dice and deck in process, as the platform identity "match"; the
host then runs the app's clock keeper (services/match/keeper.py) too.
"""

from __future__ import annotations

import asyncio

import redis.asyncio as aioredis

from bootstrap import dial, rules_clients
from services.common import config
from services.common.config import Settings
from services.common.draws import ChanceResolver, RollWindows
from services.common.redis import client as redis_client
from services.common.redis import keys
from services.common.rpc.adapters import DeckClient, DiceClient, MatchClient
from services.common.rpc.ports import DeckPort, DicePort
from services.common.rpc.server import serve
from services.common.security import tls
from services.common.security.grants import GrantChecker, GrantSigner
from services.common.store.redis_store import RedisEventStore
from services.deck.app import DeckApp
from services.deck.servicer import DeckServicer, DicePermuter
from services.dice.app import DiceApp
from services.dice.servicer import DiceServicer
from services.match.app import MatchApp
from services.match.deadlines import RedisDeadlines
from services.match.directory import RedisDirectory
from services.match.keeper import ClockKeeper
from services.match.servicer import MatchServicer, register

# Who the match app is to the services it calls, wherever it runs.
MATCH_IDENTITY = "match"


def dice_client(settings: Settings, redis: aioredis.Redis, caller: str = "") -> DicePort:
    if settings.dice_transport == "inprocess":
        servicer = DiceServicer(DiceApp(redis), GrantChecker(tls.material(settings).ca))
        return DiceClient.in_process(servicer, caller or tls.identity(settings))
    return DiceClient.remote(settings.dice_addr, dial(settings, "dice"), calls=settings.internal_calls)


def deck_client(settings: Settings, redis: aioredis.Redis, dice: DicePort, caller: str = "") -> DeckPort:
    if settings.deck_transport == "inprocess":
        app = DeckApp(redis, DicePermuter(dice))
        servicer = DeckServicer(app, GrantChecker(tls.material(settings).ca))
        return DeckClient.in_process(servicer, caller or tls.identity(settings))
    return DeckClient.remote(settings.deck_addr, dial(settings, "deck"), calls=settings.internal_calls)


def match_app(settings: Settings, redis: aioredis.Redis, caller: str = "") -> MatchApp:
    """The match app; `caller`: the identity its in-process dependencies see (default: this process's)."""
    dice = dice_client(settings, redis, caller)
    deck = deck_client(settings, redis, dice, caller)

    async def announce(match_id: str, game: str) -> None:
        # At least once: the ratings projection also rescans logs when rebuilt.
        await redis.xadd(keys.FINISHED_STREAM, {"match_id": match_id, "game": game})

    # Rolls come from the match's roll windows (one dice call per many rolls). Rules in
    # process resolve a move's chance through this app's own windows, dice and deck (one
    # process, one identity: no grant); rules of their own, from the slice of the window
    # the match hands them and under the match's grants.
    windows = RollWindows(dice)
    in_process = settings.rules_transport == "inprocess"
    chance = ChanceResolver(dice, deck, windows) if in_process else None
    grants = grant_signer(settings)
    return MatchApp(
        RedisEventStore(redis, settings.match_lease_ms), rules_clients(settings, caller, chance), dice, deck,
        settings.snapshot_every, announce, RedisDirectory(redis), RedisDeadlines(redis),
        grants=grants, chance_in_rules=in_process or grants is not None,
        lobby_idle_seconds=settings.lobby_idle_seconds, windows=windows,
    )


def grant_signer(settings: Settings) -> GrantSigner | None:
    """A signer of chance grants, when rules processes of their own may use them: the
    match process signs with its certificate's key. None with the rules in process
    (they resolve as the match, needing no grant) and in any other process (whose
    certificate is not the match's, so no grant of it would be honoured: the match
    then resolves chance itself)."""
    own = tls.material(settings)
    if settings.rules_transport == "inprocess" or own.identity != MATCH_IDENTITY:
        return None
    return GrantSigner(own.cert, own.key)


def embedded_match(settings: Settings, redis: aioredis.Redis) -> tuple[MatchClient, MatchApp]:
    """The match service inside the calling process (the gateway), called as that process.
    Its rules, dice and deck must be in process too: over the network they would
    see the host's certificate, not the match's, and refuse."""
    remote = [c for c in ("rules", "dice", "deck") if getattr(settings, f"{c}_transport") != "inprocess"]
    if remote:
        raise ValueError(
            "TABLETOP_MATCH_TRANSPORT=inprocess needs TABLETOP_{RULES,DICE,DECK}_TRANSPORT=inprocess too; "
            f"these are not: {', '.join(remote)}"
        )
    app = match_app(settings, redis, MATCH_IDENTITY)
    return MatchClient.in_process(MatchServicer(app), tls.identity(settings)), app


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
