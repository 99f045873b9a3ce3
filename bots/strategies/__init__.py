"""What the search bots know of a game beyond its rules: how good a position looks for a
seat (`evaluate`, which scores a search's cut-off rollouts) and a plan for a seat to
check (`plan`). A game's rules package declares only what the platform needs, its
`determinize` included (the undo verdict replays moves in the worlds it draws); the
strategy is the bots' own, here, found by the game's name. A game with none still has a
search bot: every cut-off position scores 0.5, and there is no plan to check."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Generic, TypeVar, cast

from services.games.common.host import GameDeclaration, Rng

S = TypeVar("S")
A = TypeVar("A")
E = TypeVar("E")


@dataclass(frozen=True)
class Strategy(Generic[S, A]):
    # How good `state` looks for `seat`, in [0, 1].
    evaluate: Callable[[S, int], float] | None = None
    # One of `legal` for `seat`, chosen from a whole state: the search asks it about a
    # determinization of its seat's view (never the state) and plays it unless its own
    # estimates find a clearly better action.
    plan: Callable[[S, int, Sequence[A], Rng], A] | None = None


# Where each game's strategy lives ("module:function"); imported on first use, so a
# process that plays one game loads no other game's strategy.
_WHERE = {
    "discover": ("bots.strategies.discover_heuristic:evaluate", "bots.strategies.discover_playbook:plan"),
    "el_dorado": ("bots.strategies.el_dorado:evaluate", ""),
    "la_isla": ("bots.strategies.la_isla:evaluate", ""),
}


def _loaded(where: str) -> object:
    """The function at `where` ("module:function"), or None for ""."""
    if not where:
        return None
    module, _, name = where.partition(":")
    return getattr(importlib.import_module(module), name)


@cache
def _functions(game: str) -> tuple[object, object]:
    """The strategy functions (evaluate, plan) of the game named `game`, each None when it has none."""
    evaluate, plan = _WHERE.get(game, ("", ""))
    return _loaded(evaluate), _loaded(plan)


def of(game: GameDeclaration[S, A, E]) -> Strategy[S, A]:
    """The strategy of `game` (an empty one for a game with none). Its functions, found by
    the game's name, are written for that game's states and actions: the casts say so."""
    evaluate, plan = _functions(game.name)
    return Strategy(
        cast("Callable[[S, int], float] | None", evaluate),
        cast("Callable[[S, int, Sequence[A], Rng], A] | None", plan),
    )


__all__ = ["Strategy", "of"]
