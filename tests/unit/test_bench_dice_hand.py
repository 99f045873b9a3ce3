"""The bench's minimal game has exactly the measured shape: each move rolls two
dice and draws a card into a hidden hand; and it passes the engines' conformance suite."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from services.games import registry
from services.games.common import chance
from services.games.common.engine import Audience, ToMove, apply
from tests.fixtures import dice_hand
from tests.games.test_conformance import conformance_game

ENGINE = dice_hand.ENGINE


@pytest.fixture
def registered() -> Iterator[None]:
    """dice_hand known to the registry for one test only."""
    registry.add_package("dice_hand", "tests.fixtures.dice_hand")
    yield
    registry.forget("dice_hand")


def shuffled(moves: int = 4) -> dice_hand.State:
    state = ENGINE.setup({"moves": str(moves)}, 2)
    request = ENGINE.to_move(state).chance
    assert request == chance.ShufflePile("deck", dice_hand.deck(moves))
    state, _ = apply(ENGINE, state, chance.CHANCE_SEAT, chance.PileShuffled("deck", moves))
    return state


def test_each_move_is_one_action_two_dice_and_one_private_draw_then_the_other_seat() -> None:
    state = shuffled()
    for seat in (0, 1, 0, 1):
        assert ENGINE.to_move(state).seats == (seat,)
        assert ENGINE.legal_actions(state, seat) == (dice_hand.Move(),)
        assert ENGINE.legal_actions(state, 1 - seat) == ()  # the host answers for a seat not asked
        state, _ = apply(ENGINE, state, seat, dice_hand.Move())
        assert ENGINE.to_move(state).chance == chance.RollDice(2, 6)
        state, _ = apply(ENGINE, state, chance.CHANCE_SEAT, chance.DiceRolled((3, 5)))
        assert ENGINE.to_move(state).chance == chance.DrawCards("deck", 1, seat)
        state, (drawn,) = apply(ENGINE, state, chance.CHANCE_SEAT, chance.CardsDrawn("deck", (f"x{seat}",)))
        assert ENGINE.visibility(drawn).audience is Audience.SEAT
        assert ENGINE.visibility(drawn).seat == seat
        assert ENGINE.redact(drawn) == dice_hand.CardHidden(seat)
    assert ENGINE.to_move(state) == ToMove()  # four moves made: over
    outcome = ENGINE.result(state)
    assert outcome is not None and outcome.scores == (16, 16) and outcome.ranking == (1, 1)


def test_only_the_holder_sees_the_hand() -> None:
    state = shuffled()
    state, _ = apply(ENGINE, state, 0, dice_hand.Move())
    state, _ = apply(ENGINE, state, chance.CHANCE_SEAT, chance.DiceRolled((6, 6)))
    state, _ = apply(ENGINE, state, chance.CHANCE_SEAT, chance.CardsDrawn("deck", ("c2",)))
    assert ENGINE.view(state, 0).my_hand == ("c2",)
    assert ENGINE.view(state, 1).my_hand == ()
    assert ENGINE.view(state, None).hand_sizes == (1, 0)
    assert ENGINE.view(state, 1).scores == (12, 0)


@pytest.mark.usefixtures("registered")
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_conformance(seed: int) -> None:
    conformance_game("dice_hand", 2, seed)


@pytest.mark.usefixtures("registered")
def test_the_wire_format_is_declared_for_every_action_event_and_the_view() -> None:
    codec = registry.game("dice_hand").codec
    event = dice_hand.DiceRolled(1, (2, 6))
    assert codec.decode_event(codec.encode_event(event)) == event
    assert codec.decode_action(codec.encode_action(dice_hand.Move())) == dice_hand.Move()
    view = ENGINE.view(shuffled(), 0)
    assert codec.decode_view(codec.encode_view(view)) == view
