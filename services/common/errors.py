"""Domain errors of every service, and their one mapping to gRPC statuses.

Application code raises these; the server interceptor turns them into a
status with a `google.rpc.Status` carrying an ErrorInfo (reason = the broken
rule or the code name), and clients turn a failed call back into the same
exception, so in-process and remote transports fail the same way.
"""

from __future__ import annotations

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from contract.errors import error_info

DOMAIN = "tabletop"


class ServiceError(Exception):
    """A refusal with a status code; `reason` is a stable machine-readable id."""

    code = grpc.StatusCode.UNKNOWN

    def __init__(self, message: str, reason: str = "", metadata: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.reason = reason or self.code.name
        self.metadata = metadata or {}


class InvalidArgument(ServiceError):
    code = grpc.StatusCode.INVALID_ARGUMENT


class FailedPrecondition(ServiceError):
    """An illegal move or wrong phase; `reason` names the rule."""

    code = grpc.StatusCode.FAILED_PRECONDITION


class PermissionDenied(ServiceError):
    code = grpc.StatusCode.PERMISSION_DENIED


class Unauthenticated(ServiceError):
    code = grpc.StatusCode.UNAUTHENTICATED


class NotFound(ServiceError):
    code = grpc.StatusCode.NOT_FOUND


class AlreadyExists(ServiceError):
    code = grpc.StatusCode.ALREADY_EXISTS


class Aborted(ServiceError):
    code = grpc.StatusCode.ABORTED


class ResourceExhausted(ServiceError):
    code = grpc.StatusCode.RESOURCE_EXHAUSTED


class Unavailable(ServiceError):
    code = grpc.StatusCode.UNAVAILABLE


_BY_CODE: dict[grpc.StatusCode, type[ServiceError]] = {
    cls.code: cls
    for cls in (
        InvalidArgument,
        FailedPrecondition,
        PermissionDenied,
        Unauthenticated,
        NotFound,
        AlreadyExists,
        Aborted,
        ResourceExhausted,
        Unavailable,
    )
}


def malformed_request() -> InvalidArgument:
    """A request body that does not parse as its method's request: the caller's mistake."""
    return InvalidArgument("the request body is not a valid message of this method's request type", "request.malformed")


def to_status(error: ServiceError) -> grpc.Status:
    """The rich status for `error`."""
    info = error_details_pb2.ErrorInfo(reason=error.reason, domain=DOMAIN, metadata=error.metadata)
    detail = any_pb2.Any()
    detail.Pack(info)
    status = status_pb2.Status(code=getattr(code_pb2, error.code.name), message=error.message, details=[detail])
    return rpc_status.to_status(status)


def from_rpc_error(error: grpc.aio.AioRpcError) -> ServiceError:
    """The ServiceError a failed call stands for (Unavailable for transport failures)."""
    reason, metadata = error_info(error)
    return of_code(error.code(), error.details() or error.code().name, reason, metadata)


def connection_broke(error: grpc.aio.AioRpcError) -> bool:
    """True if the caller's channel, not the server, failed the call with INTERNAL: grpc's
    core answers "Internal error from Core" when the connection drops under a stream (the
    server was killed, or exited draining). Such a status carries no details, whereas every
    status a Tabletop server sends carries its ErrorInfo."""
    if error.code() != grpc.StatusCode.INTERNAL:
        return False
    return not any(key == "grpc-status-details-bin" for key, _ in error.trailing_metadata() or ())


def of_code(
    code: grpc.StatusCode, message: str, reason: str = "", metadata: dict[str, str] | None = None
) -> ServiceError:
    """The ServiceError of a status code, with its message, reason and metadata."""
    found = _BY_CODE.get(code, ServiceError)(message, reason, metadata)
    if type(found) is ServiceError:
        found.code = code
    return found


def reason_of(error: grpc.aio.AioRpcError) -> str:
    """The ErrorInfo reason of a failed call ('' if none)."""
    return from_rpc_error(error).reason
