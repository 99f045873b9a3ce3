"""Bot play is bounded: it ends with the match, or when the match has stopped moving."""

from __future__ import annotations

import asyncio

from tabletop.match.v1 import match_service_pb2 as mpb

from services.common.redis.keys import match_stream
from services.common.store.event_store import MemoryEventStore, NewEvent
from services.matchmaker.backfill import BotPlayer

MATCH = "m1"
BOT_SEAT, HUMAN_SEAT = 1, 0


class HumansTurn:
    """A match where only the human seat is ever asked to act; its version is the log's length."""

    def __init__(self, log: MemoryEventStore, status: int = mpb.MATCH_STATUS_ACTIVE) -> None:
        self._log, self.status = log, status

    async def GetMatch(self, request: mpb.GetMatchRequest) -> mpb.GetMatchResponse:
        version = await self._log.version(match_stream(request.match_id))
        return mpb.GetMatchResponse(match=mpb.MatchSummary(
            match_id=request.match_id, status=self.status, version=version, to_move=[HUMAN_SEAT]))


async def _human_moves(log: MemoryEventStore, moves: int, every: float) -> None:
    stream = match_stream(MATCH)
    for _ in range(moves):
        await asyncio.sleep(every)  # the human's think time: what the bots wait through
        version = await log.version(stream)
        await log.append(stream, version, [NewEvent(type="t.Moved", data=b"")])


async def test_bots_stop_when_the_humans_abandon_the_match() -> None:
    log = MemoryEventStore()
    clock = asyncio.get_running_loop().time
    began = clock()
    taken = await asyncio.wait_for(BotPlayer(HumansTurn(log), log, idle=0.3).play(MATCH, [BOT_SEAT]), 5)
    assert taken == 0 and 0.3 <= clock() - began < 2


async def test_bots_wait_as_long_as_the_match_moves() -> None:
    log = MemoryEventStore()
    clock = asyncio.get_running_loop().time
    began = clock()
    human = asyncio.create_task(_human_moves(log, moves=4, every=0.15))
    await asyncio.wait_for(BotPlayer(HumansTurn(log), log, idle=0.3).play(MATCH, [BOT_SEAT]), 5)
    assert human.done()  # every move reset the bound: the bots outlasted the human's last move ...
    assert clock() - began >= 0.6 + 0.3  # ... by the bound


async def test_bots_stop_at_once_when_the_match_is_finished() -> None:
    log = MemoryEventStore()
    match = HumansTurn(log, status=mpb.MATCH_STATUS_FINISHED)
    assert await asyncio.wait_for(BotPlayer(match, log, idle=600).play(MATCH, [BOT_SEAT]), 5) == 0
