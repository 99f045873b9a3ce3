"""Every action, event, view and state of a random game survives the wire format."""

from __future__ import annotations

import random

import pytest
from tabletop.games.la_isla.v1 import actions_pb2

from services.dice.playout import play
from services.games import registry
from services.games.common.protocodec import ProtoMismatch
from services.games.la_isla import ENGINE
from services.games.la_isla.state import Phase

CODEC = registry.game("la_isla").codec


@pytest.mark.parametrize(("seats", "deck", "seed"), [(2, "beginner", 3), (4, "full", 8)])
def test_a_random_game_round_trips_through_the_codec(seats, deck, seed):
    game = play(ENGINE, {"deck": deck}, seats, seed)
    rng = random.Random(seed)
    state = game.initial
    for step, event in enumerate(game.events):
        assert CODEC.decode_event(CODEC.encode_event(event)) == event
        redacted = ENGINE.redact(event)
        if redacted is not None:
            assert CODEC.decode_event(CODEC.encode_event(redacted)) == redacted
        state = ENGINE.evolve(state, event)
        if step % 7:
            continue  # a sample of positions keeps the default run short
        assert CODEC.decode_state(CODEC.encode_state(state)) == state
        for viewer in (None, *range(seats)):
            view = ENGINE.view(state, viewer)
            assert CODEC.decode_view(CODEC.encode_view(view)) == view
        for seat in ENGINE.to_move(state).seats:
            legal = list(ENGINE.legal_actions(state, seat))
            for action in rng.sample(legal, min(5, len(legal))):
                assert CODEC.decode_action(CODEC.encode_action(action)) == action
    assert state.phase is Phase.OVER
    assert CODEC.decode_state(CODEC.encode_state(state)) == state


def test_an_action_with_no_kind_is_refused():
    with pytest.raises(ProtoMismatch):
        CODEC.decode_action(actions_pb2.Action())


def test_an_unspecified_colour_is_refused():
    message = actions_pb2.Action(take_resource=actions_pb2.TakeResource(colour=0))
    with pytest.raises(ProtoMismatch):
        CODEC.decode_action(message)
