"""Setup and content (rulebook: Componentes, Preparar)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from services.games.common.chance import CHANCE_SEAT, Permute, Permuted, PileShuffled, ShufflePile
from services.games.common.engine import IllegalAction, InvalidConfig, apply
from services.games.la_isla import ENGINE
from services.games.la_isla.content import ANIMALS, COLOURS, Animal
from services.games.la_isla.events import DrawPileShuffled, IslandBuilt, LargeTilesDealt, TilesPlaced
from services.games.la_isla.island import build
from services.games.la_isla.rules import CONTENT
from services.games.la_isla.setup import deck_cards

CONTENT_DIR = Path(__file__).resolve().parents[3] / "services/games/la_isla/content"


def test_setup_refuses_unknown_options_and_player_counts():
    with pytest.raises(InvalidConfig):
        ENGINE.setup({"variant": "x"}, 2)
    with pytest.raises(InvalidConfig):
        ENGINE.setup({"deck": "expert"}, 2)
    for seats in (1, 5):
        with pytest.raises(InvalidConfig):
            ENGINE.setup({}, seats)


def test_deck_defaults_to_beginner_value_one_cards():
    assert ENGINE.setup({}, 2).deck == "beginner"
    assert len(deck_cards("beginner")) == 120
    assert {CONTENT.card(c).value for c in deck_cards("beginner")} == {1}
    assert len(deck_cards("full")) == 180


def test_each_player_starts_with_five_explorers_under_c_and_one_resource_of_each_colour():
    for seats in (2, 3, 4):
        state = ENGINE.setup({}, seats)
        assert len(state.players) == seats
        for p in state.players:
            assert (p.explorers_left, p.resources, len(p.slots)) == (5, (1,) * 5, 3)


def test_random_setup_is_asked_of_chance_island_tiles_large_tiles_then_pile():
    state = ENGINE.setup({"deck": "full"}, 3)
    assert ENGINE.to_move(state).chance == Permute(10)
    order = tuple(reversed(range(10)))
    state, events = apply(ENGINE, state, CHANCE_SEAT, Permuted(order))
    assert events == [IslandBuilt(order)]
    assert ENGINE.to_move(state).chance == Permute(35)
    state, events = apply(ENGINE, state, CHANCE_SEAT, Permuted(tuple(range(35))))
    assert Counter(events[0].tiles) == {a: 7 for a in ANIMALS}  # type: ignore[union-attr]
    assert ENGINE.to_move(state).chance == Permute(5)
    state, events = apply(ENGINE, state, CHANCE_SEAT, Permuted((4, 3, 2, 1, 0)))
    assert events == [LargeTilesDealt((Animal.OWLET_MOTH, Animal.SARDINIAN_PIKA, Animal.GOLDEN_TOAD))]
    assert ENGINE.to_move(state).chance == ShufflePile("draw:1", deck_cards("full"))
    state, events = apply(ENGINE, state, CHANCE_SEAT, PileShuffled("draw:1", 180))
    assert events == [DrawPileShuffled("draw:1", 180, False)]


def test_small_tiles_follow_the_permutation_onto_the_regions():
    state = apply(ENGINE, ENGINE.setup({}, 2), CHANCE_SEAT, Permuted(tuple(range(10))))[0]
    order = tuple(range(34, -1, -1))
    _, events = apply(ENGINE, state, CHANCE_SEAT, Permuted(order))
    assert isinstance(events[0], TilesPlaced)
    assert events[0].tiles[0] is Animal.OWLET_MOTH and events[0].tiles[-1] is Animal.DODO


def test_an_outcome_that_answers_no_pending_request_is_refused():
    state = ENGINE.setup({}, 2)
    for outcome in (Permuted((0, 1)), PileShuffled("draw:1", 120), Permuted((0,) * 10)):
        with pytest.raises(IllegalAction) as refusal:
            ENGINE.decide(state, CHANCE_SEAT, outcome)
        assert refusal.value.rule == "chance.mismatch"


def test_deck_is_180_cards_120_of_value_one_each_with_function_resource_and_animal():
    assert Counter(c.value for c in CONTENT.cards) == {1: 120, 2: 60}
    assert len({c.id for c in CONTENT.cards}) == 180
    assert {c.resource for c in CONTENT.cards} == set(COLOURS)
    assert {c.animal for c in CONTENT.cards} == set(ANIMALS)


def test_region_values_equal_their_surrounding_spaces_and_there_are_35_regions():
    regions = CONTENT.island.regions
    assert len(regions) == 35 and all(r.value == len(r.spaces) for r in regions)
    assert {r.value for r in regions} == {2, 3, 4}


def test_every_tooth_order_builds_an_island_whose_centre_shows_every_colour():
    isl = build(CONTENT.island, tuple(range(9, -1, -1)))
    centre = [f.colour for s, f in zip(CONTENT.island.spaces, isl.faces) if s.slot is None]
    assert set(centre) == set(COLOURS)
    assert all(isl.regions_of[s] for s in range(len(isl.faces)))


def test_animal_track_has_areas_zero_to_five_with_a_single_top_space():
    track = CONTENT.island.track
    assert track[0] == 0 and track[-1] == 5 and track.count(5) == 1
    assert list(track) == sorted(track)


def test_content_files_mark_their_stand_ins():
    for name in ("cards.json", "island.json"):
        data = json.loads((CONTENT_DIR / name).read_text())
        assert data["stand_in"] is True and data["stand_in_reason"]
    island = json.loads((CONTENT_DIR / "island.json").read_text())
    assert island["animal_track"]["stand_in"] is True
