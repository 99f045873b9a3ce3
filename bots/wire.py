"""Bots over the wire: decode what a seat's client receives, let a policy choose, answer with
the chosen action exactly as it was offered (the gateway client and the matchmaker share this).

No grpc here: only the game's codec and protobuf's Any.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from google.protobuf import any_pb2

from bots.policies import Policy
from services.games.common.gamecodec import GameCodec

# The game's action, event, view and state types, as its codec knows them.
A = TypeVar("A")
E = TypeVar("E")
V = TypeVar("V")
S = TypeVar("S")


def decode_view(codec: GameCodec[A, E, V, S], packed: any_pb2.Any) -> V:
    """The game's View dataclass from the view message a seat receives."""
    message = codec.view_message()
    if not packed.Unpack(message):
        raise ValueError(f"not a {codec.game} view: {packed.type_url}")
    return codec.decode_view(message)


def decode_action(codec: GameCodec[A, E, V, S], packed: any_pb2.Any) -> A:
    message = codec.action_message()
    if not packed.Unpack(message):
        raise ValueError(f"not a {codec.game} action: {packed.type_url}")
    return codec.decode_action(message)


def choose(
    policy: Policy, codec: GameCodec[A, E, V, S], seat: int, view: any_pb2.Any, legal: Sequence[any_pb2.Any]
) -> any_pb2.Any:
    """The offered action `policy` picks for `seat` from its view and legal actions."""
    actions = [decode_action(codec, a) for a in legal]
    picked = policy.choose(decode_view(codec, view), seat, actions)
    return legal[actions.index(picked)]


__all__ = ["choose", "decode_action", "decode_view"]
