"""The games this build knows: name -> (engine, codec), imported on first use."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cache
from typing import Any

from services.games.common.engine import Engine
from services.games.common.gamecodec import GameCodec

GAMES = ("el_dorado", "la_isla", "discover")


@dataclass(frozen=True)
class GameEntry:
    name: str
    engine: Engine[Any, Any, Any]
    codec: GameCodec


class UnknownGame(LookupError):
    """No engine of that name is part of this build."""


@cache
def game(name: str) -> GameEntry:
    """The engine and codec of `name`; raises UnknownGame."""
    if name not in GAMES:
        raise UnknownGame(name)
    try:
        package = importlib.import_module(f"services.games.{name}")
        codec = importlib.import_module(f"services.games.{name}.codec")
    except ModuleNotFoundError as missing:
        raise UnknownGame(name) from missing
    return GameEntry(name, package.ENGINE, codec.CODEC)


def available() -> tuple[str, ...]:
    """The games whose engine is present in this build."""
    found = []
    for name in GAMES:
        try:
            game(name)
        except UnknownGame:
            continue
        found.append(name)
    return tuple(found)
