"""The determinize property shared by every game's test (docs/bots.md).

From positions of random play where a seat must decide: every determinization
of that seat's view is a state whose view for the seat is the same view and
whose legal actions for the seat are the same; its piles hold exactly what the
state says they hold. So two states that differ only in what the seat cannot
see give a bot the same input, and the bot's choice cannot depend on it.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from services.dice.playout import LocalChance
from services.games.common.chance import CHANCE_SEAT
from services.games.common.host import GameDeclaration


def decision_points(
    game: GameDeclaration[Any, Any, Any], config: Mapping[str, str], seats: int, seed: int, every: int
) -> Iterator[tuple[Any, int]]:
    """(state, seat) at every `every`-th decision of one random game."""
    engine = game.engine
    rng = random.Random(seed)
    chance = LocalChance(seed.to_bytes(32, "big"))
    state = engine.setup(config, seats)
    decisions = 0
    while True:
        turn = engine.to_move(state)
        if turn.chance is not None:
            seat, move = CHANCE_SEAT, chance.resolve(turn.chance)
        elif turn.seats:
            seat = turn.seats[rng.randrange(len(turn.seats))]
            legal = engine.legal_actions(state, seat)
            if decisions % every == 0:
                yield state, seat
            decisions += 1
            move = legal[rng.randrange(len(legal))]
        else:
            return
        for event in engine.decide(state, seat, move):
            state = engine.evolve(state, event)


def check_consistent(
    game: GameDeclaration[Any, Any, Any],
    state: Any,
    seat: int,
    rng: random.Random,
    pile_sizes: Callable[[Any], Mapping[str, Counter[str]]],
) -> Any:
    """One determinization of `seat`'s view of `state`, checked against the state; returned."""
    assert game.determinize is not None
    engine = game.engine
    view = engine.view(state, seat)
    det = game.determinize(view, seat, rng)
    assert engine.view(det.state, seat) == view
    assert list(engine.legal_actions(det.state, seat)) == list(engine.legal_actions(state, seat))
    assert engine.to_move(det.state) == engine.to_move(state)
    assert {k: Counter(v) for k, v in det.piles.items()} == dict(pile_sizes(det.state))
    return det.state
