"""DescribeGame: a game's words (contract/words.py), served as content.

Public and the same for everyone: names, templates and a legend hold nothing hidden,
so no token is asked. Each game's answer is built once per process and kept (the
encoded reply is reused), so this costs nothing on the hot path: clients fetch it
once per game and render every action and event themselves.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache

from tabletop.gateway.v1 import gateway_service_pb2 as pb

from contract.words import game_words, to_message
from gateway import validate
from gateway.callers import CallContext
from services.common.errors import NotFound
from services.games import registry


@cache
def _reply(name: str) -> pb.DescribeGameResponse:
    return pb.DescribeGameResponse(words=to_message(game_words(name)))


class Describe:
    """The DescribeGame rpc for the games this gateway hosts (`hosted()`, by name)."""

    def __init__(self, hosted: Callable[[], Iterable[str]] = registry.available) -> None:
        self._hosted = hosted

    async def DescribeGame(self, request: pb.DescribeGameRequest, context: CallContext) -> pb.DescribeGameResponse:
        name = validate.game(request.game)
        if name not in self._hosted():
            raise NotFound(f"no game {name!r} on this server (ListGames lists them)", "game.unknown")
        try:
            return _reply(name)
        except registry.UnknownGame:
            raise NotFound(f"no game {name!r} on this server (ListGames lists them)", "game.unknown") from None
