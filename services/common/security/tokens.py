"""The tokens the gateway issues: player sessions, their refresh tokens, seat tokens.

All are JWTs (HS256) signed with the active key of a `KeyRing` and naming it in
their `kid` header, so keys rotate without logging anyone out. Each carries
its kind (`typ`), the verified player id (`sub`) and an expiry; a token of one
kind is never accepted as another.

A seat token binds match, seat, player and the seat's *tenure*: the count of
joins of that seat when the player took it. The match service checks the pair
(player, tenure) against the seat's current holder on every call, so the token
dies when its player leaves or the seat changes hands, even before it expires.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import jwt

from services.common.errors import PermissionDenied, Unauthenticated
from services.common.lru import LRU
from services.common.security.keyring import KeyRing

ISSUER = "tabletop"
MAX_TOKEN_CHARS = 4096
# Tokens whose signature has been checked, kept with their claims: a player's session
# or seat token comes back on every call, and checking it again (header, key, HMAC,
# base64, JSON) cost a sixth of the gateway's time per matchmaking ticket. The ring
# never changes under an authority, so what verified once verifies again; expiry and
# kind are still checked on every use.
VERIFIED_KEPT = 16_384
# Seconds of clock difference forgiven on expiry, as when the signature is checked.
LEEWAY = 5
# A verified token's payload: JSON a client sent, read key by key with checks.
# Any: a JSON value, as PyJWT's decode types it; each claim is checked where it is read.
Claims = dict[str, Any]
SESSION, REFRESH, SEAT = "session", "refresh", "seat"


@dataclass(frozen=True)
class Session:
    """A verified player session."""

    player_id: str
    expires_at: int
    session_id: str = ""


@dataclass(frozen=True)
class SeatClaim:
    match_id: str
    seat: int
    player_id: str
    tenure: int
    expires_at: int = 0


@dataclass(frozen=True)
class Lifetimes:
    """Seconds each kind of token stays valid."""

    session: int = 3600
    refresh: int = 30 * 24 * 3600
    seat: int = 24 * 3600


Metadata = Sequence[tuple[str, str | bytes]] | None


class TokenAuthority:
    def __init__(self, ring: KeyRing, lifetimes: Lifetimes | None = None, clock: Callable[[], float] = time.time):
        self._ring = ring
        self._life = lifetimes or Lifetimes()
        self._clock = clock
        self._verified: LRU[str, Claims] = LRU(VERIFIED_KEPT, fifo=True)

    # ------------------------------------------------------------ issuing

    def issue_session(self, player_id: str, session_id: str = "") -> tuple[str, Session]:
        """A session token and what it says."""
        session_id = session_id or secrets.token_hex(8)
        expires = self._expiry(self._life.session)
        token = self._sign({"typ": SESSION, "sub": player_id, "sid": session_id, "exp": expires})
        return token, Session(player_id, expires, session_id)

    def issue_refresh(self, session: Session) -> str:
        return self._sign(
            {"typ": REFRESH, "sub": session.player_id, "sid": session.session_id,
             "exp": self._expiry(self._life.refresh)}
        )

    def issue_seat(self, match_id: str, seat: int, player_id: str, tenure: int) -> tuple[str, SeatClaim]:
        expires = self._expiry(self._life.seat)
        claims = {"typ": SEAT, "sub": player_id, "m": match_id, "s": seat, "h": tenure, "exp": expires}
        return self._sign(claims), SeatClaim(match_id, seat, player_id, tenure, expires)

    def _expiry(self, seconds: int) -> int:
        return int(self._clock()) + seconds

    def _sign(self, claims: dict[str, object]) -> str:
        body = {**claims, "iss": ISSUER, "iat": int(self._clock())}
        return jwt.encode(body, self._ring.keys[self._ring.active], algorithm="HS256",
                          headers={"kid": self._ring.active})

    # ------------------------------------------------------------ verifying

    def session(self, token: str) -> Session:
        claims = self._verify(token, SESSION)
        return Session(claims["sub"], claims["exp"], str(claims.get("sid", "")))

    def refresh(self, token: str) -> Session:
        """The session a refresh token continues."""
        claims = self._verify(token, REFRESH)
        return Session(claims["sub"], claims["exp"], str(claims.get("sid", "")))

    def seat(self, token: str) -> SeatClaim:
        claims = self._verify(token, SEAT)
        try:
            match_id, seat, tenure = str(claims["m"]), claims["s"], claims["h"]
        except KeyError:
            raise Unauthenticated("invalid seat token", "auth.bad_token") from None
        if not (isinstance(seat, int) and isinstance(tenure, int) and 0 <= seat < 64 and tenure >= 0):
            raise Unauthenticated("invalid seat token", "auth.bad_token")
        return SeatClaim(match_id, seat, claims["sub"], tenure, claims["exp"])

    def _verify(self, token: str, kind: str) -> Claims:
        claims = self._verified.get(token)
        if claims is None:
            claims = self._verified.put(token, self._checked(token))
        elif claims["exp"] <= time.time() - LEEWAY:  # the clock the signature check uses (PyJWT's)
            raise Unauthenticated("the token has expired", "auth.expired")
        if claims.get("typ") != kind or not isinstance(claims.get("sub"), str) or not claims["sub"]:
            raise Unauthenticated(f"this call needs a {kind} token", "auth.wrong_token_kind")
        return claims

    def _checked(self, token: str) -> Claims:
        """The claims of a token whose signature, issuer and expiry hold."""
        if not token or len(token) > MAX_TOKEN_CHARS:
            raise Unauthenticated("invalid token", "auth.bad_token")
        try:
            kid = jwt.get_unverified_header(token).get("kid", "")
            key = self._ring.key(str(kid))
            if key is None:
                raise Unauthenticated("the token's signing key is not known here", "auth.unknown_key")
            claims: Claims = jwt.decode(
                token, key, algorithms=["HS256"], issuer=ISSUER, leeway=LEEWAY,
                options={"require": ["exp", "iat", "sub", "typ"], "verify_iat": False},
            )
        except jwt.ExpiredSignatureError:
            raise Unauthenticated("the token has expired", "auth.expired") from None
        except jwt.InvalidTokenError:
            raise Unauthenticated("invalid token", "auth.bad_token") from None
        if not isinstance(claims.get("exp"), int):
            raise Unauthenticated("invalid token", "auth.bad_token")
        return claims

    # ------------------------------------------------------------ call metadata

    def session_from(self, metadata: Metadata) -> Session:
        """The caller's session, required."""
        token = bearer_token(metadata)
        if token is None:
            raise Unauthenticated("this call needs a session token (authenticate first)", "auth.missing")
        return self.session(token)

    def seat_for_match(self, metadata: Metadata, match_id: str) -> SeatClaim:
        """The caller's seat claim, required, and for this match."""
        claim = self.optional_seat_for_match(metadata, match_id)
        if claim is None:
            raise Unauthenticated("this call needs a seat token", "auth.missing")
        return claim

    def optional_seat_for_match(self, metadata: Metadata, match_id: str) -> SeatClaim | None:
        """The caller's seat claim for this match, None without a token (a spectator)."""
        token = bearer_token(metadata)
        if token is None:
            return None
        claim = self.seat(token)
        if claim.match_id != match_id:
            raise PermissionDenied("the token is for another match", "auth.other_match")
        return claim


def bearer_token(metadata: Metadata) -> str | None:
    """The token of a call's `authorization: Bearer` header, None if there is none."""
    for key, value in metadata or ():
        if key.lower() == "authorization":
            text = value.decode(errors="replace") if isinstance(value, bytes) else value
            scheme, _, token = text.partition(" ")
            if scheme.lower() != "bearer" or not token.strip():
                raise Unauthenticated("authorization must be 'Bearer <token>'", "auth.bad_header")
            return token.strip()
    return None
