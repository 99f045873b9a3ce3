"""One game's wire format: its typed protos for actions, events and views, and
its opaque state blob. Each game's `codec.py` builds one `GameCodec`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from google.protobuf.message import Message

from services.games.common import protocodec
from services.games.common.serde import StateCodec


@dataclass(frozen=True)
class GameCodec:
    """Translates one game's dataclasses to and from its protobuf messages."""

    game: str
    action_message: type[Message]
    action_types: tuple[type, ...]
    event_message: type[Message]
    event_types: tuple[type, ...]
    view_message: type[Message]
    view_type: type
    state: StateCodec

    def encode_action(self, action: Any) -> Message:
        return protocodec.encode_union(action, self.action_message)

    def decode_action(self, message: Message) -> Any:
        """Raises protocodec.ProtoMismatch on a malformed action."""
        return protocodec.decode_union(message, self.action_types)

    def encode_event(self, event: Any) -> Message:
        return protocodec.encode_union(event, self.event_message)

    def decode_event(self, message: Message) -> Any:
        return protocodec.decode_union(message, self.event_types)

    def encode_view(self, view: Any) -> Message:
        return protocodec.encode(view, self.view_message)

    def decode_view(self, message: Message) -> Any:
        return protocodec.decode(message, self.view_type)

    def encode_state(self, state: Any) -> bytes:
        return self.state.encode(state)

    def decode_state(self, data: bytes) -> Any:
        return self.state.decode(data)
