"""The wire format of El Dorado: typed protos for actions, events and views; state as a blob."""

from __future__ import annotations

from tabletop.games.el_dorado.v1 import actions_pb2, events_pb2, views_pb2

from services.games.common.gamecodec import GameCodec
from services.games.common.serde import codec_for_modules
from services.games.el_dorado import content, state
from services.games.el_dorado.actions import Action
from services.games.el_dorado.events import Event
from services.games.el_dorado.schema import SCHEMA
from services.games.el_dorado.state import State
from services.games.el_dorado.view import View

CODEC: GameCodec[Action, Event, View, State] = GameCodec.from_schema(
    SCHEMA, (actions_pb2, events_pb2, views_pb2), codec_for_modules(state, content)
)
