"""`make bench`: server CPU per action, actions/s and latency through the gateway,
in both deployment shapes, beside a baseline measured in the same run, and
boardgame.io serving the same minimal game where Node is present.

The machine is shared and noisy, so absolute figures mean little: read the
ratios to the baseline. BENCH_QUICK=1 runs a smaller sample; BENCH_GAMES,
BENCH_LEVELS, BENCH_SECONDS narrow or lengthen it; BENCH_EXTRAS=1 adds
matchmaking and engine speed. Figures go to bench/results/latest.json.
"""

from __future__ import annotations

import asyncio
import subprocess
import time
from typing import Any

from bench import boardgameio, report
from bench.baselines import BareServer, bare_server, baseline
from bench.load import load_run, stack_pids
from bench.plan import MINIMAL, MINIMAL_PACKAGE, SHAPES, Plan, plan
from bench.replay import replay_run
from deploy.stack import UNLIMITED_CALLERS, Stack

STACK_ENV = {
    **UNLIMITED_CALLERS,
    "TABLETOP_SEAT_ACTION_RATE": "0",  # one bot seat acts faster than a person may
    "TABLETOP_EXTRA_GAMES": f"{MINIMAL}={MINIMAL_PACKAGE}",
}


def main() -> None:
    chosen = plan()
    started = time.perf_counter()
    figures: dict[str, Any] = {"plan": report.plain(chosen), "shapes": {}}
    with bare_server() as bare:
        for shape, inprocess in SHAPES.items():
            figures["shapes"][shape] = measure_shape(chosen, bare, shape, inprocess)
    figures["bgio"] = measure_bgio(chosen)
    if chosen.extras:
        figures["extras"] = extras(chosen)
    figures["seconds"] = time.perf_counter() - started
    report.finish(figures)


def measure_shape(chosen: Plan, bare: BareServer, shape: str, inprocess: bool) -> dict[str, Any]:
    """Baselines, load runs and replay against one stack of this shape."""
    found: dict[str, Any] = {"baseline": {}, "runs": []}
    # No matchmakers (the load runs make their own matches); in process, the match app
    # runs inside the gateway too, so no socket lies between an action and the store.
    with Stack(
        games=chosen.games, inprocess=inprocess, match_in_gateway=inprocess, matchmakers=0, extra_env=STACK_ENV
    ) as stack:
        assert stack.redis.process is not None
        for matches in chosen.levels:
            calls = baseline(bare, stack.redis_url, stack.redis.process.pid, matches, chosen.baseline_seconds)
            run = asyncio.run(calls)
            found["baseline"][str(matches)] = run.figures()
            report.progress(f"[{shape}] baseline x{matches}", run)
        for game in chosen.games:
            asyncio.run(load_run(stack, game, 4, chosen.warmup_seconds))  # imports, caches, connections
            for matches in chosen.levels:
                run, failed = asyncio.run(load_run(stack, game, matches, chosen.seconds))
                found["runs"].append({"game": game, "matches": matches, "failed": failed, **run.figures()})
                report.progress(f"[{shape}] {game} x{matches}", run, failed)
        replay = asyncio.run(replay_run(stack, stack_pids(stack), chosen.replay_events, chosen.replay_folds))
        found["replay"] = replay.figures()
        report.progress_replay(shape, replay)
    return found


def measure_bgio(chosen: Plan) -> dict[str, Any]:
    """boardgame.io on the minimal game at every level, or why not."""
    reason = boardgameio.missing()
    if reason:
        report.note(reason)
        return {"skipped": reason}
    try:
        boardgameio.install()
    except (OSError, subprocess.CalledProcessError) as npm_error:
        report.note(f"npm ci failed ({npm_error}): the boardgame.io side-by-side is skipped")
        return {"skipped": f"npm ci failed: {npm_error}"}
    found: dict[str, Any] = {"runs": []}
    with boardgameio.server() as server:
        boardgameio.load_run(server, 4, chosen.warmup_seconds)
        for matches in chosen.levels:
            run, failed = boardgameio.load_run(server, matches, chosen.seconds)
            found["runs"].append({"game": MINIMAL, "matches": matches, "failed": failed, **run.figures()})
            report.progress(f"[boardgame.io] {MINIMAL} x{matches}", run, failed)
    return found


def extras(chosen: Plan) -> dict[str, Any]:
    from bench import engines, matchmaking

    return {
        "engines": [engines.games_per_second(game, seconds=2.0) for game in chosen.games],
        "matchmaking": matchmaking.run(),
    }


if __name__ == "__main__":
    main()
