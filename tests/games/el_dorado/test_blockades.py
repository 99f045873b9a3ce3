"""Blockades (RB p.5): the first to pass keeps it, then the join is open to everyone."""

from __future__ import annotations

from services.games.el_dorado import events as ev
from services.games.el_dorado.actions import (
    BreakBlockade,
    ClearBlockade,
    MoveTo,
    NativeMove,
    PlayAction,
    PlayCard,
)
from services.games.el_dorado.board import board
from services.games.el_dorado.content import Symbol
from tests.games.el_dorado.builders import J, position, refusal, run

MACHETE = Symbol.MACHETE


def join(course: str = "first_game") -> tuple[tuple[int, int], tuple[int, int]]:
    """A pair of hexes across join 0 whose far side is a machete-1 space."""
    b = board(course)
    pairs = sorted(pair for pair, seam in b.seam_of.items() if seam == 0)
    return next(
        (a, c) for a, c in pairs
        if b.spaces[a].piece == 0 and b.spaces[c].terrain is J and b.spaces[c].power == 1 and b.enterable(a)
    )


def blocked(blockade: int, hand: tuple[str, ...]):
    near, _ = join()
    return position(hands={0: hand}, pieces={0: (near,)}, seams=(blockade, 0, 0, 0))


def test_blockade_closes_its_join() -> None:
    _, far = join()
    state, _ = run(blocked(1, ("explorer",)), 0, PlayCard("explorer", MACHETE, 0))
    assert refusal(state, 0, MoveTo(*far)) == "el_dorado.blockade.closed"


def test_blockade_crossing_with_a_trailblazer() -> None:
    """RB p.5: a machete-3 card pays the machete-1 blockade and moves on into the green space."""
    _, far = join()
    state, events = run(blocked(1, ("trailblazer",)), 0, PlayCard("trailblazer", MACHETE, 0),
                        BreakBlockade(0))
    assert events[-1] == ev.BlockadeTaken(0, 0, 1, 1)
    state, events = run(state, 0, MoveTo(*far))
    assert events[0] == ev.PieceMoved(0, 0, *far, 1)
    assert state.players[0].blockades == (1,) and state.seams[0] == 0


def test_blockade_needs_its_symbol_and_power() -> None:
    """Blockade 5 needs machete 2: an Explorer moves elsewhere but cannot pay it."""
    state, _ = run(blocked(5, ("explorer",)), 0, PlayCard("explorer", MACHETE, 0))
    assert refusal(state, 0, BreakBlockade(0)) == "el_dorado.blockade.cannot_pay"


def test_rubble_blockade_is_paid_in_cards() -> None:
    state, events = run(blocked(6, ("sailor", "traveler", "explorer")), 0,
                        ClearBlockade(0, 0, ("sailor", "traveler")))
    assert events == [ev.CardsGivenUp(0, ("sailor", "traveler"), False), ev.BlockadeTaken(0, 0, 6, 0)]
    assert state.players[0].played == ("sailor", "traveler")


def test_opened_blockade_lets_everyone_pass() -> None:
    near, far = join()
    state = position(hands={1: ("explorer",)}, pieces={1: (near,)}, seams=(0, 2, 3, 4), current=1)
    state, _ = run(state, 1, PlayCard("explorer", MACHETE, 0), MoveTo(*far))
    assert state.players[1].pieces == (far,)


def test_native_tears_down_a_blockade() -> None:
    _, far = join()
    state, _ = run(blocked(6, ("native",)), 0, PlayAction("native"))
    state, events = run(state, 0, NativeMove(0, *far))
    assert events == [ev.ChoiceClosed(), ev.BlockadeTaken(0, 0, 6, 0), ev.PieceMoved(0, 0, *far, 0)]
