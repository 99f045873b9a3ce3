"""A grouping pass waits for more arrivals only when they come fast."""

from __future__ import annotations

import pytest

from services.matchmaker.pace import FULL_RATE, MIN_WAIT, Pace


def _fed(rate: float, seconds: float = 5.0, step: float = 0.01) -> Pace:
    pace = Pace(window=0.05)
    now = 0.0
    while now < seconds:
        pace.arrived(round(rate * step), now)
        now += step
    return pace


def test_a_trickle_waits_the_least() -> None:
    assert Pace(0.05).wait() == MIN_WAIT  # nothing seen yet
    assert _fed(0.0).wait() == MIN_WAIT


@pytest.mark.parametrize("rate", [FULL_RATE, 4 * FULL_RATE])
def test_a_busy_stream_waits_the_whole_window(rate: float) -> None:
    pace = _fed(rate)
    assert pace.rate == pytest.approx(rate, rel=0.05)
    assert pace.wait() == pytest.approx(0.05, rel=0.05)


def test_the_wait_follows_the_rate_and_forgets_a_burst() -> None:
    half = _fed(FULL_RATE / 2)
    assert half.wait() == pytest.approx(0.025, rel=0.1)
    calm = _fed(FULL_RATE)
    for second in range(1, 6):
        calm.arrived(0, 5.0 + second)
    assert calm.wait() < 0.001 + MIN_WAIT


def test_a_rush_is_batched_from_its_start() -> None:
    rushed = _fed(FULL_RATE, seconds=0.5)
    assert rushed.wait() > 0.04
