"""The reason a refusal carries: every status a Tabletop server sends holds a
google.rpc.ErrorInfo in its `grpc-status-details-bin` trailer, whose `reason` is the
stable rule id (docs/clients.md lists them) and whose metadata says more."""

from __future__ import annotations

import grpc
from google.rpc import error_details_pb2, status_pb2


def error_info(error: grpc.aio.AioRpcError) -> tuple[str, dict[str, str]]:
    """The ErrorInfo's reason and metadata of a failed call ("" and {} if it carries none)."""
    reason, metadata = "", {}
    for key, value in error.trailing_metadata() or ():
        if key == "grpc-status-details-bin" and isinstance(value, bytes):
            status = status_pb2.Status.FromString(value)
            for detail in status.details:
                info = error_details_pb2.ErrorInfo()
                if detail.Unpack(info):
                    reason, metadata = info.reason, dict(info.metadata)
    return reason, metadata
