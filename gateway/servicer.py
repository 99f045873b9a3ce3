"""The gateway: the only client-facing API.

Authenticates callers by seat token, forwards commands to the match service,
reads match logs from Redis (read-only) for live updates, and filters every
event by what the caller may see.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from tabletop.gateway.v1 import gateway_service_pb2 as pb
from tabletop.gateway.v1 import gateway_service_pb2_grpc as pb_grpc
from tabletop.match.v1 import match_service_pb2 as mpb
from tabletop.rules.v1 import rules_service_pb2 as rpb

from gateway import views
from gateway.limits import CallerLimits, RateLimiter
from gateway.matchmaking import MatchmakingEndpoints
from gateway.subscriptions import Subscriptions
from services.common import logging as tlog
from services.common import redis_changes
from services.common.errors import InvalidArgument, PermissionDenied, ServiceError, Unauthenticated
from services.common.event_store import EventStore
from services.common.keys import match_stream
from services.common.tokens import SeatClaim, TokenAuthority

log = tlog.get("gateway")
WATCH_POLL_SECONDS = 10.0
MAX_LOG_PAGE = 5000
SUMMARY_CACHE = 4096


def _metadata(context: Any) -> Any:
    return context.invocation_metadata() if context is not None else ()


class GatewayServicer(MatchmakingEndpoints, pb_grpc.GatewayServiceServicer):
    def __init__(
        self,
        match: Any,
        rules: dict[str, Any],
        store: EventStore,
        tokens: TokenAuthority,
        matchmaker: Any = None,
        limiter: RateLimiter | None = None,
        feeds: Subscriptions | None = None,
        limits: CallerLimits | None = None,
    ) -> None:
        self._limiter = limiter or RateLimiter(rate=0, burst=0)
        # Per-caller limits; the server applies them per address, code that knows
        # a player id may apply them to it (self._limits.check_create(player_id)).
        self._limits = limits
        self._matchmaker = matchmaker
        # Live updates: by default through the Redis store's own client.
        self._feeds = feeds or Subscriptions(store, lambda: redis_changes.listen(store.client))  # type: ignore[attr-defined]
        self._tables_checked = {}
        # (match_id, version) -> the summary at that version, shared by every watcher.
        self._summaries: dict[tuple[str, int], asyncio.Future[Any]] = {}
        self._match = match
        self._rules = rules
        self._store = store
        self._tokens = tokens

    # ------------------------------------------------------------ lobby

    async def ListGames(self, request: pb.ListGamesRequest, context: Any) -> pb.ListGamesResponse:
        games = []
        for name in sorted(self._rules):
            info = await self._rules[name].DescribeGame(rpb.DescribeGameRequest())
            games.append(pb.GameInfo(game=info.game, min_seats=info.min_seats, max_seats=info.max_seats))
        return pb.ListGamesResponse(games=games)

    async def CreateMatch(self, request: pb.CreateMatchRequest, context: Any) -> pb.CreateMatchResponse:
        if not request.game:
            raise InvalidArgument("game is required", "game")
        reply = await self._match.CreateMatch(
            mpb.CreateMatchRequest(
                game=request.game,
                config=dict(request.config),
                seat_count=request.seat_count,
                command_id=request.command_id,
            )
        )
        return pb.CreateMatchResponse(match=reply.match)

    async def ListMatches(self, request: pb.ListMatchesRequest, context: Any) -> pb.ListMatchesResponse:
        reply = await self._match.ListMatches(
            mpb.ListMatchesRequest(game=request.game, status=request.status, limit=request.limit)
        )
        return pb.ListMatchesResponse(matches=reply.matches)

    async def JoinMatch(self, request: pb.JoinMatchRequest, context: Any) -> pb.JoinMatchResponse:
        _require_match_id(request.match_id)
        join = mpb.JoinMatchRequest(
            match_id=request.match_id, player_id=request.player_id, command_id=request.command_id
        )
        if request.HasField("seat"):
            join.seat = request.seat
        reply = await self._match.JoinMatch(join)
        token = self._tokens.issue(SeatClaim(request.match_id, reply.seat, request.player_id))
        return pb.JoinMatchResponse(seat=reply.seat, token=token, version=reply.version)

    async def LeaveMatch(self, request: pb.LeaveMatchRequest, context: Any) -> pb.LeaveMatchResponse:
        claim = self._tokens.for_match(_metadata(context), request.match_id)
        reply = await self._match.LeaveMatch(
            mpb.LeaveMatchRequest(match_id=request.match_id, seat=claim.seat, command_id=request.command_id)
        )
        return pb.LeaveMatchResponse(version=reply.version)

    async def StartMatch(self, request: pb.StartMatchRequest, context: Any) -> pb.StartMatchResponse:
        self._tokens.for_match(_metadata(context), request.match_id)
        reply = await self._match.StartMatch(
            mpb.StartMatchRequest(match_id=request.match_id, command_id=request.command_id)
        )
        return pb.StartMatchResponse(version=reply.version)

    # ------------------------------------------------------------ play

    def _viewer(self, context: Any, match_id: str) -> int | None:
        """The caller's seat in this match, None for a spectator (no token)."""
        _require_match_id(match_id)
        claim = self._tokens.optional_for_match(_metadata(context), match_id)
        return None if claim is None else claim.seat

    async def _view(self, match_id: str, viewer: int | None) -> mpb.GetViewResponse:
        request = mpb.GetViewRequest(match_id=match_id)
        if viewer is not None:
            request.viewer = viewer
        return await self._match.GetView(request)

    async def GetView(self, request: pb.GetViewRequest, context: Any) -> pb.GetViewResponse:
        viewer = self._viewer(context, request.match_id)
        reply = await self._view(request.match_id, viewer)
        response = pb.GetViewResponse(match=reply.match, view=reply.view)
        if viewer is not None:
            response.seat = viewer
        return response

    async def ListLegalActions(self, request: pb.ListLegalActionsRequest, context: Any) -> pb.ListLegalActionsResponse:
        claim = self._tokens.for_match(_metadata(context), request.match_id)
        reply = await self._match.ListLegalActions(
            mpb.ListLegalActionsRequest(match_id=request.match_id, seat=claim.seat)
        )
        return pb.ListLegalActionsResponse(version=reply.version, actions=reply.actions)

    async def SubmitAction(self, request: pb.SubmitActionRequest, context: Any) -> pb.SubmitActionResponse:
        claim = self._tokens.for_match(_metadata(context), request.match_id)
        return await self._submit(claim, request)

    async def _submit(self, claim: SeatClaim, request: pb.SubmitActionRequest) -> pb.SubmitActionResponse:
        self._limiter.take(f"{claim.match_id}/{claim.seat}", "actions from this seat")
        if not request.HasField("action") or not request.action.type_url:
            raise InvalidArgument("action is required", "action")
        if len(request.command_id) > 128:
            raise InvalidArgument("command_id is at most 128 characters", "command_id")
        reply = await self._match.SubmitAction(
            mpb.SubmitActionRequest(
                match_id=request.match_id, seat=claim.seat, action=request.action, command_id=request.command_id
            )
        )
        return pb.SubmitActionResponse(version=reply.version, duplicate=reply.duplicate)

    # ------------------------------------------------------------ logs and live updates

    async def GetMatchLog(self, request: pb.GetMatchLogRequest, context: Any) -> pb.GetMatchLogResponse:
        viewer = self._viewer(context, request.match_id)
        summary = (await self._match.GetMatch(mpb.GetMatchRequest(match_id=request.match_id))).match
        finished = summary.status == mpb.MATCH_STATUS_FINISHED
        limit = min(request.limit or MAX_LOG_PAGE, MAX_LOG_PAGE)
        events = await self._store.read(match_stream(request.match_id), request.after_version, limit)
        return pb.GetMatchLogResponse(entries=views.entries_for(events, viewer, finished), status=summary.status)

    async def WatchMatch(self, request: pb.WatchMatchRequest, context: Any) -> AsyncIterator[pb.WatchMatchResponse]:
        viewer = self._viewer(context, request.match_id)
        async for update in self._updates(request, viewer):
            yield update

    async def _updates(self, request: pb.WatchMatchRequest, viewer: int | None) -> AsyncIterator[pb.WatchMatchResponse]:
        """Updates from `after_version` on, one per batch of new events, until the match ends."""
        summary = (await self._match.GetMatch(mpb.GetMatchRequest(match_id=request.match_id))).match
        after = request.after_version
        while True:
            if summary.status == mpb.MATCH_STATUS_FINISHED and after >= summary.version:
                return
            events = await self._feeds.next_batch(request.match_id, after, WATCH_POLL_SECONDS)
            if not events:
                continue
            after = events[-1].version
            reply = await self._view(request.match_id, viewer) if request.with_view else None
            summary = reply.match if reply is not None else await self._summary_at(request.match_id, after)
            finished = summary.status == mpb.MATCH_STATUS_FINISHED
            update = pb.WatchMatchResponse(
                version=after, entries=views.entries_for(events, viewer, finished), match=summary
            )
            if reply is not None:
                update.view.CopyFrom(reply.view)
            if request.with_legal_actions and viewer is not None and viewer in summary.to_move:
                legal = await self._match.ListLegalActions(
                    mpb.ListLegalActionsRequest(match_id=request.match_id, seat=viewer)
                )
                update.legal_actions.extend(legal.actions)
            yield update

    async def _summary_at(self, match_id: str, version: int) -> mpb.MatchSummary:
        """The match summary once it has reached `version`, fetched once for all watchers."""
        key = (match_id, version)
        pending = self._summaries.get(key)
        if pending is None:
            pending = asyncio.ensure_future(self._match.GetMatch(mpb.GetMatchRequest(match_id=match_id)))
            self._summaries[key] = pending
            while len(self._summaries) > SUMMARY_CACHE:
                self._summaries.pop(next(iter(self._summaries)))
        try:
            summary = (await asyncio.shield(pending)).match
        except ServiceError:
            self._summaries.pop(key, None)
            raise
        if summary.version < version:  # fetched from a replica that had not caught up yet
            self._summaries.pop(key, None)
            summary = (await self._match.GetMatch(mpb.GetMatchRequest(match_id=match_id))).match
        return summary

    async def Play(
        self, request_iterator: AsyncIterator[pb.PlayRequest], context: Any
    ) -> AsyncIterator[pb.PlayResponse]:
        claim = self._tokens.from_metadata(_metadata(context))
        out: asyncio.Queue[pb.PlayResponse | None] = asyncio.Queue()
        watcher: asyncio.Task[None] | None = None

        async def watch(request: pb.WatchMatchRequest) -> None:
            viewer = self._viewer(context, request.match_id)
            async for update in self._updates(request, viewer):
                await out.put(pb.PlayResponse(update=update))

        async def read() -> None:
            nonlocal watcher
            async for message in request_iterator:
                kind = message.WhichOneof("kind")
                if kind == "watch" and watcher is None:
                    watcher = asyncio.create_task(watch(message.watch))
                elif kind == "submit":
                    await out.put(await self._play_submit(claim, message.submit))
            await out.put(None)

        reader = asyncio.create_task(read())
        try:
            while (item := await out.get()) is not None:
                yield item
        finally:
            for task in (reader, watcher):
                if task is not None:
                    task.cancel()

    async def _play_submit(self, claim: SeatClaim | None, request: pb.SubmitActionRequest) -> pb.PlayResponse:
        """One submit on the Play stream; a refusal becomes a PlayError and the stream goes on."""
        try:
            if claim is None:
                raise Unauthenticated("submitting needs a seat token", "auth.missing")
            if claim.match_id != request.match_id:
                raise PermissionDenied("the token is for another match", "auth.other_match")
            return pb.PlayResponse(accepted=await self._submit(claim, request))
        except ServiceError as error:
            return pb.PlayResponse(
                error=pb.PlayError(
                    command_id=request.command_id, code=error.code.name, message=error.message, rule=error.reason
                )
            )


def _require_match_id(match_id: str) -> None:
    if not match_id or len(match_id) > 64:
        raise InvalidArgument("match_id is required", "match_id")


def register(server: Any, servicer: GatewayServicer) -> list[str]:
    pb_grpc.add_GatewayServiceServicer_to_server(servicer, server)
    return [pb.DESCRIPTOR.services_by_name["GatewayService"].full_name]
