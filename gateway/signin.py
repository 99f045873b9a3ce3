"""Sign-in endpoints: sessions for players, and tokens for the seats they hold."""

from __future__ import annotations

from tabletop.gateway.v1 import gateway_pb2 as pb
from tabletop.gateway.v1 import sign_in_service_pb2_grpc
from tabletop.match.v1 import match_service_pb2 as mpb

from gateway import validate
from gateway.callers import CallContext, Callers
from gateway.identity import Players
from services.common import logging as tlog
from services.common.errors import InvalidArgument, PermissionDenied
from services.common.rpc.ports import MatchPort
from services.common.security.tokens import SeatClaim, TokenAuthority

log = tlog.get("gateway")


class SeatTokens:
    """Mints seat tokens for seats a player holds now, as the match service says."""

    def __init__(self, match: MatchPort, tokens: TokenAuthority) -> None:
        self._match = match
        self._tokens = tokens

    def issue(self, player_id: str, match_id: str, seat: int, tenure: int) -> tuple[str, SeatClaim]:
        """A token for a seat whose holder and tenure the caller knows (a formed match's)."""
        return self._tokens.issue_seat(match_id, seat, player_id, tenure)

    async def held(self, player_id: str, match_id: str, seat: int | None, reason: str) -> tuple[str, SeatClaim]:
        """A fresh token for the seat (or the lowest seat) `player_id` holds in the match now,
        bound to its current tenure; PermissionDenied (`reason`) if they hold none."""
        summary = (await self._match.GetMatch(mpb.GetMatchRequest(match_id=match_id))).match
        held = [s for s in summary.seats if s.player_id == player_id and seat in (None, s.seat)]
        if not held:
            raise PermissionDenied("you hold no such seat in this match", reason)
        return self._tokens.issue_seat(match_id, held[0].seat, player_id, held[0].tenure)


class SignIn(sign_in_service_pb2_grpc.SignInServiceServicer):
    """Authenticate, RefreshSession and GetSeatToken."""

    def __init__(self, players: Players, tokens: TokenAuthority, callers: Callers, seats: SeatTokens) -> None:
        self._players = players
        self._tokens = tokens
        self._callers = callers
        self._seats = seats

    async def Authenticate(self, request: pb.AuthenticateRequest, context: CallContext) -> pb.AuthenticateResponse:
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

    async def RefreshSession(
        self, request: pb.RefreshSessionRequest, context: CallContext
    ) -> pb.RefreshSessionResponse:
        previous = self._tokens.refresh(request.refresh_token)
        token, session = self._tokens.issue_session(previous.player_id, previous.session_id)
        return pb.RefreshSessionResponse(
            player_id=session.player_id,
            session_token=token,
            session_expires_at=session.expires_at,
            refresh_token=self._tokens.issue_refresh(session),
        )

    async def GetSeatToken(self, request: pb.GetSeatTokenRequest, context: CallContext) -> pb.GetSeatTokenResponse:
        session = self._callers.session(context)
        validate.match_id(request.match_id)
        wanted = validate.seat(request.seat) if request.HasField("seat") else None
        token, claim = await self._seats.held(session.player_id, request.match_id, wanted, "auth.not_seated")
        return pb.GetSeatTokenResponse(seat=claim.seat, token=token, expires_at=claim.expires_at)
