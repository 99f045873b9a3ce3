"""A search bot races to El Dorado in a normal game's length (the 200-round cap is a safety valve only)."""

from __future__ import annotations

from bots.arena import play
from bots.policies import make_policy
from services.games.el_dorado import GAME


def test_a_search_bot_reaches_el_dorado_first_in_a_normal_length() -> None:
    policies = [make_policy("random", GAME, 2, "9:0"), make_policy("search", GAME, 2, "9:1")]
    game = play(GAME, {}, policies, seed=9)
    assert game.outcome is not None
    assert game.outcome.detail["reason"] == "el_dorado"
    assert game.outcome.ranking == (2, 1)
    assert game.state.round <= 50
