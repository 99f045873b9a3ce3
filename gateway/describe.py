"""DescribeGame (the lobby's, gateway/lobby.py): a game's words (contract/words.py), served as content.

Public and the same for everyone: names, templates and a legend hold nothing hidden,
so no token is asked. Each game's answer is built once per process and kept (the
encoded reply is reused), so this costs nothing on the hot path: clients fetch it
once per game and render every action and event themselves.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

from tabletop.gateway.v1 import gateway_pb2 as pb

from contract.words import game_words, to_message
from gateway import validate
from services.common.errors import NotFound
from services.games import registry


@cache
def _reply(name: str) -> pb.DescribeGameResponse:
    return pb.DescribeGameResponse(words=to_message(game_words(name)))


def described(game: str, hosted: Iterable[str]) -> pb.DescribeGameResponse:
    """DescribeGame's answer for `game`, one of the games this gateway `hosted`."""
    name = validate.game(game)
    if name not in hosted:
        raise NotFound(f"no game {name!r} on this server (ListGames lists them)", "game.unknown")
    try:
        return _reply(name)
    except registry.UnknownGame:
        raise NotFound(f"no game {name!r} on this server (ListGames lists them)", "game.unknown") from None
