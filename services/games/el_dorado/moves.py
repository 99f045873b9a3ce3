"""Ending a move, stopping next to caves and arriving in El Dorado (RB p.3, p.5, p.7)."""

from __future__ import annotations

from services.games.el_dorado import events as ev
from services.games.el_dorado.evolve import evolve
from services.games.el_dorado.rules import board_of, has_step
from services.games.el_dorado.state import State


def replay(state: State, events: list[ev.Event]) -> State:
    """`state` after `events`."""
    for event in events:
        state = evolve(state, event)
    return state


def stop_events(state: State, seat: int, piece: int) -> list[ev.Event]:
    """Caves variant: a piece that comes to a stop explores caves it was not next to (RB p.7)."""
    here = state.players[seat].pieces[piece]
    if not state.caves or here is None:
        return []
    near = board_of(state).caves_near[here]
    old = state.players[seat].near_caves[piece]
    explores = tuple(c for c in near if c not in old and state.cave_left[c] > 0)
    if frozenset(near) == old and not explores:
        return []
    return [ev.PieceStopped(seat, piece, near, explores)]


def end_move(state: State, seat: int) -> list[ev.Event]:
    """Playing anything else loses the active card's leftover power (RB p.3)."""
    active = state.turn.active
    if active is None:
        return []
    return [ev.MoveEnded(seat), *stop_events(state, seat, active.piece)]


def arrival(state: State, seat: int, piece: int) -> list[ev.Event]:
    """A piece on a finish space goes to El Dorado; a seat's last piece starts the final round."""
    space = board_of(state).spaces.get(state.players[seat].pieces[piece] or (0, 0))
    if space is None or not space.finish:
        return []
    others = [p for i, p in enumerate(state.players[seat].pieces) if i != piece]
    return [ev.PieceArrived(seat, piece, all(p is None for p in others))]


def after_step(state: State, seat: int, events: list[ev.Event]) -> list[ev.Event]:
    """Events plus what follows a step: arrival, or the end of a move with nothing left to do."""
    after = replay(state, events)
    active = after.turn.active
    if active is None:
        return events
    arrived = arrival(after, seat, active.piece)
    if arrived:
        return [*events, *arrived]
    here = after.players[seat].pieces[active.piece]
    if here is None or (active.left > 0 and has_step(after, here, active.symbol, active.left)):
        return events
    return [*events, *end_move(after, seat)]


def after_jump(state: State, seat: int, piece: int, events: list[ev.Event]) -> list[ev.Event]:
    """Events plus what follows a one-space move paid in cards or by the Native."""
    after = replay(state, events)
    arrived = arrival(after, seat, piece)
    return [*events, *(arrived or stop_events(after, seat, piece))]
