"""The gateway's API: five services by concern, each served by its own part.

Sign-in and seat tokens (gateway/signin.py), the lobby (gateway/lobby.py), play
(gateway/play.py), watching (gateway/watching.py) and matchmaking
(gateway/matchmaking.py) are each their service's servicer. Play is the one
service of two parts: its unary calls are the moves', its bidirectional stream
carries a watch's updates, so the stream is the watching part's. Every field a
client sends is checked (gateway/validate.py), seat calls are authenticated by
seat token (gateway/callers.py), and commands go to the match service with the
verified player and the token's tenure.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import aclosing
from dataclasses import dataclass

import grpc
from tabletop.gateway.v1 import gateway_pb2 as pb
from tabletop.gateway.v1 import (
    lobby_service_pb2_grpc,
    matchmaking_service_pb2_grpc,
    play_service_pb2_grpc,
    sign_in_service_pb2_grpc,
    watch_service_pb2_grpc,
)

from contract.gateway import SERVICES
from gateway.callers import CallContext
from gateway.lobby import Lobby
from gateway.matchmaking import Matchmaking
from gateway.play import Moves
from gateway.signin import SignIn
from gateway.watching import Watching


class PlayService(play_service_pb2_grpc.PlayServiceServicer):
    def __init__(self, moves: Moves, watching: Watching) -> None:
        self._moves = moves
        self._watching = watching

    async def ListLegalActions(
        self, request: pb.ListLegalActionsRequest, context: CallContext
    ) -> pb.ListLegalActionsResponse:
        return await self._moves.ListLegalActions(request, context)

    async def SubmitAction(self, request: pb.SubmitActionRequest, context: CallContext) -> pb.SubmitActionResponse:
        return await self._moves.SubmitAction(request, context)

    async def UndoActions(self, request: pb.UndoActionsRequest, context: CallContext) -> pb.UndoActionsResponse:
        return await self._moves.UndoActions(request, context)

    # An async generator function (grpc.aio serves a plain function's returned iterator
    # as a synchronous one), closing the watching part's stream when the call ends.
    async def Play(
        self, request_iterator: AsyncIterator[pb.PlayRequest], context: CallContext
    ) -> AsyncIterator[pb.PlayResponse]:
        async with aclosing(self._watching.Play(request_iterator, context)) as stream:
            async for response in stream:
                yield response


@dataclass(frozen=True)
class GatewayParts:
    """The servicers of the gateway's five services."""

    signin: SignIn
    lobby: Lobby
    moves: Moves
    watching: Watching
    matchmaking: Matchmaking


def register(server: grpc.aio.Server, parts: GatewayParts) -> list[str]:
    """Add the five services to `server`; their full names (for health and reflection)."""
    sign_in_service_pb2_grpc.add_SignInServiceServicer_to_server(parts.signin, server)
    lobby_service_pb2_grpc.add_LobbyServiceServicer_to_server(parts.lobby, server)
    play_service_pb2_grpc.add_PlayServiceServicer_to_server(PlayService(parts.moves, parts.watching), server)
    watch_service_pb2_grpc.add_WatchServiceServicer_to_server(parts.watching, server)
    matchmaking_service_pb2_grpc.add_MatchmakingServiceServicer_to_server(parts.matchmaking, server)
    return [service.full_name for service in SERVICES]
