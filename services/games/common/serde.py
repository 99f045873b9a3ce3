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
from collections.abc import Iterable, Mapping, Sequence
from enum import Enum
from types import ModuleType
from typing import TypeAlias

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

    def encode(self, value: object) -> bytes:
        """Canonical JSON bytes of `value`."""
        return json.dumps(self._plain(value), separators=(",", ":"), sort_keys=True).encode()

    def decode(self, data: bytes) -> object:
        """The value that `encode` turned into `data`."""
        return self._rich(json.loads(data))

    def _plain(self, value: object) -> Plain:
        if value is None or isinstance(value, (bool, int, str)):
            return value
        if isinstance(value, Enum):
            return {"$e": type(value).__name__, "v": value.name}
        if isinstance(value, tuple):
            return [self._plain(item) for item in value]
        if isinstance(value, frozenset):
            items = [self._plain(item) for item in value]
            return {"$s": sorted(items, key=lambda x: json.dumps(x, sort_keys=True))}
        if isinstance(value, dict):
            pairs: list[list[Plain]] = [[self._plain(k), self._plain(v)] for k, v in value.items()]
            return {"$d": sorted(pairs, key=lambda p: json.dumps(p[0], sort_keys=True))}
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            name = type(value).__name__
            if self._types.get(name) is not type(value):
                raise TypeError(f"unregistered state type {name}")
            fields = {f.name: self._plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
            return {"$t": name, "f": fields}
        raise TypeError(f"cannot encode {type(value).__name__}")

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


def codec_for_modules(*modules: ModuleType) -> StateCodec:
    """A codec for every dataclass and Enum defined in the given modules."""
    types: list[type] = []
    for module in modules:
        for obj in vars(module).values():
            ours = isinstance(obj, type) and obj.__module__ == module.__name__
            if ours and (dataclasses.is_dataclass(obj) or issubclass(obj, Enum)):
                types.append(obj)
    return StateCodec(types)
