"""The gateway keys limits by a forwarded address only when told to trust it."""

from __future__ import annotations

from dataclasses import dataclass

from gateway import forwarded
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
