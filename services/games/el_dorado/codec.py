"""The wire format of El Dorado: typed protos for actions, events and views; state as a blob."""

from __future__ import annotations

from tabletop.games.el_dorado.v1 import actions_pb2, events_pb2, views_pb2

from services.games.common.gamecodec import GameCodec
from services.games.common.serde import codec_for_modules
from services.games.el_dorado import content, state
from services.games.el_dorado.actions import ACTION_TYPES
from services.games.el_dorado.events import EVENT_TYPES
from services.games.el_dorado.view import View

CODEC = GameCodec(
    game="el_dorado",
    action_message=actions_pb2.Action,
    action_types=ACTION_TYPES,
    event_message=events_pb2.Event,
    event_types=EVENT_TYPES,
    view_message=views_pb2.View,
    view_type=View,
    state=codec_for_modules(state, content),
)
