"""`make bots-eval`: search against random, in process, in every game (docs/bots.md).

Competitive games (El Dorado, La Isla): two seats, the search seat alternating
between them game by game; the search seats' win rate (a shared first place
counts its share) with a 95% Wilson interval. Discover is co-operative: the
win rate of all-search teams and of all-random teams at each player count, and
(wins being rare) the mean days survived and quest stages completed.
BOTS_EVAL_GAMES games per row (default 10), BOTS_EVAL_BUDGET per decision
(default bots/search.py DEFAULT_BUDGET; iterations, or "200ms");
BOTS_EVAL_ONLY (e.g. "discover") limits the run to some games; BOTS_EVAL_JOBS games
are played at once in worker processes (default: one per core; the figures do not
depend on it, every game being seeded).
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from typing import TypeVar

from rich.console import Console
from rich.table import Table

from bots.arena import play, wilson, won
from bots.policies import Policy, make_policy, parse_budget
from bots.search import DEFAULT_BUDGET, Budget
from services.games import registry
from services.games.common.host import GameDeclaration

S = TypeVar("S")
A = TypeVar("A")
E = TypeVar("E")


def _games(cooperative: bool) -> tuple[str, ...]:
    """The built-in games, those whose seats play together or those where they play each
    other, as each game declares it."""
    return tuple(name for name in sorted(registry.GAMES) if registry.declaration(name).cooperative == cooperative)


COMPETITIVE = _games(cooperative=False)
COOPERATIVE = _games(cooperative=True)


@dataclass(eq=False)  # a row is a key by identity while its games come in
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


def _policies(kinds: Sequence[str], game: GameDeclaration[S, A, E], seed: int, budget: Budget) -> list[Policy]:
    return [make_policy(kind, game, len(kinds), f"{seed}:{s}", budget) for s, kind in enumerate(kinds)]


@dataclass(frozen=True)
class Played:
    """One game's figures, as a worker process sends them back."""

    wins: float
    decisions: int
    seconds: float
    reason: str
    days: int
    stages: int


def _play(name: str, kinds: tuple[str, ...], seed: int, budget: Budget, scored: tuple[int, ...]) -> Played:
    game = registry.declaration(name)
    started = time.perf_counter()
    played = play(game, {}, _policies(kinds, game, seed, budget), seed)
    outcome = played.outcome
    if outcome is not None and outcome.cooperative_win is not None:
        wins = 1.0 if outcome.cooperative_win else 0.0
    else:
        wins = sum(won(outcome, s) for s in scored)
    detail = outcome.detail if outcome is not None else {}
    return Played(
        wins,
        played.decisions,
        time.perf_counter() - started,
        detail.get("reason", "") if outcome is not None else "unfinished",
        int(detail.get("days", "0") or 0),
        int(detail.get("stages_completed", "0") or 0),
    )


def _record(row: Row, played: Played) -> None:
    row.games += 1
    row.wins += played.wins
    row.decisions += played.decisions
    row.seconds += played.seconds
    row.days += played.days
    row.stages += played.stages
    reasons = row.reasons = row.reasons or Counter()
    reasons[played.reason] += 1


Job = tuple[Row, tuple[str, tuple[str, ...], int, Budget, tuple[int, ...]]]


def competitive(name: str, games: int, budget: Budget) -> list[Job]:
    """Search in one of two seats, alternating, against random."""
    row = Row(name, "2", "search vs random")
    jobs: list[Job] = []
    for i in range(games):
        seat = i % 2
        kinds = ["random", "random"]
        kinds[seat] = "search"
        jobs.append((row, (name, tuple(kinds), 1000 + i, budget, (seat,))))
    return jobs


def cooperative(name: str, games: int, budget: Budget) -> list[Job]:
    """All-search and all-random teams at every player count."""
    game = registry.declaration(name)
    jobs: list[Job] = []
    for players in range(game.min_seats, game.max_seats + 1):
        for kind in ("search", "random") if game.determinize is not None else ("random",):
            row = Row(name, str(players), f"all {kind}")
            jobs.extend((row, (name, (kind,) * players, 2000 + i, budget, ())) for i in range(games))
    return jobs


def run(jobs: list[Job], workers: int, done: Callable[[Row], None]) -> list[Row]:
    """Play every job's game, `workers` at a time in their own processes (the games are
    independent and seeded, so the figures do not depend on how many run at once); rows in
    order, each reported to `done` once all its games are in."""
    rows = list(dict.fromkeys(row for row, _ in jobs))
    left = Counter(row for row, _ in jobs)
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = {pool.submit(_play, *args): row for row, args in jobs}
        for future in as_completed(futures):
            row = futures[future]
            _record(row, future.result())
            left[row] -= 1
            if not left[row]:
                done(row)
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
    jobs: list[Job] = []
    for name in COMPETITIVE:
        if not only or name in only:
            jobs += competitive(name, games, budget)
    for name in COOPERATIVE:
        if name in registry.available() and (not only or name in only):
            jobs += cooperative(name, games, budget)
    workers = int(os.environ.get("BOTS_EVAL_JOBS", "0") or 0) or os.cpu_count() or 1
    for row in run(jobs, workers, lambda row: console.print(f"{row.game} {row.players} {row.who}: done", style="dim")):
        table.add_row(*row.cells())
    console.print(table)


if __name__ == "__main__":
    main()
