"""Discover: Lands Unknown (Fantasy Flight Games, 2018): co-operative survival for
1 to 4 players, a pure rules engine (see RULES.md) declared to the platform once as `GAME`."""

from services.games.common.host import GameDeclaration, Sample
from services.games.discover import (
    decide,
    determinize,
    evolve,
    flow,
    legal,
    result,
    setup,
    view,
    visibility,
)

GAME = GameDeclaration(
    name="discover",
    min_seats=1,
    max_seats=4,
    cooperative=True,
    options=setup.OPTIONS,
    # A timed-out survivor ends its turn and declines what it may decline.
    passes=("EndTurn", "SkipGather", "DeclineKeyItem", "DeclineSupport", "DeclineTrade", "EndTrade", "KeepRewards"),
    setup=setup.setup,
    to_move=flow.to_move,
    legal_actions=legal.legal_actions,
    decide=decide.decide,
    evolve=evolve.evolve,
    visibility=visibility.visibility,
    redact=visibility.redact,
    view=view.view,
    result=result.result,
    codec="services.games.discover.codec",
    samples=(Sample(seats=1, seed=1), Sample(seats=3, seed=2)),
    determinize=determinize.determinize,
)
ENGINE = GAME.engine

__all__ = ["ENGINE", "GAME"]
