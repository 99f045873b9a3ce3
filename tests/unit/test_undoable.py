"""What the rules call undoable: the cheap half of the verdict, each game's declared
names, and real games' decisions (nothing undoable asks for chance; what a move
disclosed is tests/games/test_undo_disclosure.py's)."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from services.dice.playout import play
from services.games import registry
from services.games.common.chance import RollDice
from services.games.common.engine import Audience, Outcome, ToMove, Visibility
from services.rules.app import EngineHost, undoable
from services.rules.servicer import pass_indices

PUBLIC, MINE, THEIRS = Visibility(Audience.PUBLIC), Visibility(Audience.SEAT, 0), Visibility(Audience.SEAT, 1)


class Shown:
    pass


def test_a_public_or_own_move_that_asks_nothing_is_undoable():
    assert undoable(0, [(Shown(), PUBLIC, None), (Shown(), MINE, None)], ToMove((1,)), None)


def test_chance_the_end_or_a_secret_told_to_another_seat_or_the_servers_is_not():
    asked = ToMove((0,))
    assert not undoable(0, [(Shown(), PUBLIC, None)], ToMove((), RollDice(6, 1)), None)
    assert not undoable(0, [], asked, Outcome(ranking=(1, 2), scores=(1, 0)))
    assert not undoable(0, [(Shown(), THEIRS, None)], asked, None)
    assert not undoable(0, [(Shown(), Visibility(Audience.SERVER), None)], asked, None)
    assert not undoable(-1, [], asked, None)  # the chance seat


@pytest.mark.parametrize("name", registry.available())
def test_every_declared_pass_name_is_one_of_the_games_own_types(name: str):
    entry = registry.game(name)
    assert set(entry.engine.passes) <= {cls.__name__ for cls in entry.codec.action_types}


@pytest.mark.parametrize("name", ["el_dorado", "la_isla", "discover"])
def test_in_real_play_an_undoable_decision_never_asks_chance_nor_ends_the_game(name: str):
    host = EngineHost(registry.game(name))
    sample = host.entry.declaration.samples[0]
    # The states at which a seat was asked (a state between two events of one move is not one).
    states: list[object] = []
    rng = random.Random(sample.seed)

    def choose(state: object, seat: int, actions: Sequence[object]) -> object:
        states.append(state)
        return actions[rng.randrange(len(actions))]

    play(host.engine, dict(sample.config), sample.seats, sample.seed, max_steps=400, policy=choose)
    verdicts = []
    for state in states[::3]:
        turn = host.engine.to_move(state)
        if turn.chance is not None or not turn.seats:
            continue
        seat = turn.seats[0]
        for action in list(host.engine.legal_actions(state, seat))[:3]:
            decision = host.decide(host.encode(state), seat, action, judge_undo=True)
            verdicts.append(decision.undoable)
            if decision.undoable:
                assert decision.turn.chance is None and decision.outcome is None
    assert True in verdicts and False in verdicts, "a real game has moves of both kinds"


def test_a_timed_out_seat_passes_with_the_most_passive_legal_action():
    assert pass_indices(("StopMoving", "Done", "EndTurn"), ["PlayCard", "EndTurn", "Done"]) == [2, 1]
    assert pass_indices(("Hold",), ["Roll", "Swap"]) == []
