"""One game's wire format: its typed protos for actions, events and views, and
its opaque state blob.

A game declares its wire schema once, in its `GameDeclaration` (`schema`, a
`GameSchema` of services/games/common/schema.py) with the types its state is
made of (`state_types`). The proto generator (tools/gen_game_protos.py) renders
the protos from the schema, and `GameCodec.by_convention` builds the codec from
the same declaration, its messages imported from the generated modules the
generator's names lead to (`<package>.<file>_pb2`): a game writes no codec of
its own unless it needs code of its own.
"""

from __future__ import annotations

import importlib
import typing
from collections.abc import Iterable
from dataclasses import dataclass
from types import ModuleType
from typing import Generic, TypeVar

from google.protobuf.message import Message

from services.games.common import protocodec
from services.games.common.schema import GameSchema
from services.games.common.serde import StateCodec, state_codec

A = TypeVar("A")
E = TypeVar("E")
V = TypeVar("V")
S = TypeVar("S")


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

    @classmethod
    def by_convention(cls, schema: GameSchema, state_types: Iterable[ModuleType | type]) -> GameCodec[A, E, V, S]:
        """The codec of a declared game: its messages from the modules the proto
        generator writes for `schema` (`<package>.<file>_pb2`, one per proto file), its
        state blob over `state_types` (see `serde.state_codec`)."""
        generated = (importlib.import_module(f"{schema.package}.{stem}_pb2") for stem in schema.files)
        return cls.from_schema(schema, generated, state_codec(*state_types))

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
