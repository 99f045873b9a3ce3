"""The edge believes a forwarded address only from the proxies it is told to trust.

uvicorn's default believes X-Forwarded-For from loopback, so under `make run` or
behind a same-host proxy any local client chose the address the gateway's
per-address limits count. Clients here connect from loopback addresses (127.0.0.1,
the one uvicorn trusted, and others), none trusted unless the setting names it.
"""

from __future__ import annotations

import signal
import uuid
from collections.abc import Iterator

import httpx
import pytest

from deploy.stack import Stack
from tests.integration.conftest import PIG

pytestmark = pytest.mark.integration

SIGN_IN = "/tabletop.gateway.v1.SignInService/Authenticate"
# One sign-in per address, then none for a very long time.
ONE_SIGN_IN = {"TABLETOP_CALLER_SIGNIN_RATE": "0.0001", "TABLETOP_CALLER_SIGNIN_BURST": "1"}
PROXY = "127.0.0.4"
SPOOFS = (
    {"X-Forwarded-For": "198.51.100.1"},
    {"Forwarded": "for=198.51.100.2"},
    {"X-Real-IP": "198.51.100.3"},
    {"X-Forwarded-For": "198.51.100.4", "Forwarded": "for=198.51.100.4", "X-Real-IP": "198.51.100.4"},
)


@pytest.fixture(scope="module")
def stack(redis_url: str) -> Iterator[Stack]:
    with Stack(redis_url=redis_url, extra_env={**PIG, **ONE_SIGN_IN}, matchmakers=0) as running:
        yield running


def restart_edge(stack: Stack, trusted: str) -> None:
    edge = stack.procs["edge"]
    assert edge.process is not None
    edge.process.send_signal(signal.SIGTERM)
    # uvicorn stops gracefully, then re-raises the signal it caught.
    assert edge.process.wait(timeout=15) in (0, -signal.SIGTERM)
    edge.env["TABLETOP_EDGE_TRUSTED_PROXIES"] = trusted
    stack.restart("edge")


@pytest.fixture
def trusting_edge(stack: Stack) -> Iterator[Stack]:
    restart_edge(stack, PROXY)
    yield stack
    restart_edge(stack, "")


def client(stack: Stack, address: str) -> httpx.Client:
    return httpx.Client(base_url=stack.edge_url, transport=httpx.HTTPTransport(local_address=address), timeout=30)


def sign_in(http: httpx.Client, headers: dict[str, str] | None = None) -> int:
    return http.post(SIGN_IN, json={"deviceId": f"proxies-{uuid.uuid4()}"}, headers=headers or {}).status_code


def test_a_loopback_client_cannot_choose_the_address_its_limits_count(stack: Stack) -> None:
    with client(stack, "127.0.0.1") as local:
        assert sign_in(local) == 200
        for spoof in SPOOFS:
            assert sign_in(local, spoof) == 429, spoof


def test_behind_a_trusted_proxy_each_forwarded_client_has_its_own_limits(trusting_edge: Stack) -> None:
    with client(trusting_edge, PROXY) as proxy, client(trusting_edge, "127.0.0.5") as direct:
        assert sign_in(proxy, {"X-Forwarded-For": "198.51.100.7"}) == 200
        assert sign_in(proxy, {"X-Forwarded-For": "198.51.100.7"}) == 429
        # What the client wrote left of the address the proxy appended counts for nothing.
        assert sign_in(proxy, {"X-Forwarded-For": "192.0.2.1, 198.51.100.7"}) == 429
        assert sign_in(proxy, {"X-Forwarded-For": "198.51.100.8"}) == 200
        # Only X-Forwarded-For is read, even from the proxy: the proxy's own address is counted.
        assert sign_in(proxy, {"X-Real-IP": "198.51.100.9"}) == 200
        assert sign_in(proxy, {"Forwarded": "for=198.51.100.10"}) == 429
        # A client that is not the proxy still cannot choose.
        assert sign_in(direct) == 200
        assert sign_in(direct, {"X-Forwarded-For": "198.51.100.11"}) == 429
