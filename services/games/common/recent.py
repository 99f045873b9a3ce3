"""A bounded map of recent values by key, for the caches of the codecs and the views.

Two generations: values go into the newer; when it is full it becomes the older and
the one before is dropped whole. A bound with no bookkeeping per read or write, where
the caches it serves are read on every position and rarely need more than the last
few thousand entries. (serde's text cache keeps the same two dictionaries inline: it is
read on every part of every state written, where a method call a read would show.)
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Recent(Generic[K, V]):
    """At most 2 x `size` values by key, the oldest `size` dropped at once (see the module)."""

    __slots__ = ("_newer", "_older", "_size")

    def __init__(self, size: int) -> None:
        self._size = size
        self._newer: dict[K, V] = {}
        self._older: dict[K, V] = {}

    def get(self, key: K) -> V | None:
        """The value kept for `key`, None if none."""
        found = self._newer.get(key)
        return found if found is not None else self._older.get(key)

    def put(self, key: K, value: V) -> None:
        """Keep `value` for `key`, in the newer generation."""
        if len(self._newer) >= self._size:
            self._older, self._newer = self._newer, {}
        self._newer[key] = value
