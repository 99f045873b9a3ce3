"""Two transports behind one client interface, chosen per contract.

`remote(stub_cls, addr)` calls a servicer in another process over gRPC;
`local(servicer)` hands the same request message to the same servicer object
in this process, without a socket. Both raise `ServiceError` on failure, so
callers cannot tell them apart except by cost.

Both are subject to the same per-method policy (services/common/authz.py):
a remote call is checked by the server against the caller's certificate, an
in-process call here against the identity of the calling process.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc

from services.common import authz
from services.common import logging as tlog
from services.common.errors import Unavailable, from_rpc_error
from services.common.tls import Dial

log = tlog.get("transport")

CHANNEL_OPTIONS = [
    ("grpc.keepalive_time_ms", 30_000),
    ("grpc.max_receive_message_length", 8 * 1024 * 1024),
    ("grpc.enable_retries", 1),
]

Call = Callable[..., Awaitable[Any]]


class LocalClient:
    """Calls a servicer's methods directly, as `caller` (this process's identity).

    `service` is the full gRPC service name ("tabletop.dice.v1.DiceService"),
    so a method is checked under the same name as over the network.
    """

    def __init__(self, servicer: Any, service: str, caller: str) -> None:
        self._servicer = servicer
        self._service = service
        self._caller = caller

    def __getattr__(self, name: str) -> Call:
        method = getattr(self._servicer, name)

        async def call(request: Any, timeout: float | None = None, metadata: Any = None) -> Any:
            authz.check(f"/{self._service}/{name}", self._caller)
            return await method(request, None)

        return call

    async def stream(self, name: str, request: Any) -> AsyncIterator[Any]:
        """A server-streaming call."""
        authz.check(f"/{self._service}/{name}", self._caller)
        async for item in getattr(self._servicer, name)(request, None):
            yield item

    async def close(self) -> None:
        return None


def _service_name(stub_cls: Any) -> str:
    """'match' for MatchServiceStub: how error messages name a dependency."""
    name = getattr(stub_cls, "__name__", "internal")
    return name.removesuffix("Stub").removesuffix("Service").lower() or "internal"


class RemoteClient:
    """Calls a servicer over a mutual-TLS gRPC channel, translating failures to ServiceError.

    `dial` (tls.dial(own, target)) carries this process's certificate and the
    identity the server must prove; there is no plaintext variant.
    """

    def __init__(
        self,
        stub_cls: Callable[[grpc.aio.Channel], Any],
        addr: str,
        dial: Dial,
        timeout: float = 5.0,
        options: list[tuple[str, Any]] | None = None,
    ) -> None:
        # Calls wait for a restarting server (wait_for_ready) up to `timeout` s,
        # then fail UNAVAILABLE. Callers of callers get longer timeouts (the
        # gateway gives the match 10 s), so the innermost failure is the one reported.
        # `addr` may list several replicas ("ipv4:h:p,h:p"); pass
        # ("grpc.lb_policy_name", "round_robin") to spread calls over them.
        self._channel = grpc.aio.secure_channel(
            addr, dial.credentials, options=[*CHANNEL_OPTIONS, *dial.options, *(options or [])]
        )
        self._stub = stub_cls(self._channel)
        self._timeout = timeout
        self.addr = addr
        self._service = _service_name(stub_cls)

    def __getattr__(self, name: str) -> Call:
        rpc = getattr(self._stub, name)

        async def call(request: Any, timeout: float | None = None, metadata: Any = None) -> Any:
            try:
                return await rpc(request, timeout=timeout or self._timeout, metadata=metadata, wait_for_ready=True)
            except grpc.aio.AioRpcError as error:
                if error.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
                    raise self._unavailable(error) from None
                raise from_rpc_error(error) from None

        return call

    async def stream(self, name: str, request: Any) -> AsyncIterator[Any]:
        """A server-streaming call; failures become ServiceError as for unary calls."""
        call = getattr(self._stub, name)(request, wait_for_ready=True)
        try:
            async for item in call:
                yield item
        except grpc.aio.AioRpcError as error:
            if error.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED):
                raise self._unavailable(error) from None
            raise from_rpc_error(error) from None

    def _unavailable(self, error: grpc.aio.AioRpcError) -> Unavailable:
        """The address stays in our log; the caller learns only which service failed."""
        log.warning("dependency_unavailable", service=self._service, addr=self.addr, code=error.code().name)
        return Unavailable(f"the {self._service} service is unavailable", f"{self._service}.unavailable")

    async def close(self) -> None:
        await self._channel.close()
