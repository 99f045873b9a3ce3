"""Named positions and bots for El Dorado tests."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from services.games.common import chance
from services.games.common.engine import IllegalAction
from services.games.el_dorado import ENGINE, content
from services.games.el_dorado import actions as act
from services.games.el_dorado.board import Board, Hex, board
from services.games.el_dorado.content import Terrain
from services.games.el_dorado.state import Phase, Player, State, Turn, added, taken

J, W, S, R, B, M = (Terrain.MACHETE, Terrain.PADDLE, Terrain.COIN, Terrain.RUBBLE, Terrain.BASECAMP,
                    Terrain.MOUNTAIN)
COURSES = tuple(content.courses())


def find_path(pattern: Sequence[tuple[Terrain, int] | None], course: str = "first_game",
              avoid: Callable[[Board, Hex], bool] | None = None) -> list[Hex]:
    """Hexes h0..hk, each next to the one before; h0 any enterable hex, hi matching pattern[i]."""
    b = board(course)

    def fits(h: Hex, want: tuple[Terrain, int] | None) -> bool:
        space = b.spaces[h]
        if space.finish:
            return False
        if want is None:
            return b.enterable(h)
        return space.terrain is want[0] and (space.power == want[1] or want[1] < 0)

    def extend(path: list[Hex]) -> list[Hex] | None:
        if len(path) == len(pattern):
            return path
        for n in sorted(b.neighbours[path[-1]]):
            if n not in path and fits(n, pattern[len(path)]) and (avoid is None or not avoid(b, n)):
                if (path[-1], n) in b.seam_of:
                    continue
                found = extend([*path, n])
                if found:
                    return found
        return None

    for h in sorted(b.spaces):
        if fits(h, pattern[0]) and (avoid is None or not avoid(b, h)):
            found = extend([h])
            if found:
                return found
    raise LookupError(f"no path {pattern} on {course}")


def position(
    seats: int = 3,
    hands: dict[int, tuple[str, ...]] | None = None,
    pieces: dict[int, tuple[Hex | None, ...]] | None = None,
    course: str = "first_game",
    seams: tuple[int, ...] | None = None,
    caves: bool = False,
    current: int = 0,
    **state_changes: Any,
) -> State:
    """A match in phase 1 of `current`'s turn; unnamed hands hold Explorer, Explorer, Traveler, Sailor.

    Every blockade is already removed unless `seams` says otherwise; the rest of each
    starting deck is in the draw pile.
    """
    config = {"course": course, "caves": "true" if caves else "false"}
    state = ENGINE.setup(config, seats)
    b = board(course)
    players = []
    for seat, p in enumerate(state.players):
        hand = (hands or {}).get(seat, ("explorer", "explorer", "sailor", "traveler"))
        starting = content.starting_deck()
        draw = taken(starting, [c for c in hand if c in starting])
        where = (pieces or {}).get(seat, p.pieces)
        players.append(replace(p, hand=added((), hand), draw=draw, discard=(), pieces=where,
                               near_caves=tuple(frozenset() for _ in where)))
    return replace(
        state, players=tuple(players), phase=Phase.PLAY, current=current, round=1,
        seams=seams if seams is not None else (0,) * b.seam_count,
        caves_ready=caves, cave_left=(4,) * len(b.caves) if caves else (), turn=Turn(),
        **state_changes,
    )


def with_player(state: State, seat: int, **changes: Any) -> State:
    """`state` with fields of one player changed."""
    players = list(state.players)
    players[seat] = replace(players[seat], **changes)
    return replace(state, players=tuple(players))


def run(state: State, seat: int, *actions: object) -> tuple[State, list[Any]]:
    """Apply actions in order; the state after them and all events."""
    events: list[Any] = []
    for action in actions:
        new = list(ENGINE.decide(state, seat, action))
        for event in new:
            state = ENGINE.evolve(state, event)
        events += new
    return state, events


def refusal(state: State, seat: int, action: object) -> str:
    """The rule id with which `action` is refused."""
    try:
        ENGINE.decide(state, seat, action)
    except IllegalAction as refused:
        return refused.rule
    raise AssertionError(f"{action} was accepted")


def _score(state: State, seat: int, action: object) -> float:
    """How much a simple racing bot likes `action` (bigger is better)."""
    b = board(state.course)
    dist = b.distance
    player: Player = state.players[seat]

    def closer(piece: int, to: Hex) -> bool:
        here = player.pieces[piece]
        return here is not None and dist.get(to, 99) < dist.get(here, 99)

    match action:
        case act.MoveTo(q=q, r=r):
            active = state.turn.active
            return 10 if active is not None and closer(active.piece, (q, r)) else -2
        case act.BreakBlockade() | act.ClearBlockade():
            return 8
        case act.NativeMove(piece=p, q=q, r=r) | act.ClearSpace(piece=p, q=q, r=r):
            return 9 if closer(p, (q, r)) else -2
        case act.PlayCard(piece=p, symbol=sym) | act.PlayToken(piece=p, symbol=sym):
            here = player.pieces[p]
            assert here is not None
            good = any(closer(p, n) and b.spaces[n].terrain.value == sym.value for n in b.neighbours[here])
            return 6 if good else -1
        case act.BuyCard(card=card) | act.TakeCard(card=card):
            return 3 + content.cards()[card].cost
        case act.PlayAction() | act.UseToken():
            return 2
        case act.SpendCard() | act.SpendToken():
            return 1
        case act.RemoveCard(card=card):
            return 2 if card in content.starting_deck() else -1
        case act.DiscardCard():
            return -1
    return 0


def racing_policy(rng: random.Random, explore: float = 0.1) -> Callable[[Any, int, Sequence[Any]], Any]:
    """A bot that mostly takes its best-scored action and sometimes a random one."""

    def choose(state: Any, seat: int, actions: Sequence[Any]) -> Any:
        if rng.random() < explore:
            return actions[rng.randrange(len(actions))]
        scored = [(_score(state, seat, a), rng.random(), i) for i, a in enumerate(actions)]
        return actions[max(scored)[2]]

    return choose


def illegal_probe(state: State, seat: int, rng: random.Random) -> object:
    """A random action that may well be illegal."""
    hexes = sorted(board(state.course).spaces)
    q, r = hexes[rng.randrange(len(hexes))]
    card = rng.choice((*content.market_types(), "explorer", "nope"))
    return rng.choice([
        act.MoveTo(q, r), act.BuyCard(card), act.PlayCard(card, content.Symbol.MACHETE, 0),
        act.ClearSpace(0, q, r, ("explorer",)), act.TakeCard(card), act.Done(), act.DiscardCard(card),
        act.BreakBlockade(rng.randrange(6)), act.NativeMove(0, q, r), act.PlayAction(card),
        act.SpendCard(card), act.UseToken("draw_1"), act.EndTurn(),
    ])




def find_hex(want: Callable[[Board, Hex], bool]) -> tuple[str, Hex]:
    """The first (course, hex) on any course, not a finish space, for which `want` holds."""
    for course in COURSES:
        b = board(course)
        for h in sorted(b.spaces):
            if b.enterable(h) and not b.spaces[h].finish and want(b, h):
                return course, h
    raise LookupError("no such hex")


def next_to(b: Board, h: Hex, terrain: Terrain, power: int | None = None) -> list[Hex]:
    """Neighbours of `h` of `terrain` (and `power`), not across a join and not finish spaces."""
    return [
        n for n in b.neighbours[h]
        if b.spaces[n].terrain is terrain and (power is None or b.spaces[n].power == power)
        and (h, n) not in b.seam_of and not b.spaces[n].finish
    ]


def resolve(state: State) -> tuple[State, list[Any]]:
    """Answer chance requests deterministically (piles drawn in sorted order) until a seat acts."""
    events: list[Any] = []
    while (request := ENGINE.to_move(state).chance) is not None:
        outcome: Any
        match request:
            case chance.Permute(n=n):
                outcome = chance.Permuted(tuple(range(n)))
            case chance.ShufflePile(pile=pile, cards=cards):
                outcome = chance.PileShuffled(pile, len(cards))
            case chance.DrawCards(pile=pile, count=count):
                source = content.token_pile() if pile == "caves" else state.players[int(pile[5:])].draw
                outcome = chance.CardsDrawn(pile, tuple(source[:count]))
        new = list(ENGINE.decide(state, chance.CHANCE_SEAT, outcome))
        for event in new:
            state = ENGINE.evolve(state, event)
        events += new
    return state, events


def finish_turn(state: State, seat: int) -> tuple[State, list[Any]]:
    """End `seat`'s turn keeping its hand, and resolve the draws."""
    state, events = run(state, seat, act.EndTurn())
    if state.phase is Phase.CLEANUP:
        state, more = run(state, seat, act.Done())
        events += more
    state, more = resolve(state)
    return state, events + more
