"""Chance at setup and in the card phase (rulebook: Preparar, Fase de cartas)."""

from __future__ import annotations

from services.games.common.chance import (
    CardsDrawn,
    ChanceOutcome,
    ChanceRequest,
    DrawCards,
    Permute,
    Permuted,
    PileShuffled,
    ShufflePile,
)
from services.games.la_isla.content import ANIMALS
from services.games.la_isla.events import (
    CardsDrawnToHand,
    DrawPileShuffled,
    Event,
    IslandBuilt,
    LargeTilesDealt,
    TilesPlaced,
)
from services.games.la_isla.rules import CONTENT, draw_count
from services.games.la_isla.setup import deck_cards
from services.games.la_isla.state import Phase, State


def tile_pool() -> tuple[int, ...]:
    """Animal indexes of the small tiles in canonical order: 7 of each for 35 regions."""
    per_animal = len(CONTENT.island.regions) // len(ANIMALS)
    return tuple(a for a in range(len(ANIMALS)) for _ in range(per_animal))


def drawing_seat(state: State) -> int:
    """The seat drawing now: clockwise from the start player."""
    return state.order()[state.drawn]


def request(state: State) -> ChanceRequest | None:
    """The chance request the state waits for, if any."""
    if state.phase is Phase.SETUP:
        if state.layout is None:
            return Permute(CONTENT.island.slots)
        if state.region_tiles is None:
            return Permute(len(tile_pool()))
        if state.players[0].large is None:
            return Permute(len(ANIMALS))
        return ShufflePile("draw:1", deck_cards(state.deck))
    if state.phase is Phase.DRAW:
        seat = drawing_seat(state)
        owed = draw_count(state.player(seat)) - len(state.player(seat).hand)
        if state.pile_size > 0:
            return DrawCards(state.pile, min(owed, state.pile_size), seat)
        if state.discard:
            return ShufflePile(f"draw:{state.pile_number + 1}", state.discard)
    return None


def resolve(state: State, outcome: ChanceOutcome) -> tuple[Event, ...]:
    """Game events carrying the outcome of the pending request (the host has checked that it answers it)."""
    match request(state), outcome:
        case Permute(), Permuted(order=order) if state.layout is None:
            return (IslandBuilt(order),)
        case Permute(), Permuted(order=order) if state.region_tiles is None:
            pool = tile_pool()
            return (TilesPlaced(tuple(ANIMALS[pool[i]] for i in order)),)
        case Permute(), Permuted(order=order):
            return (LargeTilesDealt(tuple(ANIMALS[order[s]] for s in range(state.seats))),)
        case ShufflePile(pile=pile, cards=cards), PileShuffled():
            return (DrawPileShuffled(pile, len(cards), state.phase is not Phase.SETUP),)
        case DrawCards(pile=pile, seat=seat), CardsDrawn(cards=cards) if seat is not None:
            return (CardsDrawnToHand(seat, pile, cards),)
    raise AssertionError(f"the host let {outcome!r} answer {request(state)!r}")
