"""A failed call read back as the ServiceError it stands for (services/common/errors.py)."""

from __future__ import annotations

import grpc

from services.common import errors

Trailing = tuple[tuple[str, str | bytes], ...]


def failed(code: grpc.StatusCode, details: str, trailing: Trailing = ()) -> grpc.aio.AioRpcError:
    return grpc.aio.AioRpcError(code, grpc.aio.Metadata(), grpc.aio.Metadata(*trailing), details=details)


def sent_by_a_server(error: errors.ServiceError) -> grpc.aio.AioRpcError:
    status = errors.to_status(error)
    return failed(status.code, status.details, tuple(status.trailing_metadata))


def test_a_refusal_a_server_sent_keeps_its_code_reason_and_metadata() -> None:
    refusal = errors.FailedPrecondition("not your turn", "turn.not_yours", {"seat": "1"})
    read = errors.from_rpc_error(sent_by_a_server(refusal))
    assert isinstance(read, errors.FailedPrecondition)
    assert (read.message, read.reason, read.metadata) == ("not your turn", "turn.not_yours", {"seat": "1"})


def test_internal_from_the_callers_own_core_is_a_broken_connection() -> None:
    # What grpc's core answers when the connection drops under a stream: no status details.
    assert errors.connection_broke(failed(grpc.StatusCode.INTERNAL, "Internal error from Core"))


def test_internal_a_server_sent_is_not_a_broken_connection() -> None:
    internal = errors.of_code(grpc.StatusCode.INTERNAL, "unreadable answer", "batch.unanswered")
    assert not errors.connection_broke(sent_by_a_server(internal))
    assert not errors.connection_broke(failed(grpc.StatusCode.UNKNOWN, "Exception calling application"))
