"""The wire format of Discover: typed protos for actions, events and views; the state as a blob.

The only module of the engine that imports generated code.
"""

from __future__ import annotations

import dataclasses
from enum import Enum

from tabletop.games.discover.v1 import actions_pb2, events_pb2, views_pb2

from services.games.common.gamecodec import GameCodec
from services.games.common.serde import StateCodec
from services.games.discover import state, vocab
from services.games.discover.actions import Action
from services.games.discover.events import Event
from services.games.discover.schema import SCHEMA
from services.games.discover.state import State
from services.games.discover.view import View


def _state_types() -> list[type]:
    """The state's own dataclasses and enums, plus the two vocabulary types it holds."""
    own = [
        obj
        for obj in vars(state).values()
        if isinstance(obj, type)
        and obj.__module__ == state.__name__
        and (dataclasses.is_dataclass(obj) or issubclass(obj, Enum))
    ]
    return [*own, vocab.Hex, vocab.DamageType]


CODEC: GameCodec[Action, Event, View, State] = GameCodec.from_schema(
    SCHEMA, (actions_pb2, events_pb2, views_pb2), StateCodec(_state_types())
)
