"""The generic engine host: scenarios of moves the position does not ask for.

Each scenario is a position, a move, and the host's refusal. A game's own
`decide` must never see such a move, so the scenarios run Pig with a `decide`
that fails the test when it is reached; the built-in games are checked at
their first and last positions.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import pytest

from services.dice.playout import LocalChance, play
from services.games import registry
from services.games.common import chance
from services.games.common.chance import CHANCE_SEAT
from services.games.common.engine import IllegalAction, InvalidConfig
from services.games.common.host import HOST_RULES, GameDeclaration, HostedEngine, Sample, answers
from tests.fixtures import pig


def unreachable(state: Any, seat: int, move: Any) -> Sequence[Any]:
    raise AssertionError(f"the game's decide was reached with seat {seat}, {move!r}")


def unasked(state: Any, seat: int) -> Sequence[Any]:
    raise AssertionError(f"the game's legal_actions was asked about seat {seat}")


GUARDED: HostedEngine[Any, Any, Any] = dataclasses.replace(pig.GAME, decide=unreachable, legal_actions=unasked).engine


def refusal(engine: HostedEngine[Any, Any, Any], state: Any, seat: int, move: Any) -> str:
    with pytest.raises(IllegalAction) as refused:
        engine.decide(state, seat, move)
    return refused.value.rule


def dealt(seats: int = 2) -> pig.State:
    """Pig after its bag is shuffled and every bonus dealt: seat 0 is to roll."""
    return pig.State(seats=seats, scores=(0,) * seats, bonuses=("3",) * seats, bag_ready=True)


def test_a_seat_not_asked_to_act_is_refused() -> None:
    assert pig.to_move(dealt()).seats == (0,)
    assert refusal(GUARDED, dealt(), 1, pig.Roll()) == "turn.not_your_seat"
    assert refusal(GUARDED, dealt(), 7, pig.Roll()) == "turn.not_your_seat"


def test_a_seat_not_asked_to_act_has_no_legal_action() -> None:
    rolling = dataclasses.replace(dealt(), rolling=True)
    over = dataclasses.replace(dealt(), scores=(31, 4))
    for state, seat in ((dealt(), 1), (rolling, 0), (over, 0), (dealt(), CHANCE_SEAT)):
        assert GUARDED.legal_actions(state, seat) == ()
    assert pig.ENGINE.legal_actions(dealt(), 0) == (pig.Roll(), pig.Swap())


def test_a_move_after_the_end_is_refused() -> None:
    over = dataclasses.replace(dealt(), scores=(31, 4))
    assert pig.result(over) is not None
    assert refusal(GUARDED, over, 0, pig.Roll()) == "turn.game_over"
    assert refusal(GUARDED, over, CHANCE_SEAT, chance.DiceRolled((4,))) == "turn.game_over"


def test_a_chance_outcome_when_none_is_pending_is_refused() -> None:
    assert refusal(GUARDED, dealt(), CHANCE_SEAT, chance.DiceRolled((4,))) == "chance.unexpected"


def test_a_wrong_kind_of_outcome_is_refused() -> None:
    rolling = dataclasses.replace(dealt(), rolling=True)
    assert refusal(GUARDED, rolling, CHANCE_SEAT, chance.CardsDrawn("bag", ("2",))) == "chance.mismatch"
    assert refusal(GUARDED, rolling, CHANCE_SEAT, pig.Roll()) == "chance.mismatch"


def test_an_outcome_of_the_right_kind_but_the_wrong_shape_is_refused() -> None:
    rolling = dataclasses.replace(dealt(), rolling=True)
    for wrong in (chance.DiceRolled((7,)), chance.DiceRolled((0,)), chance.DiceRolled((2, 3))):
        assert refusal(GUARDED, rolling, CHANCE_SEAT, wrong) == "chance.mismatch"
    empty = pig.State(seats=2, scores=(0, 0), bonuses=())
    assert refusal(GUARDED, empty, CHANCE_SEAT, chance.PileShuffled("bag", 5)) == "chance.mismatch"
    assert refusal(GUARDED, empty, CHANCE_SEAT, chance.PileShuffled("sack", 6)) == "chance.mismatch"


def test_a_seat_acting_while_chance_must_answer_is_refused() -> None:
    rolling = dataclasses.replace(dealt(), rolling=True)
    assert refusal(GUARDED, rolling, 0, pig.Hold()) == "turn.chance_pending"


def test_a_player_seat_submitting_a_chance_outcome_is_refused() -> None:
    assert refusal(GUARDED, dealt(), 0, chance.DiceRolled((4,))) == "chance.not_chance_seat"


def test_the_game_decides_what_the_host_lets_through() -> None:
    assert pig.ENGINE.decide(dealt(), 0, pig.Roll()) == (pig.DieRolled(0, 0),)
    assert refusal(pig.ENGINE, dealt(), 0, pig.Hold()) == "pig.hold.nothing_to_bank"
    rolling = dataclasses.replace(dealt(), rolling=True)
    assert pig.ENGINE.decide(rolling, CHANCE_SEAT, chance.DiceRolled((5,))) == (pig.DieRolled(0, 5),)


@pytest.mark.parametrize(
    ("request_", "outcome", "answered"),
    [
        (chance.RollDice(2, 6), chance.DiceRolled((1, 6)), True),
        (chance.RollDice(2, 6), chance.DiceRolled((1, 7)), False),
        (chance.Permute(3), chance.Permuted((2, 0, 1)), True),
        (chance.Permute(3), chance.Permuted((0, 0, 1)), False),
        (chance.Permute(3), chance.Permuted((0, 1)), False),
        (chance.ShufflePile("p", ("a", "b")), chance.PileShuffled("p", 2), True),
        (chance.ShufflePile("p", ("a", "b")), chance.PileShuffled("q", 2), False),
        (chance.DrawCards("p", 2, None), chance.CardsDrawn("p", ("a", "b")), True),
        (chance.DrawCards("p", 2, 0), chance.CardsDrawn("p", ("a",)), False),
        (chance.PutCards("p", ("a",), bottom=True, seat=0), chance.CardsPut("p", 4), True),
        (chance.PutCards("p", ("a",), bottom=True, seat=0), chance.CardsPut("q", 4), False),
        (chance.RollDice(1, 6), chance.Permuted((0,)), False),
    ],
)
def test_answers_checks_kind_and_shape(request_: chance.ChanceRequest, outcome: object, answered: bool) -> None:
    assert answers(request_, outcome) is answered


@pytest.mark.parametrize("game", registry.GAMES)
def test_every_built_in_game_is_hosted(game: str) -> None:
    """At the first position a seat's move waits for chance; after the end nothing is asked."""
    engine = registry.game(game).engine
    assert isinstance(engine, HostedEngine)
    sample = registry.declaration(game).samples[0]
    state = engine.setup(dict(sample.config), sample.seats)
    request = engine.to_move(state).chance
    assert request is not None, "every built-in game sets up through chance"
    outcome = LocalChance(seed=bytes(32)).resolve(request)
    assert refusal(engine, state, 0, outcome) == "chance.not_chance_seat"
    finished = play(engine, dict(sample.config), sample.seats, sample.seed)
    assert finished.outcome is not None
    assert refusal(engine, finished.state, 0, outcome) == "turn.game_over"
    assert refusal(engine, finished.state, CHANCE_SEAT, outcome) == "turn.game_over"


def test_host_rule_ids_are_dotted_and_unprefixed() -> None:
    for rule in HOST_RULES:
        area, _, name = rule.partition(".")
        assert area in ("turn", "chance") and name and "." not in name


def test_a_seat_count_outside_the_declared_range_is_refused_before_the_game_sets_up() -> None:
    def unreached(config: Any, seats: int) -> Any:
        raise AssertionError(f"the game's setup was called with {seats} seats")

    guarded = dataclasses.replace(pig.GAME, setup=unreached).engine
    for seats in (0, 7):
        with pytest.raises(InvalidConfig, match="1 to 6 seats"):
            guarded.setup({}, seats)


def test_a_declaration_refuses_an_impossible_seat_range() -> None:
    with pytest.raises(ValueError, match="seats"):
        dataclasses.replace(pig.GAME, min_seats=3, max_seats=2)
    with pytest.raises(ValueError, match="sample"):
        dataclasses.replace(pig.GAME, samples=(Sample(seats=7, seed=1),))


def test_pig_is_declared_like_a_built_in_game() -> None:
    assert isinstance(pig.GAME, GameDeclaration)
    registry.add_package("pig", "tests.fixtures.pig")
    try:
        entry = registry.game("pig")
        assert entry.declaration is pig.GAME and "pig" in registry.available()
        finished = play(entry.engine, {}, 3, seed=5)
        assert finished.outcome is not None and len(finished.outcome.ranking) == 3
        for event in finished.events:
            assert entry.codec.decode_event(entry.codec.encode_event(event)) == event
    finally:
        registry.forget("pig")
