"""One conformance suite for every registered engine, through seeded random play.

Whatever the game: every listed legal action is accepted, a refused action
changes nothing, decide and evolve are deterministic, the game ends with a
ranking of every seat, replaying the events reproduces the state, states,
actions, events and views survive their wire format, and a redacted event
never equals the event it hides.
"""

from __future__ import annotations

import os
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.dice.playout import LocalChance
from services.games import registry
from services.games.common import chance
from services.games.common.engine import Audience, IllegalAction

SOAK = bool(os.environ.get("SOAK"))
GAMES = [g for g in registry.GAMES if g in registry.available()]
CHECKED_STEPS = 400  # full per-step checks for this many steps, then plain play to the end
MAX_STEPS = 200_000


def seat_counts(game: str) -> list[int]:
    engine = registry.game(game).engine
    return list(range(engine.min_seats, engine.max_seats + 1))


def conformance_game(game: str, seats: int, seed: int) -> None:
    entry = registry.game(game)
    engine, codec = entry.engine, entry.codec
    rng = random.Random(seed)
    resolver = LocalChance(seed=seed.to_bytes(32, "big"))
    initial = state = engine.setup({}, seats)
    events: list[Any] = []
    for step in range(MAX_STEPS):
        turn = engine.to_move(state)
        checking = step < CHECKED_STEPS
        if turn.chance is not None:
            seat, action = chance.CHANCE_SEAT, resolver.resolve(turn.chance)
        elif turn.seats:
            seat = turn.seats[rng.randrange(len(turn.seats))]
            legal = list(engine.legal_actions(state, seat))
            assert legal, f"seat {seat} must act but has no legal action"
            action = legal[rng.randrange(len(legal))]
            if checking:
                check_legal_sample(engine, codec, state, seat, legal, rng)
                check_wrong_seat(engine, state, turn.seats, seats, legal[0])
        else:
            break
        emitted = engine.decide(state, seat, action)
        if checking:
            assert engine.decide(state, seat, action) == emitted, "decide is not deterministic"
        for event in emitted:
            after = engine.evolve(state, event)
            if checking:
                assert engine.evolve(state, event) == after, "evolve is not deterministic"
                check_event_wire(engine, codec, event)
            state = after
            events.append(event)
        if checking and step % 25 == 0:
            check_state_wire(engine, codec, state, seats)
    else:
        pytest.fail(f"{game} did not end within {MAX_STEPS} steps")
    outcome = engine.result(state)
    assert outcome is not None, "a finished game has a result"
    assert len(outcome.ranking) == seats and min(outcome.ranking) == 1
    replayed = initial
    for event in events:
        replayed = engine.evolve(replayed, event)
    assert replayed == state, "replaying the events does not reproduce the state"


def check_legal_sample(engine: Any, codec: Any, state: Any, seat: int, legal: list[Any], rng: random.Random) -> None:
    for action in rng.sample(legal, min(3, len(legal))):
        engine.decide(state, seat, action)  # raises if a listed action is refused
        assert codec.decode_action(codec.encode_action(action)) == action


def check_wrong_seat(engine: Any, state: Any, acting: tuple[int, ...], seats: int, action: Any) -> None:
    idle = [s for s in range(seats) if s not in acting]
    if idle:
        with pytest.raises(IllegalAction) as refused:
            engine.decide(state, idle[0], action)
        assert refused.value.rule == "turn.not_your_seat"


def check_event_wire(engine: Any, codec: Any, event: Any) -> None:
    assert codec.decode_event(codec.encode_event(event)) == event
    if engine.visibility(event).audience is not Audience.PUBLIC:
        redacted = engine.redact(event)
        assert redacted != event, "a hidden event's redaction must differ from it"
        if redacted is not None:
            assert codec.decode_event(codec.encode_event(redacted)) == redacted


def check_state_wire(engine: Any, codec: Any, state: Any, seats: int) -> None:
    assert codec.decode_state(codec.encode_state(state)) == state
    for viewer in [None, *range(seats)]:
        view = engine.view(state, viewer)
        assert codec.decode_view(codec.encode_view(view)) == view


@pytest.mark.parametrize("game", GAMES)
def test_engine_conforms_for_every_seat_count(game: str) -> None:
    for seats in seat_counts(game):
        conformance_game(game, seats, seed=seats)


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=200 if SOAK else 5, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(min_value=0, max_value=2**31))
def test_engine_conforms_on_random_seeds(game: str, seed: int) -> None:
    seats = seat_counts(game)
    conformance_game(game, seats[seed % len(seats)], seed)
