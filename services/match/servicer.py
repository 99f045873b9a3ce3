"""gRPC adapter of the match use cases: wire messages in, domain values to the use cases."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol

import grpc
from tabletop.match.v1 import match_service_pb2 as pb
from tabletop.match.v1 import match_service_pb2_grpc as pb_grpc

from services.common.errors import PermissionDenied
from services.common.players import is_bot
from services.common.rpc import batch, mux
from services.common.security import authz, tls
from services.common.store import log_entry
from services.match.app import MatchApp
from services.match.batch import form_matches
from services.match.lifecycle import Holder
from services.match.records import holder_of, summary

GATEWAY = "gateway"  # the platform identity (certificate name) of the gateway
# Each seat call's refusal, for a caller held to its bots' seats (authz.BOT_SEATS):
# rpc -> the stable reason's area ("submit" -> "submit.bot_seat_only").
_SEAT_CALLS = {
    "SubmitAction": "submit",
    "ListLegalActions": "legal_actions",
    "GetView": "view",
    "UndoActions": "undo",
    "LeaveMatch": "leave",
    "StartMatch": "start",
}


class MatchServicer(pb_grpc.MatchServiceServicer):
    def __init__(self, app: MatchApp) -> None:
        self._app = app

    async def CreateMatch(self, request: pb.CreateMatchRequest, context: object) -> pb.CreateMatchResponse:
        match = await self._app.create(
            request.game, dict(request.config), request.seat_count, request.command_id, request.match_id
        )
        return pb.CreateMatchResponse(match=summary(match))

    async def JoinMatch(self, request: pb.JoinMatchRequest, context: object) -> pb.JoinMatchResponse:
        # A bot sits only where the matchmaker formed it (FormMatch): that is what lets a seat
        # a `bot-` player holds be the matchmaker's to play, and no one else's.
        if is_bot(request.player_id):
            raise PermissionDenied("bots are seated only by forming a match", "join.bot_player")
        wanted = request.seat if request.HasField("seat") else None
        joined = await self._app.join(
            request.match_id, request.player_id, wanted, request.command_id, request.display_name
        )
        return pb.JoinMatchResponse(seat=joined.seat, version=joined.version, tenure=joined.tenure)

    async def LeaveMatch(
        self, request: pb.LeaveMatchRequest, context: tls.Authenticated | None
    ) -> pb.LeaveMatchResponse:
        holder = await self._acting_for("LeaveMatch", request, request.seat, context)
        version = await self._app.leave(request.match_id, request.seat, request.command_id, holder)
        return pb.LeaveMatchResponse(version=version)

    async def StartMatch(
        self, request: pb.StartMatchRequest, context: tls.Authenticated | None
    ) -> pb.StartMatchResponse:
        seat = request.seat if request.HasField("seat") else None
        holder = await self._acting_for("StartMatch", request, seat, context)
        version = await self._app.start(request.match_id, request.command_id, seat, holder)
        return pb.StartMatchResponse(version=version)

    async def FormMatch(self, request: pb.FormMatchRequest, context: object) -> pb.FormMatchResponse:
        players = [(p.player_id, p.display_name) for p in request.players]
        match = await self._app.form(request.game, dict(request.config), players, request.command_id, request.match_id)
        return pb.FormMatchResponse(match=summary(match))

    async def FormMatches(self, request: pb.FormMatchesRequest, context: object) -> pb.FormMatchesResponse:
        return await form_matches(self._app, request)

    async def SubmitAction(
        self, request: pb.SubmitActionRequest, context: tls.Authenticated | None
    ) -> pb.SubmitActionResponse:
        # A whole position holds every seat's secrets: only the gateway, which shows
        # each viewer its own part, may have one (the matchmaker's bots also submit).
        if request.with_position and _caller(context) != GATEWAY:
            raise PermissionDenied("only the gateway may ask for every seat's view", "position.gateway_only")
        holder = await self._acting_for("SubmitAction", request, request.seat, context)
        done = await self._app.submit(request.match_id, request.seat, request.action, request.command_id, holder)
        response = pb.SubmitActionResponse(version=done.version, duplicate=done.duplicate)
        if request.with_position and done.match is not None:
            response.match.CopyFrom(summary(done.match))
            if done.position is not None:
                response.position.CopyFrom(done.position)
            response.appended.extend([log_entry.entry(event, request.command_id) for event in done.appended])
        return response

    async def UndoActions(
        self, request: pb.UndoActionsRequest, context: tls.Authenticated | None
    ) -> pb.UndoActionsResponse:
        holder = await self._acting_for("UndoActions", request, request.seat, context)
        done = await self._app.undo(request.match_id, request.seat, request.count or 1, request.command_id, holder)
        response = pb.UndoActionsResponse(version=done.version, duplicate=done.match is None)
        response.match.CopyFrom(summary(done.match or await self._app.current(request.match_id)))
        return response

    async def GetPosition(self, request: pb.GetPositionRequest, context: object) -> pb.GetPositionResponse:
        match, position = await self._app.position(request.match_id)
        response = pb.GetPositionResponse(match=summary(match))
        if position is not None:
            response.position.CopyFrom(position)
        return response

    async def GetMatch(self, request: pb.GetMatchRequest, context: object) -> pb.GetMatchResponse:
        return pb.GetMatchResponse(match=summary(await self._app.current(request.match_id)))

    async def ListMatches(self, request: pb.ListMatchesRequest, context: object) -> pb.ListMatchesResponse:
        matches = await self._app.list_matches(request.game, request.status, request.limit)
        return pb.ListMatchesResponse(matches=[summary(m) for m in matches])

    async def GetView(self, request: pb.GetViewRequest, context: tls.Authenticated | None) -> pb.GetViewResponse:
        viewer = request.viewer if request.HasField("viewer") else None
        if request.HasField("at_version") and not authz.any_seat(_full("GetView"), _caller(context)):
            # A bot seat's current view is all its bot needs: no replays of any seat's past.
            raise PermissionDenied("only a bot seat's own current view", "view.bot_seat_only")
        holder = await self._acting_for("GetView", request, viewer, context)
        if request.HasField("at_version"):
            match, view = await self._app.view_at(request.match_id, request.at_version, viewer, holder)
        else:
            match, view = await self._app.view(request.match_id, viewer, holder)
        response = pb.GetViewResponse(match=summary(match))
        if view is not None:
            response.view.CopyFrom(view)
        return response

    async def ListLegalActions(
        self, request: pb.ListLegalActionsRequest, context: tls.Authenticated | None
    ) -> pb.ListLegalActionsResponse:
        holder = await self._acting_for("ListLegalActions", request, request.seat, context)
        version, actions = await self._app.legal_actions(request.match_id, request.seat, holder)
        return pb.ListLegalActionsResponse(version=version, actions=actions)

    async def _acting_for(
        self, rpc: str, request: _SeatRequest, seat: int | None, context: tls.Authenticated | None
    ) -> Holder | None:
        """Whom a seat call acts as: the holder the request names, for a caller the policy
        trusts with any seat (the gateway, which names it from the player's seat token); for
        any other (the matchmaker, playing backfill bots: authz.BOT_SEATS) the bot holding
        `seat`, or a refusal. The use case checks that holder again in the write itself, so a
        seat that changed hands since is refused there (auth.seat_changed), never acted for."""
        if authz.any_seat(_full(rpc), _caller(context)):
            return _holder(request)
        refused = PermissionDenied(f"this caller may call {rpc} only for a seat its own bot holds",
                                   f"{_SEAT_CALLS[rpc]}.bot_seat_only")
        if seat is None:  # a spectator's view, a start in no seat's name: not a bot's
            raise refused
        match = await self._app.current(request.match_id)
        if not 0 <= seat < len(match.players) or not is_bot(match.players[seat]):
            raise refused
        return Holder(match.players[seat], match.tenure(seat))

    async def Batch(self, request: pb.BatchRequest, context: object) -> pb.BatchResponse:
        return pb.BatchResponse(results=await batch.answer(self, authz.MATCH, request.calls, context))

    async def Exchange(
        self,
        requests: AsyncIterator[pb.ExchangeRequest],
        context: grpc.aio.ServicerContext[pb.ExchangeRequest, pb.ExchangeResponse],
    ) -> AsyncIterator[pb.ExchangeResponse]:
        async for message in mux.answer(self, authz.MATCH, requests, context, pb.ExchangeResponse):
            yield message


class _HeldRequest(Protocol):
    """A seat call's request: it may name who claims the seat."""

    @property
    def holder(self) -> pb.SeatHolder: ...

    def HasField(self, field_name: str) -> bool: ...


class _SeatRequest(_HeldRequest, Protocol):
    """A seat call's request: a seat of one match."""

    @property
    def match_id(self) -> str: ...


def _holder(request: _HeldRequest) -> Holder | None:
    return holder_of(request.holder if request.HasField("holder") else None)


def _caller(context: tls.Authenticated | None) -> str:
    """The calling platform identity ('' for a call with no context: trusted with nothing)."""
    return tls.caller(context) if context is not None else ""


def _full(rpc: str) -> str:
    return f"/{authz.MATCH}/{rpc}"


def register(server: grpc.aio.Server, app: MatchApp) -> list[str]:
    pb_grpc.add_MatchServiceServicer_to_server(MatchServicer(app), server)
    return [pb.DESCRIPTOR.services_by_name["MatchService"].full_name]
