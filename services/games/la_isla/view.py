"""What one seat (or a spectator) may know of the state."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from services.games.common.values import keep_last, reusable
from services.games.la_isla.actions import CollectIncome
from services.games.la_isla.content import ANIMALS, Animal, Colour, Symbol
from services.games.la_isla.explore import current
from services.games.la_isla.rules import CONTENT, END_THRESHOLD, area, area_sum, island_of
from services.games.la_isla.state import Assignment, Phase, Player, State


@dataclass(frozen=True)
class SpaceView:
    """A landscape space and the seats with an explorer on it."""

    id: str
    colour: Colour
    symbol: Symbol
    explorers: tuple[int, ...]  # seats with an explorer here


@dataclass(frozen=True)
class RegionView:
    """A jungle region; `tile` None once claimed."""

    id: str
    value: int  # surrounding spaces = explorers needed = points
    spaces: tuple[int, ...]  # indexes into View.spaces
    tile: Animal | None  # None (unset) once claimed


@dataclass(frozen=True)
class MarkerView:
    """A purple marker: its space on the track and the area (multiplier) it stands in."""

    animal: Animal
    position: int  # space on the animal track, 0 = start
    area: int  # area value 0-5: multiplier and end-check contribution


@dataclass(frozen=True)
class SlotView:
    """A cardholder slot: the visible card (None if free) and how many cards it covers."""

    top: str | None  # visible card id; None (unset) for a free slot
    covered: int  # cards covered below it
    below: tuple[str, ...]  # the covered cards, bottom first: each was revealed face up when played


@dataclass(frozen=True)
class PlayerView:
    """One seat's public pieces; `resources` and `tiles` follow Colour and Animal order."""

    seat: int
    score: int
    resources: tuple[int, ...]  # per Colour, in enum order
    explorers_left: int  # explorers still under C
    explorers_gained: int  # explorers taken from the general supply
    slots: tuple[SlotView, ...]
    tiles: tuple[int, ...]  # small tiles per Animal, in enum order
    large: Animal | None
    hand_count: int
    has_chosen: bool  # has made the pending secret choice


@dataclass(frozen=True)
class View:
    """The table as `viewer` sees it; `hand` and `my_*` are the viewer's secrets only."""

    viewer: int | None  # None (unset) for a spectator
    phase: Phase
    round: int
    start_player: int
    current_seat: int | None  # the seat taking action C
    end_threshold: int
    area_sum: int
    pending_resources: int  # placement rewards the current seat still chooses
    pending_markers: int
    spaces: tuple[SpaceView, ...]
    regions: tuple[RegionView, ...]
    markers: tuple[MarkerView, ...]
    players: tuple[PlayerView, ...]
    draw_pile: str
    draw_pile_size: int
    discard: tuple[str, ...]
    hand: tuple[str, ...]  # the viewer's hand only
    my_assignment: Assignment | None  # the viewer's unrevealed assignment
    my_income: CollectIncome | None  # the viewer's unrevealed phase B choice
    my_extra_moves: int | None  # the viewer's unrevealed phase D choice
    deck: str  # the deck option: which cards the game holds
    layout: tuple[int, ...]  # tooth in each island slot (empty before the island is built)


def _chosen(state: State, p: Player) -> bool:
    if state.phase is Phase.ASSIGN:
        return p.assignment is not None
    return p.choice is not None


def _player(state: State, seat: int) -> PlayerView:
    p = state.player(seat)
    slots = tuple(SlotView(stack[-1] if stack else None, max(len(stack) - 1, 0), stack[:-1]) for stack in p.slots)
    return PlayerView(
        seat,
        p.score,
        p.resources,
        p.explorers_left,
        p.explorers_gained,
        slots,
        p.tiles,
        p.large,
        len(p.hand),
        _chosen(state, p),
    )


def _board(state: State) -> tuple[tuple[SpaceView, ...], tuple[RegionView, ...]]:
    if state.layout is None or state.region_tiles is None:
        return (), ()
    explorers = tuple(state.player(seat).explorers for seat in range(state.seats))
    return reusable(_spaces(state.layout, explorers)), reusable(_regions(state.region_tiles))


# Most moves leave the board as it was: the same board gives the very same tuples, built
# once and named reusable, and the codec copies an encoding it made of that tuple before
# instead of encoding it again (protocodec.sharing). Bounded by the matches a process
# keeps in play at once.
BOARDS_KEPT = 256
# A board that changed shares the spaces that did not with the board before: few new
# objects a move, where 40 new spaces a move, each kept a while, made the collector's
# middle generation a third longer to walk (and La Isla's p99 latency as much higher).
SPACES_KEPT = 8192


@lru_cache(maxsize=BOARDS_KEPT)
def _spaces(layout: tuple[int, ...], explorers: tuple[frozenset[int], ...]) -> tuple[SpaceView, ...]:
    faces = island_of(layout).faces
    # Who stands on each space, seats in order: one pass over the explorers, not one per space.
    standing: dict[int, tuple[int, ...]] = {}
    for seat, spaces in enumerate(explorers):
        for space in spaces:
            standing[space] = (*standing.get(space, ()), seat)
    return tuple(
        _space(spec.id, face.colour, face.symbol, standing.get(i, ()))
        for i, (spec, face) in enumerate(zip(CONTENT.island.spaces, faces))
    )


@lru_cache(maxsize=SPACES_KEPT)
def _space(space_id: str, colour: Colour, symbol: Symbol, explorers: tuple[int, ...]) -> SpaceView:
    return SpaceView(space_id, colour, symbol, explorers)


@lru_cache(maxsize=BOARDS_KEPT)
def _regions(region_tiles: tuple[Animal | None, ...]) -> tuple[RegionView, ...]:
    return tuple(RegionView(r.id, r.value, r.spaces, t) for r, t in zip(CONTENT.island.regions, region_tiles))


@keep_last  # the views of one state share these, so each is built once and encoded once (protocodec.sharing)
def _shared(state: State) -> tuple[tuple[SpaceView, ...], tuple[RegionView, ...], tuple[PlayerView, ...]]:
    """The public parts of `state`'s views."""
    spaces, regions = _board(state)
    return spaces, regions, tuple(_player(state, s) for s in range(state.seats))


def view(state: State, viewer: int | None) -> View:
    """Everything public, plus the viewer's hand and unrevealed choices."""
    mine = state.player(viewer) if viewer is not None and 0 <= viewer < state.seats else None
    spaces, regions, players = _shared(state)
    choice = mine.choice if mine is not None else None
    return View(
        viewer=viewer,
        phase=state.phase,
        round=state.round,
        start_player=state.start,
        current_seat=current(state) if state.phase is Phase.EXPLORE else None,
        end_threshold=END_THRESHOLD[state.seats],
        area_sum=area_sum(state.markers),
        pending_resources=state.pending_resources,
        pending_markers=state.pending_markers,
        spaces=spaces,
        regions=regions,
        markers=tuple(MarkerView(a, m, area(m)) for a, m in zip(ANIMALS, state.markers)),
        players=players,
        draw_pile=state.pile,
        draw_pile_size=state.pile_size,
        discard=state.discard,
        hand=mine.hand if mine is not None else (),
        my_assignment=mine.assignment if mine is not None else None,
        my_income=choice if isinstance(choice, CollectIncome) else None,
        my_extra_moves=getattr(choice, "extra", None) if mine is not None else None,
        deck=state.deck,
        layout=state.layout or (),
    )
