"""The Quest for El Dorado (Knizia, Ravensburger 2017), base game and caves variant:
a pure rules engine (see RULES.md), declared to the platform once as `GAME`."""

from services.games.common.host import GameDeclaration, Sample
from services.games.common.schema import GameSchema, OneOf
from services.games.el_dorado import (
    actions,
    content,
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
)

GAME = GameDeclaration(
    name="el_dorado",
    min_seats=2,
    max_seats=4,
    options=setup.OPTIONS,
    # A timed-out seat stops moving, ends its turn and keeps its hand.
    passes=("StopMoving", "Done", "EndTurn"),
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
        game="el_dorado",
        package="tabletop.games.el_dorado.v1",
        action=OneOf("Action", actions.Action, "One player action."),
        event=OneOf("Event", events.Event, "One game event."),
        view=view.View,
    ),
    state_types=(state, content),
    usual_seats=3,
    determinize=determinize.determinize,
    samples=(
        Sample(seats=2, seed=1),
        Sample(seats=4, seed=2),
        Sample(seats=3, seed=3, config={"course": "witchs_cauldron", "caves": "true"}),
    ),
)
ENGINE = GAME.engine

__all__ = ["ENGINE", "GAME"]
