"""The end (RB p.5): final round, tie-breaks, the two-player race, the safety cap."""

from __future__ import annotations

from dataclasses import replace

from services.games.common.engine import STOPPED_REASON
from services.games.el_dorado import ENGINE
from services.games.el_dorado import events as ev
from services.games.el_dorado.actions import MoveTo, PlayCard
from services.games.el_dorado.board import board
from services.games.el_dorado.content import Symbol
from services.games.el_dorado.result import ranking
from services.games.el_dorado.state import Phase
from tests.games.el_dorado.builders import finish_turn, position, run, with_player

PADDLE = Symbol.PADDLE


def before_finish(course: str = "first_game") -> tuple[tuple[int, int], tuple[int, int]]:
    """A hex next to a finish space (not itself one), and that finish space."""
    b = board(course)
    for h in sorted(b.spaces):
        for n in b.neighbours[h]:
            if b.spaces[n].finish and b.enterable(h) and not b.spaces[h].finish:
                return h, n
    raise LookupError


def arriving(seats: int = 3, seat: int = 0, **kw: object):  # type: ignore[no-untyped-def]
    near, finish = before_finish()
    pieces = {seat: (near,)} if seats > 2 else {seat: (near, None)}
    state = position(seats=seats, hands={seat: ("sailor", "traveler")}, pieces=pieces, current=seat, **kw)
    return run(state, seat, PlayCard("sailor", PADDLE, 0), MoveTo(*finish))


def test_reaching_el_dorado_starts_the_final_round() -> None:
    state, events = arriving()
    assert events[-1] == ev.PieceArrived(0, 0, True)
    assert state.final_round and state.players[0].pieces == (None,)


def test_final_round_is_completed_so_everyone_had_as_many_turns() -> None:
    state, _ = arriving()
    state, events = finish_turn(state, 0)
    assert events[-1] == ev.TurnStarted(1, 1)
    state, _ = finish_turn(state, 1)
    state, events = finish_turn(state, 2)
    assert events[-1] == ev.GameEnded((1, 2, 2), "el_dorado")
    assert ENGINE.to_move(state).seats == () and state.phase is Phase.OVER


def test_last_seat_of_the_round_arriving_ends_the_game_at_once() -> None:
    state, _ = arriving(seat=2)
    state, events = finish_turn(state, 2)
    assert isinstance(events[-1], ev.GameEnded) and events[-1].ranking == (2, 2, 1)
    assert not any(isinstance(e, ev.CardsDrawnToHand) for e in events)


def test_tie_break_most_blockades() -> None:
    state = position(pieces={0: (None,), 1: (None,)})
    state = with_player(with_player(state, 0, blockades=(1, 2)), 1, blockades=(6,))
    assert ranking(state) == (1, 2, 3)


def test_tie_break_strongest_blockade() -> None:
    state = position(pieces={0: (None,), 1: (None,)})
    state = with_player(with_player(state, 0, blockades=(1,)), 1, blockades=(5,))
    assert ranking(state) == (2, 1, 3)


def test_full_tie_shares_the_place() -> None:
    """Decision: the rulebook breaks ties no further; tied seats share the place (RULES.md)."""
    state = position(pieces={0: (None,), 1: (None,)})
    assert ranking(state)[:2] == (1, 1)


def test_two_players_start_on_spaces_one_three_and_two_four() -> None:
    state = ENGINE.setup({}, 2)
    starts = board("first_game").starts
    assert state.players[0].pieces == (starts[0], starts[2])
    assert state.players[1].pieces == (starts[1], starts[3])


def test_two_players_need_both_pieces_in_el_dorado() -> None:
    near, finish = before_finish()
    state = position(seats=2, hands={0: ("sailor",)}, pieces={0: (near, (0, 0)), 1: ((1, 1), (2, 2))})
    state, events = run(state, 0, PlayCard("sailor", PADDLE, 0), MoveTo(*finish))
    assert events[-1] == ev.PieceArrived(0, 0, False)
    assert not state.final_round


def test_two_players_second_piece_starts_the_final_round() -> None:
    _, events = arriving(seats=2)
    assert events[-1] == ev.PieceArrived(0, 0, True)


def test_the_round_cap_stops_the_race_without_a_winner_or_a_loser() -> None:
    """Fin del juego: the final round begins only "Cuando un jugador llega a uno de los 3 espacios
    de finalización"; the round cap (config max_rounds, not a rule) stops the game undecided."""
    state = position(current=2, max_rounds=3)
    state = replace(state, round=3)
    far, near = board("first_game").starts[0], before_finish()[0]
    state = with_player(with_player(state, 1, pieces=(near,)), 0, pieces=(far,))
    state, events = finish_turn(state, 2)
    assert events[-1] == ev.GameEnded((1, 1, 1), STOPPED_REASON)
    outcome = ENGINE.result(state)
    assert outcome is not None and outcome.ranking == (1, 1, 1)
    assert outcome.detail["reason"] == "stopped_by_cap" and outcome.detail["arrived"] == ""
    # progress is still reported, it just decides nothing: seat 1 was nearest
    distances = [int(d) for d in outcome.detail["distance"].split(",")]
    assert distances[1] < distances[0] == distances[2]


def test_by_default_the_round_cap_lies_far_beyond_a_race() -> None:
    assert ENGINE.setup({}, 2).max_rounds == 200
