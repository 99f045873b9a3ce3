"""What one `make bench` measures, from the environment, and the issue's targets."""

from __future__ import annotations

import os
from dataclasses import dataclass

from services.games import registry

MINIMAL = "dice_hand"  # tests/fixtures/dice_hand: each move rolls two dice and draws a card into a hidden hand
MINIMAL_PACKAGE = "tests.fixtures.dice_hand"
SHAPES = {"services": False, "inprocess": True}  # name -> Stack(inprocess=..., match_in_gateway=...)


@dataclass(frozen=True)
class Plan:
    quick: bool
    seconds: float  # each load run
    levels: tuple[int, ...]  # concurrent matches
    games: tuple[str, ...]  # the registry's games, then the minimal one
    warmup_seconds: float
    baseline_seconds: float
    replay_events: int
    replay_folds: int
    extras: bool  # matchmaking and engine speed as well


def plan(env: dict[str, str] | None = None) -> Plan:
    env = dict(os.environ if env is None else env)
    quick = env.get("BENCH_QUICK", "") not in ("", "0")
    # Every game this build knows (asked before the bench registers its own), then the minimal one.
    games = tuple(g for g in registry.available() if g != MINIMAL)
    wanted = [g for g in env.get("BENCH_GAMES", "").split(",") if g]
    return Plan(
        quick=quick,
        seconds=float(env.get("BENCH_SECONDS", "3" if quick else "6")),
        levels=tuple(int(n) for n in env.get("BENCH_LEVELS", "1,16,64").split(",")),
        games=tuple(g for g in (*games, MINIMAL) if not wanted or g in wanted),
        warmup_seconds=1.0,
        baseline_seconds=2.0,
        replay_events=1000,
        replay_folds=5 if quick else 10,
        extras=env.get("BENCH_EXTRAS", "") not in ("", "0"),
    )


@dataclass(frozen=True)
class Target:
    """A figure from the issue that the optimisation is to reach."""

    name: str
    metric: str  # "cpu_ms_each", "p99_ms" or "events_per_second"
    limit: float
    at_most: bool  # True: the figure must be <= limit; False: >= limit

    def met(self, value: float) -> bool:
        return value <= self.limit if self.at_most else value >= self.limit


CPU_MINIMAL_INPROCESS = Target("in process, minimal game: CPU ms/action <= 1.5", "cpu_ms_each", 1.5, True)
CPU_GAME_INPROCESS = Target("in process, each real game: CPU ms/action <= 2.5", "cpu_ms_each", 2.5, True)
CPU_MINIMAL_SERVICES = Target("services, minimal game: CPU ms/action <= 3", "cpu_ms_each", 3.0, True)
P99_INPROCESS_64 = Target("in process, 64 matches: p99 <= 100 ms", "p99_ms", 100.0, True)
REPLAY = Target("replay: >= 300,000 events/s", "events_per_second", 300_000.0, False)


def targets_for(shape: str, game: str, matches: int) -> tuple[Target, ...]:
    """The targets a load run is held to."""
    found: list[Target] = []
    if shape == "inprocess":
        found.append(CPU_MINIMAL_INPROCESS if game == MINIMAL else CPU_GAME_INPROCESS)
        if matches == 64:
            found.append(P99_INPROCESS_64)
    elif game == MINIMAL:
        found.append(CPU_MINIMAL_SERVICES)
    return tuple(found)
