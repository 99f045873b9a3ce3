"""Which address a browser's call comes from, when a reverse proxy may stand in front of the edge.

The gateway keys its per-address limits by the address the edge names
(gateway/forwarded.py), so whoever may choose that address escapes them. A
header is a client's word unless a proxy the operator trusts wrote it: the
edge reads X-Forwarded-For only from the peers TABLETOP_EDGE_TRUSTED_PROXIES
lists (addresses or CIDRs; empty by default, so loopback is not trusted
either: `make run` or a same-host proxy would otherwise let any local client
pick its address). A trusted proxy appends the address it saw, so the list is
read from its right end: the right-most entry that is not itself a trusted
proxy is the client (entries further left are whatever the client sent).
Forwarded and X-Real-IP are never read: one header, one rule, so no proxy
can be trusted for one and bypassed through another. uvicorn's own proxy
handling is off (edge/__main__.py): this is the one place that decides.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass

from starlette.types import ASGIApp, Receive, Scope, Send

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
FORWARDED_FOR = b"x-forwarded-for"


class BadProxyList(ValueError):
    """TABLETOP_EDGE_TRUSTED_PROXIES names something that is not an address or a network."""


@dataclass(frozen=True)
class TrustedProxies:
    networks: tuple[Network, ...] = ()

    @classmethod
    def parse(cls, setting: str) -> TrustedProxies:
        """'10.0.0.5, 192.168.0.0/16 ::1' -> the networks; BadProxyList on any other word."""
        words = setting.replace(",", " ").split()
        try:
            return cls(tuple(ipaddress.ip_network(word, strict=False) for word in words))
        except ValueError as bad:
            raise BadProxyList(f"TABLETOP_EDGE_TRUSTED_PROXIES: {bad}") from None

    def __contains__(self, host: str) -> bool:
        address = _address(host)
        return address is not None and any(address in network for network in self.networks)

    def client(self, peer: str, forwarded_for: Iterable[str]) -> str:
        """The client's address: the peer's own, unless the peer is a trusted proxy; then the
        right-most X-Forwarded-For entry that is no trusted proxy (the peer's if none parses)."""
        if peer not in self:
            return peer
        hops = [hop.strip() for value in forwarded_for for hop in value.split(",")]
        nearest = peer
        for hop in reversed(hops):
            host = _host(hop)
            if _address(host) is None:
                # Not an address: nobody trusted wrote it. The last trusted hop saw the client.
                return nearest
            if host not in self:
                return host
            nearest = host
        return nearest


def _host(hop: str) -> str:
    """An X-Forwarded-For entry without the port some proxies add ('[::1]:80', '1.2.3.4:80')."""
    if hop.startswith("[") and "]" in hop:
        return hop[1 : hop.index("]")]
    if hop.count(":") == 1:
        return hop.split(":", 1)[0]
    return hop


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def wrap(app: ASGIApp, trusted: TrustedProxies) -> ASGIApp:
    """`app` seeing, as each HTTP call's client, the address `trusted` makes of it."""
    if not trusted.networks:
        return app

    async def resolved(scope: Scope, receive: Receive, send: Send) -> None:
        peer = scope.get("client")
        if scope["type"] == "http" and peer:
            sent = [value.decode("latin-1") for name, value in scope.get("headers", ()) if name == FORWARDED_FOR]
            host = trusted.client(peer[0], sent)
            if host != peer[0]:
                # The port is the proxy's, not the client's: none is known.
                scope = {**scope, "client": (host, 0)}
        await app(scope, receive, send)

    return resolved
