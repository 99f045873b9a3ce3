"""The HTTP edge as an operator meets it: 404s, JSON logs, request metrics, the page's security
headers, public errors only, and connections that must send their headers in time and not
crowd one address."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import httpx
import pytest

from deploy.stack import Stack
from gateway.edge import errors, observe

pytestmark = pytest.mark.integration

SERVICE = "/tabletop.gateway.v1.LobbyService/"
HEADER_TIMEOUT = 1.5
PER_ADDRESS = 6


@pytest.fixture(scope="module")
def stack(redis_url: str) -> Iterator[Stack]:
    env = {"TABLETOP_EDGE_HEADER_TIMEOUT_S": str(HEADER_TIMEOUT), "TABLETOP_EDGE_CONNECTIONS_PER_ADDRESS":
           str(PER_ADDRESS)}
    with Stack(redis_url=redis_url, extra_env=env, matchmakers=0) as running:
        yield running


def edge_log(stack: Stack) -> list[str]:
    path = stack.procs["edge"].log_path
    assert path is not None
    return path.read_text().splitlines()


def test_paths_that_name_nothing_are_404_without_a_traceback(stack: Stack) -> None:
    with httpx.Client(base_url=stack.edge_url, timeout=10) as http:
        for path in ("/health", "/nope", "/js/missing.js", "/a/b/c.png"):
            answer = http.get(path)
            assert answer.status_code == 404, path
            assert answer.text == "not found\n"
        assert http.get("/healthz").status_code == 200
        assert http.post("/index.html").status_code == 405
    assert not [line for line in edge_log(stack) if "Traceback" in line or '"level": "error"' in line]


def test_every_log_line_is_json_and_requests_are_logged_with_their_status(stack: Stack) -> None:
    with httpx.Client(base_url=stack.edge_url, timeout=10) as http:
        http.get("/logged-404")
    time.sleep(0.2)
    entries = [json.loads(line) for line in edge_log(stack)]  # every line parses
    assert all(entry["service"] == "edge" for entry in entries)
    assert any(e.get("event") == "Application startup complete." and e.get("logger") == "uvicorn.error"
               for e in entries)
    assert any(e.get("event") == "request" and e.get("path") == "/logged-404" and e.get("status") == 404
               for e in entries)


def test_requests_are_counted_by_route_method_and_status_and_timed(stack: Stack) -> None:
    with httpx.Client(base_url=stack.edge_url, timeout=10) as http:
        assert http.post(SERVICE + "ListGames", json={}).status_code == 200
        http.get("/counted-404")
        http.post(SERVICE + "NoSuchMethod", json={})
    metrics = httpx.get(f"http://127.0.0.1:{stack.procs['edge'].metrics_port}/metrics").text
    listed = f'route="{SERVICE}ListGames",status="200"'
    assert f'tabletop_edge_http_requests_total{{method="POST",{listed}}}' in metrics
    assert 'tabletop_edge_http_requests_total{method="GET",route="static",status="404"}' in metrics
    assert 'route="api_unknown"' in metrics and "/counted-404" not in metrics  # routes are a closed set
    assert f'tabletop_edge_http_request_duration_seconds_count{{method="POST",route="{SERVICE}ListGames"}}' \
        in metrics


def test_the_page_is_served_with_its_security_headers(stack: Stack) -> None:
    page = httpx.get(stack.edge_url + "/", timeout=10)
    assert page.status_code == 200 and '<script type="module" src="js/main.js">' in page.text  # the web table
    assert page.headers["content-security-policy"] == observe.policy()
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert page.headers["x-frame-options"] == "DENY"
    assert page.headers["x-content-type-options"] == "nosniff"
    api = httpx.post(stack.edge_url + SERVICE + "ListGames", json={}, timeout=10)
    assert api.headers["x-content-type-options"] == "nosniff"


def test_a_client_sending_its_headers_slowly_is_cut_off(stack: Stack) -> None:
    port = stack.procs["edge"].port
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as slow:
        slow.sendall(b"GET / HTTP/1.1\r\n")
        closed = False
        for byte in b"Host: 127.0.0.1\r\nX-Slow: " + b"a" * 200:
            try:
                slow.sendall(bytes([byte]))
                slow.settimeout(0.2)
                if slow.recv(1024) == b"":
                    closed = True
                    break
            except TimeoutError:
                continue
            except OSError:
                closed = True
                break
    elapsed = time.monotonic() - started
    assert closed, "a trickle of header bytes kept the connection open"
    assert HEADER_TIMEOUT - 0.2 <= elapsed < HEADER_TIMEOUT + 3
    # A prompt request on a fresh connection is answered as ever.
    assert httpx.get(stack.edge_url + "/healthz", timeout=10).status_code == 200


def test_more_connections_than_the_cap_from_one_address_are_refused(stack: Stack) -> None:
    port = stack.procs["edge"].port
    held = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(PER_ADDRESS)]
    try:
        time.sleep(0.2)
        with socket.create_connection(("127.0.0.1", port), timeout=5) as extra:
            extra.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            answer = extra.recv(4096)
            assert answer.startswith(b"HTTP/1.1 429 ")
            assert b"too many connections" in answer
    finally:
        for sock in held:
            sock.close()
    time.sleep(0.3)
    assert httpx.get(stack.edge_url + "/healthz", timeout=10).status_code == 200  # released: admitted again
    assert any('"connection_refused"' in line for line in edge_log(stack))


def probe(stack: Stack) -> int:
    """The image's HEALTHCHECK command as the edge's container runs it (no health port there)."""
    env = {**os.environ, "TABLETOP_PORT": str(stack.procs["edge"].port)}
    env.pop("TABLETOP_HEALTH_PORT", None)
    return subprocess.run([sys.executable, "-m", "deploy.probe"], env=env, timeout=30, check=False).returncode


def test_the_images_health_check_asks_the_edges_healthz(stack: Stack) -> None:
    assert probe(stack) == 0


def test_a_gateway_failure_reaches_the_browser_as_its_code_and_a_public_message_only(stack: Stack) -> None:
    stack.kill("gateway")  # last in this module: the edge's gateway is gone
    answer = httpx.post(stack.edge_url + SERVICE + "ListGames", json={}, timeout=30)
    body = answer.json()
    assert body["code"] == "unavailable"
    assert body["message"] == errors.PUBLIC_MESSAGES[errors.Code.UNAVAILABLE]
    assert "127.0.0.1" not in answer.text and "details" not in body
    gateway_port = str(stack.procs["gateway"].port)
    assert gateway_port not in answer.text
    health = httpx.get(stack.edge_url + "/healthz", timeout=30)
    assert health.status_code == 503
    assert probe(stack) == 1
    # The operator still sees what happened, in the edge's log.
    assert any('"relay_failed"' in line for line in edge_log(stack))
