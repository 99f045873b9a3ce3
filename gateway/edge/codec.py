"""Connect's JSON codec for google.protobuf messages, with Any resolved through types.pool()."""

from __future__ import annotations

from typing import TypeVar

from connectrpc.codec import Codec
from connectrpc.compat import google_protobuf_binary_codec
from google.protobuf import json_format
from google.protobuf.message import Message

from gateway.edge import types

M = TypeVar("M", bound=Message)


class JsonCodec(Codec[Message, Message]):
    """The proto3 JSON mapping; unknown fields are refused, as the gateway refuses malformed input."""

    def name(self) -> str:
        return "json"

    def encode(self, message: Message) -> bytes:
        # Zero values are written out (seat 0, version 0, false, empty lists): a JSON
        # client cannot tell "seat 0" from "no seat" when proto3 leaves zeros out, and
        # Connect's own clients read both forms.
        text = json_format.MessageToJson(
            message, descriptor_pool=types.pool(), indent=None, always_print_fields_with_no_presence=True
        )
        return text.encode()

    def decode(self, data: bytes | bytearray, message_class: type[M]) -> M:
        message = message_class()
        json_format.Parse(bytes(data), message, descriptor_pool=types.pool())
        return message


def codecs() -> list[Codec[Message, Message]]:
    """Binary protobuf and JSON, the two encodings Connect and gRPC-Web clients send."""
    return [google_protobuf_binary_codec(), JsonCodec()]
