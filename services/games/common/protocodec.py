"""Generic mapping between engine dataclasses and their protobuf mirrors.

Each game writes its actions, events and views as frozen dataclasses; its
protos in `proto/tabletop/games/<game>/v1/` are rendered from them by
tools/gen_game_protos.py (`make proto`), with field numbers kept in a lock file.
The protos follow a few conventions, so one reflective codec serves every game:

* a dataclass field maps to the proto field of the same name;
* `int`/`str`/`bool` map to scalars; `X | None` to a proto3 `optional` scalar
  or a message field (unset means None);
* `tuple[X, ...]` and `frozenset[X]` map to `repeated X`; `dict[K, V]` to `map<K, V>`;
* an `Enum` maps to a proto enum whose values are `<ENUM_NAME>_<MEMBER>` in
  upper snake case (e.g. Python `Symbol.MACHETE` -> proto `SYMBOL_MACHETE`),
  value 0 being `<ENUM_NAME>_UNSPECIFIED`, which decoding refuses;
* a union of dataclasses maps to a message with `oneof kind`, each option named
  after its class in snake case (`PlayCard` -> `play_card`) and typed by the
  message of the same name. The game's `Action` and `Event` messages are such
  unions; their options are the game's union type aliases, declared once in
  its `schema.py` (services/games/common/gamecodec.py `GameSchema`).

Decoding raises `ProtoMismatch` (a ValueError) on anything out of shape, which
the shell turns into INVALID_ARGUMENT.
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
import types
import typing
from collections.abc import Iterable, Iterator, Mapping
from contextvars import ContextVar
from enum import Enum
from functools import cache
from typing import TYPE_CHECKING, TypeAlias, TypeVar

from google.protobuf import descriptor as pure
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from services.games.common import values
from services.games.common.recent import Recent

if TYPE_CHECKING:
    from _typeshed import DataclassInstance
    from google._upb import _message as upb

    # A message's descriptors come from the pure-Python or the upb runtime.
    Field: TypeAlias = pure.FieldDescriptor | upb.FieldDescriptor
    MessageShape: TypeAlias = pure.Descriptor | upb.Descriptor
    EnumShape: TypeAlias = pure.EnumDescriptor | upb.EnumDescriptor

T = TypeVar("T")

# A dataclass field's runtime annotation (`int`, `tuple[Card, ...]`, `A | B`,
# an Enum class...), read by reflection and narrowed where it is used.
Hint: TypeAlias = object


class ProtoMismatch(ValueError):
    """A message that does not decode into the expected dataclass."""


@cache
def snake(name: str) -> str:
    """`PlayCard` -> `play_card`."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


@cache
def enum_prefix(enum_name: str) -> str:
    """`CardSymbol` -> `CARD_SYMBOL`."""
    return snake(enum_name).upper()


# ---------------------------------------------------------------- encoding
#
# Like decoding, encoding follows a plan worked out once per (message type,
# dataclass): which fields, of which kind, how each value goes out. A position
# encodes every seat's view, each of many small dataclasses, on every action.


def encode_union(value: object, message_cls: type[Message]) -> Message:
    """Wrap a dataclass into a union message (`oneof kind`)."""
    message = message_cls()
    _fill_union(message, value)
    return message


def encode(value: object, message_cls: type[Message]) -> Message:
    """A dataclass as the message of `message_cls`."""
    message = message_cls()
    _fill(message, value)
    return message


def _fill_union(message: Message, value: object) -> None:
    key = (message.DESCRIPTOR, type(value))
    option = _UNION_OPTIONS.get(key)
    if option is None:
        option = _UNION_OPTIONS[key] = _union_option(message.DESCRIPTOR, type(value))
    chosen = getattr(message, option)
    _fill(chosen, value)
    # An option with no fields must still be marked as chosen.
    chosen.SetInParent()


_UNION_OPTIONS: dict[tuple[MessageShape, type], str] = {}
# Whether a message is a union (has `oneof kind`), by descriptor.
_UNIONS: dict[MessageShape, bool] = {}


def _union_option(descriptor: MessageShape, cls: type) -> str:
    option = snake(cls.__name__)
    field = descriptor.fields_by_name.get(option)
    if field is None or field.containing_oneof is None:
        raise ProtoMismatch(f"{descriptor.full_name} has no option {option}")
    return option


def _fill(message: Message, value: object) -> None:
    _filler_of(message.DESCRIPTOR, type(value))(message, value)


def _filler_of(descriptor: MessageShape, cls: type) -> Filler:
    filler = _FILLERS.get((descriptor, cls))
    if filler is None:
        filler = _FILLERS[descriptor, cls] = _filler(descriptor, cls)
    return filler


def _fill_each(target: typing.Any, items: Iterable[object]) -> None:
    """Each of `items` into a new element of the repeated message field `target`, the
    filler found once per run of elements of one type rather than for every element
    (a view of La Isla fills about 80 elements, and looking each one's filler up cost
    as much as filling it)."""
    add = target.add
    kind: type | None = None
    fill: Filler = _fill_any
    for element in _ordered(items):
        message = add()
        if type(element) is not kind:
            kind = type(element)
            fill = _fill_any if _is_oneof(message.DESCRIPTOR) else _filler_of(message.DESCRIPTOR, kind)
        fill(message, element)


# A message filled from a dataclass: one function per (message, dataclass), written out.
Filler: TypeAlias = typing.Callable[[Message, object], None]
_FILLERS: dict[tuple[MessageShape, type], Filler] = {}


def _filler(descriptor: MessageShape, cls: type) -> Filler:
    """A function writing a `cls` dataclass into a `descriptor` message, its fields
    written out one after the other: a view of La Isla writes about 200 fields, and
    walking a plan of them, a call per field, cost twice as long. Scalars, lists of
    plain scalars and single messages are written in place, an enum through a table
    by member; maps and lists of messages or enums go through their `_Out`."""
    namespace: dict[str, object] = {"number_of": _number_of, "ordered": _ordered, "fill_any": _fill_any}
    body = ["def fill(message, value):"]
    for index, slot in enumerate(_out_plan(descriptor, cls)):
        body += [f"    item = value.{slot.name}", "    if item is not None:"]
        if slot.kind == "scalar" and slot.enum is None:
            body.append(f"        message.{slot.name} = item")
        elif slot.kind == "scalar":
            namespace[f"enum{index}"], namespace[f"numbers{index}"] = slot.enum, {}
            known = f"numbers{index}.get(id(item)) or number_of(enum{index}, item, numbers{index})"
            body.append(f"        message.{slot.name} = {known}")
        elif slot.kind == "repeated" and not slot.nested and slot.enum is None:
            body.append(f"        message.{slot.name}.extend(ordered(item) if type(item) is frozenset else item)")
        elif slot.kind == "message":
            body += [f"        sub = message.{slot.name}", "        fill_any(sub, item)", "        sub.SetInParent()"]
        else:
            namespace[f"write{index}"] = slot.write
            body.append(f"        write{index}(message, item)")
    body.append("    return None")
    exec(compile("\n".join(body), f"<fill {descriptor.full_name} from {cls.__qualname__}>", "exec"), namespace)
    filler = namespace["fill"]
    assert callable(filler)
    return typing.cast(Filler, filler)


def _number_of(enum_type: EnumShape, item: object, numbers: dict[int, int]) -> int:
    """An enum member's number, kept by the member's identity (members live as long as
    their class; anything else is refused by `_enum_number` and never kept)."""
    number = numbers[id(item)] = _enum_number(enum_type, item)
    return number


# (id of a tuple named `values.reusable`, the field's) -> the tuple and that field's
# encoding alone, kept from one `sharing()` to the next (the last 2048 to 4096): a view
# that gives the very tuple it gave before (an unchanged board) has it parsed from bytes,
# not encoded again. The tuple is held, so its id names no other while its entry lives.
SHARED_KEPT = 2048
_shared: Recent[tuple[int, int], tuple[object, bytes]] = Recent(SHARED_KEPT)
# The tuples first met within this `sharing()`, each with the field it was encoded into.
_Firsts: TypeAlias = "dict[tuple[int, int], tuple[object, typing.Any]]"
_FIRST: ContextVar[_Firsts | None] = ContextVar("protocodec_first", default=None)


@contextlib.contextmanager
def sharing() -> Iterator[None]:
    """Encodings made within share their repeated message fields by identity: a field
    holding the very tuple an earlier one held is copied from that one's encoding, not
    encoded again. The views of one state share their public parts so (a position
    encodes every seat's view), and a view the parts a position before gave too where
    the game named them `values.reusable`; a tuple is a value, so the copy is what
    encoding it would give."""
    token = _FIRST.set({})
    try:
        yield
    finally:
        _FIRST.reset(token)


def _write_shared(message: Message, out: _Out, item: Iterable[object], first: _Firsts) -> None:
    """The repeated message field `out` of `message` from `item`, copied where `item` was
    met before: parsed from its bytes (parsing 40 small messages costs a twentieth of
    filling them field by field), or copied from the field it was filled into within this
    `sharing()` (copying message to message costs half of filling). The field is named
    among all messages' by the id of its `_Out`, kept for the life of the process by
    `_out_slot`; `first` holds the tuples this `sharing()` met first."""
    name = out.name
    key = (id(item), id(out))
    kept = _shared.get(key)
    if kept is not None and kept[0] is item:
        message.MergeFromString(kept[1])
        return
    if values.is_reusable(item):
        alone = type(message)()
        _fill_each(getattr(alone, name), item)
        encoded = alone.SerializeToString()
        _shared.put(key, (item, encoded))
        message.MergeFromString(encoded)
        return
    target = getattr(message, name)
    earlier = first.get(key)
    if earlier is not None and earlier[0] is item:
        target.MergeFrom(earlier[1])
        return
    _fill_each(target, item)
    first[key] = (item, target)


@dataclasses.dataclass(frozen=True)
class _Out:
    """How to write one dataclass field into its proto field."""

    name: str
    kind: str  # "map", "repeated", "message" or "scalar"
    nested: bool  # a map's value or a repeated element is a message
    enum: EnumShape | None  # the scalar (or element, or map value) is this enum
    # Repeated messages that `sharing()` may copy: none with a map inside, whose entries a
    # copy (parsed from bytes, or merged message to message) serializes in another order
    # than a filled one, and a position is held byte for byte.
    shared: bool = False

    def write(self, message: Message, item: object) -> None:
        if self.kind == "scalar":
            setattr(message, self.name, _enum_number(self.enum, item) if self.enum is not None else item)
        elif self.kind == "message":
            sub = getattr(message, self.name)
            _fill_any(sub, item)
            sub.SetInParent()
        elif self.kind == "repeated":
            assert isinstance(item, Iterable)
            first = _FIRST.get() if self.shared else None
            if first is not None:
                _write_shared(message, self, item, first)
                return
            target = getattr(message, self.name)
            if self.nested:
                _fill_each(target, item)
            elif self.enum is not None:
                target.extend([_enum_number(self.enum, element) for element in _ordered(item)])
            else:
                target.extend(_ordered(item))
        else:
            target = getattr(message, self.name)
            assert isinstance(item, Mapping)
            for key, val in item.items():
                if self.nested:
                    _fill_any(target[key], val)
                else:
                    target[key] = _enum_number(self.enum, val) if self.enum is not None else val


def _out_plan(descriptor: MessageShape, cls: type) -> tuple[_Out, ...]:
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"expected a dataclass instance, not {cls.__name__}")
    slots = []
    for field in dataclasses.fields(cls):
        found = descriptor.fields_by_name.get(field.name)
        if found is None:
            raise ProtoMismatch(f"{descriptor.full_name} lacks field {field.name}")
        slots.append(_out_slot(found))
    return tuple(slots)


@cache  # one per field, for the life of the process: `_write_shared` keys by its id
def _out_slot(descriptor: Field) -> _Out:
    def enum_of(field: Field) -> EnumShape | None:
        return _enum_type(field) if field.type == FieldDescriptor.TYPE_ENUM else None

    if _is_map(descriptor):
        value_field = _message_type(descriptor).fields_by_name["value"]
        nested = value_field.type == FieldDescriptor.TYPE_MESSAGE
        return _Out(descriptor.name, "map", nested, enum_of(value_field))
    nested = descriptor.type == FieldDescriptor.TYPE_MESSAGE
    if _is_repeated(descriptor):
        shared = nested and not _holds_map(_message_type(descriptor))
        return _Out(descriptor.name, "repeated", nested, enum_of(descriptor), shared)
    return _Out(descriptor.name, "message" if nested else "scalar", nested, enum_of(descriptor))


def _holds_map(descriptor: MessageShape, seen: frozenset[str] = frozenset()) -> bool:
    """Whether a message of this type may hold a map field, at any depth."""
    if descriptor.full_name in seen:
        return False
    inside = seen | {descriptor.full_name}
    return any(
        _is_map(field) or (field.type == FieldDescriptor.TYPE_MESSAGE and _holds_map(_message_type(field), inside))
        for field in descriptor.fields
    )


def _message_type(descriptor: Field) -> MessageShape:
    message_type = descriptor.message_type
    assert message_type is not None
    return message_type


def _enum_type(descriptor: Field) -> EnumShape:
    enum_type = descriptor.enum_type
    assert enum_type is not None
    return enum_type


def _is_map(descriptor: Field) -> bool:
    return descriptor.type == FieldDescriptor.TYPE_MESSAGE and _message_type(descriptor).GetOptions().map_entry


def _is_repeated(descriptor: Field) -> bool:
    is_repeated = getattr(descriptor, "is_repeated", None)
    if is_repeated is not None:
        return bool(is_repeated)
    return descriptor.label == FieldDescriptor.LABEL_REPEATED  # type: ignore[union-attr]


def _ordered(item: Iterable[T]) -> Iterable[T]:
    if isinstance(item, frozenset):
        return sorted(item, key=lambda x: (str(type(x)), x.name if isinstance(x, Enum) else x))
    return item


def _fill_any(message: Message, value: object) -> None:
    """Fill a message from a dataclass, wrapping it when the message is a union."""
    if _is_oneof(message.DESCRIPTOR):
        _fill_union(message, value)
    else:
        _fill(message, value)


def _is_oneof(descriptor: MessageShape) -> bool:
    """Whether the message is a union: a `oneof kind` of messages, one per option."""
    union = _UNIONS.get(descriptor)
    if union is None:
        union = _UNIONS[descriptor] = descriptor.oneofs_by_name.get("kind") is not None
    return union


_ENUM_NUMBERS: dict[tuple[EnumShape, Enum], int] = {}


def _enum_number(enum_type: EnumShape, item: object) -> int:
    if not isinstance(item, Enum):
        raise ProtoMismatch(f"{enum_type.name} expects an enum member")
    key = (enum_type, item)
    number = _ENUM_NUMBERS.get(key)
    if number is None:
        wanted = f"{enum_prefix(enum_type.name)}_{item.name.upper()}"
        value = enum_type.values_by_name.get(wanted)
        if value is None:
            raise ProtoMismatch(f"{enum_type.full_name} lacks {wanted}")
        number = _ENUM_NUMBERS[key] = value.number
    return number


# ---------------------------------------------------------------- decoding


def decode_union(message: Message, options: Iterable[type[T]]) -> T:
    """The dataclass chosen by a union message's `oneof kind`."""
    return union_decoder(message.DESCRIPTOR, tuple(options))(message)


@cache
def union_decoder(union: MessageShape, options: tuple[type[T], ...]) -> typing.Callable[[Message], T]:
    """decode_union for messages of type `union` as one function, kept per (union, options):
    which dataclass a kind is and how it decodes is worked out at its first message, not
    at every one (a rebuild decodes thousands of events)."""
    by_option = _options(options)
    chosen_decoders: dict[str, typing.Callable[[Message], T]] = {}

    def decode_chosen(message: Message) -> T:
        chosen = message.WhichOneof("kind")
        decoder = chosen_decoders.get(chosen)  # type: ignore[arg-type]
        if decoder is None:
            if chosen is None:
                raise ProtoMismatch(f"{union.name}: no kind chosen")
            cls = by_option.get(chosen)
            if cls is None:
                raise ProtoMismatch(f"{union.name}: unsupported kind {chosen}")
            decoder = chosen_decoders[chosen] = _decoder_of(getattr(message, chosen).DESCRIPTOR, cls)
        return decoder(getattr(message, chosen))

    return decode_chosen


def decode(message: Message, cls: type[T]) -> T:
    """The dataclass `cls` from its mirror message."""
    return _decoder_of(message.DESCRIPTOR, cls)(message)


def _decoder_of(shape: MessageShape, cls: type[T]) -> typing.Callable[[Message], T]:
    decoder = _DECODERS.get((shape, cls))
    if decoder is None:
        decoder = _DECODERS[(shape, cls)] = _decoder(_plan(shape, cls), cls)
    return decoder  # type: ignore[return-value]


_DECODERS: dict[tuple[MessageShape, type], typing.Callable[[Message], object]] = {}


def _decoder(plan: tuple[_Slot, ...], cls: type) -> typing.Callable[[Message], object]:
    """One function per (message type, dataclass) that builds the dataclass from the
    message in one call: plain scalars and lists of them read inline, every other field
    through its slot. Generated as dataclasses generates __init__ (names are the
    dataclass's own fields, never input), since a rebuild decodes thousands of events."""
    # Positional where every field may be (a frozen dataclass's __init__ takes keywords
    # at about twice the cost); the plan holds the fields in their declared order.
    positional = not any(field.kw_only or not field.init for field in dataclasses.fields(_dataclass_type(cls)))
    parts = []
    for index, slot in enumerate(plan):
        read = _inline_read(slot, index)
        parts.append(read if positional else f"{slot.name}={read}")
    source = f"def decode(m):\n    return cls({', '.join(parts)})\n"
    scope: dict[str, object] = {"cls": cls, "slots": plan}
    exec(compile(source, f"<decoder {cls.__qualname__}>", "exec"), scope)
    return scope["decode"]  # type: ignore[return-value]


def _inline_read(slot: _Slot, index: int) -> str:
    descriptor = slot.descriptor
    plain = descriptor.type not in (FieldDescriptor.TYPE_MESSAGE, FieldDescriptor.TYPE_ENUM)
    if plain and slot.kind == "single":
        if descriptor.has_presence and slot.optional:
            return f"(m.{slot.name} if m.HasField({slot.name!r}) else None)"
        return f"m.{slot.name}"
    if plain and slot.kind == "repeated" and not slot.frozen:
        return f"tuple(m.{slot.name})"
    return f"slots[{index}].read(m)"


@dataclasses.dataclass(frozen=True)
class _Slot:
    """How to read one dataclass field from its proto field, worked out once per
    (message type, dataclass): the hints are looked at here, not per message, since
    a rebuild decodes thousands of events of a few types."""

    name: str
    descriptor: Field
    hint: Hint  # without its Optional
    optional: bool
    kind: str  # "map", "repeated" or "single"
    element_hint: Hint = None
    frozen: bool = False  # a frozenset field
    value_field: Field | None = None  # a map's value

    def read(self, message: Message) -> object:
        raw = getattr(message, self.name)
        if self.kind == "map":
            assert self.value_field is not None
            return {k: _element(v, self.value_field, self.element_hint) for k, v in raw.items()}
        if self.kind == "repeated":
            items = tuple(_element(v, self.descriptor, self.element_hint) for v in raw)
            return frozenset(items) if self.frozen else items
        if self.descriptor.has_presence and not message.HasField(self.name):
            if self.optional:
                return None
            if self.descriptor.type == FieldDescriptor.TYPE_MESSAGE:
                raise ProtoMismatch(f"{message.DESCRIPTOR.name}.{self.name} is required")
        return _element(raw, self.descriptor, self.hint)


def _plan(descriptor: MessageShape, cls: type) -> tuple[_Slot, ...]:
    shape = _dataclass_type(cls)
    hints = _hints(shape)
    slots = []
    for field in dataclasses.fields(shape):
        found = descriptor.fields_by_name.get(field.name)
        if found is None:
            raise ProtoMismatch(f"{descriptor.full_name} lacks field {field.name}")
        slots.append(_slot(found, hints[field.name]))
    return tuple(slots)


def _slot(descriptor: Field, declared: Hint) -> _Slot:
    hint, optional = _strip_optional(declared)
    if _is_map(descriptor):
        _, value_hint = typing.get_args(hint)
        value_field = _message_type(descriptor).fields_by_name["value"]
        return _Slot(descriptor.name, descriptor, hint, optional, "map", value_hint, value_field=value_field)
    if _is_repeated(descriptor):
        frozen = typing.get_origin(hint) is frozenset
        return _Slot(descriptor.name, descriptor, hint, optional, "repeated", typing.get_args(hint)[0], frozen)
    return _Slot(descriptor.name, descriptor, hint, optional, "single")


def _dataclass_type(cls: type) -> type[DataclassInstance]:
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"expected a dataclass, not {cls.__name__}")
    return cls


@cache
def _options(classes: tuple[type[T], ...]) -> dict[str, type[T]]:
    return {snake(cls.__name__): cls for cls in classes}


@cache
def _hints(cls: type) -> dict[str, Hint]:
    return typing.get_type_hints(cls)


def _strip_optional(hint: Hint) -> tuple[Hint, bool]:
    args = typing.get_args(hint)
    if _is_union(hint) and type(None) in args:
        rest = tuple(a for a in args if a is not type(None))
        return (rest[0] if len(rest) == 1 else typing.Union[rest]), True  # noqa: UP007
    return hint, False


def _is_union(hint: Hint) -> bool:
    return typing.get_origin(hint) in (typing.Union, types.UnionType)


def _element(raw: object, descriptor: Field, hint: Hint) -> object:
    if descriptor.type == FieldDescriptor.TYPE_MESSAGE:
        assert isinstance(raw, Message)
        if _is_union(hint):
            return decode_union(raw, typing.get_args(hint))
        assert isinstance(hint, type)
        return decode(raw, hint)
    if descriptor.type == FieldDescriptor.TYPE_ENUM:
        assert isinstance(raw, int) and isinstance(hint, type) and issubclass(hint, Enum)
        return _enum_in(descriptor, hint, raw)
    return raw


def _enum_in(descriptor: Field, hint: type[Enum], number: int) -> Enum:
    enum_type = _enum_type(descriptor)
    value = enum_type.values_by_number.get(number)
    prefix = enum_prefix(enum_type.name) + "_"
    if value is None or number == 0:
        raise ProtoMismatch(f"{descriptor.name}: enum value {number} is not allowed")
    member = value.name[len(prefix) :]
    for candidate in hint:
        if candidate.name.upper() == member:
            return candidate
    raise ProtoMismatch(f"{descriptor.name}: no member {member}")
