"""Backfill bots at the search level in a running stack: over mutual TLS the match serves the
matchmaker its bot seat's view, and the bots play a whole match from it."""

from __future__ import annotations

import random

import grpc
import pytest
from tabletop.gateway.v1 import gateway_pb2 as pb

from cli.queue import queue
from contract.gateway import GatewayStub
from deploy.stack import Stack
from tests.integration.test_matchmaker import _bearer, _device, _play_out

pytestmark = pytest.mark.integration


async def test_search_bots_backfill_a_la_isla_match_and_play_it_to_the_end(redis_url: str) -> None:
    env = {"TABLETOP_BOT_BACKFILL_AFTER": "0.5", "TABLETOP_MM_BOT_LEVEL": "search", "TABLETOP_MM_BOT_BUDGET": "5"}
    running = Stack(redis_url=redis_url, games=("la_isla",), extra_env=env, matchmakers=1)
    running.start()
    try:
        found = await queue(running.gateway_addr, "la_isla", 2, 2, {}, _device("lonely"))
        async with grpc.aio.insecure_channel(running.gateway_addr) as channel:
            gateway = GatewayStub(channel)
            seen = await gateway.GetView(pb.GetViewRequest(match_id=str(found["match_id"])),
                                         metadata=_bearer(str(found["token"])))
            assert [s.player_id.startswith("bot-") for s in seen.match.seats].count(True) == 1
            await _play_out(gateway, [found], random.Random(2))
            final = await gateway.GetView(pb.GetViewRequest(match_id=str(found["match_id"])))
        assert final.match.status == 3 and final.match.outcome.detail["reason"]
    finally:
        running.stop()
