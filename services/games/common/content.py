"""One typed loader for every game's content/*.json: a JSON row becomes the game's spec dataclass.

A game's content specs (cards, tiles, boards...) are frozen dataclasses; their
fields and type hints say what a row must hold, so the JSON needs no mirrored
description of its own. `from_row` builds a spec from a JSON object field by
field, converting by the hint:

- str, int, float, bool: the JSON value as is (an int is not a bool, nor a bool an int)
- an Enum: the member of that value
- a dataclass: a JSON object, converted in turn
- tuple[X, ...] and tuple[A, B]: a JSON array; tuple[tuple[str, V], ...] also
  from a JSON object, as its items sorted by key
- list[X]: a JSON array; dict[K, V]: a JSON object, int keys from their digits ("3": 3)
- object: the JSON value as it is
- X | None: null, or an X; a union of several types: the first that fits

A field the row leaves out takes the dataclass default; without a default it
is an error, as is a key no field reads (unless named in `ignore`: notes and
sources kept beside a row's data; nested objects have none). `hooks` maps a type hint to a converter for
what the hint alone cannot say (a game's effect vocabulary parsed by its
"op"). Every error is a ValueError naming the file, the row and the field.
"""

from __future__ import annotations

import dataclasses
import json
import types
from collections.abc import Callable, Collection, Mapping
from enum import Enum
from functools import cache
from pathlib import Path
from typing import Any, TypeVar, Union, get_args, get_origin, get_type_hints

T = TypeVar("T")

# A converter for one type hint: the raw JSON value and where it sits -> the typed value.
Hook = Callable[[object, str], object]
Hooks = Mapping[object, Hook]
_NO_HOOKS: Hooks = {}


def read_json(path: Path) -> dict[str, object]:
    """The JSON object in `path` (a content file holds one object)."""
    data = json.loads(path.read_text())
    return as_object(data, path.name)


def as_object(value: object, where: str) -> dict[str, object]:
    """`value` as a JSON object (str keys), or a ValueError naming `where`."""
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        raise ValueError(f"{where}: expected a JSON object, got {_kind(value)}")
    return value


def load_rows(
    rows: object,
    spec: type[T],
    *,
    where: str,
    ignore: Collection[str] = (),
    hooks: Hooks = _NO_HOOKS,
) -> tuple[T, ...]:
    """Every row of the JSON array `rows` as a `spec`, in order; `where` names the array."""
    if not isinstance(rows, list):
        raise ValueError(f"{where}: expected a JSON array of {spec.__name__} rows, got {_kind(rows)}")
    return tuple(from_row(spec, row, where=f"{where}[{i}]", ignore=ignore, hooks=hooks) for i, row in enumerate(rows))


def from_row(
    spec: type[T],
    row: object,
    *,
    where: str,
    ignore: Collection[str] = (),
    hooks: Hooks = _NO_HOOKS,
) -> T:
    """The frozen dataclass `spec` built from the JSON object `row` (see the module docstring)."""
    if not dataclasses.is_dataclass(spec):
        raise TypeError(f"{spec!r} is not a dataclass")
    obj = as_object(row, where)
    fields, required = _fields(spec)
    unknown = [key for key in obj if key not in fields and key not in ignore]
    if unknown:
        raise ValueError(f"{where}: unknown field {unknown[0]!r} for {spec.__name__}")
    missing = [name for name in required if name not in obj]
    if missing:
        raise ValueError(f"{where}: missing field {missing[0]!r} of {spec.__name__}")
    kwargs = {name: convert(obj[name], hint, where=f"{where}.{name}", hooks=hooks)
              for name, hint in fields.items() if name in obj}
    return spec(**kwargs)


def typed(value: object, hint: type[T], *, where: str, hooks: Hooks = _NO_HOOKS) -> T:
    """`value` converted to `hint`, a class or a generic such as dict[str, int] (what a
    file holds beside its rows, or a field a game's own conversion reads)."""
    result: T = convert(value, hint, where=where, hooks=hooks)
    return result


def convert(value: object, hint: object, *, where: str, hooks: Hooks = _NO_HOOKS) -> Any:
    """`value` converted to the type hint `hint`, or a ValueError naming `where`."""
    hook = hooks.get(hint)
    if hook is not None:
        return hook(value, where)
    origin = get_origin(hint)
    if origin is Union or origin is types.UnionType:
        return _union(value, get_args(hint), where, hooks)
    if origin is tuple:
        return _tuple(value, get_args(hint), where, hooks)
    if origin is list:
        if not isinstance(value, list):
            raise ValueError(f"{where}: expected a JSON array, got {_kind(value)}")
        (item_hint,) = get_args(hint)
        return [convert(v, item_hint, where=f"{where}[{i}]", hooks=hooks) for i, v in enumerate(value)]
    if origin is dict:
        key_hint, value_hint = get_args(hint)
        obj = as_object(value, where)
        return {_key(k, key_hint, where): convert(v, value_hint, where=f"{where}.{k}", hooks=hooks)
                for k, v in obj.items()}
    if hint is object:
        return value
    if hint is type(None):
        if value is not None:
            raise ValueError(f"{where}: expected null, got {_kind(value)}")
        return None
    if isinstance(hint, type):
        return _class(value, hint, where, hooks)
    raise TypeError(f"{where}: the content loader cannot read the type {hint!r}")


def _class(value: object, hint: type, where: str, hooks: Hooks) -> object:
    if dataclasses.is_dataclass(hint):
        return from_row(hint, value, where=where, hooks=hooks)
    if issubclass(hint, Enum):
        try:
            return hint(value)
        except ValueError:
            allowed = ", ".join(repr(m.value) for m in hint)
            raise ValueError(f"{where}: {value!r} is not a {hint.__name__} ({allowed})") from None
    if hint not in (int, str, bool, float):
        raise TypeError(f"{where}: the content loader cannot read the type {hint.__name__}")
    if not _is(value, hint):
        raise ValueError(f"{where}: expected {hint.__name__}, got {_kind(value)}")
    return value


def _is(value: object, hint: type) -> bool:
    if isinstance(value, bool):
        return hint is bool
    if hint is float:
        return isinstance(value, (int, float))
    return isinstance(value, hint)


def _union(value: object, options: tuple[object, ...], where: str, hooks: Hooks) -> object:
    if value is None and type(None) in options:
        return None
    errors = []
    for option in options:
        if option is type(None):
            continue
        try:
            return convert(value, option, where=where, hooks=hooks)
        except ValueError as e:
            errors.append(str(e))
    if len(errors) == 1:
        raise ValueError(errors[0])
    names = " | ".join(getattr(o, "__name__", repr(o)) for o in options)
    raise ValueError(f"{where}: {_kind(value)} fits none of {names}")


def _tuple(value: object, args: tuple[object, ...], where: str, hooks: Hooks) -> tuple[object, ...]:
    homogeneous = len(args) == 2 and args[1] is Ellipsis
    if homogeneous and isinstance(value, dict) and get_origin(args[0]) is tuple:
        # A JSON object read as its (key, value) pairs sorted by key: a frozen mapping.
        return tuple(convert([k, v], args[0], where=f"{where}.{k}", hooks=hooks) for k, v in sorted(value.items()))
    if not isinstance(value, list):
        raise ValueError(f"{where}: expected a JSON array, got {_kind(value)}")
    if homogeneous:
        return tuple(convert(item, args[0], where=f"{where}[{i}]", hooks=hooks) for i, item in enumerate(value))
    if len(value) != len(args):
        raise ValueError(f"{where}: expected {len(args)} items, got {len(value)}")
    pairs = enumerate(zip(value, args, strict=True))
    return tuple(convert(item, arg, where=f"{where}[{i}]", hooks=hooks) for i, (item, arg) in pairs)


def _key(key: str, hint: object, where: str) -> object:
    if hint is str:
        return key
    if hint is int and key.lstrip("-").isdigit():
        return int(key)
    raise ValueError(f"{where}: key {key!r} is not a {getattr(hint, '__name__', hint)}")


@cache
def _fields(spec: type) -> tuple[dict[str, object], tuple[str, ...]]:
    """The init fields of `spec` with their resolved hints, and those without a default."""
    hints = get_type_hints(spec)
    fields = {f.name: hints[f.name] for f in dataclasses.fields(spec) if f.init}
    required = tuple(
        f.name for f in dataclasses.fields(spec)
        if f.init and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    )
    return fields, required


def _kind(value: object) -> str:
    if value is None:
        return "null"
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", int: "an integer",
             float: "a number"}
    text = json.dumps(value, default=repr)
    return f"{names.get(type(value), type(value).__name__)} {text[:40]}"
