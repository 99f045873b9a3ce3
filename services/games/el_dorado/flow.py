"""Whose move it is, chance requests, and the automatic steps between turns (RB p.2, p.5)."""

from __future__ import annotations

from services.games.common.chance import ChanceRequest, DrawCards, Permute, ShufflePile
from services.games.common.engine import STOPPED_REASON, ToMove
from services.games.el_dorado import content
from services.games.el_dorado import events as ev
from services.games.el_dorado.evolve import evolve
from services.games.el_dorado.result import ranking
from services.games.el_dorado.rules import HAND_SIZE, drawable
from services.games.el_dorado.state import Phase, State

CAVES_PILE = "caves"


def draw_pile(seat: int) -> str:
    """The hidden draw pile of `seat`."""
    return f"draw:{seat}"


def owing(state: State) -> tuple[int, int]:
    """(seat, cards) still to draw now; cards is 0 when nothing is owed or left to draw."""
    if state.phase is Phase.SETUP:
        for seat, player in enumerate(state.players):
            if len(player.hand) < HAND_SIZE and drawable(player):
                return seat, HAND_SIZE - len(player.hand)
        return 0, 0
    player = state.players[state.current]
    if state.phase in (Phase.PLAY, Phase.DRAW) and state.owed and drawable(player):
        return state.current, state.owed
    return state.current, 0


def pending_chance(state: State) -> ChanceRequest | None:
    """The chance request the match waits for, if any."""
    if state.phase is Phase.OVER:
        return None
    if state.phase is Phase.SETUP and not state.seams:
        return Permute(len(content.blockades()))
    if state.phase is Phase.SETUP and state.caves and not state.caves_ready:
        return ShufflePile(CAVES_PILE, content.token_pile())
    if state.explore:
        return DrawCards(CAVES_PILE, 1, None)
    seat, count = owing(state)
    if count == 0:
        return None
    player = state.players[seat]
    if player.draw:
        return DrawCards(draw_pile(seat), min(count, len(player.draw)), seat)
    return ShufflePile(draw_pile(seat), player.discard)


def to_move(state: State) -> ToMove:
    """The pending chance request, else the current seat; nobody once the game is over."""
    if state.phase is Phase.OVER:
        return ToMove()
    request = pending_chance(state)
    if request is not None:
        return ToMove(chance=request)
    return ToMove(seats=(state.current,))


def _turn_over(state: State) -> ev.Event:
    """The event after a finished turn: the next turn, or the end (RB p.5)."""
    nxt = (state.current + 1) % state.seats
    if nxt == 0 and state.final_round:
        return ev.GameEnded(ranking(state), "el_dorado")
    if nxt == 0 and state.round >= state.max_rounds:
        # Safety cap (RULES.md): the race ends only in El Dorado, so the game is stopped,
        # not decided: every seat shares the place, and it is never rated.
        return ev.GameEnded((1,) * state.seats, STOPPED_REASON)
    return ev.TurnStarted(nxt, state.round + (1 if nxt == 0 else 0))


def _ends_now(state: State) -> bool:
    """True if this turn is the last one: skip its pointless draw."""
    return (state.current + 1) % state.seats == 0 and (state.final_round or state.round >= state.max_rounds)


def _next(state: State) -> ev.Event | None:
    """One automatic event due now, if any."""
    if state.phase is Phase.CLEANUP and not state.players[state.current].hand:
        return ev.HandKept(state.current, 0, HAND_SIZE)
    if state.phase is Phase.DRAW and _ends_now(state):
        return _turn_over(state)
    if pending_chance(state) is not None:
        return None
    if state.phase is Phase.SETUP:
        return ev.TurnStarted(0, 1)
    if state.phase is Phase.DRAW:
        return _turn_over(state)
    if state.phase is Phase.PLAY and state.owed:
        return ev.DrawOwed(state.current, -state.owed)
    return None


def settle(state: State) -> list[ev.Event]:
    """The automatic events that follow, until a player or chance must act."""
    out: list[ev.Event] = []
    while (event := _next(state)) is not None:
        out.append(event)
        state = evolve(state, event)
    return out
