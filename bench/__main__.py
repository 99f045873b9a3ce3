"""`make bench`: server CPU per action, actions/s and latency until every seat
holds the new state, for dice_hand and every registered game, at 1, 16 and 64
matches at once, in both deployment shapes ("services": separate processes;
"inprocess"), each beside boardgame.io 0.50.2 on dice_hand (where Node is
present) and beside the floor (bench/floor.py), all measured in the same run.

The machine is shared and its speed drifts, so absolute figures mean little:
read the ratios. Every run is made BENCH_REPEATS (3) times, the repetitions
interleaved: within one, at each level, the floor, boardgame.io and each shape
and game run back to back, and every other repetition runs its list backwards
(bench/plan.py `schedule`). Each ratio is taken within its repetition and the
median over the repetitions reported. Both stacks, the floor's server and
boardgame.io's stay up throughout; their idle CPU is read once and reported,
and a run counts only the processes of its own side.

On this 2-core machine the default run (dice_hand and 3 games, 2 shapes, the
floor and boardgame.io, 3 levels, 3 repetitions: 90 runs of 5 s, then replay in
both shapes) takes about 9 minutes (528 s measured while others' tests loaded
the machine; startup, warm-up and opening the matches of each run add about a
second a run). BENCH_QUICK=1 runs 2 s each (same interleaving); BENCH_GAMES, BENCH_LEVELS, BENCH_SECONDS, BENCH_REPEATS
narrow or lengthen it; BENCH_DRIVER=bots plays with the unary bots instead of
Play streams; BENCH_EXTRAS=1 adds matchmaking, engine speed and the cluster client's CPU per command. Figures go to
bench/results/latest.json. BENCH_TRACING=1 measures only what tracing costs
(bench/tracing.py): dice_hand at 16 matches in both shapes, tracing off and on
at sampling 0, 0.01 and 1.0 exporting to a local sink, CPU per action as a ratio
to off; figures to bench/results/tracing.json.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import time
from dataclasses import dataclass
from typing import Any

from bench import boardgameio, cpu, report, tracing
from bench.floor import BareServer, bare_server, floor_run
from bench.load import load_run, named_pids, stack_pids
from bench.plan import BGIO, FLOOR, MINIMAL, MINIMAL_PACKAGE, SHAPES, Plan, Step, plan, schedule
from bench.replay import replay_run
from bench.stats import Run
from deploy.stack import UNLIMITED_CALLERS, Stack

STACK_ENV = {
    **UNLIMITED_CALLERS,
    "TABLETOP_SEAT_ACTION_RATE": "0",  # one bot seat acts faster than a person may
    "TABLETOP_EXTRA_GAMES": f"{MINIMAL}={MINIMAL_PACKAGE}",
}
WARMUP_MATCHES = 4


@dataclass(frozen=True)
class Sides:
    """Everything a run may measure, up for the whole bench."""

    stacks: dict[str, Stack]
    floor: BareServer
    floor_store: tuple[str, int]  # the embedded server the floor appends to: its admin URL and pid
    bgio: boardgameio.Server | None


def main() -> None:
    chosen = plan()
    if chosen.tracing:
        measure_tracing(chosen)
        return
    started = time.perf_counter()
    figures: dict[str, Any] = {"plan": report.plain(chosen), "runs": [], "replay": {}}
    with contextlib.ExitStack() as up:
        sides = start(up, chosen, figures)
        warm(chosen, sides)
        figures["idle"] = idle(sides, chosen.idle_seconds)
        steps = schedule(chosen, with_bgio=sides.bgio is not None)
        for number, step in enumerate(steps, 1):
            figures["runs"].append(measure(step, chosen, sides, f"{number}/{len(steps)}"))
        for shape, stack in sides.stacks.items():
            replay = asyncio.run(replay_run(stack, stack_pids(stack), chosen.replay_events, chosen.replay_folds))
            figures["replay"][shape] = replay.figures()
            report.progress_replay(shape, replay)
    if chosen.extras:
        figures["extras"] = extras(chosen)
    figures["seconds"] = time.perf_counter() - started
    report.finish(figures)


def measure_tracing(chosen: Plan) -> None:
    """BENCH_TRACING=1: what tracing costs per action, at each sampling ratio (bench/tracing.py);
    figures to bench/results/tracing.json."""
    started = time.perf_counter()
    found = tracing.overhead(chosen, STACK_ENV)
    found["seconds"] = time.perf_counter() - started
    tracing.print_table(found)
    written = report.RESULTS.with_name("tracing.json")
    written.parent.mkdir(exist_ok=True)
    written.write_text(json.dumps(report.plain(found), indent=2, sort_keys=True) + "\n")


def start(up: contextlib.ExitStack, chosen: Plan, figures: dict[str, Any]) -> Sides:
    """Both stacks, the floor's server on the in-process stack's store, and boardgame.io's server."""
    # No matchmakers (the load runs make their own matches); in process, the match app
    # runs inside the gateway too, so no socket lies between an action and the store.
    stacks = {
        shape: up.enter_context(Stack(games=chosen.games, shape=shape,
                                      matchmakers=0, extra_env=STACK_ENV))
        for shape in SHAPES
    }
    store = stacks["inprocess"]
    assert store.embedded and store.redis.process is not None
    floor = up.enter_context(bare_server(store.redis_url))
    figures["bgio_missing"] = bgio_missing = bgio_ready()
    bgio = None if bgio_missing else up.enter_context(boardgameio.server())
    return Sides(stacks, floor, (store.redis_url, store.redis.process.pid), bgio)


def bgio_ready() -> str:
    """Why boardgame.io cannot run here, or "" once its packages are installed."""
    reason = boardgameio.missing()
    if not reason:
        try:
            boardgameio.install()
        except (OSError, subprocess.CalledProcessError) as npm_error:
            reason = f"npm ci failed ({npm_error}): the boardgame.io side-by-side is skipped"
    if reason:
        report.note(reason)
    return reason


def warm(chosen: Plan, sides: Sides) -> None:
    """Every side once, unmeasured: imports, caches, connections."""
    seconds = chosen.warmup_seconds
    asyncio.run(floor_run(sides.floor, *sides.floor_store, WARMUP_MATCHES, seconds))
    if sides.bgio is not None:
        boardgameio.load_run(sides.bgio, WARMUP_MATCHES, seconds)
    for stack in sides.stacks.values():
        for game in chosen.games:
            asyncio.run(load_run(stack, game, WARMUP_MATCHES, seconds))


def idle(sides: Sides, seconds: float) -> dict[str, float]:
    """Each side's CPU ms per second with nothing driving any of them, read over the same `seconds`."""
    named = {shape: named_pids(stack) for shape, stack in sides.stacks.items()}
    named[FLOOR] = {"bare_server": sides.floor.pid}  # its store is the in-process stack's
    if sides.bgio is not None:
        named[BGIO] = {"node": sides.bgio.pid}
    meters = {side: cpu.Meter(pids) for side, pids in named.items()}
    for meter in meters.values():
        meter.start()
    time.sleep(seconds)  # not a synchronisation: the idle CPU is what accrues over this time
    return {side: 1000 * sum(meter.stop().values()) / seconds for side, meter in meters.items()}


def measure(step: Step, chosen: Plan, sides: Sides, label: str) -> dict[str, Any]:
    """One run of the schedule, as a row of figures."""
    failed = 0
    run: Run
    if step.side == FLOOR:
        run = asyncio.run(floor_run(sides.floor, *sides.floor_store, step.matches, chosen.seconds))
    elif step.side == BGIO:
        assert sides.bgio is not None
        run, failed = boardgameio.load_run(sides.bgio, step.matches, chosen.seconds)
    else:
        run, failed = asyncio.run(load_run(sides.stacks[step.side], step.game, step.matches, chosen.seconds))
    report.progress(f"{label} repetition {step.repeat + 1} [{step.side}] {step.game} x{step.matches}", run, failed)
    return {"repeat": step.repeat, "side": step.side, "game": step.game, "matches": step.matches, "failed": failed,
            **run.figures()}


def extras(chosen: Plan) -> dict[str, Any]:
    from bench import cluster_client, engines, matchmaking
    from services.games import registry

    if MINIMAL not in registry.available():  # the stacks know it from their environment; this process must be told
        registry.add_package(MINIMAL, MINIMAL_PACKAGE)
    return {
        "engines": [engines.games_per_second(game, seconds=2.0) for game in chosen.games],
        "matchmaking": matchmaking.run(),
        "cluster_client": cluster_client.run(),
    }


if __name__ == "__main__":
    main()
