"""Discover's wire schema: read by the codec and by the proto generator (tools/gen_game_protos.py)."""

from services.games.common.gamecodec import GameSchema, OneOf
from services.games.discover import actions, events, state, view

SCHEMA = GameSchema(
    game="discover",
    package="tabletop.games.discover.v1",
    action=OneOf("Action", actions.Action, "A survivor's move."),
    event=OneOf("Event", events.Event, "Something that happened."),
    view=view.View,
    unions=(OneOf("Step", state.Step, "An agenda step: what resolves next."),),
)
