"""Every action, event and view of a random game round-trips through the protos; so does the state."""

from __future__ import annotations

import random
from typing import Any

from services.dice.playout import play
from services.games import registry
from services.games.el_dorado import ENGINE
from tests.games.el_dorado.builders import racing_policy

CODEC = registry.game("el_dorado").codec


def test_actions_events_views_and_state_round_trip() -> None:
    seen_actions: list[Any] = []
    race = racing_policy(random.Random(3))

    def policy(state: Any, seat: int, actions: Any) -> Any:
        seen_actions.extend(actions)
        return race(state, seat, actions)

    game = play(ENGINE, {"course": "swamplands", "caves": "true"}, 2, seed=3, policy=policy)
    assert game.outcome is not None
    for action in set(seen_actions):
        assert CODEC.decode_action(CODEC.encode_action(action)) == action
    events = [*game.events, *(ENGINE.redact(e) for e in game.events)]
    for event in (e for e in events if e is not None):
        assert CODEC.decode_event(CODEC.encode_event(event)) == event
    state = game.initial
    for i, event in enumerate(game.events):
        state = ENGINE.evolve(state, event)
        if i % 50 == 0:
            assert CODEC.decode_state(CODEC.encode_state(state)) == state
            for viewer in (None, 0, 1):
                view = ENGINE.view(state, viewer)
                assert CODEC.decode_view(CODEC.encode_view(view)) == view


def test_codec_names_the_game() -> None:
    assert CODEC.game == ENGINE.name == "el_dorado"
