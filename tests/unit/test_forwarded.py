"""The gateway keys limits by a forwarded address only when told to trust it, and the edge
names a forwarded address only from the proxies it is told to trust."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from gateway import forwarded
from gateway.edge.proxies import BadProxyList, TrustedProxies
from gateway.limits import peer_address


@dataclass
class Context:
    metadata: tuple[tuple[str, str], ...]

    def peer(self) -> str:
        return "ipv4:10.0.0.9:40000"

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return self.metadata


SENT = Context(((forwarded.FORWARDED_FOR, "ipv4:203.0.113.7:5555"),))


def test_a_forwarded_address_is_ignored_unless_trusted() -> None:
    assert forwarded.caller_address(trust=False)(SENT) == "ipv4:10.0.0.9:40000"


def test_a_trusted_forwarded_address_keys_the_limits() -> None:
    assert peer_address(forwarded.caller_address(trust=True)(SENT)) == "ipv4:203.0.113.7"


def test_without_one_the_peer_is_the_caller() -> None:
    assert forwarded.caller_address(trust=True)(Context(())) == "ipv4:10.0.0.9:40000"


def test_addresses_take_the_peer_form() -> None:
    assert peer_address(forwarded.address("::1", 80)) == "ipv6:[::1]"
    assert peer_address(forwarded.address("127.0.0.1", 80)) == "ipv4:127.0.0.1"


# The edge (gateway/edge/proxies.py): whose X-Forwarded-For names the browser.

NOBODY = TrustedProxies()
PROXY = TrustedProxies.parse("10.0.0.5, 192.168.0.0/16")


def test_no_peer_is_trusted_by_default_not_even_loopback() -> None:
    for peer in ("127.0.0.1", "::1"):
        assert NOBODY.client(peer, ["198.51.100.1"]) == peer


def test_an_untrusted_peer_is_the_client_whatever_it_sends() -> None:
    assert PROXY.client("203.0.113.7", ["198.51.100.1"]) == "203.0.113.7"


def test_behind_a_trusted_proxy_the_right_most_address_it_did_not_write_is_the_client() -> None:
    # The client sent "198.51.100.1"; the proxy appended the address it saw.
    assert PROXY.client("10.0.0.5", ["198.51.100.1, 203.0.113.7"]) == "203.0.113.7"
    # Through two trusted proxies (the inner one listed by the outer), headers sent twice.
    assert PROXY.client("10.0.0.5", ["198.51.100.1, 203.0.113.7", "192.168.3.4"]) == "203.0.113.7"


def test_a_trusted_proxy_without_a_forwarded_address_is_the_client() -> None:
    assert PROXY.client("10.0.0.5", []) == "10.0.0.5"


def test_only_trusted_hops_leave_the_left_most() -> None:
    assert PROXY.client("10.0.0.5", ["192.168.0.9, 192.168.0.8"]) == "192.168.0.9"


def test_a_hop_that_is_no_address_stops_at_the_last_trusted_one() -> None:
    assert PROXY.client("10.0.0.5", ["198.51.100.1, unknown"]) == "10.0.0.5"
    assert PROXY.client("10.0.0.5", ["nonsense, 192.168.0.8"]) == "192.168.0.8"


def test_ports_some_proxies_add_are_dropped() -> None:
    assert PROXY.client("10.0.0.5", ["203.0.113.7:5555"]) == "203.0.113.7"
    assert PROXY.client("10.0.0.5", ["[2001:db8::7]:5555"]) == "2001:db8::7"
    assert PROXY.client("10.0.0.5", ["2001:db8::7"]) == "2001:db8::7"


def test_the_proxy_list_refuses_what_is_no_address() -> None:
    with pytest.raises(BadProxyList):
        TrustedProxies.parse("10.0.0.5, proxy.internal")
    assert TrustedProxies.parse("") == NOBODY
