"""Movement (RB p.3): one card per move, symbol and power, leftover power, rubble, base camps."""

from __future__ import annotations

from services.games.el_dorado import events as ev
from services.games.el_dorado.actions import ClearSpace, EndTurn, MoveTo, PlayCard, SpendCard, StopMoving
from services.games.el_dorado.board import board
from services.games.el_dorado.content import Symbol
from services.games.el_dorado.rules import can_step
from tests.games.el_dorado.builders import (
    B,
    J,
    M,
    R,
    S,
    W,
    find_hex,
    find_path,
    next_to,
    position,
    refusal,
    run,
)

MACHETE, PADDLE, COIN = Symbol.MACHETE, Symbol.PADDLE, Symbol.COIN


def at(path: list[tuple[int, int]], hand: tuple[str, ...], course: str = "first_game", **kw: object):
    """Seat 0 stands on path[0] holding `hand`."""
    return position(hands={0: hand}, pieces={0: (path[0],)}, course=course, **kw)  # type: ignore[arg-type]


def test_sarahs_moves_explorer_scout_trailblazer() -> None:
    """RB p.3: Explorer 1 green space, Scout 2 spaces, Trailblazer onto a 3-power space."""
    path = find_path([None, (J, 1), (J, 1), (J, 1), (J, 3)])
    state = at(path, ("explorer", "scout", "trailblazer", "traveler"))
    state, events = run(state, 0, PlayCard("explorer", MACHETE, 0), MoveTo(*path[1]))
    assert events == [
        ev.CardPlayed(0, "explorer", MACHETE, 0, 1, False),
        ev.PieceMoved(0, 0, *path[1], 1),
        ev.MoveEnded(0),
    ]
    state, events = run(state, 0, PlayCard("scout", MACHETE, 0), MoveTo(*path[2]), MoveTo(*path[3]))
    assert events[1:] == [ev.PieceMoved(0, 0, *path[2], 1), ev.PieceMoved(0, 0, *path[3], 1), ev.MoveEnded(0)]
    state, events = run(state, 0, PlayCard("trailblazer", MACHETE, 0), MoveTo(*path[4]))
    assert state.players[0].pieces == (path[4],)
    assert state.players[0].played == ("explorer", "scout", "trailblazer")


def test_cannot_enter_mountain() -> None:
    course, here = find_hex(lambda b, h: bool(next_to(b, h, J, 1) and next_to(b, h, M)))
    mountain = next_to(board(course), here, M)[0]
    state, _ = run(at([here], ("explorer",), course), 0, PlayCard("explorer", MACHETE, 0))
    assert refusal(state, 0, MoveTo(*mountain)) == "el_dorado.movement.mountain"


def test_cannot_enter_occupied_space() -> None:
    """Occupied spaces are never entered, so never crossed either (RB p.3)."""
    course, here = find_hex(lambda b, h: len(next_to(b, h, J, 1)) >= 2)
    taken_hex, free = next_to(board(course), here, J, 1)[:2]
    state = position(hands={0: ("scout",)}, pieces={0: (here,), 1: (taken_hex,)}, course=course)
    state, _ = run(state, 0, PlayCard("scout", MACHETE, 0))
    assert refusal(state, 0, MoveTo(*taken_hex)) == "el_dorado.movement.occupied"
    run(state, 0, MoveTo(*free))


def test_card_moves_only_with_its_symbol() -> None:
    path = find_path([None, (J, 1)])
    rule = refusal(at(path, ("sailor",)), 0, PlayCard("sailor", MACHETE, 0))
    assert rule == "el_dorado.movement.wrong_symbol"


def test_symbol_must_match_space() -> None:
    course, here = find_hex(lambda b, h: bool(next_to(b, h, J, 1) and next_to(b, h, W)))
    river = next_to(board(course), here, W)[0]
    state, _ = run(at([here], ("explorer",), course), 0, PlayCard("explorer", MACHETE, 0))
    assert refusal(state, 0, MoveTo(*river)) == "el_dorado.movement.symbol_mismatch"


def test_card_power_must_reach_space_power() -> None:
    course, here = find_hex(lambda b, h: bool(next_to(b, h, S, 1) and next_to(b, h, S, 2)))
    village = next_to(board(course), here, S, 2)[0]
    state, _ = run(at([here], ("traveler",), course), 0, PlayCard("traveler", COIN, 0))
    assert refusal(state, 0, MoveTo(*village)) == "el_dorado.movement.not_enough_power"


def test_leftover_power_continues_on_the_same_card() -> None:
    path = find_path([None, (J, 1), (J, 1)])
    state, events = run(at(path, ("scout",)), 0, PlayCard("scout", MACHETE, 0), MoveTo(*path[1]))
    assert events[-1] == ev.PieceMoved(0, 0, *path[1], 1)
    assert state.turn.active is not None and state.turn.active.left == 1


def test_leftover_power_is_lost_when_another_card_is_played() -> None:
    path = find_path([None, (J, 1), (J, 1)])
    state, _ = run(at(path, ("scout", "traveler")), 0, PlayCard("scout", MACHETE, 0), MoveTo(*path[1]))
    state, events = run(state, 0, SpendCard("traveler"))
    assert events == [ev.MoveEnded(0), ev.CardSpent(0, "traveler", 2, False)]
    assert refusal(state, 0, MoveTo(*path[2])) == "el_dorado.movement.no_active_card"


def test_cards_cannot_be_combined_for_one_space() -> None:
    """RB p.3 "Important": two Explorers do not enter a machete-2 space."""
    course, here = find_hex(lambda b, h: bool(next_to(b, h, J, 2)) and not any(
        b.spaces[n].terrain is J and b.spaces[n].power == 1 for n in b.neighbours[h]))
    state = at([here], ("explorer", "explorer"), course)
    assert refusal(state, 0, PlayCard("explorer", MACHETE, 0)) == "el_dorado.movement.no_step"


def test_joker_chooses_a_symbol_and_keeps_it() -> None:
    path = find_path([None, (W, 1), (J, 1)])
    state, events = run(at(path, ("adventurer",)), 0, PlayCard("adventurer", PADDLE, 0), MoveTo(*path[1]))
    assert events[0] == ev.CardPlayed(0, "adventurer", PADDLE, 0, 2, False)
    assert refusal(state, 0, MoveTo(*path[2])) == "el_dorado.movement.symbol_mismatch"


def test_rubble_is_paid_with_cards_of_any_kind() -> None:
    path = find_path([None, (R, 1)])
    state, events = run(at(path, ("sailor", "traveler")), 0, ClearSpace(0, *path[1], ("sailor",)))
    assert events == [ev.CardsGivenUp(0, ("sailor",), False), ev.PieceMoved(0, 0, *path[1], 0)]
    assert state.players[0].played == ("sailor",)


def test_rubble_needs_as_many_cards_as_symbols() -> None:
    path = find_path([None, (R, 1)])
    state = at(path, ("sailor", "traveler"))
    assert refusal(state, 0, ClearSpace(0, *path[1], ("sailor", "traveler"))) == \
        "el_dorado.movement.wrong_card_count"


def test_base_camp_removes_the_cards_from_the_game() -> None:
    path = find_path([None, (B, 2)], course="winding_paths")
    state = at(path, ("explorer", "traveler", "sailor"), course="winding_paths")
    state, events = run(state, 0, ClearSpace(0, *path[1], ("explorer", "traveler")))
    assert events == [ev.CardsGivenUp(0, ("explorer", "traveler"), True), ev.PieceMoved(0, 0, *path[1], 0)]
    assert state.players[0].removed == ("explorer", "traveler")
    state, _ = run(state, 0, EndTurn())
    assert "explorer" not in state.players[0].discard


def test_landscape_space_is_not_paid_in_cards() -> None:
    path = find_path([None, (J, 1)])
    assert refusal(at(path, ("sailor",)), 0, ClearSpace(0, *path[1], ("sailor",))) == \
        "el_dorado.movement.not_rubble_or_camp"


def test_start_space_cannot_be_entered() -> None:
    """Decision: start spaces carry no requirement and are never entered again (RULES.md)."""
    b = board("first_game")
    empty_start = b.starts[3]
    beside = next(n for n in b.neighbours[empty_start] if b.enterable(n))
    state = position(seats=3, hands={0: ("pioneer",)}, pieces={0: (beside,)})
    assert not b.enterable(empty_start)
    assert not can_step(state, beside, empty_start, MACHETE, 5)


def test_card_that_cannot_enter_any_space_is_refused() -> None:
    """Decision: a move card is only played when it can enter a next space (RULES.md)."""
    path = find_path([None, (J, 1)], avoid=lambda b, h: any(
        b.spaces[n].terrain is W for n in b.neighbours[h]))
    assert refusal(at(path, ("sailor",)), 0, PlayCard("sailor", PADDLE, 0)) == "el_dorado.movement.no_step"


def test_item_used_for_movement_is_removed() -> None:
    path = find_path([None, (J, 1)])
    state, events = run(at(path, ("giant_machete",)), 0, PlayCard("giant_machete", MACHETE, 0))
    assert events == [ev.CardPlayed(0, "giant_machete", MACHETE, 0, 6, True)]
    assert state.players[0].removed == ("giant_machete",)


def test_player_may_stop_at_any_time_and_loses_the_leftover() -> None:
    path = find_path([None, (J, 1), (J, 1)])
    state, _ = run(at(path, ("scout",)), 0, PlayCard("scout", MACHETE, 0), MoveTo(*path[1]))
    state, events = run(state, 0, StopMoving())
    assert events == [ev.MoveEnded(0)]
    assert refusal(state, 0, MoveTo(*path[2])) == "el_dorado.movement.no_active_card"
    assert refusal(state, 0, StopMoving()) == "el_dorado.movement.no_active_card"
