"""La Isla's wire format: the only module that imports generated code."""

from __future__ import annotations

from tabletop.games.la_isla.v1 import actions_pb2, events_pb2, views_pb2

from services.games.common.gamecodec import GameCodec
from services.games.common.serde import codec_for_modules
from services.games.la_isla import actions, content, state
from services.games.la_isla.actions import Action
from services.games.la_isla.events import Event
from services.games.la_isla.schema import SCHEMA
from services.games.la_isla.state import State
from services.games.la_isla.view import View

CODEC: GameCodec[Action, Event, View, State] = GameCodec.from_schema(
    SCHEMA, (actions_pb2, events_pb2, views_pb2), codec_for_modules(state, actions, content)
)
