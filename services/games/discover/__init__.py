"""Discover: Lands Unknown (Fantasy Flight Games, 2018): co-operative survival for
1 to 4 players, a pure rules engine (see RULES.md) declared to the platform once as `GAME`."""

from services.games.common.host import GameDeclaration, Sample
from services.games.common.schema import GameSchema, OneOf
from services.games.discover import (
    actions,
    decide,
    determinize,
    events,
    evolve,
    flow,
    legal,
    result,
    setup,
    state,
    view,
    visibility,
    vocab,
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
    schema=GameSchema(
        game="discover",
        package="tabletop.games.discover.v1",
        action=OneOf("Action", actions.Action, "A survivor's move."),
        event=OneOf("Event", events.Event, "Something that happened."),
        view=view.View,
        unions=(OneOf("Step", state.Step, "An agenda step: what resolves next."),),
    ),
    # The state's own dataclasses and enums, and the two vocabulary types it holds.
    state_types=(state, vocab.Hex, vocab.DamageType),
    usual_seats=2,
    # Combat and the map's choices take longer than a move in the racing games.
    decision_seconds=90,
    samples=(Sample(seats=1, seed=1), Sample(seats=3, seed=2)),
    determinize=determinize.determinize,
)
ENGINE = GAME.engine

__all__ = ["ENGINE", "GAME"]
