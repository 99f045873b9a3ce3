"""The caves variant (RB p.7): stopping next to a cave explores it; tokens act like cards."""

from __future__ import annotations

from services.games.common.chance import CHANCE_SEAT, CardsDrawn, DrawCards
from services.games.el_dorado import ENGINE
from services.games.el_dorado import events as ev
from services.games.el_dorado.actions import (
    MoveTo,
    PlayCard,
    PlayToken,
    SpendCard,
    SpendToken,
    StopMoving,
    UseToken,
)
from services.games.el_dorado.board import board
from services.games.el_dorado.content import Symbol
from tests.games.el_dorado.builders import COURSES, J, position, run, with_player

MACHETE = Symbol.MACHETE


def cave_walk() -> tuple[str, int, list[tuple[int, int]]]:
    """(course, cave, [h0, h1, h2]): h0 away from the cave, h1 and h2 machete-1 spaces next to it."""
    for course in COURSES:
        b = board(course)
        for c, cave in enumerate(b.caves):
            around = [h for h in b.neighbours[cave] if b.spaces[h].terrain is J and b.spaces[h].power == 1]
            for h1 in around:
                for h2 in (h for h in around if h in b.neighbours[h1] and (h1, h) not in b.seam_of):
                    for h0 in b.neighbours[h1]:
                        if b.enterable(h0) and not b.caves_near[h0] and (h0, h1) not in b.seam_of:
                            return course, c, [h0, h1, h2]
    raise LookupError


def explore(token: str):  # type: ignore[no-untyped-def]
    course, cave, (h0, h1, h2) = cave_walk()
    state = position(hands={0: ("explorer",)}, pieces={0: (h0,)}, course=course, caves=True)
    state, events = run(state, 0, PlayCard("explorer", MACHETE, 0), MoveTo(*h1))
    assert events[-2:] == [ev.MoveEnded(0), ev.PieceStopped(0, 0, (cave,), (cave,))]
    assert ENGINE.to_move(state).chance == DrawCards("caves", 1, None)
    outcome = CardsDrawn("caves", (token,))
    events = list(ENGINE.decide(state, CHANCE_SEAT, outcome))
    assert events == [ev.CaveExplored(0, cave, token)]
    for event in events:
        state = ENGINE.evolve(state, event)
    return state, cave, h2


def test_julians_cave() -> None:
    """RB p.7: a token taken next to a cave moves him next to the same cave: no second token."""
    state, cave, h2 = explore("machete1")
    assert state.players[0].tokens == ("machete1",)
    state, events = run(state, 0, PlayToken("machete1", MACHETE, 0), MoveTo(*h2))
    assert events == [
        ev.TokenPlayed(0, "machete1", MACHETE, 0, 1), ev.PieceMoved(0, 0, *h2, 1), ev.MoveEnded(0),
    ]
    assert state.cave_left[cave] == 3 and state.explore == ()


def test_passing_by_a_cave_does_not_explore_it() -> None:
    course, _, (h0, h1, _) = cave_walk()
    state = position(hands={0: ("scout",)}, pieces={0: (h0,)}, course=course, caves=True)
    state, events = run(state, 0, PlayCard("scout", MACHETE, 0), MoveTo(*h1))
    assert not any(isinstance(e, ev.PieceStopped) for e in events)


def test_coin_token_pays_its_power() -> None:
    state = with_player(position(caves=True), 0, tokens=("coin2",))
    state, events = run(state, 0, SpendToken("coin2"))
    assert events == [ev.TokenSpent(0, "coin2", 4)]


def test_draw_token_draws_a_card() -> None:
    state = with_player(position(caves=True), 0, tokens=("draw_1",))
    state, events = run(state, 0, UseToken("draw_1"))
    assert events == [ev.TokenUsed(0, "draw_1"), ev.DrawOwed(0, 1)]


def test_keep_item_token_saves_a_used_item() -> None:
    state = with_player(position(hands={0: ("treasure_chest",)}, caves=True), 0, tokens=("keep_item",))
    state, _ = run(state, 0, SpendCard("treasure_chest"))
    state, events = run(state, 0, UseToken("keep_item"))
    assert events == [ev.TokenUsed(0, "keep_item"), ev.ItemKept(0, "treasure_chest")]
    assert state.players[0].played == ("treasure_chest",) and state.players[0].removed == ()


def test_change_symbol_token_lets_any_card_move_as_any_symbol() -> None:
    state = with_player(position(hands={0: ("traveler",)}, caves=True), 0, tokens=("change_symbol",))
    state, _ = run(state, 0, UseToken("change_symbol"))
    assert PlayCard("traveler", MACHETE, 0) in ENGINE.legal_actions(state, 0)


def test_stopping_with_power_left_explores_the_cave() -> None:
    course, cave, (h0, h1, _) = cave_walk()
    state = position(hands={0: ("scout",)}, pieces={0: (h0,)}, course=course, caves=True)
    state, _ = run(state, 0, PlayCard("scout", MACHETE, 0), MoveTo(*h1))
    state, events = run(state, 0, StopMoving())
    assert events == [ev.MoveEnded(0), ev.PieceStopped(0, 0, (cave,), (cave,))]
