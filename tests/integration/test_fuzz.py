"""Fuzzing every gateway method: no input ever yields UNKNOWN, INTERNAL or a crash.

Two kinds of input: random bytes as the request body, and well-formed
messages with hostile values (huge and odd strings, extreme integers, unknown
enum values, random Any payloads), each sent without a token, with garbage,
with a session and with a seat token.
"""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from google.protobuf import any_pb2, descriptor
from google.protobuf.message import Message
from grpc_health.v1 import health_pb2, health_pb2_grpc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tabletop.gateway.v1 import gateway_pb2 as gpb

from cli.api import bearer
from contract.gateway import SERVICES, GatewayStub
from deploy.stack import Stack

pytestmark = pytest.mark.integration

CLIENT_FAULTS = {grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL}
CALL_SECONDS = 3.0
FD = descriptor.FieldDescriptor

_TEXT = st.one_of(
    st.text(max_size=12),
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-_", min_size=1, max_size=40),
    st.sampled_from(["", "pig", "la_isla", "0", "-1", "../../etc/passwd", "\x00", "é" * 70, "x" * 5000]),
)
_INT = st.one_of(st.integers(-3, 70), st.sampled_from([-(2**31), 2**31 - 1, 10**9]))
_INT64 = st.one_of(_INT, st.sampled_from([-(2**63), 2**63 - 1, 2**53 + 1]))


def _value(field: descriptor.FieldDescriptor, depth: int) -> st.SearchStrategy[Any]:
    if field.type == FD.TYPE_STRING:
        return _TEXT
    if field.type == FD.TYPE_BYTES:
        return st.binary(max_size=64)
    if field.type == FD.TYPE_BOOL:
        return st.booleans()
    if field.type in (FD.TYPE_INT32, FD.TYPE_SINT32, FD.TYPE_SFIXED32, FD.TYPE_ENUM):
        return _INT
    if field.type in (FD.TYPE_INT64, FD.TYPE_SINT64, FD.TYPE_SFIXED64):
        return _INT64
    if field.type in (FD.TYPE_UINT32, FD.TYPE_UINT64, FD.TYPE_FIXED32, FD.TYPE_FIXED64):
        return st.integers(0, 2**32 - 1)
    if field.type in (FD.TYPE_DOUBLE, FD.TYPE_FLOAT):
        return st.floats(allow_nan=True)
    return _message(field.message_type, depth + 1)


def _any() -> st.SearchStrategy[any_pb2.Any]:
    urls = st.one_of(_TEXT, st.sampled_from([
        "type.googleapis.com/tabletop.testing.v1.Action",
        "type.googleapis.com/tabletop.games.el_dorado.v1.Action",
        "type.googleapis.com/google.protobuf.Empty",
    ]))
    return st.builds(lambda u, v: any_pb2.Any(type_url=u, value=v), urls, st.binary(max_size=80))


def _message(desc: descriptor.Descriptor, depth: int = 0) -> st.SearchStrategy[Message]:
    """Random messages of `desc`'s type, a few levels deep."""
    from google.protobuf import message_factory

    if desc.full_name == "google.protobuf.Any":
        return _any()
    cls = message_factory.GetMessageClass(desc)
    if depth > 2:
        return st.just(cls())
    fields = {}
    for field in desc.fields:
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            key, value = field.message_type.fields_by_name["key"], field.message_type.fields_by_name["value"]
            fields[field.name] = st.dictionaries(_value(key, depth), _value(value, depth), max_size=20)
        elif field.is_repeated:
            fields[field.name] = st.lists(_value(field, depth), max_size=3)
        else:
            fields[field.name] = st.one_of(st.none(), _value(field, depth))
    return st.fixed_dictionaries({}, optional=fields).map(lambda values: _build(cls, values))


def _build(cls: type[Message], values: dict[str, Any]) -> Message:
    message = cls()
    for name, value in values.items():
        if value is None:
            continue
        field = getattr(message, name)
        try:
            if isinstance(value, Message):
                field.CopyFrom(value)
            elif isinstance(value, dict):
                for k, v in value.items():
                    if isinstance(v, Message):
                        field[k].CopyFrom(v)
                    else:
                        field[k] = v
            elif isinstance(value, list):
                for item in value:
                    field.add().CopyFrom(item) if isinstance(item, Message) else field.append(item)
            else:
                setattr(message, name, value)
        except (ValueError, TypeError):
            pass  # a value this field's type cannot hold (a oneof clash, a float for an enum): leave it out
    return message


Metadata = tuple[tuple[str, str], ...] | None


@pytest.fixture(scope="module")
def channel(stack: Stack) -> Any:
    with grpc.insecure_channel(stack.gateway_addr) as opened:
        yield opened


@pytest.fixture(scope="module")
def credentials(channel: grpc.Channel) -> list[Metadata]:
    """Tokens to attach: none, garbage, a malformed header, a session, a seat token."""
    stub = GatewayStub(channel)
    signed = stub.Authenticate(gpb.AuthenticateRequest(device_id="fuzzing-device-0001"))
    session = bearer(signed.session_token)
    match_id = stub.CreateMatch(gpb.CreateMatchRequest(game="pig", seat_count=2), metadata=session).match.match_id
    seat = stub.JoinMatch(gpb.JoinMatchRequest(match_id=match_id), metadata=session)
    return [None, bearer("garbage"), (("authorization", "x"),), session, bearer(seat.token)]


def _call(
    channel: grpc.Channel, method: descriptor.MethodDescriptor, body: bytes, metadata: Metadata
) -> grpc.StatusCode:
    path = f"/{method.containing_service.full_name}/{method.name}"
    try:
        if method.client_streaming:
            for _ in channel.stream_stream(path)(iter([body]), metadata=metadata, timeout=CALL_SECONDS):
                pass
        elif method.server_streaming:
            for _ in channel.unary_stream(path)(body, metadata=metadata, timeout=CALL_SECONDS):
                pass
        else:
            channel.unary_unary(path)(body, metadata=metadata, timeout=CALL_SECONDS)
    except grpc.RpcError as error:
        return error.code()  # type: ignore[no-any-return]
    return grpc.StatusCode.OK


METHODS = [method for service in SERVICES for method in service.methods]


@pytest.mark.parametrize("method", METHODS, ids=[m.name for m in METHODS])
def test_hostile_messages_get_a_precise_status(channel: grpc.Channel, credentials: list[Metadata],
                                               method: descriptor.MethodDescriptor) -> None:
    seen: list[grpc.StatusCode] = []

    @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
    @given(_message(method.input_type), st.sampled_from(credentials))
    def run(request: Message, metadata: Metadata) -> None:
        code = _call(channel, method, request.SerializeToString(), metadata)
        seen.append(code)
        assert code not in CLIENT_FAULTS, (method.name, request, metadata)

    run()
    assert seen  # hypothesis ran the calls (few for a message without fields)


@pytest.mark.parametrize("method", METHODS, ids=[m.name for m in METHODS])
def test_random_bytes_as_the_body_are_refused_not_a_server_fault(
    channel: grpc.Channel, method: descriptor.MethodDescriptor
) -> None:
    bodies = [b"\xff" * 7, b"\x0a\xff\xff\xff\xff\x0f", bytes(range(256)), b"\x12\x05abc"]
    for body in bodies:
        code = _call(channel, method, body, None)
        assert code not in CLIENT_FAULTS, (method.name, body)
    # A body that cannot parse as this method's request is the client's mistake.
    assert _call(channel, method, b"\xff" * 7, None) == grpc.StatusCode.INVALID_ARGUMENT


def test_the_gateway_still_serves_after_the_fuzzing(stack: Stack, channel: grpc.Channel) -> None:
    reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
    assert reply.status == health_pb2.HealthCheckResponse.SERVING
    assert stack.procs["gateway"].process is not None and stack.procs["gateway"].process.poll() is None
