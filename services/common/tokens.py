"""Seat tokens: an HMAC-signed (match, seat, player) triple.

The gateway (and the matchmaker, which seats players) share the secret; the
seat of every call is read from the token, never from a request body.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from collections.abc import Sequence
from dataclasses import dataclass

from services.common.errors import PermissionDenied, Unauthenticated


@dataclass(frozen=True)
class SeatClaim:
    match_id: str
    seat: int
    player_id: str


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class TokenAuthority:
    def __init__(self, secret: str) -> None:
        self._key = hashlib.sha256(("tabletop-seat:" + secret).encode()).digest()

    def issue(self, claim: SeatClaim) -> str:
        payload = json.dumps({"m": claim.match_id, "s": claim.seat, "p": claim.player_id}, separators=(",", ":"))
        body = _b64(payload.encode())
        return f"{body}.{self._sign(body)}"

    def _sign(self, body: str) -> str:
        return _b64(hmac.new(self._key, body.encode(), hashlib.sha256).digest())

    def verify(self, token: str) -> SeatClaim:
        """The claim in `token`; Unauthenticated if it is malformed or forged."""
        body, _, signature = token.partition(".")
        if not body or not hmac.compare_digest(signature, self._sign(body)):
            raise Unauthenticated("invalid seat token", "auth.bad_token")
        try:
            data = json.loads(_unb64(body))
            return SeatClaim(str(data["m"]), int(data["s"]), str(data["p"]))
        except (ValueError, KeyError, TypeError):
            raise Unauthenticated("invalid seat token", "auth.bad_token") from None

    def from_metadata(self, metadata: Sequence[tuple[str, str | bytes]] | None) -> SeatClaim | None:
        """The claim of a call's `authorization: Bearer` header, None if there is none."""
        for key, value in metadata or ():
            if key.lower() == "authorization":
                text = value.decode() if isinstance(value, bytes) else value
                scheme, _, token = text.partition(" ")
                if scheme.lower() != "bearer" or not token:
                    raise Unauthenticated("authorization must be 'Bearer <token>'", "auth.bad_header")
                return self.verify(token.strip())
        return None

    def for_match(self, metadata: Sequence[tuple[str, str | bytes]] | None, match_id: str) -> SeatClaim:
        """The caller's claim, required, and for this match."""
        claim = self.optional_for_match(metadata, match_id)
        if claim is None:
            raise Unauthenticated("this call needs a seat token", "auth.missing")
        return claim

    def optional_for_match(self, metadata: Sequence[tuple[str, str | bytes]] | None, match_id: str) -> SeatClaim | None:
        """The caller's claim for this match, None without a token (a spectator)."""
        claim = self.from_metadata(metadata)
        if claim is not None and claim.match_id != match_id:
            raise PermissionDenied("the token is for another match", "auth.other_match")
        return claim
