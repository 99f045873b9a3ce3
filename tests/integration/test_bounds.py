"""Every field a client sends is bounded and checked at the gateway: a mistake is
INVALID_ARGUMENT naming the field, and nothing oversized is ever stored."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2
from tabletop.gateway.v1 import gateway_pb2 as gpb

from cli.api import Gateway

pytestmark = pytest.mark.integration
BIG = "x" * (100 * 1024)


async def refusal(call: Any) -> tuple[grpc.StatusCode, str, str]:
    """(code, ErrorInfo reason, message) of a call that must fail."""
    try:
        await call
    except grpc.aio.AioRpcError as error:
        reason = ""
        for key, value in error.trailing_metadata() or ():
            if key == "grpc-status-details-bin":
                for detail in status_pb2.Status.FromString(value).details:
                    info = error_details_pb2.ErrorInfo()
                    if detail.Unpack(info):
                        reason = info.reason
        return error.code(), reason, error.details() or ""
    raise AssertionError("the call succeeded")


async def test_oversized_and_out_of_range_fields_are_invalid_argument(gateway: Gateway) -> None:
    player = await gateway.sign_in("bounds")
    match_id = (await gateway.create("pig", 2)).match.match_id
    seat = await gateway.join(match_id, "bounds")
    stub, session = gateway.stub, player.metadata
    cases = {
        "command_id": stub.CreateMatch(gpb.CreateMatchRequest(game="pig", seat_count=2, command_id=BIG),
                                       metadata=session),
        "config[target]": stub.CreateMatch(gpb.CreateMatchRequest(game="pig", seat_count=2,
                                                                  config={"target": BIG}), metadata=session),
        "config": stub.CreateMatch(gpb.CreateMatchRequest(game="pig", seat_count=2,
                                                          config={f"k{i}": "1" for i in range(17)}),
                                   metadata=session),
        "seat_count": stub.CreateMatch(gpb.CreateMatchRequest(game="pig", seat_count=10**9), metadata=session),
        "game": stub.CreateMatch(gpb.CreateMatchRequest(game="Pig!", seat_count=2), metadata=session),
        "match_id": stub.JoinMatch(gpb.JoinMatchRequest(match_id="m" * 65), metadata=session),
        "seat": stub.JoinMatch(gpb.JoinMatchRequest(match_id=match_id, seat=-1), metadata=session),
        "after_version": stub.GetMatchLog(gpb.GetMatchLogRequest(match_id=match_id, after_version=-1)),
        "limit": stub.GetMatchLog(gpb.GetMatchLogRequest(match_id=match_id, limit=-5)),
        "status": stub.ListMatches(gpb.ListMatchesRequest(status=99)),
        "action": stub.SubmitAction(
            gpb.SubmitActionRequest(match_id=match_id, action=any_pb2.Any(type_url="t/" + "a" * 300)),
            metadata=seat.metadata,
        ),
    }
    for field, call in cases.items():
        code, reason, message = await refusal(call)
        assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, field), (field, code, reason, message)
        assert BIG[:100] not in message
    watch = stub.WatchMatch(gpb.WatchMatchRequest(match_id=match_id, after_version=-3))
    code, reason, _ = await refusal(watch.read())
    assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "after_version")


async def test_a_request_over_a_megabyte_is_refused_by_size(gateway: Gateway) -> None:
    player = await gateway.sign_in("bounds")
    huge = gpb.CreateMatchRequest(game="pig", seat_count=2, command_id="x" * (1 << 20))
    code, _, _ = await refusal(gateway.stub.CreateMatch(huge, metadata=player.metadata))
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED


async def test_an_unknown_match_is_not_found(gateway: Gateway) -> None:
    player = await gateway.sign_in("lost")
    code, _, message = await refusal(gateway.stub.JoinMatch(gpb.JoinMatchRequest(match_id="nosuchmatch"),
                                                            metadata=player.metadata))
    assert code == grpc.StatusCode.NOT_FOUND and "127.0.0.1" not in message
