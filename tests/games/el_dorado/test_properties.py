"""Random whole games on every course and seat count: invariants hold, games end, replay agrees."""

from __future__ import annotations

import os
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.dice.playout import play
from services.games.common.engine import STOPPED_REASON, IllegalAction, replay
from services.games.el_dorado import ENGINE, content
from services.games.el_dorado.board import board
from services.games.el_dorado.state import State
from tests.games.el_dorado.builders import COURSES, illegal_probe, racing_policy


def cards_on_table(state: State) -> Counter[str]:
    """Every card: piles, hands, play areas, removed, and the market."""
    count: Counter[str] = Counter()
    for p in state.players:
        for pile in (p.hand, p.draw, p.discard, p.played, p.removed):
            count.update(pile)
    count.update({c: n for c, n in zip(content.market_types(), state.stock)})
    return count


def check_invariants(state: State, event: Any) -> None:
    """Cards are conserved; no piece on a mountain or (without caves) sharing a space."""
    expected = Counter({c.id: c.copies + state.seats * c.starting for c in content.cards().values()})
    assert +cards_on_table(state) == +expected
    spots = [h for p in state.players for h in p.pieces if h is not None]
    b = board(state.course)
    assert all(b.enterable(h) or b.spaces[h].start for h in spots)
    if not state.caves:
        assert len(spots) == len(set(spots))


def checking_policy(rng: random.Random) -> Any:
    """The racing bot, which also checks legal_actions against decide now and then."""
    race = racing_policy(rng)

    def choose(state: State, seat: int, actions: Any) -> Any:
        if rng.random() < 0.03:
            for action in actions:
                ENGINE.decide(state, seat, action)
            for _ in range(5):
                probe = illegal_probe(state, seat, rng)
                if probe not in actions:
                    with pytest.raises(IllegalAction):
                        ENGINE.decide(state, seat, probe)
        return race(state, seat, actions)

    return choose


def one_game(course: str, seats: int, seed: int, caves: bool) -> None:
    config = {"course": course, "caves": "true" if caves else "false"}
    game = play(ENGINE, config, seats, seed, check=check_invariants,
                policy=checking_policy(random.Random(seed)))
    assert game.outcome is not None, "the game did not end"
    assert sorted(game.outcome.ranking)[0] == 1
    assert replay(ENGINE, game.initial, game.events) == game.state


@pytest.mark.parametrize("seats", [2, 3, 4])
@pytest.mark.parametrize("course", COURSES)
@settings(max_examples=1, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31))
def test_random_games_end_with_a_ranking(course: str, seats: int, seed: int) -> None:
    one_game(course, seats, seed, caves=(seed + seats) % 2 == 0)


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("SOAK"), reason="set SOAK=1 for thousands of games")
def test_soak_thousands_of_games() -> None:
    games = 2000 * int(os.environ.get("SOAK", "1"))
    for seed in range(games):
        one_game(COURSES[seed % len(COURSES)], 2 + seed % 3, seed, caves=seed % 2 == 0)


def test_uniform_random_bots_are_stopped_by_the_round_cap() -> None:
    """max_rounds is a safety cap only: it stops aimless bots' games without a verdict."""
    game = play(ENGINE, {"max_rounds": "5"}, 3, seed=7)
    assert game.outcome is not None
    assert game.state.end_reason == STOPPED_REASON
    assert game.state.round == 5
    assert game.outcome.ranking == (1, 1, 1)  # stopped, not decided: nobody ranked as a loser
