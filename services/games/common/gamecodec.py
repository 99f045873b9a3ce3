"""One game's wire format: its typed protos for actions, events and views, and
its opaque state blob.

Each game declares its schema once (`GameSchema`, in its `schema.py`, pure
Python): the proto package, the proto files and the root unions. The proto
generator (tools/gen_game_protos.py) renders the protos from it, and the game's
`codec.py` builds its `GameCodec` from the same declaration, so the union
options the codec decodes are the ones the protos were rendered with.
"""

from __future__ import annotations

import typing
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from google.protobuf.message import Message

from services.games.common import protocodec
from services.games.common.serde import StateCodec


@dataclass(frozen=True)
class OneOf:
    """A union of dataclasses on the wire: the message `name` with `oneof kind`."""

    name: str
    # A `A | B | C` type alias; its options are its arguments, in order. Typed
    # Any because a type alias of a union has no static type of its own.
    alias: Any
    doc: str = ""

    @property
    def options(self) -> tuple[type, ...]:
        # A union of one is the class itself: its only option.
        return typing.get_args(self.alias) or (self.alias,)


ROLES = ("action", "event", "view")
STANDARD_FILES: Mapping[str, tuple[str, ...]] = {"actions": ("action",), "events": ("event",), "views": ("view",)}


@dataclass(frozen=True)
class GameSchema:
    """Everything the proto generator and the codec need to know about one game's wire format."""

    game: str
    package: str  # e.g. "tabletop.games.el_dorado.v1"; the folder under proto/ follows it
    action: OneOf
    event: OneOf
    view: type
    # Proto file stem -> the roots ("action", "event", "view") it declares. Each
    # type a root reaches goes in the first file (in this order) that reaches it.
    files: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: STANDARD_FILES)
    # Unions used as field types (their messages need a name); the roots need none here.
    unions: tuple[OneOf, ...] = ()

    def __post_init__(self) -> None:
        declared = sorted(role for roles in self.files.values() for role in roles)
        if declared != sorted(ROLES):
            raise ValueError(f"{self.game}: the files must declare each of {ROLES} once, not {declared}")

    def roots(self) -> dict[str, OneOf | type]:
        """Role ("action", "event", "view") -> its union or its view dataclass."""
        return {"action": self.action, "event": self.event, "view": self.view}


def _message(generated: Iterable[ModuleType], name: str) -> type[Message]:
    for module in generated:
        found = getattr(module, name, None)
        if isinstance(found, type) and issubclass(found, Message):
            return found
    raise LookupError(f"no generated message {name}: run `make proto`")


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

    @classmethod
    def from_schema(cls, schema: GameSchema, generated: Iterable[ModuleType], state: StateCodec) -> GameCodec:
        """The codec of `schema`, its messages taken from the generated `*_pb2` modules."""
        modules = tuple(generated)
        return cls(
            game=schema.game,
            action_message=_message(modules, schema.action.name),
            action_types=schema.action.options,
            event_message=_message(modules, schema.event.name),
            event_types=schema.event.options,
            view_message=_message(modules, schema.view.__name__),
            view_type=schema.view,
            state=state,
        )

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
