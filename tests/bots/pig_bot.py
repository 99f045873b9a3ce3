"""Pig (tests/fixtures/pig) with a search bot: a determinize and a heuristic for the search's tests.

Pig's own view leaves out who has swapped already, which is public (SwapStarted
is) and decides the legal actions: as docs/bots.md asks, the view the bot gets
here carries it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from bots.strategies import Strategy
from services.games.common.host import Determinization, Rng
from tests.fixtures import pig


@dataclass(frozen=True)
class View:
    table: pig.View
    swapped: frozenset[int]


def view(state: pig.State, viewer: int | None) -> View:
    return View(pig.view(state, viewer), state.swapped)


def determinize(seen: View, seat: int, rng: Rng) -> Determinization[pig.State]:
    """The other seats' bonus cards and the bag's order drawn from what `seat` has not seen."""
    table = seen.table
    seats = len(table.scores)
    unseen = [c for c in pig.BAG if c != table.my_bonus] if table.my_bonus is not None else list(pig.BAG)
    rng.shuffle(unseen)
    bonuses = tuple(table.my_bonus if s == seat and table.my_bonus is not None else unseen.pop() for s in range(seats))
    state = pig.State(seats=seats, scores=table.scores, bonuses=bonuses, bag_ready=True, current=table.current,
                      turn_total=table.turn_total, swapped=seen.swapped)
    return Determinization(state, {"bag": unseen})


def evaluate(state: pig.State, seat: int) -> float:
    """Banked points (and half the points at risk) against the best rival's, in [0, 1]."""
    mine = state.scores[seat] + (state.turn_total / 2 if state.current == seat else 0)
    rival = max((s for i, s in enumerate(state.scores) if i != seat), default=0)
    return min(1.0, max(0.0, 0.5 + (mine - rival) / (2 * pig.TARGET)))


GAME = replace(pig.GAME, view=view, determinize=determinize)
STRATEGY: Strategy[pig.State, object] = Strategy(evaluate=evaluate)
