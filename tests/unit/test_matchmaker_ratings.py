"""Rating updates: openskill Plackett-Luce over the outcome's places; which matches are trusted
to be rated, and which ratings the leaderboard shows."""

from __future__ import annotations

import pytest
from openskill.models import PlackettLuce

from services.common.config import load as load_settings
from services.common.players import CUSTOM, EXTERNAL, GUEST
from services.matchmaker import config as mm_config
from services.matchmaker.ratings import (
    DEFAULT,
    SCENARIO,
    Rating,
    RatingRules,
    Result,
    on_board,
    rate,
    untrusted,
)

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
    rating = Rating(25.123456789012345, 8.000000000000002, 7, 5)
    assert Rating.decode(rating.encode()) == rating
    # One stored before matchmade games were counted: none of its matches counts as one.
    assert Rating.decode(b"25.5 8.25 7") == Rating(25.5, 8.25, 7, 0)
    assert rating.ordinal == pytest.approx(rating.mu - 3 * rating.sigma)


def test_only_a_matchmade_table_counts_towards_the_matchmade_games() -> None:
    formed = rate(Result("pig", ("a", "b"), (1, 2), matchmade=True), [DEFAULT, Rating(25.0, 8.0, 4, 3)])
    custom = rate(Result("pig", ("a", "b"), (1, 2)), [DEFAULT, Rating(25.0, 8.0, 4, 3)])
    assert [(r.matches, r.matchmade) for r in formed] == [(1, 1), (5, 4)]
    assert [(r.matches, r.matchmade) for r in custom] == [(1, 0), (5, 3)]
    coop = rate(Result("discover", ("a", "b"), (1, 1), cooperative_win=True, matchmade=True), [DEFAULT] * 2)
    assert [r.matchmade for r in coop] == [1, 1]


def test_a_custom_table_is_rated_only_where_the_operator_allows() -> None:
    lobby = Result("pig", ("a", "b"), (1, 2))
    assert untrusted(lobby, RatingRules()) == "ratings.custom_table"
    assert untrusted(lobby, RatingRules(rate_custom_tables=True)) is None
    assert untrusted(Result("pig", ("a", "b"), (1, 2), matchmade=True), RatingRules()) is None


@pytest.mark.parametrize("matchmade", [True, False])
def test_one_player_in_two_seats_is_never_rated(matchmade: bool) -> None:
    table = Result("pig", ("a", "b", "a"), (1, 3, 2), matchmade=matchmade)
    assert untrusted(table, RatingRules(rate_custom_tables=True)) == "ratings.self_seated"
    # Bots are named per seat and never rated: two of them are not one player twice.
    assert untrusted(Result("pig", ("a", "bot-1", "bot-2"), (1, 2, 3), matchmade=True), RatingRules()) is None


def test_a_guest_reaches_the_leaderboard_after_its_minimum_of_matchmade_games() -> None:
    rules = RatingRules(guest_min_matches=10)
    assert not on_board(Rating(40.0, 1.0, 30, 9), GUEST, rules)
    assert on_board(Rating(40.0, 1.0, 10, 10), GUEST, rules)
    assert all(on_board(Rating(40.0, 1.0, 1, 0), kind, rules) for kind in (CUSTOM, EXTERNAL, ""))
    assert on_board(Rating(40.0, 1.0, 1, 0), GUEST, RatingRules(guest_min_matches=0))


def test_the_operator_sets_the_rules_in_the_environment() -> None:
    settings = load_settings({})
    assert mm_config.load(settings, {}).ratings == RatingRules(rate_custom_tables=False, guest_min_matches=10)
    env = {"TABLETOP_RATE_CUSTOM_TABLES": "on", "TABLETOP_RATE_GUEST_MIN_MATCHES": "3"}
    assert mm_config.load(settings, env).ratings == RatingRules(rate_custom_tables=True, guest_min_matches=3)
    for bad in ({"TABLETOP_RATE_CUSTOM_TABLES": "sometimes"}, {"TABLETOP_RATE_GUEST_MIN_MATCHES": "-1"}):
        with pytest.raises(ValueError, match="TABLETOP_RATE_"):
            mm_config.load(settings, bad)
