"""Rating updates: openskill Plackett-Luce over the outcome's places."""

from __future__ import annotations

import pytest
from openskill.models import PlackettLuce

from services.matchmaker.ratings import DEFAULT, SCENARIO, Rating, Result, rate

MODEL = PlackettLuce()


def test_a_competitive_match_rates_like_openskill_itself() -> None:
    current = [Rating(27.0, 7.0, 3), DEFAULT, Rating(22.0, 5.0, 9)]
    new = rate(Result("pig", ("a", "b", "c"), (2, 1, 3)), current)
    expected = MODEL.rate([[MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in current], ranks=[2, 1, 3])
    assert [(r.mu, r.sigma) for r in new] == [(t[0].mu, t[0].sigma) for t in expected]
    assert [r.matches for r in new] == [4, 1, 10]


def test_tied_places_share_the_update() -> None:
    a, b, c = rate(Result("pig", ("a", "b", "c"), (1, 1, 3)), [DEFAULT] * 3)
    assert a == b and a.mu > DEFAULT.mu > c.mu


def test_a_cooperative_win_raises_the_whole_table_against_the_scenario() -> None:
    current = [DEFAULT, Rating(30.0, 4.0)]
    won = rate(Result("discover", ("a", "b"), (1, 1), cooperative_win=True), current)
    lost = rate(Result("discover", ("a", "b"), (1, 1), cooperative_win=False), current)
    assert all(w.mu > c.mu > l_.mu for w, c, l_ in zip(won, current, lost))
    team, _ = MODEL.rate([[MODEL.rating(mu=r.mu, sigma=r.sigma) for r in current],
                          [MODEL.rating(mu=SCENARIO.mu, sigma=SCENARIO.sigma)]], ranks=[1, 2])
    assert [(r.mu, r.sigma) for r in won] == [(t.mu, t.sigma) for t in team]


def test_a_solo_competitive_match_teaches_nothing() -> None:
    assert rate(Result("pig", ("a",), (1,)), [DEFAULT]) == [DEFAULT]


def test_a_rating_survives_its_encoding_exactly() -> None:
    rating = Rating(25.123456789012345, 8.000000000000002, 7)
    assert Rating.decode(rating.encode()) == rating
    assert rating.ordinal == pytest.approx(rating.mu - 3 * rating.sigma)
