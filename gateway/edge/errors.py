"""The edge's one error mapper: a failed gRPC call to the gateway as the same Connect error.

Connect and gRPC share the code set, so a status keeps its code, its message
and its details (the ErrorInfo with the broken rule's reason); Connect clients
read them from the JSON error body, gRPC-Web clients from grpc-status-details-bin.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import grpc
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from google.rpc import status_pb2
from protobuf.wkt import Any as ConnectAny

_DETAILS_KEY = "grpc-status-details-bin"


def code_of(status: grpc.StatusCode) -> Code:
    """The Connect code of a gRPC status (the same names; OK never fails a call)."""
    return Code[status.name] if status.name in Code.__members__ else Code.UNKNOWN


def details_of(error: grpc.aio.AioRpcError) -> list[ConnectAny]:
    """The status details the gateway attached, as packed messages (never re-encoded)."""
    for key, value in error.trailing_metadata() or ():
        if key == _DETAILS_KEY and isinstance(value, bytes):
            status = status_pb2.Status.FromString(value)
            return [ConnectAny(type_url=d.type_url, value=d.value) for d in status.details]
    return []


def to_connect(error: grpc.aio.AioRpcError) -> ConnectError:
    code = code_of(error.code())
    return ConnectError(code, error.details() or code.value, details_of(error))


@contextlib.contextmanager
def mapped() -> Iterator[None]:
    """Raise the Connect error a failed relayed call stands for."""
    try:
        yield
    except grpc.aio.AioRpcError as error:
        raise to_connect(error) from None
