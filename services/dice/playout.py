"""Play a game in process: random bots and a seeded, fair chance resolver.

The resolver follows the same rules as the dice and deck services (one counter
per random draw, piles dealt from the top), so a playout here is what a match
through the services would be with the same seed and choices. Tests, bots,
golden files and benchmarks all use it. It lives with the dice because its
chance follows theirs (services/dice/fair.py); no service imports it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from services.dice import fair
from services.games.common import chance
from services.games.common.engine import Engine, Outcome

S = TypeVar("S")
A = TypeVar("A")
E = TypeVar("E")


@dataclass
class LocalChance:
    """Resolves chance requests from a seed, keeping pile orders privately."""

    seed: bytes
    counter: int = 0
    piles: dict[str, list[str]] = field(default_factory=dict)

    def resolve(self, request: chance.ChanceRequest) -> chance.ChanceOutcome:
        """The outcome of one chance request."""
        match request:
            case chance.RollDice(count=count, faces=faces):
                values = fair.roll(self.seed, self._next(), faces, count)
                return chance.DiceRolled(values)
            case chance.Permute(n=n):
                return chance.Permuted(fair.permutation(self.seed, self._next(), n))
            case chance.ShufflePile(pile=pile, cards=cards, keep_order=keep):
                # Every shuffle takes a draw number, even one that keeps the order (as the services do).
                counter = self._next()
                order = cards if keep else fair.shuffled(self.seed, counter, cards)
                self.piles[pile] = list(order)
                return chance.PileShuffled(pile, len(order))
            case chance.PutCards(pile=pile, cards=cards, bottom=bottom):
                self._next()
                stock = self.piles.get(pile, [])
                self.piles[pile] = [*stock, *cards] if bottom else [*cards, *stock]
                return chance.CardsPut(pile, len(self.piles[pile]))
            case chance.DrawCards(pile=pile, count=count):
                stock = self.piles.get(pile, [])
                if count > len(stock):
                    raise ValueError(f"pile {pile} holds {len(stock)} cards, {count} asked")
                taken, self.piles[pile] = stock[:count], stock[count:]
                return chance.CardsDrawn(pile, tuple(taken))
        raise TypeError(f"unknown chance request {request!r}")

    def _next(self) -> int:
        self.counter += 1
        return self.counter - 1


@dataclass
class Playout(Generic[S, E]):
    """A finished (or abandoned) in-process game."""

    initial: S
    state: S
    events: list[E]
    steps: int
    outcome: Outcome | None


Check = Callable[[S, E], None]
"""Called as check(state, event) after every event: raise to flag a broken invariant."""

Policy = Callable[[S, int, Sequence[A]], A]
"""A bot: given the state, its seat and the legal actions, the action it takes."""


def random_policy(rng: random.Random) -> Policy[object, A]:
    """A bot that picks uniformly among the legal actions."""

    def choose(state: object, seat: int, actions: Sequence[A]) -> A:
        return actions[rng.randrange(len(actions))]

    return choose


def play(
    engine: Engine[S, A, E],
    config: dict[str, str],
    seats: int,
    seed: int,
    max_steps: int = 200_000,
    check: Check[S, E] | None = None,
    policy: Policy[S, A] | None = None,
) -> Playout[S, E]:
    """Play one game with random bots; chance and bot choices both derive from `seed`."""
    rng = random.Random(seed)
    resolver = LocalChance(seed=seed.to_bytes(32, "big"))
    choose: Policy[S, A] = policy or random_policy(rng)
    state = initial = engine.setup(config, seats)
    events: list[E] = []
    steps = 0
    while steps < max_steps:
        turn = engine.to_move(state)
        action: A | chance.ChanceOutcome
        if turn.chance is not None:
            seat, action = chance.CHANCE_SEAT, resolver.resolve(turn.chance)
        elif turn.seats:
            seat = turn.seats[rng.randrange(len(turn.seats))]
            legal = engine.legal_actions(state, seat)
            if not legal:
                raise AssertionError(f"seat {seat} must act but has no legal action")
            action = choose(state, seat, legal)
        else:
            break
        for event in engine.decide(state, seat, action):
            state = engine.evolve(state, event)
            events.append(event)
            if check is not None:
                check(state, event)
        steps += 1
    return Playout(initial, state, events, steps, engine.result(state))
