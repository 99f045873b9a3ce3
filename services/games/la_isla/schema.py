"""La Isla's wire schema: read by the codec and by the proto generator (tools/gen_game_protos.py)."""

from services.games.common.gamecodec import GameSchema, OneOf
from services.games.la_isla import actions, events, view

SCHEMA = GameSchema(
    game="la_isla",
    package="tabletop.games.la_isla.v1",
    action=OneOf("Action", actions.Action, "One seat's action."),
    event=OneOf("Event", events.Event, "One game event."),
    view=view.View,
)
