"""The gateway's API as one client object.

The API is five services by concern (tabletop/gateway/v1: sign-in, lobby, play,
watch, matchmaking), each with its own servicer in the gateway; their messages
share one module (gateway_pb2). A client usually wants all of them over one
channel: `GatewayStub(channel).SubmitAction(...)` calls the rpc of whichever
service holds it. `SERVICES` names the five for those who route by service
(the HTTP edge, reflection, metrics).
"""

from __future__ import annotations

import grpc
from tabletop.gateway.v1 import (
    lobby_service_pb2,
    lobby_service_pb2_grpc,
    matchmaking_service_pb2,
    matchmaking_service_pb2_grpc,
    play_service_pb2,
    play_service_pb2_grpc,
    sign_in_service_pb2,
    sign_in_service_pb2_grpc,
    watch_service_pb2,
    watch_service_pb2_grpc,
)

# The five services' descriptors, in the order the docs present them.
SERVICES = (
    sign_in_service_pb2.DESCRIPTOR.services_by_name["SignInService"],
    lobby_service_pb2.DESCRIPTOR.services_by_name["LobbyService"],
    play_service_pb2.DESCRIPTOR.services_by_name["PlayService"],
    watch_service_pb2.DESCRIPTOR.services_by_name["WatchService"],
    matchmaking_service_pb2.DESCRIPTOR.services_by_name["MatchmakingService"],
)


class GatewayStub:
    """Every rpc of the gateway's five services, on one channel."""

    def __init__(self, channel: grpc.aio.Channel) -> None:
        sign_in = sign_in_service_pb2_grpc.SignInServiceStub(channel)
        self.Authenticate = sign_in.Authenticate
        self.RefreshSession = sign_in.RefreshSession
        self.GetSeatToken = sign_in.GetSeatToken
        lobby = lobby_service_pb2_grpc.LobbyServiceStub(channel)
        self.ListGames = lobby.ListGames
        self.DescribeGame = lobby.DescribeGame
        self.CreateMatch = lobby.CreateMatch
        self.ListMatches = lobby.ListMatches
        self.JoinMatch = lobby.JoinMatch
        self.LeaveMatch = lobby.LeaveMatch
        self.StartMatch = lobby.StartMatch
        play = play_service_pb2_grpc.PlayServiceStub(channel)
        self.ListLegalActions = play.ListLegalActions
        self.SubmitAction = play.SubmitAction
        self.UndoActions = play.UndoActions
        self.Play = play.Play
        watch = watch_service_pb2_grpc.WatchServiceStub(channel)
        self.GetView = watch.GetView
        self.WatchMatch = watch.WatchMatch
        self.GetMatchLog = watch.GetMatchLog
        matchmaking = matchmaking_service_pb2_grpc.MatchmakingServiceStub(channel)
        self.FindMatch = matchmaking.FindMatch
        self.WatchTicket = matchmaking.WatchTicket
        self.Queue = matchmaking.Queue
        self.CancelTicket = matchmaking.CancelTicket
        self.GetRating = matchmaking.GetRating
        self.ListLeaderboard = matchmaking.ListLeaderboard


# Each rpc's HTTP path (Connect, gRPC-Web) by its name: "SubmitAction" ->
# "/tabletop.gateway.v1.PlayService/SubmitAction". Method names are unique across the five.
PATHS = {method.name: f"/{service.full_name}/{method.name}" for service in SERVICES for method in service.methods}
