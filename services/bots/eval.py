"""`make bots-eval`: search against random, in process, in every game (docs/bots.md).

Competitive games (El Dorado, La Isla): two seats, the search seat alternating
between them game by game; the search seats' win rate (a shared first place
counts its share) with a 95% Wilson interval. Discover is co-operative: the
win rate of all-search teams and of all-random teams at each player count, and
(wins being rare) the mean days survived and quest stages completed.
BOTS_EVAL_GAMES games per row (default 10), BOTS_EVAL_BUDGET per decision
(default services/bots/search.py DEFAULT_BUDGET; iterations, or "200ms");
BOTS_EVAL_ONLY (e.g. "discover") limits the run to some games.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.table import Table

from services.bots.arena import play, wilson, won
from services.bots.policies import Policy, make_policy, parse_budget
from services.bots.search import DEFAULT_BUDGET, Budget
from services.games import registry
from services.games.common.host import GameDeclaration

COMPETITIVE = ("el_dorado", "la_isla")
COOPERATIVE = ("discover",)


@dataclass
class Row:
    game: str
    players: str
    who: str
    games: int = 0
    wins: float = 0.0
    decisions: int = 0
    seconds: float = 0.0
    reasons: Counter[str] | None = None
    days: int = 0  # Discover: days survived and quest stages completed, summed over the games
    stages: int = 0

    def cells(self) -> list[str]:
        low, high = wilson(self.wins, self.games)
        ended = ", ".join(f"{r or '?'} {n}" for r, n in sorted((self.reasons or Counter()).items()))
        rate = self.wins / self.games if self.games else 0.0
        n = max(self.games, 1)
        reached = f"{self.days / n:.1f} / {self.stages / n:.1f}" if self.game in COOPERATIVE else ""
        return [self.game, self.players, self.who, str(self.games), f"{rate:.0%}", f"{low:.0%}-{high:.0%}",
                ended, reached, f"{self.seconds / n:.1f}s"]


def _policies(kinds: Sequence[str], game: GameDeclaration[Any, Any, Any], seed: int, budget: Budget) -> list[Policy]:
    return [make_policy(kind, game, len(kinds), f"{seed}:{s}", budget) for s, kind in enumerate(kinds)]


def _record(row: Row, kinds: Sequence[str], game: GameDeclaration[Any, Any, Any], seed: int, budget: Budget,
            scored: Sequence[int]) -> None:
    started = time.perf_counter()
    played = play(game, {}, _policies(kinds, game, seed, budget), seed)
    row.seconds += time.perf_counter() - started
    row.games += 1
    row.decisions += played.decisions
    outcome = played.outcome
    if outcome is not None and outcome.cooperative_win is not None:
        row.wins += 1.0 if outcome.cooperative_win else 0.0
    else:
        row.wins += sum(won(outcome, s) for s in scored)
    if outcome is not None:
        row.days += int(outcome.detail.get("days", "0") or 0)
        row.stages += int(outcome.detail.get("stages_completed", "0") or 0)
    reasons = row.reasons = row.reasons or Counter()
    reasons[(outcome.detail.get("reason", "") if outcome else "unfinished")] += 1


def competitive(name: str, games: int, budget: Budget) -> Row:
    """Search in one of two seats, alternating, against random."""
    game = registry.declaration(name)
    row = Row(name, "2", "search vs random")
    for i in range(games):
        seat = i % 2
        kinds = ["random", "random"]
        kinds[seat] = "search"
        _record(row, kinds, game, 1000 + i, budget, [seat])
    return row


def cooperative(name: str, games: int, budget: Budget) -> list[Row]:
    """All-search and all-random teams at every player count."""
    game = registry.declaration(name)
    rows = []
    for players in range(game.min_seats, game.max_seats + 1):
        for kind in ("search", "random") if game.determinize is not None else ("random",):
            row = Row(name, str(players), f"all {kind}")
            for i in range(games):
                _record(row, [kind] * players, game, 2000 + i, budget, [])
            rows.append(row)
    return rows


def main() -> None:
    games = int(os.environ.get("BOTS_EVAL_GAMES", "10"))
    budget = parse_budget(os.environ.get("BOTS_EVAL_BUDGET", str(DEFAULT_BUDGET.iterations)), DEFAULT_BUDGET)
    console = Console(width=150)
    table = Table(title=f"search vs random: {games} games per row, budget {budget.iterations} iterations"
                  + (f" / {budget.millis:.0f} ms" if budget.millis else ""))
    columns = ("game", "players", "policies", "games", "win rate", "95% Wilson", "ended", "mean days / stages",
               "time/game")
    for column in columns:
        table.add_column(column)
    only = [g for g in os.environ.get("BOTS_EVAL_ONLY", "").split(",") if g]
    for name in COMPETITIVE:
        if only and name not in only:
            continue
        row = competitive(name, games, budget)
        table.add_row(*row.cells())
        console.print(f"{name}: done", style="dim")
    for name in COOPERATIVE:
        if name not in registry.available() or (only and name not in only):
            continue
        for row in cooperative(name, games, budget):
            table.add_row(*row.cells())
            console.print(f"{name} {row.players} {row.who}: done", style="dim")
    console.print(table)


if __name__ == "__main__":
    main()
