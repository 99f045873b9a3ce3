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
from collections.abc import Callable, Iterable, Mapping, Sequence
from enum import Enum
from types import ModuleType
from typing import Any, TypeAlias

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

    def encode(self, value: object) -> bytes:
        """Canonical JSON bytes of `value`."""
        return json.dumps(self._plain(value), separators=(",", ":"), sort_keys=True).encode()

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


def codec_for_modules(*modules: ModuleType) -> StateCodec:
    """A codec for every dataclass and Enum defined in the given modules."""
    types: list[type] = []
    for module in modules:
        for obj in vars(module).values():
            ours = isinstance(obj, type) and obj.__module__ == module.__name__
            if ours and (dataclasses.is_dataclass(obj) or issubclass(obj, Enum)):
                types.append(obj)
    return StateCodec(types)
