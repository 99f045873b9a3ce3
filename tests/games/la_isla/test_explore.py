"""Action C: placing and moving explorers, claiming regions, placement functions (Acción C)."""

from __future__ import annotations

from dataclasses import replace
from itertools import combinations

import pytest

from services.games.common.engine import IllegalAction, apply
from services.games.la_isla import ENGINE
from services.games.la_isla.actions import (
    ChooseMarker,
    ChooseResource,
    DeclineMarker,
    MoveExplorer,
    PlaceExplorer,
    TakeResource,
)
from services.games.la_isla.content import (
    Animal,
    Colour,
    Joker,
    PlacementDiscount,
    PlacementMarker,
    PlacementPoints,
    PlacementResource,
    SpaceFilter,
    Symbol,
)
from services.games.la_isla.events import (
    ExplorerPlaced,
    MarkerAdvanced,
    MarkerDeclined,
    PlacementRewarded,
    RegionClaimed,
    ResourceGained,
    TurnEnded,
)
from services.games.la_isla.rules import CONTENT, island
from services.games.la_isla.state import State
from tests.games.la_isla.builders import card_with, exploring, region, resources, space_where, with_player

Y, G, W = Colour.YELLOW, Colour.GREEN, Colour.WHITE


def refused(state: State, seat: int, action: object, rule: str) -> None:
    with pytest.raises(IllegalAction) as refusal:
        ENGINE.decide(state, seat, action)  # type: ignore[arg-type]
    assert refusal.value.rule == rule


def test_anna_places_on_a_desert_paying_two_yellow_resources():
    state = exploring(resources=resources(yellow=2))
    desert = space_where(state, colour=Y)
    after, events = apply(ENGINE, state, 0, PlaceExplorer(desert, (Y, Y)))
    assert events == [ExplorerPlaced(0, desert, (Y, Y), None), TurnEnded(0)]
    assert after.player(0).resources == resources()
    assert after.player(0).explorers_left == 4


def test_placing_without_two_resources_of_the_space_colour_is_refused():
    state = exploring(resources=resources(yellow=1, green=3))
    refused(state, 0, PlaceExplorer(space_where(state, colour=Y), (Y, Y)), "la_isla.c.payment")
    refused(state, 0, PlaceExplorer(space_where(state, colour=Y), (G, G)), "la_isla.c.payment")


def test_two_explorers_of_one_colour_cannot_share_a_space():
    state = exploring(resources=resources(yellow=2))
    desert = space_where(state, colour=Y)
    state = with_player(state, 0, explorers=frozenset({desert}), explorers_left=4)
    refused(state, 0, PlaceExplorer(desert, (Y, Y)), "la_isla.c.same_colour_on_space")
    assert all(getattr(a, "space", None) != desert for a in ENGINE.legal_actions(state, 0))


def test_explorers_of_different_colours_may_share_a_space():
    state = exploring(resources=resources(yellow=2))
    desert = space_where(state, colour=Y)
    state = with_player(state, 1, explorers=frozenset({desert}), explorers_left=4)
    after, _ = apply(ENGINE, state, 0, PlaceExplorer(desert, (Y, Y)))
    assert desert in after.player(0).explorers and desert in after.player(1).explorers


def _paul_spaces(state: State) -> tuple[int, int, int]:
    """A grey space shared by a value-2 and a value-3 region, and those two regions."""
    isl = island(state)
    for space in range(len(isl.faces)):
        if isl.faces[space].colour is not Colour.GREY:
            continue
        for r2, r3 in combinations(isl.regions_of[space], 2):
            values = (CONTENT.island.regions[r2].value, CONTENT.island.regions[r3].value)
            if sorted(values) == [2, 3] and len(set(region(r2)) | set(region(r3))) == 4:
                return space, *sorted((r2, r3), key=lambda r: CONTENT.island.regions[r].value)
    raise AssertionError("no grey space shared by a 2- and a 3-region")


def test_paul_claims_two_regions_with_one_explorer_for_five_points():
    state = exploring(resources=resources(grey=2))
    mountain, r2, r3 = _paul_spaces(state)
    others = (set(region(r2)) | set(region(r3))) - {mountain}
    tiles = list(state.region_tiles or ())
    tiles[r2], tiles[r3] = Animal.OWLET_MOTH, Animal.SARDINIAN_PIKA
    state = with_player(state, 0, explorers=frozenset(others), explorers_left=2)
    state = replace(state, region_tiles=tuple(tiles))
    after, events = apply(ENGINE, state, 0, PlaceExplorer(mountain, (Colour.GREY, Colour.GREY)))
    claimed = sorted(
        [RegionClaimed(0, r2, Animal.OWLET_MOTH, 2), RegionClaimed(0, r3, Animal.SARDINIAN_PIKA, 3)],
        key=lambda e: e.region,
    )
    assert events == [ExplorerPlaced(0, mountain, (Colour.GREY, Colour.GREY), None), *claimed, TurnEnded(0)]
    assert after.player(0).score == 5
    assert after.region_tiles is not None and after.region_tiles[r2] is None and after.region_tiles[r3] is None


def test_surrounding_an_empty_region_gives_nothing():
    state = exploring(resources=resources(grey=2))
    mountain, r2, r3 = _paul_spaces(state)
    others = (set(region(r2)) | set(region(r3))) - {mountain}
    state = with_player(state, 0, explorers=frozenset(others), explorers_left=2)
    state = replace(state, region_tiles=(None,) * len(CONTENT.island.regions))
    after, events = apply(ENGINE, state, 0, PlaceExplorer(mountain, (Colour.GREY, Colour.GREY)))
    assert events == [ExplorerPlaced(0, mountain, (Colour.GREY, Colour.GREY), None), TurnEnded(0)]
    assert after.player(0).score == 0


def test_take_one_resource_of_your_choice_instead_of_placing():
    state = exploring(resources=resources())
    after, events = apply(ENGINE, state, 0, TakeResource(W))
    assert events == [ResourceGained(0, W, False), TurnEnded(0)]
    assert after.player(0).resources == resources(white=1)


def test_explorers_move_once_none_is_left_under_c():
    state = exploring(resources=resources(yellow=2))
    desert = space_where(state, colour=Y)
    source = space_where(state, colour=G)
    state = with_player(state, 0, explorers=frozenset({source}), explorers_left=0)
    refused(state, 0, PlaceExplorer(desert, (Y, Y)), "la_isla.c.no_explorer_under_c")
    after, events = apply(ENGINE, state, 0, MoveExplorer(source, desert, (Y, Y)))
    assert events == [ExplorerPlaced(0, desert, (Y, Y), source), TurnEnded(0)]
    assert after.player(0).explorers == frozenset({desert})


def test_moving_while_explorers_remain_under_c_is_refused():
    state = exploring(resources=resources(yellow=2))
    source = space_where(state, colour=G)
    state = with_player(state, 0, explorers=frozenset({source}), explorers_left=1)
    refused(state, 0, MoveExplorer(source, space_where(state, colour=Y), (Y, Y)), "la_isla.c.explorers_under_c")


def test_action_c_goes_clockwise_from_the_start_player():
    state = exploring(seats=3, resources=resources())
    state = replace(state, start=2, turn=0)
    assert ENGINE.to_move(state).seats == (2,)
    refused(state, 0, TakeResource(W), "turn.not_your_seat")
    after, _ = apply(ENGINE, state, 2, TakeResource(W))
    assert ENGINE.to_move(after).seats == (0,)


def _peter(state: State) -> State:
    cards = (
        card_with(PlacementPoints(SpaceFilter(colour=G), 3)),
        card_with(PlacementPoints(SpaceFilter(symbol=Symbol.ROPE), 3)),
        card_with(PlacementResource(SpaceFilter(symbol=Symbol.ROPE), 1)),
    )
    return with_player(state, 0, slots=tuple((c,) for c in cards))


def test_peter_combines_functions_for_six_points_and_a_resource():
    state = _peter(exploring(resources=resources(green=2)))
    space = space_where(state, colour=G, symbol=Symbol.ROPE)
    after, events = apply(ENGINE, state, 0, PlaceExplorer(space, (G, G)))
    assert events == [ExplorerPlaced(0, space, (G, G), None), PlacementRewarded(0, 6, 1, 0)]
    assert ENGINE.legal_actions(after, 0) == [ChooseResource(c) for c in Colour]
    final, events = apply(ENGINE, after, 0, ChooseResource(W))
    assert events == [ResourceGained(0, W, True), TurnEnded(0)]
    assert final.player(0).score == 6 and final.player(0).resources == resources(white=1)


def test_pending_reward_must_be_settled_before_anything_else():
    state = _peter(exploring(resources=resources(green=2)))
    after, _ = apply(ENGINE, state, 0, PlaceExplorer(space_where(state, colour=G, symbol=Symbol.ROPE), (G, G)))
    refused(after, 0, TakeResource(W), "la_isla.c.pending_reward")
    refused(after, 0, ChooseMarker(Animal.DODO), "la_isla.c.no_pending_reward")


def test_placement_functions_do_not_fire_on_other_spaces():
    state = _peter(exploring(resources=resources(white=2)))
    space = space_where(state, colour=W, symbol=Symbol.HAT)
    _, events = apply(ENGINE, state, 0, PlaceExplorer(space, (W, W)))
    assert events == [ExplorerPlaced(0, space, (W, W), None), TurnEnded(0)]


def test_discount_function_makes_a_placement_cost_one_resource():
    discount = card_with(PlacementDiscount(SpaceFilter(colour=Y), 1))
    state = exploring(resources=resources(yellow=1), slots=((discount,), (), ()))
    desert = space_where(state, colour=Y)
    _, events = apply(ENGINE, state, 0, PlaceExplorer(desert, (Y,)))
    assert events == [ExplorerPlaced(0, desert, (Y,), None), TurnEnded(0)]
    refused(state, 0, PlaceExplorer(desert, (Y, Y)), "la_isla.c.payment")


def test_joker_colour_pays_for_a_space_of_any_colour():
    joker = card_with(Joker(Colour.GREY))
    state = exploring(resources=resources(yellow=1, grey=1), slots=((joker,), (), ()))
    desert = space_where(state, colour=Y)
    payments = [a.payment for a in ENGINE.legal_actions(state, 0) if getattr(a, "space", None) == desert]
    assert payments == [(Y, Colour.GREY)]
    _, events = apply(ENGINE, state, 0, PlaceExplorer(desert, (Y, Colour.GREY)))
    assert events[0] == ExplorerPlaced(0, desert, (Y, Colour.GREY), None)


def test_placement_marker_reward_is_optional_and_scores_when_used():
    tent = Symbol.TENT
    marker = card_with(PlacementMarker(SpaceFilter(symbol=tent), 1))
    state = exploring(resources=resources(grey=2, green=2), slots=((marker,), (), ()), tiles=(1, 0, 0, 0, 0))
    space = space_where(state, symbol=tent, colour=Colour.GREY)
    after, events = apply(ENGINE, state, 0, PlaceExplorer(space, (Colour.GREY, Colour.GREY)))
    assert events[-1] == PlacementRewarded(0, 0, 0, 1)
    assert DeclineMarker() in ENGINE.legal_actions(after, 0)
    _, declined = apply(ENGINE, after, 0, DeclineMarker())
    assert declined == [MarkerDeclined(0), TurnEnded(0)]
    moved, used = apply(ENGINE, after, 0, ChooseMarker(Animal.DODO))
    assert used == [MarkerAdvanced(0, Animal.DODO, True, 3), TurnEnded(0)]  # large Dodo 2 + small 1
    assert moved.markers[0] == 1 and moved.player(0).score == 3


def test_placement_functions_fire_when_an_explorer_moves_too():
    state = _peter(exploring(resources=resources(green=2)))
    source = space_where(state, colour=Y)
    state = with_player(state, 0, explorers=frozenset({source}), explorers_left=0)
    space = space_where(state, colour=G, symbol=Symbol.ROPE)
    _, events = apply(ENGINE, state, 0, MoveExplorer(source, space, (G, G)))
    assert events == [ExplorerPlaced(0, space, (G, G), source), PlacementRewarded(0, 6, 1, 0)]


def test_taking_a_resource_instead_fires_no_placement_function():
    state = _peter(exploring(resources=resources()))
    _, events = apply(ENGINE, state, 0, TakeResource(G))
    assert events == [ResourceGained(0, G, False), TurnEnded(0)]


def test_unknown_spaces_and_foreign_explorers_are_refused():
    state = exploring(resources=resources(yellow=2))
    refused(state, 0, PlaceExplorer(len(island(state).faces), (Y, Y)), "la_isla.c.unknown_space")
    desert = space_where(state, colour=Y)
    state = with_player(state, 0, explorers=frozenset({desert}), explorers_left=0)
    refused(state, 0, MoveExplorer(desert + 1, desert + 2, (Y, Y)), "la_isla.c.not_your_explorer")


def test_a_secret_step_action_is_not_an_action_c():
    from services.games.la_isla.actions import AdvanceMarkers

    refused(exploring(), 0, AdvanceMarkers(0), "la_isla.c.not_now")
