"""The gateway: the only client-facing API.

Signs players in (gateway/identity.py), checks every field a client sends
(gateway/validate.py), authenticates seat calls by seat token, forwards
commands to the match service with the verified player and the token's
tenure, reads match logs from Redis (read-only) for live updates, and filters
every event by what the caller may see.

Client command ids live in their own namespace ("c:" + id), so no client can
reuse an id the platform itself uses (the matchmaker's joins and starts); the
match service ties each id to its request and caller.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import AsyncIterator
from typing import Any

from tabletop.gateway.v1 import gateway_service_pb2 as pb
from tabletop.gateway.v1 import gateway_service_pb2_grpc as pb_grpc
from tabletop.match.v1 import match_service_pb2 as mpb
from tabletop.rules.v1 import rules_service_pb2 as rpb

from gateway import validate, views
from gateway.identity import Players
from gateway.limits import RateLimiter
from gateway.matchmaking import MatchmakingEndpoints
from gateway.subscriptions import Subscriptions
from services.common import logging as tlog
from services.common import redis_changes
from services.common.errors import InvalidArgument, PermissionDenied, ServiceError, Unauthenticated
from services.common.event_store import EventStore
from services.common.keys import match_stream
from services.common.tokens import SeatClaim, Session, TokenAuthority, bearer_token

log = tlog.get("gateway")
WATCH_POLL_SECONDS = 10.0
MAX_LOG_PAGE = 5000
SUMMARY_CACHE = 4096


def _metadata(context: Any) -> Any:
    return context.invocation_metadata() if context is not None else ()


def client_command(command_id: str) -> str:
    """A client's command id in the clients' namespace ("" stays "": no idempotency asked)."""
    return "c:" + validate.command_id(command_id) if command_id else ""


def holder(claim: SeatClaim) -> mpb.SeatHolder:
    return mpb.SeatHolder(player_id=claim.player_id, tenure=claim.tenure)


class GatewayServicer(MatchmakingEndpoints, pb_grpc.GatewayServiceServicer):
    def __init__(
        self,
        match: Any,
        rules: dict[str, Any],
        store: EventStore,
        tokens: TokenAuthority,
        players: Players,
        matchmaker: Any = None,
        limiter: RateLimiter | None = None,
        create_limiter: RateLimiter | None = None,
        feeds: Subscriptions | None = None,
    ) -> None:
        self._players = players
        self._limiter = limiter or RateLimiter(rate=0, burst=0)
        # Creates and tickets per player: one bucket each, keyed by purpose.
        # (Per caller address, the server's admission hook applies gateway.limits.CallerLimits.)
        self._create_limiter = create_limiter or RateLimiter(rate=0, burst=0)
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

    # ------------------------------------------------------------ players

    def _session(self, context: Any) -> Session:
        return self._tokens.session_from(_metadata(context))

    async def Authenticate(self, request: pb.AuthenticateRequest, context: Any) -> pb.AuthenticateResponse:
        method = request.WhichOneof("method")
        if method == "device_id":
            signed = await self._players.device(request.device_id)
        elif method == "custom_id":
            signed = await self._players.custom(request.custom_id)
        elif method == "external_token":
            signed = await self._players.external(request.external_token)
        else:
            raise InvalidArgument("one of device_id, custom_id or external_token is required", "method")
        if request.display_name:
            await self._players.name(signed.player_id, request.display_name)
        token, session = self._tokens.issue_session(signed.player_id)
        log.info("signed_in", player_id=signed.player_id, method=method, created=signed.created)
        return pb.AuthenticateResponse(
            player_id=signed.player_id,
            session_token=token,
            session_expires_at=session.expires_at,
            refresh_token=self._tokens.issue_refresh(session),
            created=signed.created,
        )

    async def RefreshSession(self, request: pb.RefreshSessionRequest, context: Any) -> pb.RefreshSessionResponse:
        previous = self._tokens.refresh(request.refresh_token)
        token, session = self._tokens.issue_session(previous.player_id, previous.session_id)
        return pb.RefreshSessionResponse(
            player_id=session.player_id,
            session_token=token,
            session_expires_at=session.expires_at,
            refresh_token=self._tokens.issue_refresh(session),
        )

    async def GetSeatToken(self, request: pb.GetSeatTokenRequest, context: Any) -> pb.GetSeatTokenResponse:
        session = self._session(context)
        validate.match_id(request.match_id)
        wanted = validate.seat(request.seat) if request.HasField("seat") else None
        token, claim = await self._held_seat_token(session.player_id, request.match_id, wanted, "auth.not_seated")
        return pb.GetSeatTokenResponse(seat=claim.seat, token=token, expires_at=claim.expires_at)

    async def _held_seat_token(
        self, player_id: str, match_id: str, seat: int | None, reason: str
    ) -> tuple[str, SeatClaim]:
        """A fresh token for the seat (or the lowest seat) `player_id` holds in the match now,
        bound to its current tenure; PermissionDenied (`reason`) if they hold none."""
        summary = (await self._match.GetMatch(mpb.GetMatchRequest(match_id=match_id))).match
        held = [s for s in summary.seats if s.player_id == player_id and seat in (None, s.seat)]
        if not held:
            raise PermissionDenied("you hold no such seat in this match", reason)
        return self._tokens.issue_seat(match_id, held[0].seat, player_id, held[0].tenure)

    def _take_ticket_slot(self, player_id: str) -> None:
        self._create_limiter.take(f"ticket/{player_id}", "tickets")

    # ------------------------------------------------------------ lobby

    async def ListGames(self, request: pb.ListGamesRequest, context: Any) -> pb.ListGamesResponse:
        games = []
        for name in sorted(self._rules):
            info = await self._rules[name].DescribeGame(rpb.DescribeGameRequest())
            games.append(
                pb.GameInfo(game=info.game, min_seats=info.min_seats, max_seats=info.max_seats, options=info.options)
            )
        return pb.ListGamesResponse(games=games)

    async def CreateMatch(self, request: pb.CreateMatchRequest, context: Any) -> pb.CreateMatchResponse:
        session = self._session(context)
        create = mpb.CreateMatchRequest(
            game=validate.game(request.game),
            config=validate.options(request.config),
            seat_count=validate.seats(request.seat_count),
            command_id=client_command(request.command_id),
        )
        self._create_limiter.take(f"create/{session.player_id}", "matches created")
        if request.command_id:
            # The player's command id names the match: a retry finds it again,
            # and another player's same id makes another match.
            create.match_id = _match_id_for(session.player_id, request.command_id)
        reply = await self._match.CreateMatch(create)
        return pb.CreateMatchResponse(match=reply.match)

    async def ListMatches(self, request: pb.ListMatchesRequest, context: Any) -> pb.ListMatchesResponse:
        validate.enum(request.status, mpb.MatchStatus.DESCRIPTOR, "status")
        reply = await self._match.ListMatches(
            mpb.ListMatchesRequest(
                game=validate.game(request.game, required=False),
                status=request.status,
                limit=validate.limit(request.limit, high=500),
            )
        )
        return pb.ListMatchesResponse(matches=reply.matches)

    async def JoinMatch(self, request: pb.JoinMatchRequest, context: Any) -> pb.JoinMatchResponse:
        session = self._session(context)
        join = mpb.JoinMatchRequest(
            match_id=validate.match_id(request.match_id),
            player_id=session.player_id,
            command_id=client_command(request.command_id),
            display_name=await self._players.display_name(session.player_id),
        )
        if request.HasField("seat"):
            join.seat = validate.seat(request.seat)
        reply = await self._match.JoinMatch(join)
        token, claim = self._tokens.issue_seat(request.match_id, reply.seat, session.player_id, reply.tenure)
        return pb.JoinMatchResponse(
            seat=reply.seat, token=token, version=reply.version, token_expires_at=claim.expires_at
        )

    async def LeaveMatch(self, request: pb.LeaveMatchRequest, context: Any) -> pb.LeaveMatchResponse:
        claim = self._seat(context, request.match_id)
        reply = await self._match.LeaveMatch(
            mpb.LeaveMatchRequest(
                match_id=request.match_id,
                seat=claim.seat,
                command_id=client_command(request.command_id),
                holder=holder(claim),
            )
        )
        return pb.LeaveMatchResponse(version=reply.version)

    async def StartMatch(self, request: pb.StartMatchRequest, context: Any) -> pb.StartMatchResponse:
        claim = self._seat(context, request.match_id)
        reply = await self._match.StartMatch(
            mpb.StartMatchRequest(
                match_id=request.match_id,
                command_id=client_command(request.command_id),
                seat=claim.seat,
                holder=holder(claim),
            )
        )
        return pb.StartMatchResponse(version=reply.version)

    # ------------------------------------------------------------ play

    def _seat(self, context: Any, match_id: str) -> SeatClaim:
        """The caller's seat claim for this match, required."""
        return self._tokens.seat_for_match(_metadata(context), validate.match_id(match_id))

    def _viewer(self, context: Any, match_id: str) -> SeatClaim | None:
        """The caller's seat claim in this match, None for a spectator (as in `_any_seat`)."""
        validate.match_id(match_id)
        claim = self._any_seat(context)
        if claim is not None and claim.match_id != match_id:
            raise PermissionDenied("the token is for another match", "auth.other_match")
        return claim

    def _any_seat(self, context: Any) -> SeatClaim | None:
        """The caller's seat claim in whatever match, None for a spectator: no token, or a
        session token (a signed-in player who watches a match they do not play)."""
        token = bearer_token(_metadata(context))
        if token is None:
            return None
        try:
            return self._tokens.seat(token)
        except Unauthenticated as error:
            if error.reason != "auth.wrong_token_kind":
                raise
            self._tokens.session(token)
            return None

    async def _view(
        self, match_id: str, viewer: SeatClaim | None, at_version: int | None = None
    ) -> mpb.GetViewResponse:
        request = mpb.GetViewRequest(match_id=match_id)
        if viewer is not None:
            request.viewer = viewer.seat
            request.holder.CopyFrom(holder(viewer))
        if at_version is not None:
            request.at_version = at_version
        return await self._match.GetView(request)

    async def GetView(self, request: pb.GetViewRequest, context: Any) -> pb.GetViewResponse:
        viewer = self._viewer(context, request.match_id)
        at = validate.version(request.at_version, "at_version") if request.HasField("at_version") else None
        reply = await self._view(request.match_id, viewer, at)
        response = pb.GetViewResponse(match=reply.match, view=reply.view)
        if viewer is not None:
            response.seat = viewer.seat
        return response

    async def ListLegalActions(self, request: pb.ListLegalActionsRequest, context: Any) -> pb.ListLegalActionsResponse:
        claim = self._seat(context, request.match_id)
        return await self._legal_actions(claim)

    async def _legal_actions(self, claim: SeatClaim) -> pb.ListLegalActionsResponse:
        reply = await self._match.ListLegalActions(
            mpb.ListLegalActionsRequest(match_id=claim.match_id, seat=claim.seat, holder=holder(claim))
        )
        return pb.ListLegalActionsResponse(version=reply.version, actions=reply.actions)

    async def SubmitAction(self, request: pb.SubmitActionRequest, context: Any) -> pb.SubmitActionResponse:
        claim = self._seat(context, request.match_id)
        return await self._submit(claim, request)

    async def _submit(self, claim: SeatClaim, request: pb.SubmitActionRequest) -> pb.SubmitActionResponse:
        self._limiter.take(f"{claim.match_id}/{claim.seat}", "actions from this seat")
        reply = await self._match.SubmitAction(
            mpb.SubmitActionRequest(
                match_id=request.match_id,
                seat=claim.seat,
                action=validate.action(request.action),
                command_id=client_command(request.command_id),
                holder=holder(claim),
            )
        )
        return pb.SubmitActionResponse(version=reply.version, duplicate=reply.duplicate)

    # ------------------------------------------------------------ logs and live updates

    async def GetMatchLog(self, request: pb.GetMatchLogRequest, context: Any) -> pb.GetMatchLogResponse:
        claim = self._viewer(context, request.match_id)
        validate.version(request.after_version)
        validate.limit(request.limit)
        summary = (await self._match.GetMatch(mpb.GetMatchRequest(match_id=request.match_id))).match
        viewer = _still_holding(summary, claim)
        finished = summary.status == mpb.MATCH_STATUS_FINISHED
        limit = min(request.limit or MAX_LOG_PAGE, MAX_LOG_PAGE)
        events = await self._store.read(match_stream(request.match_id), request.after_version, limit)
        return pb.GetMatchLogResponse(entries=views.entries_for(events, viewer, finished), status=summary.status)

    async def WatchMatch(self, request: pb.WatchMatchRequest, context: Any) -> AsyncIterator[pb.WatchMatchResponse]:
        claim = self._viewer(context, request.match_id)
        async for update in self._updates(request, claim):
            yield update

    async def _updates(
        self, request: pb.WatchMatchRequest, claim: SeatClaim | None
    ) -> AsyncIterator[pb.WatchMatchResponse]:
        """Updates from `after_version` on, one per batch of new events, until the match ends.
        A seat's stream ends (PERMISSION_DENIED) as soon as its token no longer holds the seat."""
        validate.match_id(request.match_id)
        validate.version(request.after_version)
        summary = (await self._match.GetMatch(mpb.GetMatchRequest(match_id=request.match_id))).match
        viewer = _still_holding(summary, claim)
        after = request.after_version
        while True:
            if summary.status == mpb.MATCH_STATUS_FINISHED and after >= summary.version:
                return
            events = await self._feeds.next_batch(request.match_id, after, WATCH_POLL_SECONDS)
            if not events:
                continue
            after = events[-1].version
            reply = await self._view(request.match_id, claim) if request.with_view else None
            summary = reply.match if reply is not None else await self._summary_at(request.match_id, after)
            _still_holding(summary, claim)
            finished = summary.status == mpb.MATCH_STATUS_FINISHED
            update = pb.WatchMatchResponse(
                version=after, entries=views.entries_for(events, viewer, finished), match=summary
            )
            if reply is not None:
                update.view.CopyFrom(reply.view)
            if request.with_legal_actions and claim is not None and claim.seat in summary.to_move:
                update.legal_actions.extend((await self._legal_actions(claim)).actions)
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
        claim = self._any_seat(context)
        # Updates and answers for the client; a refusal of the stream itself
        # (a malformed message, a watch that is not allowed) ends it with its status.
        out: asyncio.Queue[pb.PlayResponse | ServiceError | None] = asyncio.Queue()
        watcher: asyncio.Task[None] | None = None

        async def watch(request: pb.WatchMatchRequest) -> None:
            try:
                viewer = self._viewer(context, request.match_id)
                async for update in self._updates(request, viewer):
                    await out.put(pb.PlayResponse(update=update))
            except ServiceError as error:
                await out.put(error)

        async def read() -> None:
            nonlocal watcher
            try:
                async for message in request_iterator:
                    kind = message.WhichOneof("kind")
                    if kind == "watch" and watcher is None:
                        watcher = asyncio.create_task(watch(message.watch))
                    elif kind == "submit":
                        await out.put(await self._play_submit(claim, message.submit))
            except ServiceError as error:
                await out.put(error)
                return
            await out.put(None)

        reader = asyncio.create_task(read())
        try:
            while (item := await out.get()) is not None:
                if isinstance(item, ServiceError):
                    raise item
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


def _still_holding(summary: mpb.MatchSummary, claim: SeatClaim | None) -> int | None:
    """The claim's seat if its player still holds it in the claimed tenure; PermissionDenied if not.
    For reads that go to the log directly rather than through the match service."""
    if claim is None:
        return None
    seats = {s.seat: s for s in summary.seats}
    held = seats.get(claim.seat)
    if held is None or held.player_id != claim.player_id or held.tenure != claim.tenure:
        raise PermissionDenied(f"this seat token no longer holds seat {claim.seat}", "auth.seat_changed")
    return claim.seat


def _match_id_for(player_id: str, command_id: str) -> str:
    return hashlib.sha256(f"{player_id}\x1f{command_id}".encode()).hexdigest()[:32]


def register(server: Any, servicer: GatewayServicer) -> list[str]:
    pb_grpc.add_GatewayServiceServicer_to_server(servicer, server)
    return [pb.DESCRIPTOR.services_by_name["GatewayService"].full_name]
