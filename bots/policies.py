"""One interface for every bot: given a seat's view and its legal actions, pick one.

A policy never sees the state: its input is exactly what the seat's client
receives (the game's View dataclass, decoded by the game's codec, and the
decoded legal actions), so its choice cannot depend on hidden information.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeAlias, TypeVar

from bots.search import Budget, Search
from bots.strategies import Strategy
from services.games.common.host import GameDeclaration

KINDS = ("random", "search")

S = TypeVar("S")
A = TypeVar("A")
E = TypeVar("E")

# One of a game's actions.
# Any: a policy is made for a game picked by name at run time (its actions' type is that
# game's own), and `Policy` is kept unparameterised for the code that holds policies of
# whatever game (the gateway client, the matchmaker).
Action: TypeAlias = Any


class Policy(Protocol):
    """A bot of one seat in one match."""

    def choose(self, view: object, seat: int, legal: Sequence[Action]) -> Action:
        """One of `legal`, for `seat` seeing `view`."""


@dataclass
class RandomPolicy:
    """Uniformly random among the legal actions (ignores the view)."""

    rng: random.Random

    def choose(self, view: object, seat: int, legal: Sequence[A]) -> A:
        return legal[self.rng.randrange(len(legal))]


class SearchPolicy(Generic[S, A, E]):
    """Information-set Monte Carlo tree search (bots/search.py)."""

    def __init__(self, search: Search[S, A, E]) -> None:
        self.search = search

    def choose(self, view: object, seat: int, legal: Sequence[A]) -> A:
        return self.search.choose(view, seat, legal)


def parse_budget(text: str, default: Budget | None = None) -> Budget:
    """A budget from "300" (iterations) or "150ms" (time, iterations then unbounded but for `default`'s)."""
    base = default or Budget()
    found = re.fullmatch(r"\s*(\d+)\s*(ms)?\s*", text)
    if found is None or int(found.group(1)) <= 0:
        raise ValueError(f"budget {text!r}: a positive number of iterations, or of milliseconds with 'ms'")
    if found.group(2):
        return Budget(iterations=1_000_000, millis=float(found.group(1)), depth=base.depth)
    return Budget(iterations=int(found.group(1)), millis=base.millis, depth=base.depth)


def make_policy(
    kind: str,
    game: GameDeclaration[S, A, E],
    seats: int,
    seed: int | str,
    budget: Budget | None = None,
    strategy: Strategy[S, A] | None = None,
) -> Policy:
    """A `random` or `search` policy seeded by `seed`; search needs the game's determinize,
    and plays with `strategy` (default: the game's own, bots/strategies)."""
    rng = random.Random(seed)
    if kind == "random":
        return RandomPolicy(rng)
    if kind == "search":
        return SearchPolicy(Search(game, seats, rng, budget or Budget(), strategy))
    raise ValueError(f"unknown bot kind {kind!r}: one of {', '.join(KINDS)}")


__all__ = ["KINDS", "Policy", "RandomPolicy", "SearchPolicy", "make_policy", "parse_budget"]
