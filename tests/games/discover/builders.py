"""Named positions for scenario tests, built from a real setup plus explicit changes."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from services.games.common.chance import CHANCE_SEAT, CardsDrawn, DiceRolled, PileShuffled
from services.games.common.engine import replay
from services.games.discover import ENGINE
from services.games.discover import events as ev
from services.games.discover.board import board
from services.games.discover.content import load
from services.games.discover.state import Enemy, Phase, State
from services.games.discover.vocab import Hex

CAMP = Hex(0, 0)
NORTH = Hex(0, -1)  # start tile: grass with a tree feature
NORTH_EAST = Hex(1, -1)  # start tile: underbrush with a shrub feature
SOUTH_EAST = Hex(1, 0)  # start tile: grass with a rocks feature
SOUTH = Hex(0, 1)  # start tile: grass with a shrub feature
NORTH_WEST = Hex(-1, 0)  # start tile: plain grass


def full_piles(state: State) -> dict[str, int]:
    """Every setup pile at its full size, as after the setup shuffles."""
    content = load(state.scenario)
    sizes = {
        "night:I": sum(1 for c in content.night.values() if c.tier == "I"),
        "night:II": sum(1 for c in content.night.values() if c.tier == "II"),
        "projects": len(content.projects),
        "threats": len(content.threats),
        "monsters": len(content.monster_tokens),
        "tiles:A": sum(1 for t in content.tiles.values() if t.group == "A"),
        "tiles:B": sum(1 for t in content.tiles.values() if t.group == "B"),
    }
    for pool in {p for p, _ in content.features.values()}:
        sizes[f"feature:{pool}"] = sum(1 for p, _ in content.features.values() if p == pool)
    return sizes


def day(seats: int = 1, characters: tuple[int, ...] = (), **changes: Any) -> State:
    """Day 1, survivors at the camp, seat 0 leading and acting first, decks full."""
    config = {"characters": ",".join(map(str, characters))} if characters else {}
    state = ENGINE.setup(config, seats)
    state = replace(
        state,
        phase=Phase.DAY,
        day=1,
        agenda=(),
        turn_order=tuple(range(seats)),
        piles=full_piles(state),
    )
    return replace(state, **changes)


def survivor(state: State, seat: int, **changes: Any) -> State:
    return state.with_survivor(replace(state.survivors[seat], **changes))


def reveal(state: State, slot: int, tile: int) -> State:
    """Turn tile `tile` face up in `slot` (as Explore would)."""
    return ENGINE.evolve(state, ev.TileRevealed(slot, tile))


def enemy(state: State, enemy_id: str, number: int, space: Hex, special: bool = False, damage: int = 0) -> State:
    """An enemy token on the map (number 0: face down)."""
    return replace(state, enemies=(*state.enemies, Enemy(enemy_id, number, space, special, damage)))


def landmark(state: State, number: int) -> Hex:
    return board(state).landmarks[number]


def act(state: State, seat: int, action: Any) -> tuple[State, list[Any]]:
    """Decide and evolve one move; returns the new state and the events."""
    events = list(ENGINE.decide(state, seat, action))
    return replay(ENGINE, state, events), events


def roll(state: State, *values: int) -> tuple[State, list[Any]]:
    return act(state, CHANCE_SEAT, DiceRolled(tuple(values)))


def draw(state: State, pile: str, *cards: str) -> tuple[State, list[Any]]:
    return act(state, CHANCE_SEAT, CardsDrawn(pile, tuple(cards)))


def shuffled(state: State, pile: str, size: int) -> tuple[State, list[Any]]:
    return act(state, CHANCE_SEAT, PileShuffled(pile, size))


def of_type(events: list[Any], cls: type) -> list[Any]:
    return [e for e in events if isinstance(e, cls)]


def game_events(events: list[Any]) -> list[Any]:
    """The events without agenda bookkeeping (StepsQueued/StepDone)."""
    return [e for e in events if not isinstance(e, ev.StepsQueued | ev.StepDone)]
