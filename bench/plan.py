"""What one `make bench` measures, in what order, from the environment; and the
issue's targets, every one a ratio to what the same run measured."""

from __future__ import annotations

import os
from dataclasses import dataclass

from services.games import registry

MINIMAL = "dice_hand"  # tests/fixtures/dice_hand: each move rolls two dice and draws a card into a hidden hand
MINIMAL_PACKAGE = "tests.fixtures.dice_hand"
SHAPES = ("services", "inprocess")  # the deployment shapes measured (services/common/config.py SHAPES)
FLOOR, BGIO = "floor", "boardgame.io"  # the sides of a run that are not a Tabletop shape


@dataclass(frozen=True)
class Plan:
    quick: bool
    seconds: float  # each run: the floor's, boardgame.io's and each Tabletop shape and game's
    levels: tuple[int, ...]  # concurrent matches
    games: tuple[str, ...]  # the minimal game first, then the registry's (as BENCH_GAMES narrows them)
    every_game: tuple[str, ...]  # the same, never narrowed: the targets name every game
    repeats: int  # interleaved repetitions of every run
    warmup_seconds: float
    idle_seconds: float  # the idle CPU of every side, read once with nothing driving it
    replay_events: int
    replay_folds: int
    extras: bool  # matchmaking and engine speed as well
    # BENCH_TRACING=1: only the cost of tracing (bench/tracing.py), off and at each sampling ratio.
    tracing: bool = False


def plan(env: dict[str, str] | None = None) -> Plan:
    env = dict(os.environ if env is None else env)
    quick = env.get("BENCH_QUICK", "") not in ("", "0")
    # Every game this build knows (asked before the bench registers its own), after the minimal one.
    games = tuple(g for g in registry.available() if g != MINIMAL)
    wanted = [g for g in env.get("BENCH_GAMES", "").split(",") if g]
    return Plan(
        quick=quick,
        seconds=float(env.get("BENCH_SECONDS", "2" if quick else "5")),
        levels=tuple(int(n) for n in env.get("BENCH_LEVELS", "1,16,64").split(",")),
        games=tuple(g for g in (MINIMAL, *games) if not wanted or g in wanted),
        every_game=(MINIMAL, *games),
        repeats=max(1, int(env.get("BENCH_REPEATS", "3"))),
        warmup_seconds=1.0,
        idle_seconds=2.0 if quick else 4.0,
        replay_events=1000,
        replay_folds=5 if quick else 10,
        extras=env.get("BENCH_EXTRAS", "") not in ("", "0"),
        tracing=env.get("BENCH_TRACING", "") not in ("", "0"),
    )


@dataclass(frozen=True)
class Step:
    """One run: a repetition, a level, and what is measured (the floor, boardgame.io, or a shape and game)."""

    repeat: int
    matches: int
    side: str  # FLOOR, BGIO or a key of SHAPES
    game: str  # MINIMAL for the floor and boardgame.io


def schedule(chosen: Plan, with_bgio: bool = True) -> list[Step]:
    """Every run of every repetition, in order. Within a repetition, at each level, the floor,
    boardgame.io and each shape and game run back to back, so that the ratios of one repetition
    see the machine at one speed; every other repetition runs its list backwards (1, 16, 64,
    then 64, 16, 1 ...), so that a steady drift weighs on the first and the last alike."""
    sides = [(FLOOR, MINIMAL), *([(BGIO, MINIMAL)] if with_bgio else [])]
    # In process first, beside boardgame.io: its ratios carry the tightest targets.
    sides += [(shape, game) for shape in ("inprocess", "services") for game in chosen.games]
    steps = []
    for repeat in range(chosen.repeats):
        one = [Step(repeat, matches, side, game) for matches in chosen.levels for side, game in sides]
        steps += one[::-1] if repeat % 2 else one
    return steps


@dataclass(frozen=True)
class Target:
    """A ratio from the issue that the optimisation is to reach, for one shape, game and level."""

    name: str
    shape: str
    game: str
    matches: int
    against: str  # "vs_bgio" or "vs_minimal": the ratio group of a summary row (bench/summary.py)
    metric: str  # "cpu_ms_each" or "p99_ms"
    limit: float  # the ratio must be at most this

    def met(self, value: float) -> bool:
        return value <= self.limit


def targets(games: tuple[str, ...]) -> list[Target]:
    """Issue 28's targets for the games of this run."""
    cpu, p99 = "CPU per action", "p99 latency"
    found = [
        Target(f"in process, {MINIMAL}, {n} matches: {cpu} <= 3.5x boardgame.io's per move",
               "inprocess", MINIMAL, n, "vs_bgio", "cpu_ms_each", 3.5) for n in (16, 64)
    ]
    found += [
        Target(f"services, {MINIMAL}, {n} matches: {cpu} <= {limit:g}x boardgame.io's per move",
               "services", MINIMAL, n, "vs_bgio", "cpu_ms_each", limit) for n, limit in ((16, 8.0), (64, 6.0))
    ]
    found.append(Target(f"in process, {MINIMAL}, 64 matches: {p99} <= 2x boardgame.io's",
                        "inprocess", MINIMAL, 64, "vs_bgio", "p99_ms", 2.0))
    found += [
        Target(f"in process, {game}, {n} matches: {cpu} <= 1.5x {MINIMAL}'s",
               "inprocess", game, n, "vs_minimal", "cpu_ms_each", 1.5)
        for game in games if game != MINIMAL for n in (16, 64)
    ]
    return found
