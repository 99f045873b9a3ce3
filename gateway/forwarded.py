"""The caller's address behind a trusted proxy (the HTTP edge).

Per-address limits (gateway/limits.py) are keyed by the caller's address.
Calls relayed by the edge all come from the edge's own address, so the edge
names the browser's address in FORWARDED_FOR and the gateway keys limits by it,
but only when the operator says the gateway's port is reached through the edge
alone (TABLETOP_TRUST_FORWARDED=1): anyone else could write any address there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Protocol

from services.common.security.tokens import Metadata

# gRPC metadata keys are lower case; the edge sets it and drops any a browser sent.
FORWARDED_FOR = "x-tabletop-forwarded-for"


def address(host: str, port: int) -> str:
    """A client's address in the gRPC peer form ('ipv4:1.2.3.4:5', 'ipv6:[::1]:5')."""
    return f"ipv6:[{host}]:{port}" if ":" in host else f"ipv4:{host}:{port}"


class PeerContext(Protocol):
    """What is read of a gRPC call's context here (grpc itself ships no types)."""

    def peer(self) -> str: ...

    def invocation_metadata(self) -> Metadata: ...


def forwarded(metadata: Iterable[tuple[str, str | bytes]]) -> str:
    """The forwarded address in `metadata` ('' when there is none)."""
    for key, value in metadata:
        if key == FORWARDED_FOR and isinstance(value, str):
            return value
    return ""


def caller_address(trust: bool) -> Callable[[PeerContext], str]:
    """How the gateway tells a call's address: the forwarded one when trusted, else the peer's."""
    if not trust:
        return lambda context: str(context.peer())
    return lambda context: forwarded(context.invocation_metadata() or ()) or str(context.peer())
