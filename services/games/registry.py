"""The games this build knows: name -> (engine, codec), imported on first use.

The three built-in games live in `services.games.<name>`; a process may add
more packages by name (the platform's tests add a tiny dice game this way).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cache
from typing import Any

from services.games.common.engine import Engine
from services.games.common.gamecodec import GameCodec

GAMES = ("el_dorado", "la_isla", "discover")
_packages: dict[str, str] = {name: f"services.games.{name}" for name in GAMES}


@dataclass(frozen=True)
class GameEntry:
    name: str
    engine: Engine[Any, Any, Any]
    codec: GameCodec


class UnknownGame(LookupError):
    """No engine of that name is part of this build."""


def add_package(name: str, package: str) -> None:
    """Make the engine in `package` (with its `codec` module) known as `name`."""
    _packages[name] = package
    game.cache_clear()


@cache
def game(name: str) -> GameEntry:
    """The engine and codec of `name`; raises UnknownGame."""
    package_name = _packages.get(name)
    if package_name is None:
        raise UnknownGame(name)
    try:
        package = importlib.import_module(package_name)
        codec = importlib.import_module(f"{package_name}.codec")
    except ModuleNotFoundError as missing:
        if missing.name and (package_name.startswith(missing.name) or missing.name.endswith(".codec")):
            raise UnknownGame(name) from missing
        raise
    if not hasattr(package, "ENGINE"):
        raise UnknownGame(name)
    return GameEntry(name, package.ENGINE, codec.CODEC)


def available() -> tuple[str, ...]:
    """The games whose engine is present in this build."""
    found = []
    for name in _packages:
        try:
            game(name)
        except UnknownGame:
            continue
        found.append(name)
    return tuple(found)
