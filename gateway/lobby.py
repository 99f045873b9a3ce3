"""The lobby service: the games offered and how each speaks, and making, finding, joining,
leaving and starting matches."""

from __future__ import annotations

import hashlib

from tabletop.gateway.v1 import gateway_pb2 as pb
from tabletop.gateway.v1 import lobby_service_pb2_grpc
from tabletop.match.v1 import match_service_pb2 as mpb

from contract.words import title_and_summary
from gateway import validate
from gateway.callers import CallContext, Callers, client_command, holder
from gateway.describe import described
from gateway.identity import Players
from gateway.limits import RateLimiter
from gateway.tables import GameCatalog
from services.common.rpc.ports import MatchPort
from services.common.security.tokens import TokenAuthority
from services.common.table_options import table_option_messages
from services.matchmaker.tables import matchmade_defaults


def match_id_for(player_id: str, command_id: str) -> str:
    """The match a player's create command names: a retry finds it again, another player's
    same id makes another match."""
    return hashlib.sha256(f"{player_id}\x1f{command_id}".encode()).hexdigest()[:32]


class Lobby(lobby_service_pb2_grpc.LobbyServiceServicer):
    def __init__(
        self,
        match: MatchPort,
        games: GameCatalog,
        callers: Callers,
        tokens: TokenAuthority,
        players: Players,
        create_limiter: RateLimiter,
    ) -> None:
        self._match = match
        self._games = games
        self._callers = callers
        self._tokens = tokens
        self._players = players
        self._create_limiter = create_limiter

    async def DescribeGame(self, request: pb.DescribeGameRequest, context: CallContext) -> pb.DescribeGameResponse:
        return described(request.game, self._games.names())

    async def ListGames(self, request: pb.ListGamesRequest, context: CallContext) -> pb.ListGamesResponse:
        games = []
        for name in self._games.names():
            info = await self._games.describe(name)
            title, summary = title_and_summary(info.game)
            games.append(
                pb.GameInfo(
                    game=info.game,
                    title=title,
                    summary=summary,
                    cooperative=info.cooperative,
                    min_seats=info.min_seats,
                    max_seats=info.max_seats,
                    # Each game's own options, then the table's (turn clocks), which every match may set.
                    options=[*info.options, *table_option_messages()],
                    matchmade_options=matchmade_defaults(info.game),
                )
            )
        return pb.ListGamesResponse(games=games)

    async def CreateMatch(self, request: pb.CreateMatchRequest, context: CallContext) -> pb.CreateMatchResponse:
        session = self._callers.session(context)
        create = mpb.CreateMatchRequest(
            game=validate.game(request.game),
            config=validate.options(request.config),
            seat_count=validate.seats(request.seat_count),
            command_id=client_command(request.command_id),
        )
        self._create_limiter.take(f"create/{session.player_id}", "matches created")
        if request.command_id:
            create.match_id = match_id_for(session.player_id, request.command_id)
        reply = await self._match.CreateMatch(create)
        return pb.CreateMatchResponse(match=reply.match)

    async def ListMatches(self, request: pb.ListMatchesRequest, context: CallContext) -> pb.ListMatchesResponse:
        validate.enum(request.status, mpb.MatchStatus.DESCRIPTOR, "status")
        reply = await self._match.ListMatches(
            mpb.ListMatchesRequest(
                game=validate.game(request.game, required=False),
                status=request.status,
                limit=validate.limit(request.limit, high=500),
            )
        )
        return pb.ListMatchesResponse(matches=reply.matches)

    async def JoinMatch(self, request: pb.JoinMatchRequest, context: CallContext) -> pb.JoinMatchResponse:
        session = self._callers.session(context)
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

    async def LeaveMatch(self, request: pb.LeaveMatchRequest, context: CallContext) -> pb.LeaveMatchResponse:
        claim = self._callers.seat(context, request.match_id)
        reply = await self._match.LeaveMatch(
            mpb.LeaveMatchRequest(
                match_id=request.match_id,
                seat=claim.seat,
                command_id=client_command(request.command_id),
                holder=holder(claim),
            )
        )
        return pb.LeaveMatchResponse(version=reply.version)

    async def StartMatch(self, request: pb.StartMatchRequest, context: CallContext) -> pb.StartMatchResponse:
        claim = self._callers.seat(context, request.match_id)
        reply = await self._match.StartMatch(
            mpb.StartMatchRequest(
                match_id=request.match_id,
                command_id=client_command(request.command_id),
                seat=claim.seat,
                holder=holder(claim),
            )
        )
        return pb.StartMatchResponse(version=reply.version)
