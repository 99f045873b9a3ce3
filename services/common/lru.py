"""The one bounded cache every process keeps its recent values in.

An entry past `size` pushes out the oldest. Oldest by last use: `get` and `put` make
an entry the newest. Or, with `fifo`, oldest by first `put`: neither `get` nor a later
`put` of the same key moves it (for values asked of a cache far more often than
dropped from it, where the order costs nothing to keep). `peek` reads without
making an entry newer, in either kind.

It is an OrderedDict, so reads, `in`, `len` and `pop` are the C dictionary's own: the
caches on an action's path (positions, states, packed actions) are read several times
per action, and a Python method around each read cost 1% of the in-process gateway's
CPU (`make bench`, in process, dice_hand at 16 matches, py-spy).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from typing import TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class LRU(OrderedDict[K, V]):
    """At most `size` values by key, the oldest dropped first (see the module)."""

    def __init__(self, size: int, fifo: bool = False) -> None:
        super().__init__()
        self._size = size
        if fifo:
            # Recency is never refreshed: reads and writes are the dictionary's own.
            self.get = super().get  # type: ignore[method-assign, assignment]
            self._refresh = False
        else:
            self._refresh = True

    def get(self, key: K, default: V | None = None) -> V | None:  # type: ignore[override]
        """The value kept for `key` (`default` if none), now the newest unless `fifo`."""
        value = super().get(key, default)
        if value is not default:
            self.move_to_end(key)
        return value

    def peek(self, key: K) -> V | None:
        """The value kept for `key` (None if none), its place unchanged."""
        return super().get(key)

    def put(self, key: K, value: V) -> V:
        """Keep `value` for `key` (the newest, unless `fifo` and already kept); `value`."""
        self[key] = value
        if self._refresh:
            self.move_to_end(key)
        if len(self) > self._size:
            self.popitem(last=False)
        return value

    def pop(self, key: K, default: V | None = None) -> V | None:  # type: ignore[override]
        """Forget `key`; the value that was kept (`default` if none)."""
        return super().pop(key, default)
