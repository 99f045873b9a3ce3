"""The fault run's figures (bench/scale_faults.py): the level before a kill and the seconds
until a 1-second rate is back within 10 % of it, computed from completion times alone."""

from __future__ import annotations

import pytest

from bench.scale_faults import Kill, figures, level_before, per_second, recovery_s

# A window that still overlaps the outage by a tenth of a second may hold 90 % of the level.
WINDOW_SLIDE = 0.1 + 1e-9


def steady(start: float, end: float, per_s: int) -> list[float]:
    """Completion times at an even `per_s` a second over [start, end)."""
    return [start + i / per_s for i in range(int((end - start) * per_s))]


def test_the_level_is_the_mean_rate_over_the_five_seconds_before() -> None:
    times = steady(0, 10, 20)
    assert level_before(times, 10.0) == 20.0
    assert level_before(times, 12.0) == 12.0  # two of the five seconds had nothing


def test_no_dip_recovers_at_once() -> None:
    times = steady(0, 20, 20)
    assert recovery_s(times, 10.0, 20.0, until=20.0) == 0.0


def test_a_three_second_outage_recovers_when_the_rate_is_back() -> None:
    times = steady(0, 10, 20) + steady(13, 25, 20)
    assert recovery_s(times, 10.0, level_before(times, 10.0), until=25.0) == pytest.approx(3.0, abs=WINDOW_SLIDE)


def test_a_rate_back_to_ninety_percent_counts_and_less_does_not() -> None:
    times = steady(0, 10, 20) + steady(10, 14, 10) + steady(14, 25, 18)
    assert recovery_s(times, 10.0, 20.0, until=25.0) == pytest.approx(4.0, abs=WINDOW_SLIDE)
    assert recovery_s(steady(0, 10, 20) + steady(10, 25, 17), 10.0, 20.0, until=25.0) is None


def test_no_recovery_before_the_next_kill_is_none() -> None:
    times = steady(0, 10, 20) + steady(19, 25, 20)
    assert recovery_s(times, 10.0, 20.0, until=18.0) is None
    assert recovery_s([], 10.0, 0.0, until=18.0) is None  # nothing to recover to


def test_per_second_counts_each_whole_second() -> None:
    assert per_second(steady(0, 2, 5) + steady(3, 4, 2), 0.0, 4.0) == [5, 5, 0, 2]


def test_each_kill_is_judged_until_the_next_one() -> None:
    actions = steady(0, 10, 20) + steady(12, 30, 20)  # two seconds without actions after the first kill
    tickets = steady(0, 30, 10)
    kills = [Kill("gateway", "gateway-0", 10.0, 1.5), Kill("match", "match-1", 20.0, 1.2)]
    found = figures(kills, {"actions": actions, "tickets_hot_pool": tickets}, start=2.0, end=30.0)
    gateway = found["gateway"]
    assert gateway["killed_at_s"] == 8.0 and gateway["replica"] == "gateway-0"
    assert gateway["actions"]["level_before_per_s"] == 20.0 and gateway["actions"]["within_5s"] is True
    assert gateway["actions"]["recovered_s"] == pytest.approx(2.0, abs=WINDOW_SLIDE)
    assert gateway["tickets_hot_pool"]["recovered_s"] == 0.0
    assert gateway["recovered_s"] == gateway["actions"]["recovered_s"] and gateway["within_5s"] is True
    assert found["match"]["recovered_s"] == 0.0
