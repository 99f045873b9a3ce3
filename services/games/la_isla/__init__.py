"""La Isla (Stefan Feld, alea 2014) for 2 to 4 players: a pure rules engine
(see RULES.md), declared to the platform once as `GAME`."""

from services.games.common.host import GameDeclaration, Sample
from services.games.la_isla import decide, determinize, evolve, flow, legal, result, setup, view, visibility

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
    codec="services.games.la_isla.codec",
    determinize=determinize.determinize,
    samples=(Sample(seats=2, seed=1), Sample(seats=4, seed=2, config={"deck": "full"})),
)
ENGINE = GAME.engine

__all__ = ["ENGINE", "GAME"]
