"""Canonical bytes for engine states (frozen dataclasses), and back.

A state is private to its engine: only the same engine ever reads it, in the
rules process or from a snapshot. So states travel as one opaque, versioned
blob instead of a mirrored proto schema per game; actions, events and views,
which clients read, are typed protos (see `protocodec`).

Supported values: None, bool, int, str, Enum members, tuples, frozensets,
dicts with str or int keys, and dataclasses registered with the `StateCodec`.
Output is deterministic (sorted sets and keys), so equal states give equal bytes.
"""

from __future__ import annotations

import dataclasses
import json
import json.encoder
from collections.abc import Callable, Iterable, Mapping, Sequence
from enum import Enum
from types import ModuleType
from typing import Any, TypeAlias

# Parts whose text `StateCodec` keeps (per generation; see `_texts`).
TEXTS_KEPT = 50_000
_LITERALS = {None: "null", True: "true", False: "false"}
_quoted: Callable[[str], str] = json.encoder.encode_basestring_ascii  # type: ignore[attr-defined]

# What `encode` hands to json.dumps (and json.loads gives back).
Plain: TypeAlias = bool | int | str | Sequence["Plain"] | Mapping[str, "Plain"] | None


class StateCodec:
    """Encodes and decodes the dataclasses and enums listed at construction."""

    def __init__(self, types: Iterable[type]) -> None:
        self._types: dict[str, type] = {}
        for cls in types:
            name = cls.__name__
            if name in self._types and self._types[name] is not cls:
                raise ValueError(f"two state types named {name}")
            self._types[name] = cls
        self._encoders: dict[type, Callable[[Any], Plain]] = {}
        self._writers: dict[type, Callable[[Any], str]] = {}
        # The text of recent parts by identity, each beside the part itself (so its id is
        # not reused while kept): states are values, a part's text never changes. Two
        # generations, the older dropped when the newer fills: a bound with no bookkeeping.
        self._texts: dict[int, tuple[object, str]] = {}
        self._older: dict[int, tuple[object, str]] = {}

    def encode(self, value: object) -> bytes:
        """Canonical JSON bytes of `value`: what `json.dumps(self.plain(value),
        separators=(",", ":"), sort_keys=True)` gives, written as text directly. A state
        after a move shares most of its parts with the state before it (`replace` keeps
        every field it does not set), so the text of each part is kept by the part's
        identity and written once: only the path the move changed is written again."""
        return self._text(value).encode()

    def plain(self, value: object) -> Plain:
        """`value` as the JSON-ready tree `encode` writes out (the reference form)."""
        return self._plain(value)

    def decode(self, data: bytes) -> object:
        """The value that `encode` turned into `data`."""
        return self._rich(json.loads(data))

    def _plain(self, value: object) -> Plain:
        kind = type(value)
        if kind is str or kind is int or kind is bool or value is None:
            return value  # type: ignore[return-value]
        # How to encode each type is worked out once: a state is thousands of values
        # of a few dozen types, encoded after every decision.
        to_plain = self._encoders.get(kind)
        if to_plain is None:
            to_plain = self._encoders[kind] = self._encoder(kind)
        return to_plain(value)

    def _encoder(self, kind: type) -> Callable[[Any], Plain]:
        plain = self._plain
        if issubclass(kind, (bool, int, str)):
            return lambda value: value  # type: ignore[no-any-return]
        if issubclass(kind, Enum):
            return lambda value: {"$e": kind.__name__, "v": value.name}
        if issubclass(kind, tuple):
            return lambda value: [plain(item) for item in value]
        if issubclass(kind, frozenset):

            def of_set(value: frozenset[object]) -> Plain:
                items = [plain(item) for item in value]
                return {"$s": sorted(items, key=_json_key)}

            return of_set
        if issubclass(kind, dict):

            def of_dict(value: dict[object, object]) -> Plain:
                pairs: list[list[Plain]] = [[plain(k), plain(v)] for k, v in value.items()]
                return {"$d": sorted(pairs, key=lambda p: _json_key(p[0]))}

            return of_dict
        if dataclasses.is_dataclass(kind):
            name = kind.__name__
            if self._types.get(name) is not kind:
                raise TypeError(f"unregistered state type {name}")
            names = tuple(f.name for f in dataclasses.fields(kind))
            return lambda value: {"$t": name, "f": {n: plain(getattr(value, n)) for n in names}}
        raise TypeError(f"cannot encode {kind.__name__}")

    def _text(self, value: object) -> str:
        kind = type(value)
        if kind is str:
            return _quoted(value)  # type: ignore[arg-type]
        if kind is int:
            return int.__repr__(value)  # type: ignore[arg-type]
        if value is None or kind is bool:
            return _LITERALS[value]  # type: ignore[index]
        key = id(value)
        known = self._texts.get(key) or self._older.get(key)
        if known is not None and known[0] is value:
            return known[1]
        write = self._writers.get(kind)
        if write is None:
            write = self._writers[kind] = self._writer(kind)
        text = write(value)
        if len(self._texts) >= TEXTS_KEPT:
            self._older, self._texts = self._texts, {}
        self._texts[key] = (value, text)
        return text

    def _writer(self, kind: type) -> Callable[[Any], str]:
        """How a value of `kind` is written, as json.dumps writes its `plain` form."""
        text = self._text
        if issubclass(kind, (bool, int, str)):  # first, as in `_encoder`: an IntEnum is an int
            plain = self._plain
            return lambda value: json.dumps(plain(value))
        if issubclass(kind, Enum):
            return lambda value: f'{{"$e":{_quoted(kind.__name__)},"v":{_quoted(value.name)}}}'
        if issubclass(kind, tuple):
            return lambda value: "[" + ",".join([text(item) for item in value]) + "]"
        if issubclass(kind, frozenset):
            return lambda value: '{"$s":[' + ",".join(sorted((text(item) for item in value), key=_text_key)) + "]}"
        if issubclass(kind, dict):

            def of_dict(value: dict[object, object]) -> str:
                pairs = sorted(((text(k), text(v)) for k, v in value.items()), key=lambda pair: _text_key(pair[0]))
                return '{"$d":[' + ",".join([f"[{k},{v}]" for k, v in pairs]) + "]}"

            return of_dict
        if dataclasses.is_dataclass(kind):
            name = kind.__name__
            if self._types.get(name) is not kind:
                raise TypeError(f"unregistered state type {name}")
            names = sorted(f.name for f in dataclasses.fields(kind))
            head = f'{{"$t":{_quoted(name)},"f":{{'
            labels = [(n, _quoted(n) + ":") for n in names]
            return lambda value: head + ",".join([label + text(getattr(value, n)) for n, label in labels]) + "}}"
        raise TypeError(f"cannot encode {kind.__name__}")

    def _rich(self, value: object) -> object:
        if isinstance(value, list):
            return tuple(self._rich(item) for item in value)
        if not isinstance(value, dict):
            return value
        if "$t" in value:
            cls = self._types[value["$t"]]
            return cls(**{k: self._rich(v) for k, v in value["f"].items()})
        if "$e" in value:
            return self._types[value["$e"]][value["v"]]  # type: ignore[index]
        if "$s" in value:
            return frozenset(self._rich(item) for item in value["$s"])
        if "$d" in value:
            return {self._rich(k): self._rich(v) for k, v in value["$d"]}
        raise TypeError("malformed state blob")


def _text_key(text: str) -> str:
    """`_json_key` of the value whose compact text is `text` (a set's or dict's order)."""
    if text[0] == '"' and "\\" not in text:
        return text  # a plain string: its key is its text (a quote inside would be escaped)
    if text[0] in "-0123456789":
        return text  # an int
    return _json_key(json.loads(text))


def _json_key(value: Plain) -> str:
    """json.dumps(value, sort_keys=True): what sets and dicts are ordered by. Written out
    directly for the usual items, ints and plain strings (printable ASCII with nothing
    JSON escapes), for which it is the same text."""
    kind = type(value)
    if kind is int:
        return str(value)
    if kind is str:
        text: str = value  # type: ignore[assignment]
        if text.isascii() and text.isprintable() and '"' not in text and "\\" not in text:
            return f'"{text}"'
    return json.dumps(value, sort_keys=True)


def state_codec(*sources: ModuleType | type) -> StateCodec:
    """A codec for the given types and for every dataclass and Enum defined in the given modules."""
    types: list[type] = []
    for source in sources:
        if isinstance(source, type):
            types.append(source)
            continue
        for obj in vars(source).values():
            ours = isinstance(obj, type) and obj.__module__ == source.__name__
            if ours and (dataclasses.is_dataclass(obj) or issubclass(obj, Enum)):
                types.append(obj)
    return StateCodec(types)
