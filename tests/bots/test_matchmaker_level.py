"""Backfill bots at the search level: they read their own seat's view and nothing else."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from google.protobuf import any_pb2
from tabletop.match.v1 import match_service_pb2 as mpb

from bots.search import Budget
from services.common.errors import PermissionDenied
from services.common.security import authz
from services.common.security.tls import KnownPeer
from services.common.store.event_store import MemoryEventStore
from services.dice.playout import LocalChance
from services.games import registry
from services.games.common.chance import CHANCE_SEAT
from services.games.la_isla import GAME
from services.match.servicer import MatchServicer
from services.matchmaker import config as mm_config
from services.matchmaker.backfill import BotPlayer
from tests.unit.test_match_app import Table

CODEC = registry.game("la_isla").codec

GET_VIEW = f"/{authz.MATCH}/GetView"


def test_the_matchmaker_may_ask_for_views_and_the_rules_may_not() -> None:
    assert authz.allowed(GET_VIEW, "matchmaker") and authz.allowed(GET_VIEW, "gateway")
    assert not authz.allowed(GET_VIEW, "rules") and not authz.allowed(GET_VIEW, "dice")


async def _bot_table() -> MatchServicer:
    table = Table()
    app = table.replica()
    await app.create("coin", {}, 2, match_id="m1")
    await app.join("m1", "p-ana", None, display_name="Ana")
    await app.join("m1", "bot-7", None, display_name="Bot")
    await app.start("m1")
    return MatchServicer(app)


async def test_the_matchmaker_gets_exactly_a_bot_seats_own_view() -> None:
    servicer = await _bot_table()
    asked = mpb.GetViewRequest(match_id="m1", viewer=1)
    as_bot = await servicer.GetView(asked, KnownPeer("matchmaker"))
    as_gateway = await servicer.GetView(asked, KnownPeer("gateway"))
    assert as_bot.view == as_gateway.view and as_bot.view.value == b"ready@1"


@pytest.mark.parametrize(
    "request_",
    [
        mpb.GetViewRequest(match_id="m1", viewer=0),  # a human's seat
        mpb.GetViewRequest(match_id="m1"),  # the spectator's view is not what it asked for
        mpb.GetViewRequest(match_id="m1", viewer=5),
        mpb.GetViewRequest(match_id="m1", viewer=1, at_version=2),  # a past view
    ],
)
async def test_the_matchmaker_gets_no_other_view(request_: mpb.GetViewRequest) -> None:
    servicer = await _bot_table()
    for context in (KnownPeer("matchmaker"), None):
        with pytest.raises(PermissionDenied) as refused:
            await servicer.GetView(request_, context)
        assert refused.value.reason == "view.bot_seat_only"


class LaIslaMatch:
    """A match port over the real La Isla engine, both seats bots; chance answered at once."""

    def __init__(self, seed: int) -> None:
        self.state: Any = GAME.engine.setup({}, 2)
        self.chance = LocalChance(seed.to_bytes(32, "big"))
        self.version = 1
        self.viewers: list[int | None] = []
        self._settle()

    def _settle(self) -> None:
        while (turn := GAME.engine.to_move(self.state)).chance is not None:
            self._apply(CHANCE_SEAT, self.chance.resolve(turn.chance))

    def _apply(self, seat: int, move: Any) -> None:
        for event in GAME.engine.decide(self.state, seat, move):
            self.state = GAME.engine.evolve(self.state, event)
            self.version += 1

    async def GetMatch(self, request: mpb.GetMatchRequest) -> mpb.GetMatchResponse:
        over = GAME.engine.result(self.state) is not None
        status = mpb.MATCH_STATUS_FINISHED if over else mpb.MATCH_STATUS_ACTIVE
        return mpb.GetMatchResponse(match=mpb.MatchSummary(
            match_id=request.match_id, game="la_isla", seat_count=2, status=status, version=self.version,
            to_move=list(GAME.engine.to_move(self.state).seats)))

    async def GetView(self, request: mpb.GetViewRequest) -> mpb.GetViewResponse:
        self.viewers.append(request.viewer if request.HasField("viewer") else None)
        packed = any_pb2.Any()
        packed.Pack(CODEC.encode_view(GAME.engine.view(self.state, request.viewer)))
        return mpb.GetViewResponse(view=packed)

    async def ListLegalActions(self, request: mpb.ListLegalActionsRequest) -> mpb.ListLegalActionsResponse:
        actions = []
        for action in GAME.engine.legal_actions(self.state, request.seat):
            packed = any_pb2.Any()
            packed.Pack(CODEC.encode_action(action))
            actions.append(packed)
        return mpb.ListLegalActionsResponse(version=self.version, actions=actions)

    async def SubmitAction(self, request: mpb.SubmitActionRequest) -> mpb.SubmitActionResponse:
        message = CODEC.action_message()
        request.action.Unpack(message)
        self._apply(request.seat, CODEC.decode_action(message))
        self._settle()
        return mpb.SubmitActionResponse(version=self.version)


async def test_search_bots_play_a_whole_match_from_their_own_views() -> None:
    match = LaIslaMatch(seed=3)
    bots = BotPlayer(match, MemoryEventStore(), idle=0, level="search", budget=Budget(iterations=8))  # type: ignore[arg-type]
    taken = await asyncio.wait_for(bots.play("m1", [0, 1]), 50)
    assert taken > 20 and GAME.engine.result(match.state) is not None
    assert match.viewers and all(v in (0, 1) for v in match.viewers)


def test_the_bot_level_is_a_setting() -> None:
    settings = mm_config.MatchmakerConfig()
    assert settings.bot_level == "random"
    from services.common.config import load

    loaded = mm_config.load(load({}), {"TABLETOP_MM_BOT_LEVEL": "search", "TABLETOP_MM_BOT_BUDGET": "20"})
    assert (loaded.bot_level, loaded.bot_budget) == ("search", "20")
    with pytest.raises(ValueError, match="BOT_LEVEL"):
        mm_config.load(load({}), {"TABLETOP_MM_BOT_LEVEL": "genius"})
