"""Chance outcomes become game events that carry them (docs/engines.md).

The host has checked that the outcome answers the pending request (kind, pile,
count, permutation size); what is left are the contents only this game knows.
"""

from __future__ import annotations

from services.games.common.chance import (
    CardsDrawn,
    ChanceOutcome,
    DrawCards,
    Permute,
    Permuted,
    PileShuffled,
    ShufflePile,
)
from services.games.el_dorado import content
from services.games.el_dorado import events as ev
from services.games.el_dorado.flow import CAVES_PILE, pending_chance
from services.games.el_dorado.rules import board_of, refuse
from services.games.el_dorado.state import State, holds


def _unexpected(detail: str) -> Exception:
    return refuse("chance.unexpected", detail)


def _seat_of(pile: str) -> int:
    return int(pile.split(":")[1])


def _permuted(state: State, outcome: Permuted) -> list[ev.Event]:
    """Blockades go at random on every join between terrain pieces (facts.md 6)."""
    ids = tuple(content.blockades()[i].id for i in outcome.order)
    return [ev.BlockadesPlaced(ids[: board_of(state).seam_count])]


def _shuffled(state: State, request: ShufflePile, outcome: PileShuffled) -> list[ev.Event]:
    if request.pile == CAVES_PILE:
        return [ev.CaveTokensShuffled(len(board_of(state).caves), content.cave_pile_size())]
    return [ev.DeckShuffled(_seat_of(request.pile), request.cards)]


def _drawn(state: State, request: DrawCards, outcome: CardsDrawn) -> list[ev.Event]:
    if request.pile == CAVES_PILE:
        if outcome.cards[0] not in content.tokens():
            raise _unexpected("not a cave token")
        seat, cave = state.explore[0]
        return [ev.CaveExplored(seat, cave, outcome.cards[0])]
    seat = _seat_of(request.pile)
    if not holds(state.players[seat].draw, outcome.cards):
        raise _unexpected("cards not in that pile")
    return [ev.CardsDrawnToHand(seat, tuple(outcome.cards))]


def decide_chance(state: State, outcome: ChanceOutcome) -> list[ev.Event]:
    """Events for the outcome of the pending chance request."""
    request = pending_chance(state)
    match request, outcome:
        case Permute(), Permuted():
            return _permuted(state, outcome)
        case ShufflePile(), PileShuffled():
            return _shuffled(state, request, outcome)
        case DrawCards(), CardsDrawn():
            return _drawn(state, request, outcome)
    raise AssertionError(f"the host let {outcome!r} answer {request!r}")
