"""gRPC adapter of the matchmaker use cases.

Call contexts go unused here (an in-process call passes None), so they are typed `object`.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import grpc
from tabletop.matchmaker.v1 import matchmaker_service_pb2 as pb
from tabletop.matchmaker.v1 import matchmaker_service_pb2_grpc as pb_grpc

from services.matchmaker.app import ASSIGNED, EXPIRED, MatchmakerApp, TicketView
from services.matchmaker.ratings import Rating


class MatchmakerServicer(pb_grpc.MatchmakerServiceServicer):
    def __init__(self, app: MatchmakerApp) -> None:
        self._app = app

    async def FindMatch(self, request: pb.FindMatchRequest, context: object) -> pb.FindMatchResponse:
        ticket_id, before = await self._app.find(request.game, request.player_id,
                                                 (request.players_min, request.players_max), dict(request.options),
                                                 request.command_id)
        return pb.FindMatchResponse(ticket_id=ticket_id, already_queued=before)

    # Each stream closes the use case's stream it reads when it ends (contextlib.aclosing): a
    # watch ending is what withdraws a waiting ticket, and must not wait for the garbage collector.
    async def WatchTicket(
        self, request: pb.WatchTicketRequest, context: object
    ) -> AsyncIterator[pb.WatchTicketResponse]:
        async with contextlib.aclosing(self._app.watch(request.ticket_id, request.player_id)) as views:
            async for view in views:
                yield ticket_response(view)

    async def Queue(self, request: pb.QueueRequest, context: object) -> AsyncIterator[pb.QueueResponse]:
        queued = self._app.queue(request.game, request.player_id, (request.players_min, request.players_max),
                                 dict(request.options), request.command_id)
        async with contextlib.aclosing(queued) as views:
            async for view, before in views:
                watched = ticket_response(view)
                response = pb.QueueResponse(ticket_id=watched.ticket_id, already_queued=before,
                                            status=watched.status)
                if watched.HasField("assignment"):
                    response.assignment.CopyFrom(watched.assignment)
                yield response

    async def CancelTicket(self, request: pb.CancelTicketRequest, context: object) -> pb.CancelTicketResponse:
        await self._app.cancel(request.ticket_id, request.player_id)
        return pb.CancelTicketResponse()

    async def GetRating(self, request: pb.GetRatingRequest, context: object) -> pb.GetRatingResponse:
        standing = await self._app.rating(request.game, request.player_id)
        message = rating_message(request.player_id, request.game, standing.rating)
        message.provisional = standing.provisional
        return pb.GetRatingResponse(rating=message)

    async def ListLeaderboard(self, request: pb.ListLeaderboardRequest, context: object) -> pb.ListLeaderboardResponse:
        board = await self._app.leaderboard(request.game, request.limit, request.offset)
        return pb.ListLeaderboardResponse(entries=[
            pb.LeaderboardEntry(rank=request.offset + i + 1, rating=rating_message(player, request.game, rating))
            for i, (player, rating) in enumerate(board)
        ])


def ticket_response(view: TicketView) -> pb.WatchTicketResponse:
    if view.status == EXPIRED:
        return pb.WatchTicketResponse(ticket_id=view.ticket_id, status=pb.TICKET_STATUS_EXPIRED)
    if view.status != ASSIGNED:
        return pb.WatchTicketResponse(ticket_id=view.ticket_id, status=pb.TICKET_STATUS_WAITING)
    return pb.WatchTicketResponse(
        ticket_id=view.ticket_id, status=pb.TICKET_STATUS_ASSIGNED,
        assignment=pb.Assignment(match_id=view.match_id, seat=view.seat, tenure=view.tenure),
    )


def rating_message(player_id: str, game: str, rating: Rating) -> pb.Rating:
    return pb.Rating(player_id=player_id, game=game, mu=rating.mu, sigma=rating.sigma, ordinal=rating.ordinal,
                     matches=rating.matches)


def register(server: grpc.aio.Server, app: MatchmakerApp) -> list[str]:
    pb_grpc.add_MatchmakerServiceServicer_to_server(MatchmakerServicer(app), server)
    return [pb.DESCRIPTOR.services_by_name["MatchmakerService"].full_name]
