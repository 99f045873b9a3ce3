"""Dice-and-hand's wire format.

The game lives beside the benchmark, not in proto/ (it is no product game), so
its messages are declared here and added to the default descriptor pool when
this module is imported, in every process that loads the game. They follow
protocodec's conventions like any generated game proto.
"""

from __future__ import annotations

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.message import Message

from bench import dice_hand
from services.games.common.gamecodec import GameCodec
from services.games.common.serde import StateCodec

PACKAGE = "tabletop.bench.v1"
FILE = "tabletop/bench/v1/dice_hand.proto"
Field = descriptor_pb2.FieldDescriptorProto
INT, STRING, BOOL, MESSAGE = Field.TYPE_INT32, Field.TYPE_STRING, Field.TYPE_BOOL, Field.TYPE_MESSAGE
ONE, MANY = Field.LABEL_OPTIONAL, Field.LABEL_REPEATED

# message -> its fields (name, type, label), numbered in order.
MESSAGES: dict[str, list[tuple[str, int, int]]] = {
    "Move": [],
    "DeckShuffled": [("size", INT, ONE)],
    "MoveStarted": [("seat", INT, ONE)],
    "DiceRolled": [("seat", INT, ONE), ("values", INT, MANY)],
    "CardDrawn": [("seat", INT, ONE), ("card", STRING, ONE)],
    "CardHidden": [("seat", INT, ONE)],
    "View": [
        ("scores", INT, MANY),
        ("hand_sizes", INT, MANY),
        ("current", INT, ONE),
        ("moves_left", INT, ONE),
        ("my_hand", STRING, MANY),
        ("finished", BOOL, ONE),
    ],
}
# union message -> its options (message names), each in `oneof kind`.
UNIONS = {
    "Action": [t.__name__ for t in dice_hand.ACTION_TYPES],
    "Event": [t.__name__ for t in dice_hand.EVENT_TYPES],
}


def file_descriptor() -> descriptor_pb2.FileDescriptorProto:
    """The .proto file these messages would have been written in."""
    proto = descriptor_pb2.FileDescriptorProto(name=FILE, package=PACKAGE, syntax="proto3")
    for name, fields in MESSAGES.items():
        message = proto.message_type.add(name=name)
        for number, (field_name, kind, label) in enumerate(fields, start=1):
            message.field.add(name=field_name, number=number, type=kind, label=label)
    for name, options in UNIONS.items():
        union = proto.message_type.add(name=name)
        union.oneof_decl.add(name="kind")
        for number, option in enumerate(options, start=1):
            union.field.add(
                name=_snake(option),
                number=number,
                type=MESSAGE,
                type_name=f".{PACKAGE}.{option}",
                label=ONE,
                oneof_index=0,
            )
    return proto


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() and i else c.lower() for i, c in enumerate(name))


def _message(name: str) -> type[Message]:
    pool = descriptor_pool.Default()
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{PACKAGE}.{name}"))


descriptor_pool.Default().Add(file_descriptor())

CODEC = GameCodec(
    game="dice_hand",
    action_message=_message("Action"),
    action_types=dice_hand.ACTION_TYPES,
    event_message=_message("Event"),
    event_types=dice_hand.EVENT_TYPES,
    view_message=_message("View"),
    view_type=dice_hand.View,
    state=StateCodec([dice_hand.State]),
)
