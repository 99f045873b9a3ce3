"""Policies playing whole games in process, each seeing only its seat's view and legal actions.

Chance is a `LocalChance` (services/dice/playout.py), so a game here is what a
match through the services would be with the same seed and choices. Used by
`make bots-eval` (bots/eval.py) and the tests.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar

from bots.policies import Policy
from services.dice.playout import LocalChance
from services.games.common.chance import CHANCE_SEAT
from services.games.common.engine import Outcome
from services.games.common.host import GameDeclaration

if TYPE_CHECKING:
    from services.games.common.chance import ChanceOutcome

# The game's state, action and event types.
S = TypeVar("S")
A = TypeVar("A")
E = TypeVar("E")


@dataclass(frozen=True)
class Game(Generic[S]):
    """A finished (or abandoned) game: its outcome, last state and decisions taken."""

    outcome: Outcome | None
    state: S
    decisions: int


def play(
    game: GameDeclaration[S, A, E],
    config: Mapping[str, str],
    policies: Sequence[Policy],
    seed: int,
    max_steps: int = 200_000,
) -> Game[S]:
    """One game with `policies[s]` in seat s; chance and the order of simultaneous seats derive from `seed`."""
    engine = game.engine
    rng = random.Random(seed)
    chance = LocalChance(seed.to_bytes(32, "big"))
    state = engine.setup(dict(config), len(policies))
    decisions = 0
    for _ in range(max_steps):
        turn = engine.to_move(state)
        move: A | ChanceOutcome
        if turn.chance is not None:
            seat, move = CHANCE_SEAT, chance.resolve(turn.chance)
        elif turn.seats:
            seat = turn.seats[rng.randrange(len(turn.seats))]
            legal = engine.legal_actions(state, seat)
            move = policies[seat].choose(engine.view(state, seat), seat, legal)
            decisions += 1
        else:
            break
        for event in engine.decide(state, seat, move):
            state = engine.evolve(state, event)
    return Game(engine.result(state), state, decisions)


def wilson(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    centre = p + z * z / (2 * games)
    spread = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games))
    scale = 1 + z * z / games
    return max(0.0, (centre - spread) / scale), min(1.0, (centre + spread) / scale)


def won(outcome: Outcome | None, seat: int) -> float:
    """1 for a sole first place, 1/k for a first place shared by k seats, else 0 (unfinished: 0)."""
    if outcome is None or outcome.ranking[seat] != 1:
        return 0.0
    return 1.0 / sum(1 for place in outcome.ranking if place == 1)


__all__ = ["Game", "play", "wilson", "won"]
