"""Every method of the gateway's five services, relayed to the gateway's gRPC port.

The edge holds no game logic and no secrets: the gateway authenticates each
call from the `authorization` header passed through, applies its limits to the
browser's address (gateway/forwarded.py) and answers; the edge only changes the
wire format. One class serves every method through the generated Connect
service's method names, so a method added to the proto is relayed once `make
proto` has run.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Protocol, TypeAlias

from connectrpc.code import Code
from connectrpc.errors import ConnectError
from connectrpc.request import RequestContext
from google.protobuf.message import Message

from contract.gateway import GatewayStub
from gateway import forwarded
from gateway.edge.errors import mapped

if TYPE_CHECKING:
    from google._upb import _message as upb
    from google.protobuf import descriptor

    # An rpc's descriptor comes from the pure-Python or the upb runtime.
    Method: TypeAlias = descriptor.MethodDescriptor | upb.MethodDescriptor
    Service: TypeAlias = descriptor.ServiceDescriptor | upb.ServiceDescriptor

Context: TypeAlias = RequestContext[Message, Message]


class _ResponseStream(Protocol):
    """A server-streaming call of the (untyped) generated gRPC stub."""

    def __aiter__(self) -> AsyncIterator[Message]: ...

    def cancel(self) -> bool: ...


# A method of the generated gRPC stub: the request, then metadata= and timeout=.
UnaryCall: TypeAlias = Callable[..., Awaitable[Message]]
StreamCall: TypeAlias = Callable[..., _ResponseStream]
Unary: TypeAlias = Callable[[Message, Context], Awaitable[Message]]
Streaming: TypeAlias = Callable[[Message, Context], AsyncIterator[Message]]
ClientStreaming: TypeAlias = Callable[[AsyncIterator[Message], Context], AsyncIterator[Message]]

# Headers a browser may send that mean something to the gateway. Anything else
# (cookies, the forwarded address) stays at the edge.
PASSED_HEADERS = ("authorization",)
PLAY_REFUSED = (
    "Play is a bidirectional stream, which HTTP/1.1 cannot carry: use WatchMatch and "
    "SubmitAction here, or Play over gRPC to the gateway"
)


def snake(name: str) -> str:
    """The generated Connect method name of an RPC: ListLegalActions -> list_legal_actions."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def metadata(ctx: Context) -> list[tuple[str, str]]:
    """The gRPC metadata of a relayed call: the credentials sent and where the call came from."""
    found = [(key, ctx.request_headers[key]) for key in PASSED_HEADERS if key in ctx.request_headers]
    if ctx.client_address:
        host, _, port = ctx.client_address.rpartition(":")
        found.append((forwarded.FORWARDED_FOR, forwarded.address(host, int(port))))
    return found


def timeout(ctx: Context) -> float | None:
    """The caller's deadline (Connect-Timeout-Ms, grpc-timeout), in seconds, for the relayed call."""
    return None if ctx.timeout_ms is None else max(ctx.timeout_ms, 0.0) / 1000


class Relay:
    """One Connect service: `relay.<method>(request, ctx)` for every method of `service`."""

    def __init__(self, stub: GatewayStub, service: Service) -> None:
        self._stub = stub
        for method in service.methods:
            setattr(self, snake(method.name), self._relay(method))

    def _relay(self, method: Method) -> Unary | Streaming | ClientStreaming:
        call = getattr(self._stub, method.name)
        if method.client_streaming:
            return _refuse_play
        if method.server_streaming:
            return _streaming(call)
        return _unary(call)


def _unary(call: UnaryCall) -> Unary:
    async def relay(request: Message, ctx: Context) -> Message:
        with mapped():
            return await call(request, metadata=metadata(ctx), timeout=timeout(ctx))

    return relay


def _streaming(call: StreamCall) -> Streaming:
    async def relay(request: Message, ctx: Context) -> AsyncIterator[Message]:
        stream = call(request, metadata=metadata(ctx), timeout=timeout(ctx))
        try:
            with mapped():
                async for response in stream:
                    yield response
        finally:
            # The browser went away or the stream ended: end the gateway's side too.
            stream.cancel()

    return relay


async def _refuse_play(requests: AsyncIterator[Message], ctx: Context) -> AsyncIterator[Message]:
    raise ConnectError(Code.UNIMPLEMENTED, PLAY_REFUSED)
    yield  # an async generator, as the endpoint expects
