"""Apply one event to the state; never refuses an event `decide` emitted."""

from __future__ import annotations

from typing import TypedDict, Unpack, assert_never

from services.games.common.values import replace
from services.games.la_isla.actions import AdvanceMarkers, CollectIncome
from services.games.la_isla.content import ANIMALS, COLOURS, Animal, Colour
from services.games.la_isla.events import (
    AnimalsAdvanced,
    CardsAssigned,
    CardsDrawnToHand,
    ChoiceMade,
    DrawPileShuffled,
    Event,
    ExplorerPlaced,
    FunctionsInserted,
    GameEnded,
    HandRefilled,
    IncomeChosen,
    IncomeCollected,
    IslandBuilt,
    LargeTilesDealt,
    MarkerAdvanced,
    MarkerDeclined,
    MarkerMovesChosen,
    PlacementRewarded,
    RegionClaimed,
    ResourceGained,
    RoundEnded,
    TilesPlaced,
    TurnEnded,
)
from services.games.la_isla.rules import draw_count
from services.games.la_isla.state import Assignment, Phase, State


class _PlayerChanges(TypedDict, total=False):
    """Fields of a Player to replace; each is optional."""

    hand: tuple[str, ...]
    slots: tuple[tuple[str, ...], ...]
    explorers_left: int
    explorers_gained: int
    explorers: frozenset[int]
    resources: tuple[int, ...]
    score: int
    tiles: tuple[int, ...]
    large: Animal | None
    assignment: Assignment | None
    choice: CollectIncome | AdvanceMarkers | None


def _player(state: State, seat: int, **changes: Unpack[_PlayerChanges]) -> State:
    players = list(state.players)
    players[seat] = replace(players[seat], **changes)
    return replace(state, players=tuple(players))


def _gain(resources: tuple[int, ...], colours: tuple[Colour, ...], sign: int = 1) -> tuple[int, ...]:
    counts = list(resources)
    for colour in colours:
        counts[COLOURS.index(colour)] += sign
    return tuple(counts)


def _markers(state: State, moves: tuple[MarkerAdvanced, ...]) -> State:
    """Apply marker moves in order: each moves (unless at the top) and scores its seat."""
    markers = list(state.markers)
    for move in moves:
        if move.moved:
            markers[ANIMALS.index(move.animal)] += 1
        state = _player(state, move.seat, score=state.player(move.seat).score + move.points)
    return replace(state, markers=tuple(markers))


def _drawn(state: State, event: CardsDrawnToHand) -> State:
    player = state.player(event.seat)
    hand = player.hand + event.cards
    state = replace(_player(state, event.seat, hand=hand), pile_size=state.pile_size - len(event.cards))
    if len(hand) >= draw_count(player):
        drawn = state.drawn + 1
        state = replace(state, drawn=drawn, phase=Phase.ASSIGN if drawn == state.seats else Phase.DRAW)
    return state


def _assigned(state: State, e: CardsAssigned) -> State:
    hand = tuple(c for c in state.player(e.seat).hand if c not in (e.a, e.b, e.d))
    return _player(state, e.seat, hand=hand, assignment=Assignment(e.a, e.b, e.d, e.slot))


def _inserted(state: State, event: FunctionsInserted) -> State:
    for ins in event.insertions:
        p = state.player(ins.seat)
        slots = list(p.slots)
        slots[ins.slot] = slots[ins.slot] + (ins.card,)
        if ins.slot_gained:
            slots.append(())
        gained = 1 if ins.explorer_gained else 0
        state = _player(
            state,
            ins.seat,
            slots=tuple(slots),
            explorers_left=p.explorers_left + gained,
            explorers_gained=p.explorers_gained + gained,
        )
    return replace(state, phase=Phase.INCOME)


def _income(state: State, event: IncomeCollected) -> State:
    for inc in event.incomes:
        p = state.player(inc.seat)
        state = _player(state, inc.seat, resources=_gain(p.resources, inc.colours), choice=None)
        state = replace(state, discard=tuple(sorted((*state.discard, inc.card))))
    state = _markers(state, event.moves)
    return replace(state, phase=Phase.EXPLORE, turn=0)


def _placed(state: State, e: ExplorerPlaced) -> State:
    p = state.player(e.seat)
    explorers = p.explorers - {e.source} if e.source is not None else p.explorers
    return _player(
        state,
        e.seat,
        resources=_gain(p.resources, e.payment, -1),
        explorers=explorers | {e.space},
        explorers_left=p.explorers_left - (1 if e.source is None else 0),
    )


def _claimed(state: State, e: RegionClaimed) -> State:
    assert state.region_tiles is not None
    tiles = list(state.region_tiles)
    tiles[e.region] = None
    p = state.player(e.seat)
    owned = list(p.tiles)
    owned[ANIMALS.index(e.animal)] += 1
    state = replace(state, region_tiles=tuple(tiles))
    return _player(state, e.seat, tiles=tuple(owned), score=p.score + e.points)


def _animals(state: State, event: AnimalsAdvanced) -> State:
    state = _markers(state, event.moves)
    played = [c.card for c in (*event.cards, *event.discarded)]
    for seat in range(state.seats):
        state = _player(state, seat, hand=(), assignment=None, choice=None)
    return replace(state, discard=tuple(sorted((*state.discard, *played))))


def _round_ended(state: State, e: RoundEnded) -> State:
    return replace(state, round=e.round + 1, start=e.start, phase=Phase.DRAW, drawn=0, turn=0)


def _game_ended(state: State, e: GameEnded) -> State:
    for score in e.scores:
        state = _player(state, score.seat, score=score.total)
    return replace(state, phase=Phase.OVER)


def evolve(state: State, event: Event) -> State:
    """The state after `event`."""
    match event:
        case IslandBuilt(order=order):
            return replace(state, layout=order)
        case TilesPlaced(tiles=tiles):
            return replace(state, region_tiles=tiles)
        case LargeTilesDealt(animals=animals):
            return replace(state, players=tuple(replace(p, large=a) for p, a in zip(state.players, animals)))
        case DrawPileShuffled(pile=pile, size=size, from_discard=from_discard):
            phase = Phase.DRAW if state.phase is Phase.SETUP else state.phase
            discard = () if from_discard else state.discard
            return replace(
                state,
                pile=pile,
                pile_size=size,
                pile_number=state.pile_number + 1,
                discard=discard,
                phase=phase,
            )
        case CardsDrawnToHand():
            return _drawn(state, event)
        case CardsAssigned():
            return _assigned(state, event)
        case IncomeChosen(seat=seat, colours=colours, markers=markers):
            return _player(state, seat, choice=CollectIncome(colours, markers))
        case MarkerMovesChosen(seat=seat, extra=extra):
            return _player(state, seat, choice=AdvanceMarkers(extra))
        case HandRefilled() | ChoiceMade():
            return state  # redactions are never stored; the full event was applied
        case FunctionsInserted():
            return _inserted(state, event)
        case IncomeCollected():
            return _income(state, event)
        case ExplorerPlaced():
            return _placed(state, event)
        case RegionClaimed():
            return _claimed(state, event)
        case PlacementRewarded(seat=seat, points=points, resources=res, markers=markers):
            state = _player(state, seat, score=state.player(seat).score + points)
            return replace(state, pending_resources=res, pending_markers=markers)
        case ResourceGained(seat=seat, colour=colour, reward=reward):
            state = _player(state, seat, resources=_gain(state.player(seat).resources, (colour,)))
            return replace(state, pending_resources=state.pending_resources - (1 if reward else 0))
        case MarkerAdvanced():
            return replace(_markers(state, (event,)), pending_markers=state.pending_markers - 1)
        case MarkerDeclined():
            return replace(state, pending_markers=state.pending_markers - 1)
        case TurnEnded():
            turn = state.turn + 1
            return replace(state, turn=turn, phase=Phase.ANIMALS if turn == state.seats else Phase.EXPLORE)
        case AnimalsAdvanced():
            return _animals(state, event)
        case RoundEnded():
            return _round_ended(state, event)
        case GameEnded():
            return _game_ended(state, event)
        case _:
            assert_never(event)
