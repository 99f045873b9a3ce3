"""Whole positions by (match, version), shared by every watcher on this gateway.

The match service computes each committed version's position once: every
seat's view and legal actions and the spectator view (services/match/app.py).
A submit's reply carries it (and a watcher that hears of the append while this
gateway's submit to that match is still on its way waits for that reply); a
watcher that hears of a version this gateway has not seen otherwise fetches it
with ONE GetPosition call, however many watch that match.
A whole position holds every seat's secrets: what each viewer is shown of it is
chosen in gateway/views.py, after the caller's seat token has been checked.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Hashable
from typing import TypeVar

from google.protobuf import any_pb2
from tabletop.match.v1 import match_service_pb2 as mpb

from services.common.errors import ServiceError
from services.common.lru import LRU
from services.common.rpc.ports import MatchPort

# Positions kept: a few per match followed (a watcher asks for the newest).
CACHE_SIZE = 4096
# A match and its position at one version: a submit's reply is kept as it came (its
# position is not copied), a fetch's answer likewise.
Known = mpb.GetPositionResponse | mpb.SubmitActionResponse
K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
T = TypeVar("T")


class Positions:
    def __init__(self, match: MatchPort, size: int = CACHE_SIZE) -> None:
        self._match = match
        self._known: LRU[tuple[str, int], asyncio.Future[Known]] = LRU(size, fifo=True)
        # Submits to a match on their way, each answering the position it brought (None: none).
        self._submits: dict[str, list[asyncio.Future[Known | None]]] = {}
        self.fetches = 0  # GetPosition calls made: one per version nobody brought
        # (match, version) -> the spectator's view there, when a position left it out.
        self._spectators: LRU[tuple[str, int], asyncio.Future[mpb.GetViewResponse]] = LRU(size, fifo=True)

    def _future(self) -> asyncio.Future[T]:
        return asyncio.get_running_loop().create_future()

    async def submitted(self, match_id: str, call: Awaitable[mpb.SubmitActionResponse]) -> mpb.SubmitActionResponse:
        """Run a submit to `match_id`, keeping the position its reply brings; watchers
        of the match wait for that reply rather than fetching the same position."""
        waiting: asyncio.Future[Known | None] = self._future()
        self._submits.setdefault(match_id, []).append(waiting)
        known = None
        try:
            reply = await call
            if reply.HasField("match"):
                known = self._remember(reply)
            return reply
        finally:
            waiting.set_result(known)
            pending = self._submits[match_id]
            pending.remove(waiting)
            if not pending:
                del self._submits[match_id]

    def _remember(self, reply: mpb.SubmitActionResponse) -> Known:
        done: asyncio.Future[Known] = self._future()
        done.set_result(reply)
        self._known.put((reply.match.match_id, reply.match.version), done)
        return reply

    async def at(self, match_id: str, version: int) -> Known:
        """The match and its position once it has reached `version` (perhaps later), fetched
        once for every watcher."""
        key = (match_id, version)
        if key not in self._known:
            for submit in list(self._submits.get(match_id, ())):
                brought = await asyncio.shield(submit)
                if brought is not None and brought.match.version >= version:
                    return brought
        known: Known = await fetched_once(self._known, key, lambda: self._fetch(match_id))
        if known.match.version < version:  # from a replica that had not caught up yet
            self._known.pop(key, None)
            known = await self._fetch(match_id)
        return known

    async def spectator_view(self, known: Known) -> any_pb2.Any:
        """The spectator's view at `known`'s version. A decision's position leaves it out
        (most matches have no spectator): then the match service is asked once for every
        spectator this gateway serves, for that version exactly."""
        if known.position.HasField("spectator_view"):
            return known.position.spectator_view
        request = mpb.GetViewRequest(match_id=known.match.match_id, at_version=known.match.version)
        key = (known.match.match_id, known.match.version)
        return (await fetched_once(self._spectators, key, lambda: self._match.GetView(request))).view

    async def _fetch(self, match_id: str) -> mpb.GetPositionResponse:
        self.fetches += 1
        return await self._match.GetPosition(mpb.GetPositionRequest(match_id=match_id))


async def fetched_once(cache: LRU[K, asyncio.Future[V]], key: K, fetch: Callable[[], Awaitable[V]]) -> V:
    """`fetch()`'s answer for `key`, asked once however many wait for it (kept as long as
    `cache` keeps it); a failed fetch is forgotten, so the next caller asks again."""
    pending = cache.get(key)
    if pending is None:
        pending = cache.put(key, asyncio.ensure_future(fetch()))
    try:
        return await asyncio.shield(pending)
    except ServiceError:
        cache.pop(key, None)
        raise
