"""gRPC adapter of the match use cases: wire messages in, domain values to the use cases."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Protocol

import grpc
from tabletop.match.v1 import match_service_pb2 as pb
from tabletop.match.v1 import match_service_pb2_grpc as pb_grpc

from services.common import authz, batch, log_entry, mux, tls
from services.common.errors import PermissionDenied
from services.common.players import is_bot
from services.match.app import MatchApp
from services.match.batch import form_matches
from services.match.lifecycle import Holder
from services.match.records import holder_of, summary

GATEWAY = "gateway"  # the platform identity (certificate name) of the gateway


class MatchServicer(pb_grpc.MatchServiceServicer):
    def __init__(self, app: MatchApp) -> None:
        self._app = app

    async def CreateMatch(self, request: pb.CreateMatchRequest, context: object) -> pb.CreateMatchResponse:
        match = await self._app.create(
            request.game, dict(request.config), request.seat_count, request.command_id, request.match_id
        )
        return pb.CreateMatchResponse(match=summary(match))

    async def JoinMatch(self, request: pb.JoinMatchRequest, context: object) -> pb.JoinMatchResponse:
        wanted = request.seat if request.HasField("seat") else None
        joined = await self._app.join(
            request.match_id, request.player_id, wanted, request.command_id, request.display_name
        )
        return pb.JoinMatchResponse(seat=joined.seat, version=joined.version, tenure=joined.tenure)

    async def LeaveMatch(self, request: pb.LeaveMatchRequest, context: object) -> pb.LeaveMatchResponse:
        version = await self._app.leave(request.match_id, request.seat, request.command_id, _holder(request))
        return pb.LeaveMatchResponse(version=version)

    async def StartMatch(self, request: pb.StartMatchRequest, context: object) -> pb.StartMatchResponse:
        seat = request.seat if request.HasField("seat") else None
        version = await self._app.start(request.match_id, request.command_id, seat, _holder(request))
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
        if request.with_position and (context is None or tls.caller(context) != GATEWAY):
            raise PermissionDenied("only the gateway may ask for every seat's view", "position.gateway_only")
        done = await self._app.submit(
            request.match_id, request.seat, request.action, request.command_id, _holder(request)
        )
        response = pb.SubmitActionResponse(version=done.version, duplicate=done.duplicate)
        if request.with_position and done.match is not None:
            response.match.CopyFrom(summary(done.match))
            if done.position is not None:
                response.position.CopyFrom(done.position)
            response.appended.extend([log_entry.entry(event, request.command_id) for event in done.appended])
        return response

    async def UndoActions(self, request: pb.UndoActionsRequest, context: object) -> pb.UndoActionsResponse:
        done = await self._app.undo(
            request.match_id, request.seat, request.count or 1, request.command_id, _holder(request)
        )
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
        if context is None or tls.caller(context) != GATEWAY:
            await self._require_bot_seat(request, viewer)
        if request.HasField("at_version"):
            match, view = await self._app.view_at(request.match_id, request.at_version, viewer, _holder(request))
        else:
            match, view = await self._app.view(request.match_id, viewer, _holder(request))
        response = pb.GetViewResponse(match=summary(match))
        if view is not None:
            response.view.CopyFrom(view)
        return response

    async def _require_bot_seat(self, request: pb.GetViewRequest, viewer: int | None) -> None:
        """Anyone but the gateway (the matchmaker, playing backfill bots) reads one thing only:
        the current view of a seat a bot holds, exactly what that seat's own client would see."""
        if viewer is None or request.HasField("at_version"):
            raise PermissionDenied("only a bot seat's own view", "view.bot_seat_only")
        players = (await self._app.current(request.match_id)).players
        if not 0 <= viewer < len(players) or not is_bot(players[viewer]):
            raise PermissionDenied("only a bot seat's own view", "view.bot_seat_only")

    async def ListLegalActions(
        self, request: pb.ListLegalActionsRequest, context: object
    ) -> pb.ListLegalActionsResponse:
        version, actions = await self._app.legal_actions(request.match_id, request.seat, _holder(request))
        return pb.ListLegalActionsResponse(version=version, actions=actions)

    async def Batch(self, request: pb.BatchRequest, context: object) -> pb.BatchResponse:
        return pb.BatchResponse(results=await batch.answer(self, authz.MATCH, request.calls, context))

    async def Exchange(
        self, requests: AsyncIterator[pb.ExchangeRequest], context: Any
    ) -> AsyncIterator[pb.ExchangeResponse]:
        async for message in mux.answer(self, authz.MATCH, requests, context, pb.ExchangeResponse):
            yield message


class _HeldRequest(Protocol):
    """A seat call's request: it may name who claims the seat."""

    @property
    def holder(self) -> pb.SeatHolder: ...

    def HasField(self, field_name: str) -> bool: ...


def _holder(request: _HeldRequest) -> Holder | None:
    return holder_of(request.holder if request.HasField("holder") else None)


def register(server: grpc.aio.Server, app: MatchApp) -> list[str]:
    pb_grpc.add_MatchServiceServicer_to_server(MatchServicer(app), server)
    return [pb.DESCRIPTOR.services_by_name["MatchService"].full_name]
