"""The match's roll windows (services/common/draws.py RollWindows): every roll what the dice
would roll, one OpenWindow per WINDOW_COUNTERS draw numbers instead of a call per roll, a
window fetched again past its end, RollDice only for what no window answers."""

from __future__ import annotations

from collections import Counter

import pytest
from tabletop.dice.v1 import dice_service_pb2 as dice_pb

from services.common import draws
from services.common.draws import SLICE_COUNTERS, WINDOW_COUNTERS, WINDOW_DICE, RollWindows
from services.common.errors import InvalidArgument, Unavailable
from services.dice import fair

SEED = bytes(range(32))


class Dice:
    """The dice's answers for one seed (services/dice/app.py), counted by method."""

    def __init__(self, digests: bytes | None = None) -> None:
        self.calls: Counter[str] = Counter()
        self.windows: list[tuple[int, int]] = []  # (first, counters) of each OpenWindow
        self._digests = digests  # every window's digests, instead of the seed's (a rejected first try)

    async def RollDice(self, request: dice_pb.RollDiceRequest) -> dice_pb.RollDiceResponse:
        self.calls["RollDice"] += 1
        if not (1 <= request.faces <= fair.MAX_FACES and 0 < request.count <= 64):
            raise InvalidArgument("roll: faces, count or counter out of range")
        return dice_pb.RollDiceResponse(values=fair.roll(SEED, request.counter, request.faces, request.count))

    async def OpenWindow(self, request: dice_pb.OpenWindowRequest) -> dice_pb.OpenWindowResponse:
        self.calls["OpenWindow"] += 1
        self.windows.append((request.first_counter, request.counters))
        held = fair.window(SEED, request.first_counter, request.counters, request.dice)
        if self._digests is not None:
            held = fair.Window(held.first, held.dice, self._digests * (len(held.digests) // len(self._digests)))
        return dice_pb.OpenWindowResponse(window=draws.window_message(held))


async def test_one_window_serves_the_next_window_counters_rolls_then_the_next_is_fetched() -> None:
    dice = Dice()
    windows = RollWindows(dice)  # type: ignore[arg-type]
    for counter in range(3 * WINDOW_COUNTERS):
        assert await windows.roll("m", counter, 6, 2) == fair.roll(SEED, counter, 6, 2)
    assert dice.calls == {"OpenWindow": 3}
    assert dice.windows == [(0, WINDOW_COUNTERS), (WINDOW_COUNTERS, WINDOW_COUNTERS), (2 * WINDOW_COUNTERS,
                                                                                      WINDOW_COUNTERS)]


async def test_draw_numbers_used_by_shuffles_in_between_cost_nothing_more() -> None:
    dice = Dice()
    windows = RollWindows(dice)  # type: ignore[arg-type]
    for counter in range(0, 2 * WINDOW_COUNTERS, 3):  # two of every three draw numbers are not rolls
        assert await windows.roll("m", counter, 12, WINDOW_DICE) == fair.roll(SEED, counter, 12, WINDOW_DICE)
    assert dice.calls == {"OpenWindow": 2}


async def test_each_match_has_its_own_window_and_the_oldest_is_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(draws, "WINDOWS_KEPT", 2)
    dice = Dice()
    windows = RollWindows(dice)  # type: ignore[arg-type]
    for match_id in ("a", "b", "a", "c"):  # "a" used again: "b" is the oldest when "c" comes
        await windows.roll(match_id, 0, 6, 1)
    assert dice.calls["OpenWindow"] == 3
    await windows.roll("a", 1, 6, 1)
    assert dice.calls["OpenWindow"] == 3
    await windows.roll("b", 1, 6, 1)
    assert dice.calls["OpenWindow"] == 4


@pytest.mark.parametrize("count", [WINDOW_DICE + 1, 64])
async def test_a_roll_of_more_dice_than_a_window_holds_is_asked_of_the_dice(count: int) -> None:
    dice = Dice()
    windows = RollWindows(dice)  # type: ignore[arg-type]
    assert await windows.roll("m", 7, 6, count) == fair.roll(SEED, 7, 6, count)
    assert dice.calls == {"RollDice": 1}


@pytest.mark.parametrize(("faces", "count"), [(fair.MAX_FACES + 1, 1), (6, 0), (0, 1)])
async def test_a_roll_the_dice_refuse_is_still_refused_by_them(faces: int, count: int) -> None:
    dice = Dice()
    windows = RollWindows(dice)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument):
        await windows.roll("m", 7, faces, count)
    assert dice.calls == {"RollDice": 1}


async def test_a_rejected_first_try_is_rolled_by_the_dice() -> None:
    # Every digest 2**256 - 1: at or above the limit of a three-sided die (2**256 % 3 == 1).
    dice = Dice(digests=b"\xff" * 32)
    windows = RollWindows(dice)  # type: ignore[arg-type]
    assert await windows.roll("m", 4, 3, 1) == fair.roll(SEED, 4, 3, 1)
    assert dice.calls == {"OpenWindow": 1, "RollDice": 1}
    assert await windows.roll("m", 5, 4, 1) == (4,)  # a power of two takes it: the last face
    assert dice.calls == {"OpenWindow": 1, "RollDice": 1}


async def test_a_rules_process_gets_a_slice_from_the_next_draw_number() -> None:
    dice = Dice()
    windows = RollWindows(dice)  # type: ignore[arg-type]
    assert windows.slice("m", 0) is None  # a match that never rolled: nothing to hand over
    await windows.roll("m", 0, 6, 1)
    held = windows.slice("m", 3)
    assert held is not None and (held.first, held.counters, held.dice) == (3, SLICE_COUNTERS, WINDOW_DICE)
    for counter in range(held.first, held.end):
        assert fair.roll_from_window(held, counter, 20, 3) == fair.roll(SEED, counter, 20, 3)
    assert fair.roll_from_window(held, held.end, 6, 1) is None  # past it: the match's
    assert windows.slice("m", WINDOW_COUNTERS) is None


async def test_the_window_is_topped_up_before_a_slice_runs_short_and_no_draw_number_is_fetched_twice() -> None:
    dice = Dice()
    windows = RollWindows(dice)  # type: ignore[arg-type]
    await windows.top_up("m", 0)
    assert dice.calls["OpenWindow"] == 0  # a match that never rolled gets no window
    await windows.roll("m", 0, 6, 1)
    for counter in range(1, 5 * WINDOW_COUNTERS):
        await windows.top_up("m", counter)
        held = windows.slice("m", counter)
        assert held is not None and held.first == counter and held.counters == SLICE_COUNTERS
        assert fair.roll_from_window(held, held.end - 1, 6, 2) == fair.roll(SEED, held.end - 1, 6, 2)
    firsts = [first for first, _ in dice.windows]
    assert firsts == [n * WINDOW_COUNTERS for n in range(len(firsts))]  # contiguous, none twice
    assert len(firsts) == 1 + (5 * WINDOW_COUNTERS - 1 + SLICE_COUNTERS) // WINDOW_COUNTERS
    # A match that jumped past its window (draw numbers used elsewhere) starts a new one there.
    await windows.top_up("m", 10 * WINDOW_COUNTERS)
    assert dice.windows[-1] == (10 * WINDOW_COUNTERS, WINDOW_COUNTERS)


class DiceDown(Dice):
    async def OpenWindow(self, request: dice_pb.OpenWindowRequest) -> dice_pb.OpenWindowResponse:
        if self.calls["OpenWindow"]:
            raise Unavailable("dice down", "dependency.unavailable")
        return await super().OpenWindow(request)


async def test_a_top_up_that_fails_fails_nothing_and_the_next_roll_meets_the_failure() -> None:
    dice = DiceDown()
    windows = RollWindows(dice)  # type: ignore[arg-type]
    await windows.roll("m", 0, 6, 1)
    await windows.top_up("m", WINDOW_COUNTERS - 1)  # a move that needs no roll goes on
    assert windows.slice("m", WINDOW_COUNTERS - 1) is not None  # what is left is still handed over
    with pytest.raises(Unavailable):
        await windows.roll("m", WINDOW_COUNTERS, 6, 1)
