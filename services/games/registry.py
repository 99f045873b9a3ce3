"""The games this build knows, derived from their declarations.

Every package under `services.games` whose `__init__` declares `GAME` (a
`GameDeclaration`, services/games/common/host.py) is a built-in game: adding
one touches nothing here. A process may add more packages by name (the
platform's tests add Pig, tests/fixtures/pig, this way). Everything that lists
games (the deployment manifests, the golden playthroughs, the benchmarks) asks
this module: `GAMES`, `available()`, `declaration(name)`.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from functools import cache
from types import ModuleType
from typing import Any, TypeAlias

import services.games
from services.games.common.gamecodec import GameCodec
from services.games.common.host import GameDeclaration, HostedEngine

# A game looked up by name: its state, action, event and view types are known
# only at run time, so the registry leaves them untyped.
SomeDeclaration: TypeAlias = GameDeclaration[Any, Any, Any]
SomeEngine: TypeAlias = HostedEngine[Any, Any, Any]
SomeCodec: TypeAlias = GameCodec[Any, Any, Any, Any]


class UnknownGame(LookupError):
    """No engine of that name is part of this build."""


def _built_in() -> tuple[str, ...]:
    """The subpackages of services.games that declare a game, by name."""
    found = []
    for module in pkgutil.iter_modules(services.games.__path__):
        if not module.ispkg:
            continue
        package = importlib.import_module(f"services.games.{module.name}")
        if isinstance(getattr(package, "GAME", None), GameDeclaration):
            found.append(module.name)
    return tuple(sorted(found))


GAMES = _built_in()
"""The built-in games, sorted by name."""
_packages: dict[str, str] = {name: f"services.games.{name}" for name in GAMES}


@dataclass(frozen=True)
class GameEntry:
    """One game as the platform runs it: its declaration, hosted engine and codec."""

    name: str
    declaration: SomeDeclaration
    engine: SomeEngine
    codec: SomeCodec


def add_package(name: str, package: str) -> None:
    """Make the game declared in `package` (its `GAME`) known as `name`."""
    _packages[name] = package
    declaration.cache_clear()
    game.cache_clear()


def forget(name: str) -> None:
    """Undo `add_package` for a game that is not built in (tests clean up with it)."""
    if name in GAMES:
        raise ValueError(f"{name} is built in")
    _packages.pop(name, None)
    declaration.cache_clear()
    game.cache_clear()


def _import(name: str, module: str) -> ModuleType:
    """`module`, or UnknownGame if it (not one of its own imports) is missing."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as missing:
        if missing.name and module.startswith(missing.name):
            raise UnknownGame(name) from missing
        raise


def package(name: str) -> str:
    """The package that declares `name` (its modules sit beside `GAME`); raises UnknownGame."""
    found = _packages.get(name)
    if found is None:
        raise UnknownGame(name)
    return found


@cache
def declaration(name: str) -> SomeDeclaration:
    """The declaration of `name`; raises UnknownGame."""
    declared = getattr(_import(name, package(name)), "GAME", None)
    if not isinstance(declared, GameDeclaration):
        raise UnknownGame(name)
    return declared


@cache
def game(name: str) -> GameEntry:
    """The declaration, hosted engine and codec of `name`; raises UnknownGame."""
    declared = declaration(name)
    return GameEntry(name, declared, declared.engine, codec_of(declared))


def codec_of(declared: SomeDeclaration) -> SomeCodec:
    """A declared game's codec: built from its schema, or the `CODEC` of the module it names."""
    if declared.codec is not None:
        codec: SomeCodec = _import(declared.name, declared.codec).CODEC
        return codec
    return GameCodec.by_convention(declared.schema, declared.state_types)


def available() -> tuple[str, ...]:
    """The games whose engine and codec are present in this build (built-in first)."""
    found = []
    for name in _packages:
        try:
            game(name)
        except UnknownGame:
            continue
        found.append(name)
    return tuple(found)
