"""The wire format: every action, event and view of a random game round-trips through CODEC."""

from __future__ import annotations

import random

import pytest

from services.dice.playout import play
from services.games import registry
from services.games.discover import ENGINE

CODEC = registry.game("discover").codec


@pytest.mark.parametrize("seats", [1, 2, 3, 4])
def test_actions_events_views_and_state_round_trip(seats: int) -> None:
    rng = random.Random(seats)
    actions = []

    def recording(state, seat, legal):  # type: ignore[no-untyped-def]
        actions.extend(legal)
        return legal[rng.randrange(len(legal))]

    game = play(ENGINE, {}, seats, seed=100 + seats, policy=recording)
    for action in actions:
        assert CODEC.decode_action(CODEC.encode_action(action)) == action
    for event in game.events:
        assert CODEC.decode_event(CODEC.encode_event(event)) == event
        hidden = ENGINE.redact(event)
        if hidden is not None:
            assert CODEC.decode_event(CODEC.encode_event(hidden)) == hidden
    for viewer in (None, *range(seats)):
        view = ENGINE.view(game.state, viewer)
        assert CODEC.decode_view(CODEC.encode_view(view)) == view
    assert CODEC.decode_state(CODEC.encode_state(game.state)) == game.state
    middle = game.initial
    for event in game.events[: len(game.events) // 2]:
        middle = ENGINE.evolve(middle, event)
    assert CODEC.decode_state(CODEC.encode_state(middle)) == middle
    for viewer in (None, *range(seats)):
        assert CODEC.decode_view(CODEC.encode_view(ENGINE.view(middle, viewer))) == ENGINE.view(middle, viewer)
