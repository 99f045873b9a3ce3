"""Action D, the end of a round, the end check and final scoring (Acción D, Fin del juego)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from services.games.common.chance import CHANCE_SEAT, CardsDrawn
from services.games.common.engine import IllegalAction, apply
from services.games.la_isla import ENGINE
from services.games.la_isla.actions import AdvanceMarkers, TakeResource
from services.games.la_isla.content import Animal, Colour, ExtraMarkerMove
from services.games.la_isla.events import (
    AnimalsAdvanced,
    ChoiceMade,
    FinalScore,
    GameEnded,
    MarkerAdvanced,
    MarkerMovesChosen,
    ResourceGained,
    RoundEnded,
    SeatCard,
    Step,
    TurnEnded,
)
from services.games.la_isla.result import ranking
from services.games.la_isla.rules import END_THRESHOLD
from services.games.la_isla.state import Phase
from tests.games.la_isla.builders import card_where, card_with, last_turn, resources, set_up, with_player

DODO_CARD = card_where(animal=Animal.DODO)
FOSSA_CARD = card_where(animal=Animal.GIANT_FOSSA)
W = Colour.WHITE


def test_lena_moves_the_dodo_and_scores_three_with_the_large_and_a_small_dodo():
    state = last_turn((DODO_CARD, FOSSA_CARD))
    state = with_player(state, 0, large=Animal.DODO, tiles=(1, 0, 0, 0, 0))
    state = with_player(state, 1, large=Animal.GIANT_FOSSA, tiles=(1, 0, 0, 0, 0))
    after, events = apply(ENGINE, state, 1, TakeResource(W))
    assert events == [
        ResourceGained(1, W, False),
        TurnEnded(1),
        AnimalsAdvanced(
            (SeatCard(0, DODO_CARD), SeatCard(1, FOSSA_CARD)),
            (MarkerAdvanced(0, Animal.DODO, True, 3), MarkerAdvanced(1, Animal.GIANT_FOSSA, True, 2)),
            (),
        ),
        RoundEnded(1, 0, 1),
    ]
    assert after.player(0).score == 3 and after.player(1).score == 2  # nobody else scores Lena's Dodo
    assert after.phase is Phase.DRAW and after.round == 2 and after.start == 1


def test_a_marker_on_the_top_space_stays_but_its_player_still_scores():
    state = last_turn((DODO_CARD, FOSSA_CARD), markers=(20, 0, 0, 0, 0))
    state = with_player(state, 0, large=Animal.DODO, tiles=(0, 0, 0, 0, 0))
    _, events = apply(ENGINE, state, 1, TakeResource(W))
    assert events[2].moves[0] == MarkerAdvanced(0, Animal.DODO, False, 2)  # type: ignore[union-attr]


def test_extra_marker_move_function_is_chosen_in_secret_and_scores_each_move():
    state = last_turn((DODO_CARD, FOSSA_CARD))
    state = with_player(state, 0, large=Animal.DODO, slots=((card_with(ExtraMarkerMove(1)),), (), ()))
    state, _ = apply(ENGINE, state, 1, TakeResource(W))
    assert state.phase is Phase.ANIMALS and ENGINE.to_move(state).seats == (0,)
    assert ENGINE.legal_actions(state, 0) == (AdvanceMarkers(0), AdvanceMarkers(1))
    with pytest.raises(IllegalAction) as refusal:
        ENGINE.decide(state, 0, AdvanceMarkers(2))
    assert refusal.value.rule == "la_isla.d.extra_moves"
    state, events = apply(ENGINE, state, 0, AdvanceMarkers(1))
    assert events[0] == MarkerMovesChosen(0, 1) and ENGINE.redact(events[0]) == ChoiceMade(0, Step.ANIMALS)
    assert events[1].moves[:2] == (  # type: ignore[union-attr]
        MarkerAdvanced(0, Animal.DODO, True, 2),
        MarkerAdvanced(0, Animal.DODO, True, 2),
    )
    assert state.markers[0] == 2


def test_unassigned_hand_cards_are_discarded_with_action_d():
    state = last_turn((DODO_CARD, FOSSA_CARD))
    spare = card_where(animal=Animal.OWLET_MOTH)
    state = with_player(state, 0, hand=(spare,))
    after, events = apply(ENGINE, state, 1, TakeResource(W))
    assert events[2].discarded == (SeatCard(0, spare),)  # type: ignore[union-attr]
    assert spare in after.discard and after.player(0).hand == ()


def test_end_threshold_is_seven_nine_or_eleven_by_player_count():
    assert END_THRESHOLD == {2: 7, 3: 9, 4: 11}
    assert [ENGINE.view(set_up(n), None).end_threshold for n in (2, 3, 4)] == [7, 9, 11]


def test_game_continues_while_the_areas_sum_below_the_threshold():
    state = last_turn((DODO_CARD, FOSSA_CARD), markers=(20, 6, 0, 0, 0))  # areas 5 + 1
    _, events = apply(ENGINE, state, 1, TakeResource(W))
    assert events[-1] == RoundEnded(1, 6, 1)  # Fossa 6 -> 7 stays in area 1


def test_game_ends_at_the_end_of_the_round_once_the_areas_reach_the_threshold():
    state = last_turn((DODO_CARD, FOSSA_CARD), markers=(20, 7, 0, 0, 0))
    state = with_player(state, 0, score=10, large=Animal.DODO, resources=resources(white=3))
    state = with_player(state, 1, large=Animal.GIANT_FOSSA, resources=resources())
    after, events = apply(ENGINE, state, 1, TakeResource(W))
    # seat 0: 10 + 2 (D on the top Dodo) + large Dodo 2 x area 5 + 3 resources // 2 = 23;
    # seat 1: 2 (D) + large Fossa 2 x area 2 = 6
    assert events[-2:] == [
        RoundEnded(1, 7, 1),
        GameEnded((FinalScore(0, 0, 10, 1, 23, 3), FinalScore(1, 0, 4, 0, 6, 1))),
    ]
    assert after.phase is Phase.OVER and ENGINE.to_move(after).seats == () and ENGINE.to_move(after).chance is None
    outcome = ENGINE.result(after)
    assert outcome is not None and outcome.ranking == (1, 2) and outcome.scores == (23, 6)


def test_final_scoring_counts_sets_of_five_with_large_tiles_counting_two():
    state = last_turn((DODO_CARD, FOSSA_CARD), markers=(20, 7, 0, 0, 0))
    # Large Dodo (2) + one small of each other animal: one complete set; two Dodos need a second set.
    state = with_player(state, 0, large=Animal.DODO, tiles=(0, 1, 1, 1, 1), resources=resources())
    state = with_player(state, 1, large=Animal.GIANT_FOSSA, tiles=(0, 0, 0, 0, 0), resources=resources())
    _, events = apply(ENGINE, state, 1, TakeResource(W))
    final = events[-1].scores[0]  # type: ignore[union-attr]
    # tiles: Dodo 2 x 5 + Fossa 1 x 2 (after the D move to space 8) = 12
    assert (final.sets, final.tiles, final.resources) == (10, 12, 0)


def test_ties_go_to_most_resources_left_then_are_shared():
    assert ranking([(30, 2), (30, 5), (28, 9)]) == (2, 1, 3)
    assert ranking([(30, 4), (30, 4), (12, 0)]) == (1, 1, 3)


def test_when_no_card_is_left_to_draw_the_game_ends():
    state = replace(set_up(2), pile_size=0, discard=())
    assert ENGINE.to_move(state).chance is None  # reachable only through decide, which ends the game
    with_cards = replace(set_up(2), pile_size=1, discard=())
    after, events = apply(ENGINE, with_cards, CHANCE_SEAT, CardsDrawn("draw:1", (DODO_CARD,)))
    assert isinstance(events[-1], GameEnded) and after.phase is Phase.OVER
    outcome = ENGINE.result(after)
    assert outcome is not None and outcome.detail["reason"] == "cards_ran_out"


def test_simultaneous_moves_of_one_marker_apply_clockwise_from_the_start_player():
    state = last_turn((DODO_CARD, card_where(animal=Animal.DODO, resource=Colour.GREEN)), markers=(19, 0, 0, 0, 0))
    state = with_player(state, 1, tiles=(1, 0, 0, 0, 0))
    after, events = apply(ENGINE, state, 1, TakeResource(W))
    assert events[2].moves == (  # type: ignore[union-attr]
        MarkerAdvanced(0, Animal.DODO, True, 2),  # seat 0 holds the large Dodo
        MarkerAdvanced(1, Animal.DODO, False, 1),  # already on the top space: stays, still scores
    )
    assert after.markers[0] == 20
