"""The engines' `replace` makes the value dataclasses.replace makes, or defers to it."""

from __future__ import annotations

import dataclasses
import functools

import pytest

from services.games.common import values
from services.games.common.recent import Recent
from services.games.common.values import replace


@dataclasses.dataclass(frozen=True)
class Plain:
    a: int
    b: tuple[int, ...] = ()
    c: str = "x"


@dataclasses.dataclass(frozen=True)
class Checked:
    a: int

    def __post_init__(self) -> None:
        if self.a < 0:
            raise ValueError("negative")


@dataclasses.dataclass(frozen=True)
class Cached:
    a: int

    @functools.cached_property
    def double(self) -> int:
        return 2 * self.a


@dataclasses.dataclass(frozen=True, slots=True)
class Slotted:
    a: int


def test_a_plain_value_is_copied_with_the_changes() -> None:
    before = Plain(1, (2,))
    after = replace(before, a=5, c="y")
    assert after == dataclasses.replace(before, a=5, c="y") == Plain(5, (2,), "y")
    assert before == Plain(1, (2,)), "the original is unchanged"
    assert type(after) is Plain and hash(after) == hash(Plain(5, (2,), "y"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        after.a = 3  # type: ignore[misc]


def test_an_unknown_field_is_refused() -> None:
    with pytest.raises(TypeError, match="no field"):
        replace(Plain(1), d=2)


def test_classes_a_copy_would_betray_go_through_dataclasses_replace() -> None:
    with pytest.raises(ValueError):
        replace(Checked(1), a=-1)
    cached = Cached(1)
    assert cached.double == 2
    assert replace(cached, a=4).double == 8, "a cached attribute is not carried over"
    assert replace(Slotted(1), a=2) == Slotted(2)


def test_only_the_very_tuple_named_reusable_is_reusable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(values, "_reusable", Recent(2))
    named = values.reusable((1, 2, 3))
    equal = tuple([1, 2, 3])
    assert values.is_reusable(named) and equal is not named and not values.is_reusable(equal)
    # Two generations of two: the oldest is forgotten once four more are named.
    later = [values.reusable((n, n)) for n in range(4)]
    assert not values.is_reusable(named) and all(values.is_reusable(t) for t in later[2:])


def test_keep_last_answers_again_only_for_the_very_same_arguments() -> None:
    calls: list[object] = []

    @values.keep_last
    def parts(state: object) -> tuple[object, ...]:
        calls.append(state)
        return (state,)

    first, equal = {"a": 1}, {"a": 1}
    assert parts(first) is parts(first)
    assert parts(equal) == (equal,), "an equal but other argument is computed afresh"
    parts(first)
    assert calls == [first, equal, first]
