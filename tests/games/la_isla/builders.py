"""Named positions for La Isla scenario tests."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from services.games.common.engine import replay
from services.games.la_isla import ENGINE
from services.games.la_isla.content import ANIMALS, COLOURS, Animal, Colour, Function, Symbol
from services.games.la_isla.events import DrawPileShuffled, IslandBuilt, LargeTilesDealt, TilesPlaced
from services.games.la_isla.rules import CONTENT, island
from services.games.la_isla.setup import deck_cards
from services.games.la_isla.state import Assignment, Phase, State

LAYOUT = tuple(range(10))


def set_up(seats: int = 2, deck: str = "beginner", large: tuple[Animal, ...] | None = None) -> State:
    """After the random setup: identity island, tiles cycling through the animals, card phase."""
    tiles = tuple(ANIMALS[i % len(ANIMALS)] for i in range(len(CONTENT.island.regions)))
    events = [
        IslandBuilt(LAYOUT),
        TilesPlaced(tiles),
        LargeTilesDealt(large or ANIMALS[:seats]),
        DrawPileShuffled("draw:1", len(deck_cards(deck)), False),
    ]
    return replay(ENGINE, ENGINE.setup({"deck": deck}, seats), events)


def with_player(state: State, seat: int, **changes: Any) -> State:
    """`state` with some of `seat`'s pieces replaced."""
    players = list(state.players)
    players[seat] = replace(players[seat], **changes)
    return replace(state, players=tuple(players))


def resources(**counts: int) -> tuple[int, ...]:
    """A resource tuple from colour names, e.g. resources(yellow=2)."""
    return tuple(counts.get(c.value, 0) for c in COLOURS)


def exploring(seats: int = 2, seat: int = 0, **changes: Any) -> State:
    """Action C with `seat` to move (start player 0), `changes` applied to that seat."""
    state = replace(set_up(seats), phase=Phase.EXPLORE, turn=state_turn(seats, seat))
    return with_player(state, seat, **changes)


def state_turn(seats: int, seat: int) -> int:
    """The C turn index of `seat` when seat 0 starts."""
    return seat % seats


def card_with(function: Function, exclude: tuple[str, ...] = ()) -> str:
    """A card id whose special function is `function`."""
    return next(c.id for c in CONTENT.cards if c.function == function and c.id not in exclude)


def card_where(**fields: Any) -> str:
    """A value-1 card id whose fields (resource, animal) match."""
    return next(c.id for c in CONTENT.cards if c.value == 1 and all(getattr(c, k) == v for k, v in fields.items()))


def space_where(state: State, colour: Colour | None = None, symbol: Symbol | None = None) -> int:
    """The first space showing `colour` and `symbol`."""
    faces = island(state).faces
    return next(i for i, f in enumerate(faces) if colour in (None, f.colour) and symbol in (None, f.symbol))


def region(index: int) -> tuple[int, ...]:
    """The spaces surrounding region `index`."""
    return CONTENT.island.regions[index].spaces


def assigning(hands: tuple[tuple[str, ...], ...], **changes: Any) -> State:
    """The card phase with every seat's cards drawn: seats choose A, B and D."""
    state = replace(set_up(len(hands)), phase=Phase.ASSIGN, drawn=len(hands), **changes)
    for seat, hand in enumerate(hands):
        state = with_player(state, seat, hand=hand)
    return state


def plain_cards(count: int, exclude: tuple[str, ...] = ()) -> tuple[str, ...]:
    """Value-1 cards with distinct placement-points functions (no B or D choices)."""
    from services.games.la_isla.content import PlacementPoints

    seen: list[Any] = []
    picked: list[str] = []
    for c in CONTENT.cards:
        if isinstance(c.function, PlacementPoints) and c.function not in seen and c.id not in exclude:
            seen.append(c.function)
            picked.append(c.id)
    return tuple(picked[:count])


def last_turn(d_cards: tuple[str, ...], **changes: Any) -> State:
    """Action C of the last seat (seat 0 starts); every seat's D card is set."""
    seats = len(d_cards)
    state = replace(set_up(seats), phase=Phase.EXPLORE, turn=seats - 1, **changes)
    hands = plain_cards(2 * seats)
    for seat, d in enumerate(d_cards):
        state = with_player(state, seat, assignment=Assignment(hands[2 * seat], hands[2 * seat + 1], d, 0))
    return state
