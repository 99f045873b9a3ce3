"""The edge process: Connect and gRPC-Web over HTTP/1.1 (uvicorn), relayed to the gateway.

Environment: TABLETOP_HOST and TABLETOP_PORT (default 8080) to listen on,
TABLETOP_GATEWAY_ADDR (the gateway's gRPC port), TABLETOP_CORS_ORIGINS,
TABLETOP_EDGE_TRUSTED_PROXIES (reverse proxies whose X-Forwarded-For names the
browser: addresses or CIDRs, none by default; gateway/edge/proxies.py),
TABLETOP_WEB_DIR, TABLETOP_METRICS_PORT, TABLETOP_READY_FILE;
TABLETOP_EDGE_HEADER_TIMEOUT_S (default 10: a connection whose request headers
are not in by then is closed; 0: none), TABLETOP_EDGE_CONNECTIONS_PER_ADDRESS
(default 32 open connections per client address, trusted proxies exempt; 0: no
cap), TABLETOP_EDGE_CONNECT_SRC (other edges the page may call, for its ?api=).
"""

from __future__ import annotations

import os
import pathlib
import socket
from collections.abc import Mapping

import grpc
import uvicorn

from gateway.edge import cors, guard, logs, observe, proxies
from gateway.edge.app import EdgeConfig, build
from services.common import config, lifeline, metrics
from services.common import logging as tlog

DEFAULT_PORT = 8080
# Open watch streams would hold a stop forever: after this, they are cut (clients resume by version).
GRACEFUL_SECONDS = 5


def listening_socket(host: str, port: int) -> socket.socket:
    """Bound and listening before the server runs: connections wait in the backlog, so the
    port can be announced (ready file) before the first one is accepted."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(1024)
    return sock


def connection_guard(env: Mapping[str, str], trusted: proxies.TrustedProxies) -> guard.ConnectionGuard:
    """The header deadline and per-address cap the environment sets (ValueError if malformed)."""
    timeout = float(env.get("TABLETOP_EDGE_HEADER_TIMEOUT_S", "") or guard.DEFAULT_HEADER_TIMEOUT)
    cap = int(env.get("TABLETOP_EDGE_CONNECTIONS_PER_ADDRESS", "") or guard.DEFAULT_PER_ADDRESS)
    if timeout < 0 or cap < 0:
        raise ValueError("TABLETOP_EDGE_HEADER_TIMEOUT_S and TABLETOP_EDGE_CONNECTIONS_PER_ADDRESS must be >= 0")
    return guard.ConnectionGuard(per_address=cap, header_timeout=timeout, exempt=trusted)


def announce(ready_file: str, port: int, metrics_port: int) -> None:
    if ready_file:
        ready = pathlib.Path(ready_file)
        ready.with_suffix(".tmp").write_text(f"{port} {metrics_port}\n")
        ready.with_suffix(".tmp").replace(ready)


async def main() -> None:
    settings = config.load()
    lifeline.hold()
    tlog.configure("edge", settings.log_level)
    port = int(os.environ.get("TABLETOP_PORT", str(DEFAULT_PORT)))
    try:
        trusted = proxies.TrustedProxies.parse(os.environ.get("TABLETOP_EDGE_TRUSTED_PROXIES", ""))
        connections = connection_guard(os.environ, trusted)
    except (proxies.BadProxyList, ValueError) as bad:
        raise SystemExit(f"tabletop: refusing to start: {bad}") from None
    edge = EdgeConfig(
        cors.origins(os.environ.get("TABLETOP_CORS_ORIGINS", "")), os.environ.get("TABLETOP_WEB_DIR", ""), trusted,
        tuple(cors.origins(os.environ.get("TABLETOP_EDGE_CONNECT_SRC", ""))),
    )
    # The gateway's public port is plaintext on purpose (tokens identify players).
    async with grpc.aio.insecure_channel(settings.gateway_addr) as channel:
        server_config = uvicorn.Config(
            build(channel, edge),
            lifespan="on",
            log_config=None,
            access_log=True,
            # h11 with a header deadline and a per-address cap (guard.py).
            http=guard.protocol(connections),
            timeout_graceful_shutdown=GRACEFUL_SECONDS,
            # uvicorn believes X-Forwarded-For from loopback by default: off, the
            # edge's own rule decides (proxies.py), for the proxies configured only.
            proxy_headers=False,
            forwarded_allow_ips="",
        )
        logs.route_uvicorn()  # after the Config, which sets up uvicorn's loggers
        server = uvicorn.Server(server_config)
        sock = listening_socket(settings.host, port)
        announce(settings.ready_file, sock.getsockname()[1], metrics.expose(settings.metrics_port, [observe.EDGE]))
        log = tlog.get("edge")
        log.info(
            "serving", port=sock.getsockname()[1], gateway=settings.gateway_addr, cors=edge.cors_origins,
            trusted_proxies=[str(network) for network in trusted.networks],
        )
        await server.serve(sockets=[sock])

