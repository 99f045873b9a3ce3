"""A lobby nobody writes to for TABLETOP_LOBBY_IDLE_SECONDS is closed by the match
service's keeper: its log ends with LobbyExpired, it is FINISHED, no longer listed as
open and no longer joinable; a match in play, however long it waits, is untouched."""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest
from tabletop.gateway.v1 import gateway_pb2 as gpb
from tabletop.match.v1 import events_pb2 as ev
from tabletop.match.v1 import match_service_pb2 as mpb

from cli.api import Gateway
from deploy.stack import Stack
from services.common.errors import reason_of
from tests.integration.conftest import PIG

pytestmark = pytest.mark.integration

IDLE_SECONDS = 2


@pytest.fixture(scope="module")
def stack(redis_url: str) -> Iterator[Stack]:
    env = {**PIG, "TABLETOP_LOBBY_IDLE_SECONDS": str(IDLE_SECONDS)}
    with Stack(redis_url=redis_url, extra_env=env, games=("pig",), matchmakers=0) as running:
        yield running


async def until_finished(gateway: Gateway, match_id: str) -> tuple[gpb.WatchMatchResponse, list[gpb.LogEntry]]:
    """Every update of `match_id` from its start until the one that finishes it."""
    entries: list[gpb.LogEntry] = []
    async for update in gateway.stub.WatchMatch(gpb.WatchMatchRequest(match_id=match_id), timeout=60):
        entries += update.entries
        if update.match.status == mpb.MATCH_STATUS_FINISHED:
            return update, entries
    raise AssertionError("the watch ended before the match")


async def test_an_idle_lobby_expires_and_a_match_in_play_does_not(stack: Stack) -> None:
    async with Gateway(stack.gateway_addr) as gateway:
        playing = (await gateway.create("pig", 2)).match.match_id
        seats = [await gateway.join(playing, "ana"), await gateway.join(playing, "ben")]
        await gateway.start(seats[0])
        # Created after the other started: once it has expired, the match in play has
        # waited longer than the idle time too.
        idle = (await gateway.create("pig", 2)).match.match_id
        await gateway.join(idle, "cleo")

        closed, entries = await until_finished(gateway, idle)
        assert entries[-1].type == ev.LobbyExpired.DESCRIPTOR.full_name
        assert ev.LobbyExpired.FromString(entries[-1].event.value).idle_seconds == IDLE_SECONDS
        assert dict(closed.match.outcome.detail)["reason"] == "lobby_expired"
        assert list(closed.match.outcome.ranking) == []

        listed = await gateway.stub.ListMatches(gpb.ListMatchesRequest(game="pig", status=mpb.MATCH_STATUS_LOBBY))
        assert idle not in {m.match_id for m in listed.matches}
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await gateway.join(idle, "dan")
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert reason_of(refused.value) == "match.lobby_expired"

        still = (await gateway.view(playing)).match
        assert still.status == mpb.MATCH_STATUS_ACTIVE
        mover = seats[still.to_move[0]]
        legal = await gateway.legal_actions(mover)
        assert (await gateway.submit(mover, legal.actions[0])).version > still.version
