"""La Isla's wire format: the only module that imports generated code."""

from __future__ import annotations

import typing

from tabletop.games.la_isla.v1 import actions_pb2, events_pb2, views_pb2

from services.games.common.gamecodec import GameCodec
from services.games.common.serde import codec_for_modules
from services.games.la_isla import actions, content, events, state, view

CODEC = GameCodec(
    game="la_isla",
    action_message=actions_pb2.Action,
    action_types=typing.get_args(actions.Action),
    event_message=events_pb2.Event,
    event_types=typing.get_args(events.Event),
    view_message=views_pb2.View,
    view_type=view.View,
    state=codec_for_modules(state, actions, content),
)
