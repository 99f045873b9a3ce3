"""Who a player is: built-in device and custom-id accounts, and external identities.

Every way of signing in ends at one opaque, stable player id (`p-` and 20 hex
digits) that ratings, seats and tickets are keyed by. The link from an
identity to its player id is kept in Redis under a hash of the identity, so
device and custom ids, which are credentials, are never stored or shown as
they are. An external identity provider's JWT is verified against its JWKS
URL or a configured public key (PyJWT), and its (issuer, subject) is linked
the same way, so an operator's existing accounts sign in unchanged.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias

import jwt
import redis.asyncio as aioredis

from services.common import players
from services.common.errors import FailedPrecondition, InvalidArgument, Unauthenticated, Unavailable
from services.common.redis.commands import commands

if TYPE_CHECKING:
    import jwt.types
    from jwt.algorithms import AllowedPublicKeys

MIN_SECRET_ID, MAX_SECRET_ID = 16, 128
MAX_EXTERNAL_TOKEN = 8192
KEY_PREFIX = "tabletop:identity:"
# A provider's key: the configured PEM, or one fetched from its JWKS.
PublicKey: TypeAlias = "str | AllowedPublicKeys"


@dataclass(frozen=True)
class SignedIn:
    player_id: str
    created: bool


def new_player_id() -> str:
    return "p-" + secrets.token_hex(10)


def _key(kind: str, identity: str) -> str:
    return KEY_PREFIX + kind + ":" + hashlib.sha256(identity.encode()).hexdigest()


class Players:
    """Links identities to player ids, creating a player on first sign-in."""

    def __init__(
        self, redis: aioredis.Redis, external: ExternalIdentities | None = None, custom_enabled: bool = True
    ) -> None:
        self._redis = commands(redis)
        self._external = external
        self._custom_enabled = custom_enabled

    async def device(self, device_id: str) -> SignedIn:
        return await self._link(players.GUEST, _secret_id(device_id, "device_id"))

    async def custom(self, custom_id: str) -> SignedIn:
        if not self._custom_enabled:
            raise FailedPrecondition("custom-id sign-in is turned off on this server", "auth.custom_disabled")
        return await self._link(players.CUSTOM, _secret_id(custom_id, "custom_id"))

    async def external(self, token: str) -> SignedIn:
        if self._external is None:
            raise FailedPrecondition("no external identity provider is configured", "auth.external_disabled")
        issuer, subject = await self._external.verify(token)
        return await self._link(players.EXTERNAL, f"{issuer}\x1f{subject}")

    async def name(self, player_id: str, display_name: str) -> None:
        """Keep the name others see for `player_id` (checked here: 1-32 printable characters)."""
        if not players.valid_display_name(display_name):
            raise InvalidArgument(
                f"display_name is 1-{players.MAX_DISPLAY_NAME} printable characters, no outer spaces",
                "display_name",
            )
        await players.set_display_name(self._redis, player_id, display_name)

    async def display_name(self, player_id: str) -> str:
        return (await players.display_names(self._redis, [player_id]))[0]

    async def display_names(self, player_ids: list[str]) -> list[str]:
        return await players.display_names(self._redis, player_ids)

    async def _link(self, kind: str, identity: str) -> SignedIn:
        signed = await self._player_of(kind, identity)
        # The ratings keep guests off the leaderboard (services/matchmaker/ratings.py). Written
        # at every sign-in, so players made before kinds were recorded get theirs too.
        await players.set_kind(self._redis, signed.player_id, kind)
        return signed

    async def _player_of(self, kind: str, identity: str) -> SignedIn:
        key = _key(kind, identity)
        fresh = new_player_id()
        # SET NX: two first sign-ins racing agree on one player id.
        if await self._redis.set(key, fresh, nx=True):
            return SignedIn(fresh, True)
        existing = await self._redis.get(key)
        return SignedIn(existing.decode() if isinstance(existing, bytes) else str(existing), False)


def _secret_id(value: str, field: str) -> str:
    if not MIN_SECRET_ID <= len(value) <= MAX_SECRET_ID or not value.isprintable():
        raise InvalidArgument(f"{field} must be {MIN_SECRET_ID}-{MAX_SECRET_ID} printable characters", field)
    return value


@dataclass(frozen=True)
class ExternalConfig:
    """Where an identity provider's keys come from, and what its tokens must say."""

    jwks_url: str = ""
    public_key_pem: str = ""
    issuer: str = ""
    audience: str = ""
    algorithms: tuple[str, ...] = ("RS256", "ES256", "EdDSA")


class ExternalIdentities:
    """Verifies an identity provider's signed JWTs: signature, expiry, issuer, audience."""

    def __init__(self, config: ExternalConfig) -> None:
        if not (config.jwks_url or config.public_key_pem):
            raise ValueError("an external identity provider needs a JWKS URL or a public key")
        self._config = config
        self._jwks = jwt.PyJWKClient(config.jwks_url, cache_keys=True, lifespan=600) if config.jwks_url else None

    async def verify(self, token: str) -> tuple[str, str]:
        """(issuer, subject) of a valid token; Unauthenticated otherwise."""
        if not token or len(token) > MAX_EXTERNAL_TOKEN:
            raise InvalidArgument(f"external_token is 1-{MAX_EXTERNAL_TOKEN} characters", "external_token")
        key = await self._key_for(token)
        options: jwt.types.Options = {"require": ["exp", "sub"], "verify_aud": bool(self._config.audience)}
        try:
            claims = jwt.decode(
                token, key, algorithms=list(self._config.algorithms), audience=self._config.audience or None,
                issuer=self._config.issuer or None, leeway=30, options=options,
            )
        except jwt.ExpiredSignatureError:
            raise Unauthenticated("the external token has expired", "auth.external_expired") from None
        except jwt.InvalidTokenError:
            raise Unauthenticated("the external token is not valid here", "auth.external_invalid") from None
        subject = claims.get("sub")
        if not isinstance(subject, str) or not subject or len(subject) > 256:
            raise Unauthenticated("the external token names no subject", "auth.external_invalid")
        return str(claims.get("iss", "")), subject

    async def _key_for(self, token: str) -> PublicKey:
        if self._jwks is None:
            return self._config.public_key_pem
        try:
            # PyJWKClient fetches with blocking I/O (and caches): keep it off the event loop.
            signing = await asyncio.to_thread(self._jwks.get_signing_key_from_jwt, token)
        except jwt.PyJWKClientConnectionError:
            raise Unavailable("the identity provider's keys cannot be fetched now", "auth.jwks_unavailable") from None
        except (jwt.PyJWKClientError, jwt.InvalidTokenError):
            raise Unauthenticated("the external token is not valid here", "auth.external_invalid") from None
        return signing.key
