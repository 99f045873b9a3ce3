"""The edge's ASGI application: the API's five services under their paths, health, files at /.

Health is `/healthz` (200 "SERVING" while the gateway behind answers SERVING,
503 otherwise); a path that is neither the API, health nor a file is a 404.
Every answer is counted and timed and carries the page's security headers
(gateway/edge/observe.py)."""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass, field
from typing import cast

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send
from tabletop.gateway.v1 import lobby_service_connect as lobby
from tabletop.gateway.v1 import matchmaking_service_connect as matchmaking
from tabletop.gateway.v1 import play_service_connect as play
from tabletop.gateway.v1 import sign_in_service_connect as sign_in
from tabletop.gateway.v1 import watch_service_connect as watch

from contract.gateway import PATHS, SERVICES, GatewayStub
from gateway.edge import codec, cors, observe, proxies, static
from gateway.edge.relay import Relay
from services.common import tracing

# Every path of the API starts so: /tabletop.gateway.v1.<Service>/<Method>.
API_PREFIX = "/tabletop.gateway.v1."
API_PATHS = frozenset(PATHS.values())
HEALTH_PATH = "/healthz"
# The gateway's own bound on a request (services/common/rpc/server.py): the same here.
MAX_REQUEST_BYTES = 1024 * 1024


@dataclass(frozen=True)
class EdgeConfig:
    cors_origins: list[str]
    web_dir: str = ""
    # Whose X-Forwarded-For names the browser (gateway/edge/proxies.py): nobody's by default.
    trusted_proxies: proxies.TrustedProxies = field(default_factory=proxies.TrustedProxies)
    # Other edges the page may call (its ?api=...): the CSP's connect-src beyond its own origin.
    connect_to: tuple[str, ...] = ()


def api(channel: grpc.aio.Channel) -> ASGIApp:
    """One application for the five services, each the generated Connect application of
    its service over a relay to the gateway; a path of no service is its own 404."""
    stub = GatewayStub(channel)
    relays = {service.name: Relay(stub, service) for service in SERVICES}
    codecs, limit = codec.codecs(), MAX_REQUEST_BYTES
    # A relay sets one method per rpc of the descriptor at run time, which mypy cannot
    # see: it meets the generated service protocol by construction.
    applications = [
        sign_in.SignInServiceASGIApplication(
            cast(sign_in.SignInService, relays["SignInService"]), codecs=codecs, read_max_bytes=limit
        ),
        lobby.LobbyServiceASGIApplication(
            cast(lobby.LobbyService, relays["LobbyService"]), codecs=codecs, read_max_bytes=limit
        ),
        play.PlayServiceASGIApplication(
            cast(play.PlayService, relays["PlayService"]), codecs=codecs, read_max_bytes=limit
        ),
        watch.WatchServiceASGIApplication(
            cast(watch.WatchService, relays["WatchService"]), codecs=codecs, read_max_bytes=limit
        ),
        matchmaking.MatchmakingServiceASGIApplication(
            cast(matchmaking.MatchmakingService, relays["MatchmakingService"]), codecs=codecs, read_max_bytes=limit
        ),
    ]
    served: dict[str, ASGIApp] = {
        # connectrpc types its application by its own scope types, Starlette's ASGIApp by its own.
        service.full_name: application  # type: ignore[misc]
        for service, application in zip(SERVICES, applications, strict=True)
    }

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        service = scope.get("path", "")[1:].partition("/")[0]
        found = served.get(service)
        if found is None:
            await PlainTextResponse("no such service", status_code=404)(scope, receive, send)
            return
        await found(scope, receive, send)

    return app


def health(channel: grpc.aio.Channel) -> ASGIApp:
    """200 while the gateway behind the edge answers SERVING (load balancers, the launcher)."""
    stub = health_pb2_grpc.HealthStub(channel)

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        try:
            reply = await stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=2.0)
            serving = reply.status == health_pb2.HealthCheckResponse.SERVING
        except grpc.aio.AioRpcError:
            serving = False
        answer = PlainTextResponse("SERVING" if serving else "NOT_SERVING", status_code=200 if serving else 503)
        await answer(scope, receive, send)

    return app


def build(channel: grpc.aio.Channel, config: EdgeConfig) -> ASGIApp:
    api_app, health_app, files = api(channel), health(channel), static.files(config.web_dir)

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        path = scope.get("path", "")
        if path.startswith(API_PREFIX) and _native_grpc(scope):
            await _refuse_grpc(send)
        elif path.startswith(API_PREFIX):
            await api_app(scope, receive, send)
        elif path == HEALTH_PATH:
            await health_app(scope, receive, send)
        else:
            await files(scope, receive, send)

    served = cors.wrap(proxies.wrap(app, config.trusted_proxies), config.cors_origins)
    return tracing.asgi(observe.wrap(served, route, observe.security_headers(config.connect_to)))


def route(path: str) -> str:
    """The metrics' route of a path: a closed set (observe.py)."""
    return observe.route_of(path, API_PREFIX, API_PATHS, HEALTH_PATH)


GRPC_REFUSED = "this is the HTTP edge (Connect, gRPC-Web): send gRPC to the gateway's port"


def _native_grpc(scope: Scope) -> bool:
    """gRPC proper (not gRPC-Web): it needs HTTP/2 trailers, which this HTTP/1.1 server has not."""
    content_type = dict(scope.get("headers", ())).get(b"content-type", b"")
    return content_type.startswith(b"application/grpc") and not content_type.startswith(b"application/grpc-web")


async def _refuse_grpc(send: Send) -> None:
    """A trailers-only gRPC answer: the status in the headers, UNIMPLEMENTED, no body."""
    headers = [
        (b"content-type", b"application/grpc"),
        (b"grpc-status", b"12"),
        (b"grpc-message", urllib.parse.quote(GRPC_REFUSED).encode()),
    ]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _lifespan(receive: Receive, send: Send) -> None:
    """Nothing to start or stop: the channel is the shell's (__main__)."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return
