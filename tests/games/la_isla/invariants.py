"""Invariants checked after every event of a random game."""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any

from services.games.la_isla.content import ANIMALS
from services.games.la_isla.rules import CONTENT
from services.games.la_isla.setup import deck_cards
from services.games.la_isla.state import Phase, State

UNPLAYED = {Phase.ASSIGN: 3, Phase.INCOME: 2, Phase.EXPLORE: 1, Phase.ANIMALS: 1}


def cards_in_play(state: State) -> int:
    """Every card accounted for: hands, cardholders, discard, draw pile, unplayed B/D cards."""
    total = state.pile_size + len(state.discard)
    for p in state.players:
        total += len(p.hand) + sum(len(stack) for stack in p.slots)
        if p.assignment is not None:
            total += UNPLAYED.get(state.phase, 0)
    return total


def check(state: State, event: Any) -> None:
    """Raise AssertionError when an invariant of the rules is broken."""
    for p in state.players:
        assert min(p.resources) >= 0, f"negative resources after {event}"
        assert p.explorers_left >= 0 and p.explorers_left + len(p.explorers) == 5 + p.explorers_gained
        assert p.explorers_gained <= 2
    top = len(CONTENT.island.track) - 1
    assert all(0 <= m <= top for m in state.markers)
    if state.region_tiles is not None:
        on_island = Counter(t for t in state.region_tiles if t is not None)
        for i, animal in enumerate(ANIMALS):
            owned = sum(p.tiles[i] for p in state.players)
            assert on_island[animal] + owned == 7, f"{animal} tiles not conserved after {event}"
    if state.pile_number > 0 and state.phase is not Phase.OVER:
        assert cards_in_play(state) == len(deck_cards(state.deck)), f"cards not conserved after {event}"


def strings(value: Any) -> set[str]:
    """Every string inside a (nested) dataclass value."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, (tuple, list, frozenset, set)):
        return set().union(*(strings(v) for v in value)) if value else set()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return set().union(*(strings(getattr(value, f.name)) for f in dataclasses.fields(value)))
    return set()


def secrets_of(state: State, seat: int) -> set[str]:
    """Card ids only `seat` may know now: its hand and its unrevealed assignment."""
    p = state.player(seat)
    hidden = set(p.hand)
    if p.assignment is not None:
        a, b, d = p.assignment.a, p.assignment.b, p.assignment.d
        by_phase = {Phase.ASSIGN: (a, b, d), Phase.INCOME: (b, d), Phase.EXPLORE: (d,), Phase.ANIMALS: (d,)}
        unrevealed = by_phase.get(state.phase, ())
        hidden |= set(unrevealed)
    return hidden
