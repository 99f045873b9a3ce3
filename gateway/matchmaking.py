"""Gateway endpoints for matchmaking: checked here, forwarded to the matchmaker service.

The gateway knows the games (their rules services), so it refuses an unknown
game, a table size the game does not allow, or options its setup rejects,
before a ticket exists. A watch survives the loss of the matchmaker replica
serving it: the stream is reopened on another replica (the ticket lives in
Redis, not in the replica).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from tabletop.gateway.v1 import gateway_service_pb2 as pb
from tabletop.matchmaker.v1 import matchmaker_service_pb2 as mmpb
from tabletop.rules.v1 import rules_service_pb2 as rpb

from gateway import validate
from gateway.identity import Players
from services.common.errors import InvalidArgument, Unavailable
from services.common.tls import Dial
from services.common.tokens import SeatClaim, Session, TokenAuthority
from services.common.transport import RemoteClient

WATCH_REOPENS = 5
CHECKED_TABLES = 4096


ROUND_ROBIN = [("grpc.lb_policy_name", "round_robin")]


def replicas_client(stub_cls: Any, addr: str, dial: Dial) -> RemoteClient:
    """A client for a target that may list several replicas ("ipv4:h:p,h:p"): calls are
    spread round-robin over the ones that are up, and a replica that goes away is skipped."""
    return RemoteClient(stub_cls, addr, dial, options=ROUND_ROBIN)


class MatchmakingEndpoints:
    """Mixed into GatewayServicer; `self._matchmaker` is a matchmaker client (or None)."""

    _matchmaker: Any
    _match: Any
    _rules: dict[str, Any]
    _tokens: TokenAuthority
    _players: Players
    # GatewayServicer's: the caller's session, and its per-player ticket limit.
    _session: Callable[[Any], Session]
    _held_seat_token: Callable[[str, str, int | None, str], Awaitable[tuple[str, SeatClaim]]]
    _take_ticket_slot: Callable[[str], None]
    # Table shapes (game, sizes, options) the rules have accepted once.
    _tables_checked: dict[tuple[str, ...], bool]

    def _mm(self) -> Any:
        if self._matchmaker is None:
            raise Unavailable("no matchmaker is configured", "matchmaker.absent")
        return self._matchmaker

    async def FindMatch(self, request: pb.FindMatchRequest, context: Any) -> pb.FindMatchResponse:
        session = self._session(context)
        low = validate.count(request.players_min, "players_min", 1, validate.MAX_SEATS)
        high = validate.count(request.players_max or low, "players_max", 1, validate.MAX_SEATS)
        options = validate.options(request.options, "options")
        validate.command_id(request.command_id)
        await self._check_table(validate.game(request.game), low, high, options)
        self._take_ticket_slot(session.player_id)
        reply = await self._mm().FindMatch(
            mmpb.FindMatchRequest(
                game=request.game,
                player_id=session.player_id,
                players_min=low,
                players_max=high,
                options=options,
                command_id=request.command_id,
            )
        )
        return pb.FindMatchResponse(ticket_id=reply.ticket_id)

    async def _check_table(self, game: str, low: int, high: int, options: dict[str, str]) -> None:
        rules = self._rules.get(game)
        if rules is None:
            raise InvalidArgument(f"unknown game {game!r}; known: {', '.join(sorted(self._rules))}", "game")
        known = self._tables_checked
        key = (game, str(low), str(high), *sorted(f"{k}={v}" for k, v in options.items()))
        if key in known:
            return
        info = await rules.DescribeGame(rpb.DescribeGameRequest())
        if not info.min_seats <= low <= high <= info.max_seats:
            raise InvalidArgument(
                f"{game} seats {info.min_seats}-{info.max_seats} players; asked {low}-{high}", "players"
            )
        # The game's own setup validates the options (a bad course, an unknown deck).
        await rules.Setup(rpb.SetupRequest(game=game, config=options, seat_count=low))
        if len(known) < CHECKED_TABLES:
            known[key] = True  # a valid table stays valid: ask the rules once per shape

    async def WatchTicket(self, request: pb.WatchTicketRequest, context: Any) -> AsyncIterator[pb.WatchTicketResponse]:
        session = self._session(context)
        watch = mmpb.WatchTicketRequest(ticket_id=validate.ticket_id(request.ticket_id), player_id=session.player_id)
        for attempt in range(WATCH_REOPENS):
            try:
                async for update in self._mm().stream("WatchTicket", watch):
                    response = pb.WatchTicketResponse(
                        ticket_id=update.ticket_id, status=update.status, assignment=update.assignment
                    )
                    if update.HasField("assignment") and update.assignment.match_id:
                        await self._seat_token(session, response.assignment)
                    yield response
                return
            except Unavailable:
                if attempt == WATCH_REOPENS - 1:
                    raise

    async def _seat_token(self, session: Session, assignment: mmpb.Assignment) -> None:
        """Mint the assigned seat's token for the ticket's owner, bound to the seat's tenure."""
        assignment.token, _ = await self._held_seat_token(
            session.player_id, assignment.match_id, assignment.seat, "auth.seat_changed"
        )

    async def CancelTicket(self, request: pb.CancelTicketRequest, context: Any) -> pb.CancelTicketResponse:
        session = self._session(context)
        await self._mm().CancelTicket(
            mmpb.CancelTicketRequest(ticket_id=validate.ticket_id(request.ticket_id), player_id=session.player_id)
        )
        return pb.CancelTicketResponse()

    async def GetRating(self, request: pb.GetRatingRequest, context: Any) -> pb.GetRatingResponse:
        reply = await self._mm().GetRating(
            mmpb.GetRatingRequest(player_id=validate.player_id(request.player_id), game=validate.game(request.game))
        )
        await self._name_ratings([reply.rating])
        return pb.GetRatingResponse(rating=reply.rating)

    async def _name_ratings(self, ratings: list[mmpb.Rating]) -> None:
        """Put each rated player's display name beside their id."""
        names = await self._players.display_names([r.player_id for r in ratings])
        for rating, name in zip(ratings, names):
            rating.display_name = name

    async def ListLeaderboard(self, request: pb.ListLeaderboardRequest, context: Any) -> pb.ListLeaderboardResponse:
        reply = await self._mm().ListLeaderboard(
            mmpb.ListLeaderboardRequest(
                game=validate.game(request.game),
                limit=validate.limit(request.limit, high=1000),
                offset=validate.count(request.offset, "offset", 0, 1_000_000),
            )
        )
        await self._name_ratings([entry.rating for entry in reply.entries])
        return pb.ListLeaderboardResponse(entries=reply.entries)
