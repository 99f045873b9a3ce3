"""The edge's one error mapper: a failed gRPC call to the gateway as a public Connect error.

Connect and gRPC share the code set, so a status keeps its code. A refusal the
platform meant (it carries an ErrorInfo of the `tabletop` domain: the broken
rule's reason) keeps its message and details too; Connect clients read them
from the JSON error body, gRPC-Web clients from grpc-status-details-bin.
Anything else (the gateway unreachable, a transport failure, an unexpected
exception) says only its code and a public sentence: the gateway's own text
names internal addresses and causes, which the edge logs for the operator and
never sends to a browser.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator

import grpc
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from google.rpc import error_details_pb2, status_pb2
from protobuf.wkt import Any as ConnectAny

from services.common import logging as tlog
from services.common.errors import DOMAIN

_DETAILS_KEY = "grpc-status-details-bin"
# What a caller is told when the failure is not a refusal of the platform's.
PUBLIC_MESSAGES = {
    Code.UNAVAILABLE: "the service is unavailable; retry shortly",
    Code.DEADLINE_EXCEEDED: "the call did not finish in time",
    Code.CANCELED: "the call was cancelled",
    Code.RESOURCE_EXHAUSTED: "too many calls; retry later",
    Code.UNIMPLEMENTED: "this method is not served here",
}
INTERNAL_MESSAGE = "internal error"
# An address inside a message the platform meant is still nobody's business outside it.
_ADDRESS = re.compile(r"\b(?:ipv[46]:)?(?:\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-fA-F:]+\])(?::\d+)?\b")


def code_of(status: grpc.StatusCode) -> Code:
    """The Connect code of a gRPC status (the same names; OK never fails a call)."""
    return Code[status.name] if status.name in Code.__members__ else Code.UNKNOWN


def _status(error: grpc.aio.AioRpcError) -> status_pb2.Status | None:
    for key, value in error.trailing_metadata() or ():
        if key == _DETAILS_KEY and isinstance(value, bytes):
            return status_pb2.Status.FromString(value)
    return None


def details_of(error: grpc.aio.AioRpcError) -> list[ConnectAny]:
    """The status details the gateway attached, as packed messages (never re-encoded)."""
    status = _status(error)
    return [] if status is None else [ConnectAny(type_url=d.type_url, value=d.value) for d in status.details]


def meant(error: grpc.aio.AioRpcError) -> bool:
    """Whether the platform refused on purpose: an ErrorInfo of its domain rides on the status."""
    status = _status(error)
    for detail in status.details if status is not None else ():
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info) and info.domain == DOMAIN:
            return True
    return False


def public_message(code: Code) -> str:
    return PUBLIC_MESSAGES.get(code, INTERNAL_MESSAGE)


def to_connect(error: grpc.aio.AioRpcError) -> ConnectError:
    code = code_of(error.code())
    if meant(error):
        return ConnectError(code, _ADDRESS.sub("[address]", error.details() or code.value), details_of(error))
    tlog.get("edge").warning("relay_failed", code=code.name, error=error.details() or "")
    return ConnectError(code if code in PUBLIC_MESSAGES else Code.INTERNAL, public_message(code))


@contextlib.contextmanager
def mapped() -> Iterator[None]:
    """Raise the public Connect error a failed relayed call stands for."""
    try:
        yield
    except grpc.aio.AioRpcError as error:
        raise to_connect(error) from None
    except ConnectError:
        raise
    except Exception as unexpected:  # noqa: BLE001 (logged whole, answered as INTERNAL)
        # Connect would send str(unexpected) as the message: log it here, send nothing of it.
        tlog.get("edge").exception("relay_crashed", error_type=type(unexpected).__name__)
        raise ConnectError(Code.INTERNAL, INTERNAL_MESSAGE) from None
