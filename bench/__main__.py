"""`make bench`: every figure beside a baseline measured in the same run.

The machine is shared and noisy, so absolute times mean little: read the
ratios. The last line printed is one JSON object with all figures.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
from typing import Any

from bench.baselines import redis_append
from bench.engines import games_per_second
from bench.load import shape_run
from deploy.stack import UNLIMITED_CALLERS, Stack
from services.common import redis_server
from services.games.registry import available

SECONDS = float(os.environ.get("BENCH_SECONDS", "12"))
MATCHES = int(os.environ.get("BENCH_MATCHES", "8"))
PLAYERS = {"el_dorado": 2, "la_isla": 3, "discover": 2}


def ratio(a: float, b: float) -> float:
    return round(a / b, 3) if b else 0.0


def run_shape(url: str, inprocess: bool, games: list[tuple[str, int]]) -> dict[str, Any]:
    names = tuple(game for game, _ in games)
    with Stack(redis_url=url, matchmakers=0, inprocess=inprocess, games=names, extra_env=UNLIMITED_CALLERS) as stack:
        return asyncio.run(shape_run(stack, games, MATCHES, SECONDS))


def annotate(shape: dict[str, Any], append: dict[str, float]) -> None:
    rt = shape["grpc_round_trip"]
    for run in [*shape["runs"], *shape["stream_runs"]]:
        run["latency_vs_grpc_round_trip"] = ratio(run["submit_p50_ms"], rt["p50_ms"])
        run["latency_vs_redis_append"] = ratio(run["submit_p50_ms"], append["p50_ms"])
        run["throughput_vs_grpc_round_trips"] = ratio(run["actions_per_second"], rt["per_second"])


def main() -> None:
    wanted = [g for g in os.environ.get("BENCH_GAMES", "").split(",") if g] or list(available())
    games = [(g, PLAYERS.get(g, 2)) for g in wanted]
    with redis_server.redis_url() as url:
        append = asyncio.run(redis_append(url))
        figures: dict[str, Any] = {"redis_append": append}
        print(f"baseline redis append: p50 {append['p50_ms']:.3f} ms, {append['per_second']:.0f}/s", flush=True)
        for name, inprocess in (("services", False), ("inprocess", True)):
            shape = run_shape(url, inprocess, games)
            annotate(shape, append)
            figures[name] = shape
            report_shape(name, shape)
    engines = [games_per_second(game) for game, _ in games]
    figures["engines"] = engines
    for engine in engines:
        share = engine_share(engine, figures)
        engine["share_of_action_services"], engine["share_of_action_inprocess"] = share
        print(
            f"engine {engine['game']}: {engine['games_per_second']:.2f} random games/s in process, "
            f"{engine['engine_ms_per_step']:.3f} ms per step; share of an action's cost: "
            f"{share[0]:.1%} (services), {share[1]:.1%} (in process)",
            flush=True,
        )
    compare_shapes(figures)
    matchmaking(figures)
    print(json.dumps(figures, sort_keys=True, default=float))


def report_shape(name: str, shape: dict[str, Any]) -> None:
    rt = shape["grpc_round_trip"]
    print(f"[{name}] baseline gRPC round trip: p50 {rt['p50_ms']:.3f} ms, {rt['per_second']:.0f}/s", flush=True)
    for run in [*shape["runs"], *shape["stream_runs"]]:
        how = "Play streams" if run.get("transport") == "play_stream" else "unary calls"
        print(
            f"[{name}] {run['game']} x{run['concurrent_matches']} matches, {how}: {run['actions_per_second']:.0f} "
            f"actions/s ({run['throughput_vs_grpc_round_trips']:.3f} of gRPC round trips/s), submit p50 "
            f"{run['submit_p50_ms']:.2f} ms ({run['latency_vs_grpc_round_trip']:.1f}x round trip, "
            f"{run['latency_vs_redis_append']:.1f}x append), p99 {run['submit_p99_ms']:.2f} ms",
            flush=True,
        )


def engine_share(engine: dict[str, Any], figures: dict[str, Any]) -> tuple[float, float]:
    """Engine time per step over the wall cost of one action at the gateway (1 / throughput)."""
    shares = []
    for shape in ("services", "inprocess"):
        runs = [r for r in figures[shape]["runs"] if r["game"] == engine["game"]]
        per_action_ms = 1000 / runs[0]["actions_per_second"] if runs and runs[0]["actions_per_second"] else 0
        shares.append(round(engine["engine_ms_per_step"] / per_action_ms, 4) if per_action_ms else 0.0)
    return shares[0], shares[1]


def compare_shapes(figures: dict[str, Any]) -> None:
    pairs = zip(figures["services"]["runs"], figures["inprocess"]["runs"], strict=True)
    figures["inprocess_vs_services"] = {
        a["game"]: ratio(b["actions_per_second"], a["actions_per_second"]) for a, b in pairs
    }
    for game, value in figures["inprocess_vs_services"].items():
        print(f"{game}: in-process shape serves {value:.2f}x the actions/s of the services shape", flush=True)
    for shape in ("services", "inprocess"):
        pairs = zip(figures[shape]["runs"], figures[shape]["stream_runs"], strict=True)
        ratios = figures[f"streams_vs_unary_{shape}"] = {
            a["game"]: ratio(b["actions_per_second"], a["actions_per_second"]) for a, b in pairs
        }
        for game, value in ratios.items():
            print(f"[{shape}] {game}: Play streams serve {value:.2f}x the actions/s of unary calls", flush=True)


def matchmaking(figures: dict[str, Any]) -> None:
    if importlib.util.find_spec("bench.matchmaking") is None:
        return
    from bench import matchmaking as mm

    result = figures["matchmaking"] = mm.run()
    for name in ("one_replica", "two_replicas"):
        run = result[name]
        print(
            f"matchmaking, {run['replicas']} replica(s): {run['tickets_per_s']:.0f} tickets/s, ticket to "
            f"assignment p50 {run['p50_ms']:.0f} ms, p99 {run['p99_ms']:.0f} ms "
            f"({run['parallel_players']} players at once)",
            flush=True,
        )
    print(
        f"matchmaking, 2 replicas vs 1: throughput x{result['throughput_ratio_2_to_1']}, "
        f"p50 x{result['p50_ratio_2_to_1']}",
        flush=True,
    )


if __name__ == "__main__":
    main()
