"""The wire format of El Dorado: typed protos for actions, events and views; state as a blob."""

from __future__ import annotations

from tabletop.games.el_dorado.v1 import actions_pb2, events_pb2, views_pb2

from services.games.common.gamecodec import GameCodec
from services.games.common.serde import codec_for_modules
from services.games.el_dorado import content, state
from services.games.el_dorado.schema import SCHEMA

CODEC = GameCodec.from_schema(SCHEMA, (actions_pb2, events_pb2, views_pb2), codec_for_modules(state, content))
