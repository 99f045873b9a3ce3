"""Bot seats: legal actions through the match service until the match ends.

A bot's level (`TABLETOP_MM_BOT_LEVEL`) is `random` (uniform among the legal
actions) or `search`: the information-set search of bots, which asks
the match for the bot seat's own view (the match serves the matchmaker nothing
else) and decides from that view and the seat's legal actions (docs/bots.md).

Play is bounded: a match whose log has not moved for `idle` seconds was
abandoned by its humans (bots only ever wait on a human's turn), and the job
ends there instead of blocking on the match stream forever.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence

from google.protobuf import any_pb2
from tabletop.match.v1 import match_service_pb2 as mpb

from bots import wire
from bots.policies import Policy, make_policy
from bots.search import Budget
from services.common import logging as tlog
from services.common.errors import Aborted, FailedPrecondition
from services.common.redis.keys import match_stream
from services.common.rpc.ports import MatchPort
from services.common.store.event_store import EventStore
from services.games import registry

log = tlog.get("matchmaker.backfill")
# Longest single block on the match stream: below redis-py's default 5 s socket timeout,
# which would otherwise end a quiet wait with an error instead of an empty read.
WAIT_SECONDS = 2.0


class BotPlayer:
    """Plays the bot seats of one match at a time; any replica may resume a match."""

    def __init__(
        self,
        match: MatchPort,
        store: EventStore,
        idle: float = 600.0,
        level: str = "random",
        budget: Budget | None = None,
    ) -> None:
        self._match = match
        self._store = store
        # Seconds without progress after which the bots give up (0: never).
        self._idle = idle
        self._level = level
        self._budget = budget

    async def play(self, match_id: str, seats: Sequence[int]) -> int:
        """Act for `seats` whenever one is asked to, until the match ends or stalls; returns actions taken."""
        clock = asyncio.get_running_loop().time
        taken, seen, moved_at = 0, -1, clock()
        while True:
            summary = (await self._match.GetMatch(mpb.GetMatchRequest(match_id=match_id))).match
            if summary.version != seen:
                seen, moved_at = summary.version, clock()
            if summary.status == mpb.MATCH_STATUS_FINISHED:
                log.info("bots_done", match_id=match_id, actions=taken, reason="finished")
                return taken
            quiet = clock() - moved_at
            if self._idle and quiet >= self._idle:
                log.info("bots_done", match_id=match_id, actions=taken, reason="idle", idle_seconds=round(quiet, 1))
                return taken
            mine = [s for s in summary.to_move if s in seats]
            if mine and summary.status == mpb.MATCH_STATUS_ACTIVE and await self._act(summary, mine[0]):
                taken += 1
                continue
            # Nothing for a bot to do at this version: block until the log moves (or the bound is reached).
            left = self._idle - quiet if self._idle else WAIT_SECONDS
            await self._store.wait(match_stream(match_id), summary.version, max(0.01, min(WAIT_SECONDS, left)))

    async def _act(self, summary: mpb.MatchSummary, seat: int) -> bool:
        match_id = summary.match_id
        legal = await self._match.ListLegalActions(mpb.ListLegalActionsRequest(match_id=match_id, seat=seat))
        if not legal.actions:
            return False
        # Seeded by match, seat and version: a replica resuming the match chooses as the first would have.
        seed = f"{match_id}:{seat}:{legal.version}"
        if self._level == "random":
            action = legal.actions[random.Random(seed).randrange(len(legal.actions))]
        else:
            action = await self._search(summary, seat, seed, list(legal.actions))
        try:
            await self._match.SubmitAction(mpb.SubmitActionRequest(
                match_id=match_id, seat=seat, action=action, command_id=f"{match_id}:bot:{seat}:{legal.version}",
            ))
        except (FailedPrecondition, Aborted):
            return False  # the match moved on under us; look again
        return True

    async def _search(self, summary: mpb.MatchSummary, seat: int, seed: str, legal: list[any_pb2.Any]) -> any_pb2.Any:
        """The search policy's pick from the bot seat's own view (the match serves nothing else)."""
        seen = await self._match.GetView(mpb.GetViewRequest(match_id=summary.match_id, viewer=seat))
        entry = registry.game(summary.game)
        policy: Policy = make_policy(self._level, entry.declaration, summary.seat_count, seed, self._budget)
        # CPU work: off the event loop, so other matches' bots and the work queues stay served.
        return await asyncio.to_thread(wire.choose, policy, entry.codec, seat, seen.view, legal)
