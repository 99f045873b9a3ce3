"""La Isla (Stefan Feld, alea 2014) for 2 to 4 players: a pure rules engine
(see RULES.md), declared to the platform once as `GAME`."""

from services.games.common.host import GameDeclaration, Sample
from services.games.common.schema import GameSchema, OneOf
from services.games.la_isla import (
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
    name="la_isla",
    min_seats=setup.MIN_SEATS,
    max_seats=setup.MAX_SEATS,
    options=setup.OPTIONS,
    # Only a placement reward can be declined; every other choice is a bot move.
    passes=("DeclineMarker",),
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
        game="la_isla",
        package="tabletop.games.la_isla.v1",
        action=OneOf("Action", actions.Action, "One seat's action."),
        event=OneOf("Event", events.Event, "One game event."),
        view=view.View,
    ),
    state_types=(state, actions, content),
    usual_seats=3,
    determinize=determinize.determinize,
    samples=(Sample(seats=2, seed=1), Sample(seats=4, seed=2, config={"deck": "full"})),
)
ENGINE = GAME.engine

__all__ = ["ENGINE", "GAME"]
