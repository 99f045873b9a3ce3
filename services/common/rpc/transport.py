"""Two transports for an internal contract: another process over gRPC, or this one.

`Remote` calls a servicer in another process over a mutual-TLS channel;
`InProcess` hands the same request message to the same servicer object in this
process, without a socket. Both raise `ServiceError` on failure, so callers
cannot tell them apart except by cost. The typed adapters that meet the ports
(services/common/rpc/adapters.py) stand on either.

Both are subject to the same per-method policy (services/common/security/authz.py):
a remote call is checked by the server against the caller's certificate, an
in-process call here against the identity of the calling process.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Protocol

import grpc
from google.protobuf.message import Message

from services.common import logging as tlog
from services.common import tracing
from services.common.errors import Unavailable, connection_broke, from_rpc_error
from services.common.security import authz, tls
from services.common.security.tls import ChannelOption, Dial

log = tlog.get("transport")

CHANNEL_OPTIONS: list[ChannelOption] = [
    ("grpc.keepalive_time_ms", 30_000),
    ("grpc.max_receive_message_length", 8 * 1024 * 1024),
    ("grpc.enable_retries", 1),
]
# For a target that lists several replicas ("ipv4:h:p,h:p"): calls are spread over
# the ones that are up, and a replica that goes away is skipped.
ROUND_ROBIN: list[ChannelOption] = [("grpc.lb_policy_name", "round_robin")]
# A channel to one replica of several tries again soon after its server went away
# (gRPC's own backoff grows to two minutes): a restarted replica gets its share back
# within a second or so, not after the backoff has grown.
REPLICA_RECONNECT: list[ChannelOption] = [
    ("grpc.initial_reconnect_backoff_ms", 250),
    ("grpc.min_reconnect_backoff_ms", 250),
    ("grpc.max_reconnect_backoff_ms", 1000),
]


class Transport(Protocol):
    """Carries one rpc of one contract by its name; the adapters give each rpc its types."""

    async def unary(self, rpc: str, request: Message) -> Message: ...

    def stream(self, rpc: str, request: Message) -> AsyncIterator[Message]: ...

    async def close(self) -> None: ...


class InProcess:
    """Calls a servicer's methods directly, as `caller` (this process's identity).

    `service` is the full gRPC service name ("tabletop.dice.v1.DiceService"),
    so a method is checked under the same name as over the network.
    """

    def __init__(self, servicer: object, service: str, caller: str) -> None:
        self._servicer = servicer
        self._service = service
        self._caller = caller
        self._call = tls.KnownPeer(caller)

    async def unary(self, rpc: str, request: Message) -> Message:
        authz.check(f"/{self._service}/{rpc}", self._caller)
        call = getattr(self._servicer, rpc)(request, self._call)
        reply: Message = await (tracing.in_process(self._service, rpc, call) if tracing.ENABLED else call)
        return reply

    async def stream(self, rpc: str, request: Message) -> AsyncIterator[Message]:
        authz.check(f"/{self._service}/{rpc}", self._caller)
        async for item in getattr(self._servicer, rpc)(request, self._call):
            yield item

    async def close(self) -> None:
        return None


class StubClass(Protocol):
    """A generated stub class, called with a channel (protoc writes no types for *_pb2_grpc)."""

    __name__: str

    def __call__(self, channel: grpc.aio.Channel) -> object: ...


def _service_name(stub_cls: StubClass) -> str:
    """'match' for MatchServiceStub: how error messages name a dependency."""
    name = stub_cls.__name__
    return name.removesuffix("Stub").removesuffix("Service").lower() or "internal"


class Remote:
    """Calls a servicer over a mutual-TLS gRPC channel, translating failures to ServiceError.

    `dial` (tls.dial(own, target)) carries this process's certificate and the
    identity the server must prove; there is no plaintext variant.
    """

    def __init__(
        self,
        stub_cls: StubClass,
        addr: str,
        dial: Dial,
        timeout: float = 5.0,
        options: Sequence[ChannelOption] | None = None,
    ) -> None:
        # Calls wait for a restarting server (wait_for_ready) up to `timeout` s,
        # then fail UNAVAILABLE. Callers of callers get longer timeouts (the
        # gateway gives the match 10 s), so the innermost failure is the one reported.
        # `addr` may list several replicas ("ipv4:h:p,h:p"): calls and Exchange lanes are then
        # spread over them (ROUND_ROBIN) unless the caller chose a policy.
        chosen = [*(options or [])]
        self._dialled = (dial.credentials, [*CHANNEL_OPTIONS, *dial.options, *chosen])
        if "," in addr and not any(name == ROUND_ROBIN[0][0] for name, _ in chosen):
            chosen += ROUND_ROBIN
        self._channel = grpc.aio.secure_channel(
            addr, dial.credentials, options=[*CHANNEL_OPTIONS, *dial.options, *chosen]
        )
        self._replicas: list[grpc.aio.Channel] = []
        # The generated stub is untyped (protoc writes no .pyi for *_pb2_grpc): the adapters type each rpc.
        self._stub = stub_cls(self._channel)
        self._timeout = timeout
        self.addr = addr
        self._service = _service_name(stub_cls)

    @property
    def channel(self) -> grpc.aio.Channel:
        return self._channel

    @property
    def service(self) -> str:
        """How error messages name the service ("dice")."""
        return self._service

    @property
    def replica_addrs(self) -> list[str]:
        """Each replica's address, as the target lists them ("ipv4:h:p,h:p"), or the target."""
        return self.addr.removeprefix("ipv4:").split(",") if "," in self.addr else [self.addr]

    def replica_channels(self) -> list[grpc.aio.Channel]:
        """One channel per replica the target lists ("ipv4:h:p,h:p"), dialled as this one,
        each reconnecting within a second of its server's return: what binds an Exchange
        lane to one replica. A target naming one server has its channel alone."""
        if "," not in self.addr:
            return [self._channel]
        if not self._replicas:
            credentials, options = self._dialled
            self._replicas = [
                grpc.aio.secure_channel(f"ipv4:{replica}", credentials, options=[*options, *REPLICA_RECONNECT])
                for replica in self.replica_addrs
            ]
        return self._replicas

    async def unary(self, rpc: str, request: Message) -> Message:
        try:
            reply: Message = await getattr(self._stub, rpc)(request, timeout=self._timeout, wait_for_ready=True)
            return reply
        except grpc.aio.AioRpcError as error:
            gone = error.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
            if gone or connection_broke(error):
                raise self._unavailable(error) from None
            raise from_rpc_error(error) from None

    async def stream(self, rpc: str, request: Message) -> AsyncIterator[Message]:
        """A server-streaming call; failures become ServiceError as for unary calls."""
        call = getattr(self._stub, rpc)(request, wait_for_ready=True)
        try:
            async for item in call:
                yield item
        except grpc.aio.AioRpcError as error:
            if error.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED) or connection_broke(error):
                raise self._unavailable(error) from None
            raise from_rpc_error(error) from None
        finally:
            call.cancel()  # closed before its end: the server's stream ends now, not when this is collected

    def _unavailable(self, error: grpc.aio.AioRpcError) -> Unavailable:
        """The address stays in our log; the caller learns only which service failed."""
        log.warning("dependency_unavailable", service=self._service, addr=self.addr, code=error.code().name)
        return Unavailable(f"the {self._service} service is unavailable", f"{self._service}.unavailable")

    async def close(self) -> None:
        for replica in self._replicas:
            await replica.close()
        await self._channel.close()
