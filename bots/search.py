"""Information-set Monte Carlo tree search over a pure engine (docs/bots.md).

The search starts from what one seat's client sees, its view and its legal
actions, never from the state. Each iteration draws a fresh determinization
(`GameDeclaration.determinize`: a whole state consistent with the view plus
the order of every hidden pile), then walks one tree shared by all
determinizations (single-observer ISMCTS, Cowling, Powley and Whitehouse
2012): a node is a sequence of actions from the root, an edge is picked by
UCB1 among the actions legal in this determinization, weighted by how often
the edge was available. Chance requests are answered by a `LocalChance`
seeded from the search's rng and holding the determinized piles. Below the
tree a random rollout runs until the depth limit, where the game's heuristic
`evaluate(state, seat)` scores every seat; a finished game scores by its
Outcome.

Pure and deterministic given its rng and an iteration budget (a time budget
makes it depend on the clock); no service imports.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Generic, TypeVar

from bots import strategies
from bots.strategies import Strategy
from services.dice.playout import LocalChance
from services.games.common.chance import CHANCE_SEAT
from services.games.common.engine import Outcome
from services.games.common.host import GameDeclaration, HostedEngine

if TYPE_CHECKING:
    from services.games.common.chance import ChanceOutcome

# The searched game's state, action and event types (a search serves one game).
S = TypeVar("S")
A = TypeVar("A")
E = TypeVar("E")


@dataclass(frozen=True)
class Budget:
    """How much one decision may search: `iterations`, cut short after `millis` if set.

    Every iteration plays at most `depth` moves (chance included) below the root,
    of which at most `rollout` random ones below the tree; the heuristic scores
    where it stops. A heuristic that tells good from bad within a move or two
    needs no rollout (its noise would only blur it). `exploration` is UCB1's
    constant, small because heuristic values differ by little between siblings.
    Where the game declares a plan, the root tries the plan's action first and plays
    it unless another action scores more than `plan_margin` above it.
    """

    iterations: int = 40
    millis: float | None = None
    depth: int = 24
    rollout: int = 0
    exploration: float = 0.1
    plan_margin: float = 0.02


# Sized so that an El Dorado match of two search bots ends in well under two minutes on two cores.
DEFAULT_BUDGET = Budget()


@dataclass
class Node:
    """Statistics of one action sequence from the root, from the view of the seat that moved into it."""

    mover: int = CHANCE_SEAT
    visits: int = 0
    value: float = 0.0
    available: int = 0
    score: float = 0.0
    after_chance: bool = False  # chance acted between the parent's move and this one (in some iteration)
    children: dict[Hashable, Node] = field(default_factory=dict)

    def ucb(self, exploration: float) -> float:
        return self.score + exploration * math.sqrt(math.log(max(self.available, 1)) / self.visits)

    def rescore(self) -> None:
        """The node's worth to its mover: the best of its children where the same seat moves on
        with no chance in between (it will pick that one: a turn of several steps is planned as
        one), else its mean. After a draw or a roll the best child is only the luckiest sample."""
        own = [c.score for c in self.children.values() if c.mover == self.mover and c.visits and not c.after_chance]
        self.score = max(own) if own else self.value / self.visits


def outcome_rewards(outcome: Outcome, seats: int) -> list[float]:
    """Reward in [0, 1] per seat of a finished game: the co-operative result, else the place."""
    if outcome.cooperative_win is not None:
        return [1.0 if outcome.cooperative_win else 0.0] * seats
    if seats == 1:
        return [1.0 if outcome.ranking[0] == 1 else 0.0]
    return [(seats - place) / (seats - 1) for place in outcome.ranking]


class Search(Generic[S, A, E]):
    """One seat's search over one game; `choose` is its whole interface."""

    def __init__(
        self,
        game: GameDeclaration[S, A, E],
        seats: int,
        rng: random.Random,
        budget: Budget,
        strategy: Strategy[S, A] | None = None,
    ) -> None:
        if game.determinize is None:
            raise ValueError(f"{game.name} declares no determinize: it has no search bot")
        self.game = game
        self.strategy: Strategy[S, A] = strategy if strategy is not None else strategies.of(game)
        self.seats = seats
        self.engine: HostedEngine[S, A, E] = game.engine
        self.rng = rng
        self.budget = budget
        self.iterations = 0  # of the last decision, for tests and reports
        # Legal actions by the mover's view: they depend on nothing else (the determinize property
        # tests check it), and a view is far cheaper than an engine's legal_actions.
        self._legal: dict[tuple[int, Hashable], Sequence[A]] = {}

    def choose(self, view: object, seat: int, legal: Sequence[A]) -> A:
        """The action of `legal` that the search favours for `seat` seeing `view`."""
        if len(legal) == 1:
            self.iterations = 0
            return legal[0]
        root = Node(mover=seat)
        self._legal.clear()
        planned = self._planned(view, seat, legal)
        deadline = None if self.budget.millis is None else time.perf_counter() + self.budget.millis / 1000
        done = 0
        while done < self.budget.iterations and (deadline is None or time.perf_counter() < deadline):
            self._iterate(root, view, seat, legal, planned)
            done += 1
        self.iterations = done
        ranked = [self._rank(root, a, planned) for a in legal]
        return legal[ranked.index(max(ranked))]

    def _planned(self, view: object, seat: int, legal: Sequence[A]) -> A | None:
        """The game's plan for `seat`, asked about one determinization of its view; None without a plan."""
        plan = self.strategy.plan
        if plan is None or self.game.determinize is None:
            return None
        action = plan(self.game.determinize(view, seat, self.rng).state, seat, legal, self.rng)
        return action if action in legal else None

    def _rank(self, root: Node, action: A, planned: A | None) -> tuple[float, int]:
        child = root.children.get(action)
        if child is None:
            return (-1.0, 0)
        bonus = self.budget.plan_margin if planned is not None and action == planned else 0.0
        return (child.score + bonus, child.visits)

    def _iterate(self, root: Node, view: object, seat: int, legal: Sequence[A], planned: A | None) -> None:
        assert self.game.determinize is not None
        det = self.game.determinize(view, seat, self.rng)
        piles = {name: list(cards) for name, cards in det.piles.items()}
        chance = LocalChance(self.rng.getrandbits(256).to_bytes(32, "big"), 0, piles)
        state, node, path, depth, rollout = det.state, root, [root], 0, 0
        expanding, chanced = True, False
        while depth < self.budget.depth:
            turn = self.engine.to_move(state)
            if turn.chance is not None:
                state = self._apply(state, CHANCE_SEAT, chance.resolve(turn.chance))
                depth += 1
                chanced = True
                continue
            if not turn.seats:
                break
            mover = seat if seat in turn.seats else turn.seats[0]
            actions = legal if depth == 0 else self._legal_actions(state, mover)
            if expanding:
                action, node, expanding = self._descend(node, mover, actions, planned if depth == 0 else None)
                node.after_chance |= chanced
                path.append(node)
            else:
                rollout += 1
                if rollout > self.budget.rollout:
                    break
                action = actions[self.rng.randrange(len(actions))]
            state = self._apply(state, mover, action)
            depth += 1
            chanced = False
        rewards = self._rewards(state)
        for visited in reversed(path):
            visited.visits += 1
            visited.value += rewards[visited.mover]
            visited.rescore()

    def _descend(
        self, node: Node, mover: int, actions: Sequence[A], first: A | None = None
    ) -> tuple[A, Node, bool]:
        """The edge to follow: an untried action, `first` (the plan's, at the root) before the
        others (then the tree stops growing), else the best by UCB."""
        for action in actions:
            child = node.children.get(action)
            if child is not None:
                child.available += 1
        untried = [a for a in actions if a not in node.children]
        if untried:
            action = first if first is not None and first in untried else untried[self.rng.randrange(len(untried))]
            child = node.children[action] = Node(mover=mover, available=1)
            return action, child, False
        action = max(actions, key=lambda a: node.children[a].ucb(self.budget.exploration))
        return action, node.children[action], True

    def _legal_actions(self, state: S, seat: int) -> Sequence[A]:
        key = (seat, self.engine.view(state, seat))
        try:
            found = self._legal.get(key)
        except TypeError:  # a view that does not hash: ask the engine every time
            return self.engine.legal_actions(state, seat)
        if found is None:
            found = self._legal[key] = self.engine.legal_actions(state, seat)
        return found

    def _apply(self, state: S, seat: int, move: A | ChanceOutcome) -> S:
        for event in self.engine.decide(state, seat, move):
            state = self.engine.evolve(state, event)
        return state

    def _rewards(self, state: S) -> list[float]:
        outcome = self.engine.result(state)
        seats = self.seats
        if outcome is not None:
            return outcome_rewards(outcome, seats)
        evaluate = self.strategy.evaluate
        if evaluate is None:
            return [0.5] * seats
        return [evaluate(state, s) for s in range(seats)]


__all__ = ["DEFAULT_BUDGET", "Budget", "Node", "Search", "outcome_rewards"]
