"""The one bounded cache (services/common/lru.py)."""

from __future__ import annotations

import pytest

from services.common.lru import LRU


def test_past_its_size_the_least_recently_used_goes() -> None:
    cache: LRU[str, int] = LRU(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # "a" used again: "b" is now the oldest
    cache.put("c", 3)
    assert "b" not in cache and "a" in cache and "c" in cache
    assert len(cache) == 2


def test_a_put_again_makes_an_entry_the_newest() -> None:
    cache: LRU[str, int] = LRU(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.put("a", 10)
    cache.put("c", 3)
    assert cache.get("a") == 10 and "b" not in cache


def test_peek_leaves_an_entry_where_it_was() -> None:
    cache: LRU[str, int] = LRU(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.peek("a") == 1
    cache.put("c", 3)
    assert "a" not in cache and cache.peek("b") == 2


def test_fifo_drops_the_first_put_in_whatever_was_read_or_put_again() -> None:
    cache: LRU[str, int] = LRU(2, fifo=True)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1
    cache.put("a", 10)  # replaced in place
    cache.put("c", 3)
    assert "a" not in cache and cache.get("b") == 2 and cache.get("c") == 3


def test_put_answers_the_value_and_pop_forgets_a_key() -> None:
    cache: LRU[str, tuple[str, ...]] = LRU(4)
    assert cache.put("empty", ()) == ()
    assert cache.get("empty") == ()  # a falsy value is still kept
    assert cache.pop("empty") == ()
    assert cache.pop("empty") is None and cache.pop("empty", ("x",)) == ("x",)
    assert cache.get("missing") is None and len(cache) == 0


def test_an_unhashable_key_is_refused_as_a_dict_refuses_it() -> None:
    cache: LRU[object, int] = LRU(4, fifo=True)
    with pytest.raises(TypeError):
        cache.get(["a list"])


@pytest.mark.parametrize("fifo", [False, True])
def test_it_never_holds_more_than_its_size(fifo: bool) -> None:
    cache: LRU[int, int] = LRU(3, fifo=fifo)
    for key in range(100):
        cache.put(key, key)
        cache.get(key // 2)
        assert len(cache) <= 3
    assert 99 in cache
