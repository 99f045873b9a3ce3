"""Which other origins may call the edge from a browser, and with which headers."""

from __future__ import annotations

from starlette.middleware.cors import CORSMiddleware
from starlette.types import ASGIApp

# What Connect and gRPC-Web clients send (connect-es, grpc-web), plus the bearer token.
ALLOWED_HEADERS = [
    "authorization",
    "content-type",
    "connect-protocol-version",
    "connect-timeout-ms",
    "connect-content-encoding",
    "connect-accept-encoding",
    "grpc-timeout",
    "x-grpc-web",
    "x-user-agent",
]
# What a browser script may read of an answer: gRPC-Web puts its status in these.
EXPOSED_HEADERS = ["grpc-status", "grpc-message", "grpc-status-details-bin", "content-encoding"]


def origins(raw: str) -> list[str]:
    """TABLETOP_CORS_ORIGINS: comma-separated origins ('' allows none but the edge's own)."""
    return [origin.strip().rstrip("/") for origin in raw.split(",") if origin.strip()]


def wrap(app: ASGIApp, allowed: list[str]) -> ASGIApp:
    """`app` answering CORS preflights and marking answers for the `allowed` origins only.

    Same-origin requests need no CORS; an origin not listed gets no
    Access-Control-Allow-Origin, so its browser withholds the answer.
    """
    return CORSMiddleware(
        app,
        allow_origins=allowed,
        allow_methods=["GET", "POST"],
        allow_headers=ALLOWED_HEADERS,
        expose_headers=EXPOSED_HEADERS,
        max_age=3600,
    )
