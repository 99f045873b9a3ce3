"""What a connection must do to stay open: send its headers in time, and not be one too many.

uvicorn waits for a request's headers as long as they trickle in (a byte a second
keeps its keep-alive timer off), so a few hundred sockets sending headers slowly
hold the edge's connections for as long as their senders like. The edge's HTTP
protocol (uvicorn's h11 one, with two checks added) closes a connection whose
request headers are not complete `header_timeout` seconds after it opened or
after its last response, and answers 429 and closes when an address already
holds `per_address` connections. Addresses of trusted reverse proxies
(TABLETOP_EDGE_TRUSTED_PROXIES) carry every browser behind them: no cap for them.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from gateway.edge.proxies import TrustedProxies
from services.common import logging as tlog

if TYPE_CHECKING:
    from uvicorn.config import Config
    from uvicorn.server import ServerState

DEFAULT_HEADER_TIMEOUT = 10.0
DEFAULT_PER_ADDRESS = 32
_TOO_MANY = b"too many connections from this address\n"
REFUSED = (
    b"HTTP/1.1 429 Too Many Requests\r\ncontent-type: text/plain; charset=utf-8\r\nconnection: close\r\n"
    b"content-length: " + str(len(_TOO_MANY)).encode() + b"\r\n\r\n" + _TOO_MANY
)


@dataclass
class ConnectionGuard:
    """The open connections of each address, shared by every connection of one server."""

    per_address: int = DEFAULT_PER_ADDRESS  # 0: no cap
    header_timeout: float = DEFAULT_HEADER_TIMEOUT  # 0: none
    exempt: TrustedProxies = field(default_factory=TrustedProxies)
    open: Counter[str] = field(default_factory=Counter)

    def admit(self, host: str) -> bool:
        """Count a new connection of `host`, or refuse it (nothing counted) when it holds the cap."""
        if self.per_address and host not in self.exempt and self.open[host] >= self.per_address:
            return False
        self.open[host] += 1
        return True

    def release(self, host: str) -> None:
        self.open[host] -= 1
        if self.open[host] <= 0:
            del self.open[host]


def protocol(guard: ConnectionGuard) -> type[asyncio.Protocol]:
    """uvicorn's h11 protocol under `guard` (uvicorn.Config(http=...) takes the class)."""

    class GuardedH11Protocol(H11Protocol):
        def __init__(
            self,
            config: Config,
            server_state: ServerState,
            app_state: dict[str, object],
            _loop: asyncio.AbstractEventLoop | None = None,
        ) -> None:
            super().__init__(config, server_state, app_state, _loop)
            self._host = ""
            self._counted = False
            self._header_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._host = self.client[0] if self.client else ""
            if not guard.admit(self._host):
                tlog.get("edge").warning("connection_refused", client=self._host, open=guard.open[self._host],
                                         cap=guard.per_address)
                transport.write(REFUSED)
                transport.close()
                return
            self._counted = True
            self._await_headers()

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop_header_timer()
            if self._counted:
                self._counted = False
                guard.release(self._host)
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.conn.their_state is not h11.IDLE:  # the request's headers are in
                self._stop_header_timer()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._await_headers()  # the next request's, on a kept-alive connection

        def _await_headers(self) -> None:
            self._stop_header_timer()
            if guard.header_timeout > 0:
                self._header_timer = self.loop.call_later(guard.header_timeout, self._headers_late)

        def _stop_header_timer(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _headers_late(self) -> None:
            self._header_timer = None
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                tlog.get("edge").info("headers_timed_out", client=self._host, seconds=guard.header_timeout)
                self.transport.close()

    return GuardedH11Protocol
