"""The gateway: the only client-facing API, one servicer composed of its concerns.

Sign-in and seat tokens (gateway/signin.py), the lobby (gateway/lobby.py), play
(gateway/play.py), reads and streams (gateway/watching.py) and matchmaking
(gateway/matchmaking.py) each hold what they need; this class only routes each
rpc to its part. Every field a client sends is checked (gateway/validate.py),
seat calls are authenticated by seat token (gateway/callers.py), and commands
go to the match service with the verified player and the token's tenure.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import aclosing

import grpc
from tabletop.gateway.v1 import gateway_service_pb2 as pb
from tabletop.gateway.v1 import gateway_service_pb2_grpc as pb_grpc

from gateway.callers import CallContext
from gateway.describe import Describe
from gateway.lobby import Lobby
from gateway.matchmaking import Matchmaking
from gateway.play import Moves
from gateway.signin import SignIn
from gateway.watching import Watching


class GatewayService(pb_grpc.GatewayServiceServicer):
    def __init__(
        self,
        signin: SignIn,
        lobby: Lobby,
        moves: Moves,
        watching: Watching,
        matchmaking: Matchmaking,
        describe: Describe | None = None,
    ) -> None:
        self._describe = describe or Describe()
        self._signin = signin
        self._lobby = lobby
        self._moves = moves
        self._watching = watching
        self._matchmaking = matchmaking

    # ------------------------------------------------------------ sign-in

    async def Authenticate(self, request: pb.AuthenticateRequest, context: CallContext) -> pb.AuthenticateResponse:
        return await self._signin.Authenticate(request, context)

    async def RefreshSession(
        self, request: pb.RefreshSessionRequest, context: CallContext
    ) -> pb.RefreshSessionResponse:
        return await self._signin.RefreshSession(request, context)

    async def GetSeatToken(self, request: pb.GetSeatTokenRequest, context: CallContext) -> pb.GetSeatTokenResponse:
        return await self._signin.GetSeatToken(request, context)

    # ------------------------------------------------------------ lobby

    async def ListGames(self, request: pb.ListGamesRequest, context: CallContext) -> pb.ListGamesResponse:
        return await self._lobby.ListGames(request, context)

    async def DescribeGame(
        self, request: pb.DescribeGameRequest, context: CallContext
    ) -> pb.DescribeGameResponse:
        return await self._describe.DescribeGame(request, context)

    async def CreateMatch(self, request: pb.CreateMatchRequest, context: CallContext) -> pb.CreateMatchResponse:
        return await self._lobby.CreateMatch(request, context)

    async def ListMatches(self, request: pb.ListMatchesRequest, context: CallContext) -> pb.ListMatchesResponse:
        return await self._lobby.ListMatches(request, context)

    async def JoinMatch(self, request: pb.JoinMatchRequest, context: CallContext) -> pb.JoinMatchResponse:
        return await self._lobby.JoinMatch(request, context)

    async def LeaveMatch(self, request: pb.LeaveMatchRequest, context: CallContext) -> pb.LeaveMatchResponse:
        return await self._lobby.LeaveMatch(request, context)

    async def StartMatch(self, request: pb.StartMatchRequest, context: CallContext) -> pb.StartMatchResponse:
        return await self._lobby.StartMatch(request, context)

    # ------------------------------------------------------------ play

    async def ListLegalActions(
        self, request: pb.ListLegalActionsRequest, context: CallContext
    ) -> pb.ListLegalActionsResponse:
        return await self._moves.ListLegalActions(request, context)

    async def SubmitAction(self, request: pb.SubmitActionRequest, context: CallContext) -> pb.SubmitActionResponse:
        return await self._moves.SubmitAction(request, context)

    async def UndoActions(self, request: pb.UndoActionsRequest, context: CallContext) -> pb.UndoActionsResponse:
        return await self._moves.UndoActions(request, context)

    # ------------------------------------------------------------ reads and streams

    async def GetView(self, request: pb.GetViewRequest, context: CallContext) -> pb.GetViewResponse:
        return await self._watching.GetView(request, context)

    async def GetMatchLog(self, request: pb.GetMatchLogRequest, context: CallContext) -> pb.GetMatchLogResponse:
        return await self._watching.GetMatchLog(request, context)

    # Streams stay async generator functions here (grpc.aio serves a plain function's
    # returned iterator as a synchronous one), closing the part's stream when the call ends.

    async def WatchMatch(
        self, request: pb.WatchMatchRequest, context: CallContext
    ) -> AsyncIterator[pb.WatchMatchResponse]:
        async with aclosing(self._watching.WatchMatch(request, context)) as stream:
            async for update in stream:
                yield update

    async def Play(
        self, request_iterator: AsyncIterator[pb.PlayRequest], context: CallContext
    ) -> AsyncIterator[pb.PlayResponse]:
        async with aclosing(self._watching.Play(request_iterator, context)) as stream:
            async for response in stream:
                yield response

    # ------------------------------------------------------------ matchmaking

    async def FindMatch(self, request: pb.FindMatchRequest, context: CallContext) -> pb.FindMatchResponse:
        return await self._matchmaking.FindMatch(request, context)

    async def WatchTicket(
        self, request: pb.WatchTicketRequest, context: CallContext
    ) -> AsyncIterator[pb.WatchTicketResponse]:
        async with aclosing(self._matchmaking.WatchTicket(request, context)) as stream:
            async for update in stream:
                yield update

    async def Queue(self, request: pb.QueueRequest, context: CallContext) -> AsyncIterator[pb.QueueResponse]:
        async with aclosing(self._matchmaking.Queue(request, context)) as stream:
            async for update in stream:
                yield update

    async def CancelTicket(self, request: pb.CancelTicketRequest, context: CallContext) -> pb.CancelTicketResponse:
        return await self._matchmaking.CancelTicket(request, context)

    async def GetRating(self, request: pb.GetRatingRequest, context: CallContext) -> pb.GetRatingResponse:
        return await self._matchmaking.GetRating(request, context)

    async def ListLeaderboard(
        self, request: pb.ListLeaderboardRequest, context: CallContext
    ) -> pb.ListLeaderboardResponse:
        return await self._matchmaking.ListLeaderboard(request, context)


def register(server: grpc.aio.Server, servicer: GatewayService) -> list[str]:
    pb_grpc.add_GatewayServiceServicer_to_server(servicer, server)
    return [pb.DESCRIPTOR.services_by_name["GatewayService"].full_name]
