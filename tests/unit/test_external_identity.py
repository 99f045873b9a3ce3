"""An external identity provider's tokens: a configured public key, or its JWKS URL."""

from __future__ import annotations

import http.server
import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from gateway.identity import ExternalConfig, ExternalIdentities
from services.common.errors import Unauthenticated

ISSUER, AUDIENCE = "https://id.example.test", "tabletop"


@pytest.fixture(scope="module")
def provider_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def _pem(key: rsa.RSAPrivateKey) -> str:
    return key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    ).decode()


def _token(key: rsa.RSAPrivateKey, **overrides: Any) -> str:
    claims = {"sub": "user-42", "iss": ISSUER, "aud": AUDIENCE, "exp": int(time.time()) + 300, **overrides}
    return jwt.encode(claims, key, algorithm="RS256", headers={"kid": "provider-1"})


@pytest.fixture(scope="module")
def jwks_url(provider_key: rsa.RSAPrivateKey) -> Iterator[str]:
    """The provider's JWKS document served on a free local port."""
    jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(provider_key.public_key()))
    body = json.dumps({"keys": [{**jwk, "kid": "provider-1", "use": "sig", "alg": "RS256"}]}).encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/jwks.json"
    server.shutdown()


@pytest.mark.parametrize("source", ["pem", "jwks"])
async def test_a_valid_token_names_its_issuer_and_subject(source: str, provider_key: Any, jwks_url: str) -> None:
    config = ExternalConfig(jwks_url=jwks_url if source == "jwks" else "",
                            public_key_pem=_pem(provider_key) if source == "pem" else "",
                            issuer=ISSUER, audience=AUDIENCE)
    assert await ExternalIdentities(config).verify(_token(provider_key)) == (ISSUER, "user-42")


@pytest.mark.parametrize("claims", [
    {"exp": int(time.time()) - 3600},
    {"iss": "https://someone-else.test"},
    {"aud": "another-app"},
    {"sub": ""},
])
async def test_tokens_of_another_issuer_audience_or_expired_are_refused(claims: dict[str, Any], provider_key: Any,
                                                                         jwks_url: str) -> None:
    identities = ExternalIdentities(ExternalConfig(jwks_url=jwks_url, issuer=ISSUER, audience=AUDIENCE))
    with pytest.raises(Unauthenticated):
        await identities.verify(_token(provider_key, **claims))


async def test_a_token_signed_by_another_key_or_as_hs256_is_refused(provider_key: Any) -> None:
    identities = ExternalIdentities(ExternalConfig(public_key_pem=_pem(provider_key), issuer=ISSUER,
                                                   audience=AUDIENCE))
    stranger = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    with pytest.raises(Unauthenticated):
        await identities.verify(_token(stranger))
    # The public key used as an HMAC secret: the classic algorithm confusion.
    confused = jwt.encode({"sub": "x", "iss": ISSUER, "aud": AUDIENCE, "exp": int(time.time()) + 60},
                          b"not the provider, but long enough" * 2, algorithm="HS256")
    with pytest.raises(Unauthenticated):
        await identities.verify(confused)
