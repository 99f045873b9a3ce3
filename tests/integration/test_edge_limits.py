"""Behind the edge, the gateway's per-address limits count each browser, not the edge.

Clients connect from distinct loopback addresses (127.0.0.2, 127.0.0.3), so the
edge sees two browsers while every relayed call reaches the gateway from the
edge's own 127.0.0.1.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import grpc
import httpx
import pytest
from tabletop.gateway.v1 import gateway_pb2 as gw

from contract.gateway import GatewayStub
from deploy.stack import Stack
from gateway import forwarded
from tests.integration.conftest import PIG

pytestmark = pytest.mark.integration

SIGN_IN = "/tabletop.gateway.v1.SignInService/Authenticate"
# One sign-in per address, then none for a very long time.
ONE_SIGN_IN = {"TABLETOP_CALLER_SIGNIN_RATE": "0.0001", "TABLETOP_CALLER_SIGNIN_BURST": "1"}


@pytest.fixture(scope="module")
def stack(redis_url: str) -> Iterator[Stack]:
    # With the test game too: an earlier stack of this test process made it known to the launcher.
    with Stack(redis_url=redis_url, extra_env={**PIG, **ONE_SIGN_IN}, matchmakers=0) as running:
        yield running


def browser(stack: Stack, address: str) -> httpx.Client:
    transport = httpx.HTTPTransport(local_address=address)
    return httpx.Client(base_url=stack.edge_url, transport=transport, timeout=30.0)


def sign_in(client: httpx.Client, headers: dict[str, str] | None = None) -> httpx.Response:
    return client.post(SIGN_IN, json={"deviceId": f"limits-{uuid.uuid4()}"}, headers=headers or {})


def test_each_browser_has_its_own_limits_and_cannot_pick_its_address(stack: Stack) -> None:
    with browser(stack, "127.0.0.2") as first, browser(stack, "127.0.0.3") as second:
        assert sign_in(first).status_code == 200
        refused = sign_in(first)
        assert (refused.status_code, refused.json()["code"]) == (429, "resource_exhausted")
        # A header naming another address is the browser's word, which the edge drops.
        forged = sign_in(first, {forwarded.FORWARDED_FOR: "ipv4:198.51.100.1:1"})
        assert forged.status_code == 429
        assert sign_in(second).status_code == 200
    # The edge's own address (where every relayed call comes from) was never counted.
    with grpc.insecure_channel(stack.gateway_addr) as channel:
        stub = GatewayStub(channel)
        assert stub.Authenticate(gw.AuthenticateRequest(device_id=f"limits-{uuid.uuid4()}"), timeout=30).session_token
