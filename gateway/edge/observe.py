"""Every HTTP answer of the edge: counted and timed (Prometheus), and sent with the
headers that keep a browser from framing, sniffing or scripting the page from elsewhere.

Routes are a closed set, so a scan of random paths cannot grow the metrics:
each API method by name, /healthz, the files at / ("static", whatever the
file), anything else under the API prefix ("api_unknown").
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

from prometheus_client import CollectorRegistry, Counter, Histogram
from starlette.types import ASGIApp, Message, Receive, Scope, Send

# The edge's own families (services/common/metrics.py exposes a process's registries).
EDGE = CollectorRegistry(auto_describe=True)
HTTP_REQUESTS = Counter(
    "tabletop_edge_http_requests_total", "HTTP requests the edge answered", ["route", "method", "status"],
    registry=EDGE,
)
HTTP_SECONDS = Histogram(
    "tabletop_edge_http_request_duration_seconds",
    "From an HTTP request's arrival to the end of its answer (streams: until they close)",
    ["route", "method"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0, 60.0, 300.0),
    registry=EDGE,
)
METHODS = frozenset({"GET", "HEAD", "POST", "OPTIONS", "PUT", "DELETE", "PATCH"})
# The page's own files and API only: no inline script or style, no plugin, no framing.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'{connect}; "
    "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
)


def policy(connect_to: Iterable[str] = ()) -> str:
    """The Content-Security-Policy; `connect_to`: other edges the page may call (its ?api=)."""
    extra = "".join(f" {origin}" for origin in connect_to)
    return CSP.format(connect=extra)


def security_headers(connect_to: Iterable[str] = ()) -> list[tuple[bytes, bytes]]:
    return [
        (b"content-security-policy", policy(connect_to).encode()),
        (b"x-frame-options", b"DENY"),
        (b"x-content-type-options", b"nosniff"),
    ]


def route_of(path: str, api_prefix: str, api_paths: frozenset[str], health_path: str) -> str:
    if path.startswith(api_prefix):
        return path if path in api_paths else "api_unknown"
    return "healthz" if path == health_path else "static"


def wrap(app: ASGIApp, route: Callable[[str], str], headers: list[tuple[bytes, bytes]]) -> ASGIApp:
    """`app` with each HTTP answer counted, timed and given `headers` (unless it set its own)."""

    async def observed(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        started, status = time.perf_counter(), 0

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
                present = {name.lower() for name, _ in message.get("headers", ())}
                message = {**message, "headers": [*message.get("headers", ()),
                                                  *(h for h in headers if h[0] not in present)]}
            await send(message)

        try:
            await app(scope, receive, sending)
        finally:
            name = route(scope.get("path", ""))
            method = scope.get("method", "") if scope.get("method", "") in METHODS else "other"
            # A call cut before any answer (the client left, a crash uvicorn turns into 500).
            HTTP_REQUESTS.labels(name, method, str(status or 500)).inc()
            HTTP_SECONDS.labels(name, method).observe(time.perf_counter() - started)

    return observed
