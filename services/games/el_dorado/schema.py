"""El Dorado's wire schema: read by the codec and by the proto generator (tools/gen_game_protos.py)."""

from services.games.common.gamecodec import GameSchema, OneOf
from services.games.el_dorado import actions, events, view

SCHEMA = GameSchema(
    game="el_dorado",
    package="tabletop.games.el_dorado.v1",
    action=OneOf("Action", actions.Action, "One player action."),
    event=OneOf("Event", events.Event, "One game event."),
    view=view.View,
)
