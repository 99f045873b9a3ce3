"""Views: everything public, plus the viewer's own hand and unrevealed choices only."""

from __future__ import annotations

from services.dice.playout import play
from services.games.common.engine import apply
from services.games.la_isla import ENGINE
from services.games.la_isla.actions import AssignCards
from services.games.la_isla.state import Assignment
from tests.games.la_isla.builders import assigning, plain_cards

HANDS = (plain_cards(6)[:3], plain_cards(6)[3:])


def test_a_seat_sees_its_own_hand_and_only_counts_of_others():
    state = assigning(HANDS)
    view = ENGINE.view(state, 0)
    assert view.hand == HANDS[0]
    assert [p.hand_count for p in view.players] == [3, 3]
    assert ENGINE.view(state, None).hand == ()


def test_an_unrevealed_assignment_is_seen_by_its_seat_only():
    state, _ = apply(ENGINE, assigning(HANDS), 0, AssignCards(*HANDS[0], 0))
    assert ENGINE.view(state, 0).my_assignment == Assignment(*HANDS[0], 0)
    other = ENGINE.view(state, 1)
    assert other.my_assignment is None and other.players[0].has_chosen and not other.players[1].has_chosen


def test_a_draw_pile_shows_only_its_size():
    game = play(ENGINE, {}, 2, 1)
    state = game.initial
    for event in game.events[:10]:
        state = ENGINE.evolve(state, event)
    view = ENGINE.view(state, None)
    assert view.draw_pile == "draw:1" and view.draw_pile_size == state.pile_size


def test_the_island_shows_every_space_region_and_marker():
    view = ENGINE.view(assigning(HANDS), None)
    assert len(view.spaces) == 40 and len(view.regions) == 35 and len(view.markers) == 5
    assert all(r.tile is not None for r in view.regions)


def test_b_and_d_cards_stay_hidden_until_their_action():
    state, _ = apply(ENGINE, assigning(HANDS), 0, AssignCards(*HANDS[0], 0))
    state, _ = apply(ENGINE, state, 1, AssignCards(*HANDS[1], 0))
    _, b0, d0 = HANDS[0]
    other = ENGINE.view(state, 1)
    assert other.players[0].slots[0].top == HANDS[0][0]  # A revealed
    assert b0 in other.discard  # B revealed with action B (nobody had a B choice)
    assert d0 not in str(other)  # D stays secret until action D
    assert ENGINE.view(state, 0).my_assignment == Assignment(*HANDS[0], 0)
