"""Action cards (RB p.8): Transmitter, Cartographer, Compass, Scientist, Travel Log, Native."""

from __future__ import annotations

from services.games.common.chance import DrawCards
from services.games.el_dorado import ENGINE
from services.games.el_dorado import events as ev
from services.games.el_dorado.actions import Done, NativeMove, PlayAction, RemoveCard, TakeCard
from services.games.el_dorado.board import board
from services.games.el_dorado.state import Choice
from tests.games.el_dorado.builders import B, find_hex, next_to, position, refusal, resolve, run


def test_transmitter_takes_any_card_for_free() -> None:
    state, events = run(position(hands={0: ("transmitter",)}), 0, PlayAction("transmitter"))
    assert events == [ev.ActionPlayed(0, "transmitter", True), ev.ChoiceOpened(Choice.TAKE, 1)]
    state, events = run(state, 0, TakeCard("native"))
    assert events == [ev.ChoiceClosed(), ev.CardTaken(0, "native")]
    assert "native" in state.players[0].discard and "native" not in state.board
    assert not state.turn.bought and state.players[0].removed == ("transmitter",)


def test_choice_must_be_finished_first() -> None:
    state, _ = run(position(hands={0: ("transmitter", "traveler")}), 0, PlayAction("transmitter"))
    assert refusal(state, 0, PlayAction("traveler")) == "el_dorado.action.choice_pending"


def test_cartographer_draws_two_cards() -> None:
    state, events = run(position(hands={0: ("cartographer",)}), 0, PlayAction("cartographer"))
    assert events == [ev.ActionPlayed(0, "cartographer", False), ev.DrawOwed(0, 2)]
    assert ENGINE.to_move(state).chance == DrawCards("draw:0", 2, 0)
    state, _ = resolve(state)
    assert len(state.players[0].hand) == 2 and state.players[0].played == ("cartographer",)


def test_compass_draws_three_and_leaves_the_game() -> None:
    state, events = run(position(hands={0: ("compass",)}), 0, PlayAction("compass"))
    assert events == [ev.ActionPlayed(0, "compass", True), ev.DrawOwed(0, 3)]
    state, _ = resolve(state)
    assert len(state.players[0].hand) == 3 and state.players[0].removed == ("compass",)


def test_scientist_draws_one_then_may_remove_one() -> None:
    state, events = run(position(hands={0: ("scientist", "traveler")}), 0, PlayAction("scientist"))
    assert events[1:] == [ev.DrawOwed(0, 1), ev.ChoiceOpened(Choice.REMOVE, 1)]
    state, _ = resolve(state)
    state, events = run(state, 0, RemoveCard("traveler"))
    assert events == [ev.CardRemoved(0, "traveler"), ev.ChoiceClosed()]
    assert state.players[0].removed == ("traveler",)


def test_travel_log_removes_up_to_two_cards() -> None:
    state, _ = run(position(hands={0: ("travel_log", "traveler", "sailor")}), 0, PlayAction("travel_log"))
    state, _ = resolve(state)
    state, events = run(state, 0, RemoveCard("sailor"), Done())
    assert events == [ev.CardRemoved(0, "sailor"), ev.ChoiceClosed()]
    assert state.players[0].removed == ("sailor", "travel_log")


def test_native_moves_ignoring_the_requirement() -> None:
    course, here = find_hex(lambda b, h: bool(next_to(b, h, B, 2)))
    camp = next_to(board(course), here, B, 2)[0]
    state = position(hands={0: ("native",)}, pieces={0: (here,)}, course=course)
    state, _ = run(state, 0, PlayAction("native"))
    state, events = run(state, 0, NativeMove(0, *camp))
    assert events == [ev.ChoiceClosed(), ev.PieceMoved(0, 0, *camp, 0)]
    assert state.players[0].played == ("native",) and not state.players[0].removed


def test_native_cannot_enter_an_occupied_space() -> None:
    course, here = find_hex(lambda b, h: bool(next_to(b, h, B, 2)))
    camp = next_to(board(course), here, B, 2)[0]
    state = position(hands={0: ("native",)}, pieces={0: (here,), 1: (camp,)}, course=course)
    state, _ = run(state, 0, PlayAction("native"))
    assert refusal(state, 0, NativeMove(0, *camp)) == "el_dorado.movement.occupied"
