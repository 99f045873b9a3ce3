"""Matchmaking endpoints: checked here, forwarded to the matchmaker service.

The gateway knows the games (their rules' declarations), so it refuses an
unknown game, a table size the game does not allow, or options its schema
rejects, before a ticket exists. A watch survives the loss of the matchmaker
replica serving it: the stream is reopened on another replica (the ticket lives
in Redis, not in the replica).
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import AsyncGenerator, AsyncIterator
from typing import TypedDict, TypeVar

from tabletop.gateway.v1 import gateway_pb2 as pb
from tabletop.gateway.v1 import matchmaking_service_pb2_grpc
from tabletop.matchmaker.v1 import matchmaker_service_pb2 as mmpb

from gateway import validate
from gateway.callers import CallContext, Callers
from gateway.identity import Players
from gateway.limits import RateLimiter
from gateway.signin import SeatTokens
from gateway.tables import GameCatalog
from services.common.errors import Unavailable
from services.common.rpc.ports import MatchmakerPort

WATCH_REOPENS = 5
# A ticket update from the matchmaker, from either stream that carries them.
Update = TypeVar("Update", mmpb.WatchTicketResponse, mmpb.QueueResponse)


class _Ticket(TypedDict):
    """A matchmaker request's fields but its command id, as the gateway checked them."""

    game: str
    player_id: str
    players_min: int
    players_max: int
    options: dict[str, str]


class Matchmaking(matchmaking_service_pb2_grpc.MatchmakingServiceServicer):
    """FindMatch, WatchTicket, Queue (the two in one stream), CancelTicket, GetRating and ListLeaderboard."""

    def __init__(
        self,
        matchmaker: MatchmakerPort | None,
        games: GameCatalog,
        callers: Callers,
        seats: SeatTokens,
        players: Players,
        ticket_limiter: RateLimiter,
    ) -> None:
        self._matchmaker = matchmaker
        self._games = games
        self._callers = callers
        self._seats = seats
        self._players = players
        self._ticket_limiter = ticket_limiter

    def _mm(self) -> MatchmakerPort:
        if self._matchmaker is None:
            raise Unavailable("no matchmaker is configured", "matchmaker.absent")
        return self._matchmaker

    async def FindMatch(self, request: pb.FindMatchRequest, context: CallContext) -> pb.FindMatchResponse:
        session = self._callers.session(context)
        reply = await self._find(session.player_id, request)
        return pb.FindMatchResponse(ticket_id=reply.ticket_id, already_queued=reply.already_queued)

    async def WatchTicket(
        self, request: pb.WatchTicketRequest, context: CallContext
    ) -> AsyncGenerator[pb.WatchTicketResponse, None]:
        session = self._callers.session(context)
        ticket_id = validate.ticket_id(request.ticket_id)
        async with contextlib.aclosing(self._watch(session.player_id, ticket_id)) as updates:
            async for update in updates:
                yield pb.WatchTicketResponse(ticket_id=update.ticket_id, status=update.status,
                                             assignment=update.assignment)

    async def Queue(self, request: pb.QueueRequest, context: CallContext) -> AsyncGenerator[pb.QueueResponse, None]:
        """FindMatch, then WatchTicket on its ticket, over one stream: a client's one call to
        queue (the ticket's watcher from its first moment). The matchmaker does both in one
        call too; if its replica goes away before the ticket is known, the same command id
        (the gateway's own when the client sent none) reopens the same ticket; after, the
        ticket is watched by its id."""
        session = self._callers.session(context)
        fields = await self._checked(session.player_id, request)
        queue = mmpb.QueueRequest(**fields, command_id=request.command_id or uuid.uuid4().hex)
        ticket_id, before = "", False
        for attempt in range(WATCH_REOPENS):
            try:
                async with contextlib.aclosing(self._minted(session.player_id, self._mm().Queue(queue))) as stream:
                    async for queued in stream:
                        ticket_id, before = queued.ticket_id, queued.already_queued
                        yield pb.QueueResponse(ticket_id=ticket_id, already_queued=before, status=queued.status,
                                               assignment=queued.assignment)
                return
            except Unavailable:
                if ticket_id:
                    break
                if attempt == WATCH_REOPENS - 1:
                    raise
        async with contextlib.aclosing(self._watch(session.player_id, ticket_id)) as reopened:
            async for watched in reopened:
                if watched.status != mmpb.TICKET_STATUS_WAITING:  # said already: a new watch starts with it
                    yield pb.QueueResponse(ticket_id=ticket_id, already_queued=before, status=watched.status,
                                           assignment=watched.assignment)

    async def _find(self, player_id: str, request: pb.FindMatchRequest) -> mmpb.FindMatchResponse:
        fields = await self._checked(player_id, request)
        return await self._mm().FindMatch(mmpb.FindMatchRequest(**fields, command_id=request.command_id))

    async def _checked(self, player_id: str, request: pb.FindMatchRequest | pb.QueueRequest) -> _Ticket:
        """The matchmaker request's fields for `request` but its command id, checked here first
        (the game, its table sizes and options, the player's ticket rate) so that nothing is
        queued for a request refused."""
        low = validate.count(request.players_min, "players_min", 1, validate.MAX_SEATS)
        high = validate.count(request.players_max or low, "players_max", 1, validate.MAX_SEATS)
        options = validate.options(request.options, "options")
        validate.command_id(request.command_id)
        await self._games.check_table(validate.game(request.game), low, high, options, "options")
        self._ticket_limiter.take(f"ticket/{player_id}", "tickets")
        return {"game": request.game, "player_id": player_id, "players_min": low, "players_max": high,
                "options": options}

    async def _watch(self, player_id: str, ticket_id: str) -> AsyncGenerator[mmpb.WatchTicketResponse, None]:
        """The ticket's updates, its assignment carrying the seat's token for `player_id`; the
        watch is reopened (on another replica) when the one serving it goes away."""
        watch = mmpb.WatchTicketRequest(ticket_id=ticket_id, player_id=player_id)
        for attempt in range(WATCH_REOPENS):
            try:
                async with contextlib.aclosing(self._minted(player_id, self._mm().WatchTicket(watch))) as updates:
                    async for update in updates:
                        yield update
                return
            except Unavailable:
                if attempt == WATCH_REOPENS - 1:
                    raise

    async def _minted(self, player_id: str, updates: AsyncIterator[Update]) -> AsyncGenerator[Update, None]:
        """The matchmaker's ticket `updates`, an assignment carrying the seat's token for `player_id`.
        Closed, it closes `updates`: the matchmaker's stream ends with the client's, which is what
        withdraws a waiting ticket at once (services/matchmaker/app.py)."""
        async with contextlib.aclosing(updates) as stream:  # type: ignore[type-var]
            async for update in stream:
                if update.HasField("assignment") and update.assignment.match_id:
                    await self._seat_token(player_id, update.assignment)
                yield update

    async def _seat_token(self, player_id: str, assignment: mmpb.Assignment) -> None:
        """Mint the assigned seat's token for the ticket's owner, bound to the seat's tenure: the
        one the matchmaker formed the match with when it says (no read: a token for a seat
        that changed hands since is refused at its first use), else the match's now."""
        if assignment.tenure > 0:
            assignment.token, _ = self._seats.issue(player_id, assignment.match_id, assignment.seat,
                                                    assignment.tenure)
            return
        assignment.token, _ = await self._seats.held(
            player_id, assignment.match_id, assignment.seat, "auth.seat_changed"
        )

    async def CancelTicket(self, request: pb.CancelTicketRequest, context: CallContext) -> pb.CancelTicketResponse:
        session = self._callers.session(context)
        await self._mm().CancelTicket(
            mmpb.CancelTicketRequest(ticket_id=validate.ticket_id(request.ticket_id), player_id=session.player_id)
        )
        return pb.CancelTicketResponse()

    async def GetRating(self, request: pb.GetRatingRequest, context: CallContext) -> pb.GetRatingResponse:
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

    async def ListLeaderboard(
        self, request: pb.ListLeaderboardRequest, context: CallContext
    ) -> pb.ListLeaderboardResponse:
        reply = await self._mm().ListLeaderboard(
            mmpb.ListLeaderboardRequest(
                game=validate.game(request.game),
                limit=validate.limit(request.limit, high=1000),
                offset=validate.count(request.offset, "offset", 0, 1_000_000),
            )
        )
        await self._name_ratings([entry.rating for entry in reply.entries])
        return pb.ListLeaderboardResponse(entries=reply.entries)
