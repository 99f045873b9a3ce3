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
from typing import Generic, TypeVar

from google.protobuf.message import Message

from services.games.common import protocodec
from services.games.common.serde import StateCodec

A = TypeVar("A")
E = TypeVar("E")
V = TypeVar("V")
S = TypeVar("S")


@dataclass(frozen=True)
class OneOf:
    """A union of dataclasses on the wire: the message `name` with `oneof kind`."""

    name: str
    # A `A | B | C` type alias; its options are its arguments, in order. Typed
    # object because a type alias of a union has no static type of its own.
    alias: object
    doc: str = ""

    @property
    def options(self) -> tuple[type, ...]:
        # A union of one is the class itself: its only option.
        options = typing.get_args(self.alias) or (self.alias,)
        if not all(isinstance(option, type) for option in options):
            raise TypeError(f"{self.name}: the options of a union must be classes")
        return options


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
class GameCodec(Generic[A, E, V, S]):
    """Translates one game's dataclasses (actions `A`, events `E`, views `V`,
    states `S`) to and from its protobuf messages."""

    game: str
    action_message: type[Message]
    action_types: tuple[type[A], ...]
    event_message: type[Message]
    event_types: tuple[type[E], ...]
    view_message: type[Message]
    view_type: type[V]
    state: StateCodec

    @classmethod
    def from_schema(
        cls, schema: GameSchema, generated: Iterable[ModuleType], state: StateCodec
    ) -> GameCodec[A, E, V, S]:
        """The codec of `schema`, its messages taken from the generated `*_pb2` modules.
        The schema's unions are untyped, so a game names its types where it keeps
        the codec (`CODEC: GameCodec[Action, Event, View, State] = ...`)."""
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

    def encode_action(self, action: A) -> Message:
        return protocodec.encode_union(action, self.action_message)

    def decode_action(self, message: Message) -> A:
        """Raises protocodec.ProtoMismatch on a malformed action."""
        return protocodec.decode_union(message, self.action_types)

    def encode_event(self, event: E) -> Message:
        return protocodec.encode_union(event, self.event_message)

    def decode_event(self, message: Message) -> E:
        return protocodec.decode_union(message, self.event_types)

    def decode_events(self, payloads: Iterable[bytes]) -> list[E]:
        """Each serialized Event message's event, oldest first. A payload met before in
        the same call decodes once: a game's log repeats itself (the same pass, the same
        roll, the same card), and a rebuild decodes thousands. Only events that are
        values all through (hashable: no dict or list inside) are shared, so no fold can
        change an event another step sees. Raises DecodeError or protocodec.ProtoMismatch."""
        parse = self.event_message.FromString
        decode = protocodec.union_decoder(self.event_message.DESCRIPTOR, tuple(self.event_types))
        known: dict[bytes, E] = {}
        events: list[E] = []
        for data in payloads:
            event = known.get(data)
            if event is None:
                event = decode(parse(data))
                try:
                    hash(event)
                except TypeError:
                    pass
                else:
                    known[data] = event
            events.append(event)
        return events

    def encode_view(self, view: V) -> Message:
        return protocodec.encode(view, self.view_message)

    def decode_view(self, message: Message) -> V:
        return protocodec.decode(message, self.view_type)

    def encode_state(self, state: S) -> bytes:
        return self.state.encode(state)

    def decode_state(self, data: bytes) -> S:
        # The blob was written by encode_state of this game's codec.
        return typing.cast(S, self.state.decode(data))
