"""Setup (RB p.2): options, random blockades, cave tokens and decks through chance requests."""

from __future__ import annotations

import pytest

from services.games.common.chance import Permute, ShufflePile
from services.games.common.engine import InvalidConfig
from services.games.el_dorado import ENGINE, content
from services.games.el_dorado import events as ev
from services.games.el_dorado.board import board
from tests.games.el_dorado.builders import COURSES, resolve


def test_setup_asks_chance_for_blockades_caves_and_decks() -> None:
    state = ENGINE.setup({"caves": "true"}, 3)
    assert ENGINE.to_move(state).chance == Permute(6)
    state, events = resolve(state)
    assert events[0] == ev.BlockadesPlaced((1, 2, 3, 4))
    assert events[1] == ev.CaveTokensShuffled(3, 4)
    assert events[2] == ev.DeckShuffled(0, content.starting_deck())
    assert events[-1] == ev.TurnStarted(0, 1)
    assert all(len(p.hand) == 4 and len(p.draw) == 4 for p in state.players)


def test_first_request_of_a_deck_is_a_shuffle_of_the_starting_cards() -> None:
    state = ENGINE.setup({}, 2)
    state = ENGINE.evolve(state, ev.BlockadesPlaced((1, 2, 3, 4)))
    assert ENGINE.to_move(state).chance == ShufflePile("draw:0", content.starting_deck())


@pytest.mark.parametrize("course", COURSES)
def test_every_course_has_a_blockade_on_each_join(course: str) -> None:
    b = board(course)
    assert 4 <= b.seam_count <= 6 and len(b.starts) == 4
    assert sum(1 for s in b.spaces.values() if s.finish) == 3


@pytest.mark.parametrize(
    "config, seats",
    [({"course": "atlantis"}, 3), ({"caves": "yes"}, 3), ({"colour": "red"}, 3), ({}, 5), ({}, 1),
     ({"max_rounds": "0"}, 2)],
)
def test_invalid_config_is_refused(config: dict[str, str], seats: int) -> None:
    with pytest.raises(InvalidConfig):
        ENGINE.setup(config, seats)


def test_content_counts() -> None:
    cards = content.cards()
    assert len(cards) == 21 and len(content.market_types()) == 18
    assert sum(c.copies for c in cards.values()) == 54 and len(content.starting_deck()) == 8
    assert len(content.token_pile()) == 36 and len(content.blockades()) == 6
    assert sum(1 for c in cards.values() if c.market == "board") == content.board_slots()
