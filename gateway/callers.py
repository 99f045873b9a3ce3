"""Who is calling: the session or the seat a call's bearer token proves.

Every gateway endpoint starts here. A seat token binds a player to a seat of
one match in one tenure; a session token only to a player.
"""

from __future__ import annotations

from typing import Protocol

from tabletop.match.v1 import match_service_pb2 as mpb

from gateway import validate
from services.common.errors import PermissionDenied, Unauthenticated
from services.common.security.tokens import Metadata, SeatClaim, Session, TokenAuthority, bearer_token


class CallContext(Protocol):
    """What the gateway reads of a gRPC call's context (grpc itself ships no types)."""

    def invocation_metadata(self) -> Metadata: ...


def metadata(context: CallContext | None) -> Metadata:
    return context.invocation_metadata() if context is not None else ()


def client_command(command_id: str) -> str:
    """A client's command id in the clients' namespace ("" stays "": no idempotency asked).

    Client command ids live in their own namespace ("c:" + id), so no client can
    reuse an id the platform itself uses (the matchmaker's joins and starts).
    """
    return "c:" + validate.command_id(command_id) if command_id else ""


def holder(claim: SeatClaim) -> mpb.SeatHolder:
    return mpb.SeatHolder(player_id=claim.player_id, tenure=claim.tenure)


def still_holding(summary: mpb.MatchSummary, claim: SeatClaim | None) -> int | None:
    """The claim's seat if its player still holds it in the claimed tenure; PermissionDenied if not.
    For reads that go to the log directly rather than through the match service."""
    if claim is None:
        return None
    seats = {s.seat: s for s in summary.seats}
    held = seats.get(claim.seat)
    if held is None or held.player_id != claim.player_id or held.tenure != claim.tenure:
        raise PermissionDenied(f"this seat token no longer holds seat {claim.seat}", "auth.seat_changed")
    return claim.seat


class Callers:
    """Reads the caller's claims from a call's metadata."""

    def __init__(self, tokens: TokenAuthority) -> None:
        self._tokens = tokens

    def session(self, context: CallContext | None) -> Session:
        """The caller's session, required."""
        return self._tokens.session_from(metadata(context))

    def seat(self, context: CallContext | None, match_id: str) -> SeatClaim:
        """The caller's seat claim for this match, required."""
        return self._tokens.seat_for_match(metadata(context), validate.match_id(match_id))

    def viewer(self, context: CallContext | None, match_id: str) -> SeatClaim | None:
        """The caller's seat claim in this match, None for a spectator (as in `any_seat`)."""
        validate.match_id(match_id)
        claim = self.any_seat(context)
        if claim is not None and claim.match_id != match_id:
            raise PermissionDenied("the token is for another match", "auth.other_match")
        return claim

    def any_seat(self, context: CallContext | None) -> SeatClaim | None:
        """The caller's seat claim in whatever match, None for a spectator: no token, or a
        session token (a signed-in player who watches a match they do not play)."""
        token = bearer_token(metadata(context))
        if token is None:
            return None
        try:
            return self._tokens.seat(token)
        except Unauthenticated as error:
            if error.reason != "auth.wrong_token_kind":
                raise
            self._tokens.session(token)
            return None
