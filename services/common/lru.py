"""The one bounded cache every process keeps its recent values in.

An entry past `size` pushes out the oldest. Oldest by last use: `get` and `put` make
an entry the newest. Or, with `fifo`, oldest by first `put`: neither `get` nor a later
`put` of the same key moves it (for values asked of a cache far more often than
dropped from it, where the order costs nothing to keep). `peek` reads without
making an entry newer, in either kind.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class LRU(Generic[K, V]):
    """At most `size` values by key, the oldest dropped first (see the module)."""

    __slots__ = ("_fifo", "_items", "_size")

    def __init__(self, size: int, fifo: bool = False) -> None:
        self._items: OrderedDict[K, V] = OrderedDict()
        self._size = size
        self._fifo = fifo

    def get(self, key: K) -> V | None:
        """The value kept for `key` (None if none), now the newest unless `fifo`."""
        value = self._items.get(key)
        if value is not None and not self._fifo:
            self._items.move_to_end(key)
        return value

    def peek(self, key: K) -> V | None:
        """The value kept for `key` (None if none), its place unchanged."""
        return self._items.get(key)

    def put(self, key: K, value: V) -> V:
        """Keep `value` for `key` (the newest, unless `fifo` and already kept); `value`."""
        self._items[key] = value
        if not self._fifo:
            self._items.move_to_end(key)
        while len(self._items) > self._size:
            self._items.popitem(last=False)
        return value

    def pop(self, key: K, default: V | None = None) -> V | None:
        """Forget `key`; the value that was kept (`default` if none)."""
        return self._items.pop(key, default)

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __len__(self) -> int:
        return len(self._items)
