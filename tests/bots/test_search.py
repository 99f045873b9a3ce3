"""The generic search (bots/search.py) on Pig: stronger than random, deterministic, within budget."""

from __future__ import annotations

import random
import time
from dataclasses import replace

import pytest

from bots.arena import play, wilson, won
from bots.policies import RandomPolicy, make_policy, parse_budget
from bots.search import Budget, Search
from bots.strategies import Strategy
from tests.bots.pig_bot import GAME, STRATEGY
from tests.fixtures import pig

BUDGET = Budget(iterations=60, depth=12)


def test_search_beats_random_at_pig() -> None:
    wins = 0.0
    games = 24
    for i in range(games):
        seat = i % 2
        policies = [RandomPolicy(random.Random(i)), RandomPolicy(random.Random(i))]
        policies[seat] = make_policy("search", GAME, 2, i, BUDGET, STRATEGY)
        wins += won(play(GAME, {}, policies, seed=i).outcome, seat)
    low, _ = wilson(wins, games)
    assert low > 0.5, f"search won {wins} of {games}"


def test_the_same_seed_gives_the_same_game() -> None:
    def game(seed: int) -> tuple[object, int]:
        policies = [make_policy("search", GAME, 2, f"{seed}:{s}", BUDGET, STRATEGY) for s in range(2)]
        played = play(GAME, {}, policies, seed=5)
        return played.outcome, played.decisions

    assert game(1) == game(1)
    assert game(1) != game(2)


def _position() -> tuple[object, list[object]]:
    """Seat 0 after one roll: it may roll again or hold."""
    state = pig.State(seats=2, scores=(3, 10), bonuses=("2", "5"), bag_ready=True, turn_total=4)
    return GAME.view(state, 0), list(GAME.engine.legal_actions(state, 0))


def test_an_iteration_budget_runs_exactly_that_many_iterations() -> None:
    view, legal = _position()
    search = Search(GAME, 2, random.Random(1), Budget(iterations=37), STRATEGY)
    assert search.choose(view, 0, legal) in legal
    assert search.iterations == 37


def test_a_time_budget_stops_the_search_in_time() -> None:
    view, legal = _position()
    search = Search(GAME, 2, random.Random(1), Budget(iterations=10**9, millis=30), STRATEGY)
    started = time.perf_counter()
    search.choose(view, 0, legal)
    assert time.perf_counter() - started < 0.3
    assert 0 < search.iterations < 10**9


def test_a_single_legal_action_is_taken_without_searching() -> None:
    state = pig.State(seats=2, scores=(3, 10), bonuses=("2", "5"), bag_ready=True, swapped=frozenset({0}))
    search = Search(GAME, 2, random.Random(1), BUDGET, STRATEGY)
    assert search.choose(GAME.view(state, 0), 0, [pig.Roll()]) == pig.Roll()
    assert search.iterations == 0


def test_a_game_without_determinize_has_no_search_bot() -> None:
    with pytest.raises(ValueError, match="determinize"):
        Search(pig.GAME, 2, random.Random(1), BUDGET)


@pytest.mark.parametrize(("text", "iterations", "millis"), [("80", 80, None), ("150ms", 1_000_000, 150.0)])
def test_budgets_parse(text: str, iterations: int, millis: float | None) -> None:
    budget = parse_budget(text)
    assert (budget.iterations, budget.millis) == (iterations, millis)


@pytest.mark.parametrize("text", ["", "0", "-3", "fast", "10s"])
def test_bad_budgets_are_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_budget(text)


def _planning(action: object, evaluate: object = None) -> Strategy[object, object]:
    """A plan that always names `action` (and, if given, another heuristic) for the search's pig."""
    changes: dict[str, object] = {"plan": lambda state, seat, legal, rng: action}
    if evaluate is not None:
        changes["evaluate"] = evaluate
    return replace(STRATEGY, **changes)


def test_the_plans_action_is_played_where_the_search_finds_nothing_better() -> None:
    view, legal = _position()
    flat = lambda state, seat: 0.5  # noqa: E731 - every position looks the same
    for planned in legal:
        search = Search(GAME, 2, random.Random(1), BUDGET, _planning(planned, flat))
        assert search.choose(view, 0, legal) == planned


def test_the_search_overrides_a_plan_it_finds_clearly_worse() -> None:
    """Holding now reaches the target and wins; rolling on risks a one: worse by far more than the margin."""
    state = pig.State(seats=2, scores=(4, 10), bonuses=("2", "5"), bag_ready=True, turn_total=pig.TARGET - 4)
    view, legal = GAME.view(state, 0), list(GAME.engine.legal_actions(state, 0))
    assert pig.Hold() in legal and pig.Roll() in legal
    search = Search(GAME, 2, random.Random(1), BUDGET, _planning(pig.Roll()))
    assert search.choose(view, 0, legal) == pig.Hold()
    assert Search(GAME, 2, random.Random(1), BUDGET, _planning(pig.Hold())).choose(view, 0, legal) == pig.Hold()
