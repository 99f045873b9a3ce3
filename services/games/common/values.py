"""`replace` for the engines' frozen value types, at a fraction of dataclasses.replace's cost.

Every event an engine folds makes a new state with `replace`; a rebuild folds
thousands. dataclasses.replace walks the fields and calls the generated
__init__, which sets each field through object.__setattr__ (the price of
frozen). For a plain frozen dataclass (no __post_init__, no __slots__, every
field set by __init__, nothing cached on the instance) a copy of the instance's
attributes with the changes is the same value, made without __init__. Any other
class goes through dataclasses.replace, unchanged.

`make bench`'s replay line (a finished match folded from its log, 1002 events of
dice_hand) justifies it: rebuild 5.47, 5.68 and 5.53 ms in process with
dataclasses.replace against 4.12, 4.87 and 4.85 ms with this, three alternating
BENCH_QUICK runs; through the services 7.87-8.45 against 6.84-7.85 ms.
"""

from __future__ import annotations

import dataclasses
import functools
import operator
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from services.games.common.recent import Recent

T = TypeVar("T")
P = ParamSpec("P")

# class -> its field names if copying its attributes is a faithful replace, else None
_PLAIN: dict[type, frozenset[str] | None] = {}


def replace(obj: T, /, **changes: Any) -> T:
    """dataclasses.replace(obj, **changes), made by copying when that is the same."""
    cls = type(obj)
    try:
        names = _PLAIN[cls]
    except KeyError:
        names = _PLAIN[cls] = _plain_fields(cls)
    if names is None:
        return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
    if not names.issuperset(changes):
        unknown = ", ".join(sorted(set(changes) - names))
        raise TypeError(f"{cls.__name__} has no field(s) {unknown}")
    fresh = object.__new__(cls)
    attributes = fresh.__dict__
    attributes.update(obj.__dict__)
    attributes.update(changes)
    return fresh


def _plain_fields(cls: type) -> frozenset[str] | None:
    if not dataclasses.is_dataclass(cls) or hasattr(cls, "__post_init__") or "__slots__" in cls.__dict__:
        return None
    fields = dataclasses.fields(cls)
    if any(not f.init for f in fields):
        return None
    for klass in cls.__mro__:
        if any(isinstance(v, functools.cached_property) for v in vars(klass).values()):
            return None
    return frozenset(f.name for f in fields)


# Tuples a view gives again, as the very same object, for as long as what they show is
# unchanged (a board most moves leave as it was): the codec keeps their encoding from one
# position to the next (protocodec.sharing). Only tuples named so: keeping every tuple a
# view gives, most of them never given again, kept objects alive long enough to make the
# collector's middle generation a third longer to walk. The last 2048 to 4096 named are
# kept, each held, so an id names no other while kept.
REUSABLE_KEPT = 2048
_reusable: Recent[int, tuple[object, ...]] = Recent(REUSABLE_KEPT)


def reusable(value: tuple[T, ...]) -> tuple[T, ...]:
    """`value`, named as a tuple views give again while it holds (see above)."""
    _reusable.put(id(value), value)
    return value


def is_reusable(value: object) -> bool:
    """Whether `value` is a tuple named by `reusable` and still kept."""
    return _reusable.get(id(value)) is value


def keep_last(fn: Callable[P, T]) -> Callable[P, T]:
    """`fn`, answering again for the very arguments it was last called with (by identity,
    held while kept, so an id names no other). The views of one state (a position holds
    every seat's) and the candidate actions its legal actions try ask for one state's
    parts again and again; a state is a value, so its parts are too. One entry: a
    different state replaces it."""
    last: list[tuple[tuple[Any, ...], Any]] = [((), None)]

    @functools.wraps(fn)
    def kept(*args: P.args, **kwargs: P.kwargs) -> T:
        held, result = last[0]
        if not kwargs and len(held) == len(args) and all(map(operator.is_, held, args)):
            return result  # type: ignore[no-any-return]
        result = fn(*args, **kwargs)
        last[0] = (args, result)
        return result

    return kept
