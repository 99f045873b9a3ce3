"""The bench's output: a line per run as it goes, then tables of the medians over
the repetitions, every Tabletop figure beside its ratio to boardgame.io's and to
the floor measured in the same repetition, the issue's targets marked met or not,
and all figures (every run of every repetition too) in bench/results/latest.json."""

from __future__ import annotations

import dataclasses
import json
import math
import pathlib
from typing import Any

from rich.console import Console
from rich.table import Table

from bench.plan import BGIO, FLOOR, MINIMAL, SHAPES, targets
from bench.replay import Replay
from bench.stats import Run
from bench.summary import evaluate, summarise

# The ticket transports bench.matchmaking measures (its SHAPES), in its order.
SHAPES_MM = ("tickets_in_gateway", "tickets_via_matchmaker")
RESULTS = pathlib.Path(__file__).resolve().parent / "results" / "latest.json"
console = Console(width=170)
STATUS = {"met": "[green]met[/]", "not met": "[red]not met[/]", "not measured": "[yellow]not measured[/]"}


def plain(value: Any) -> Any:
    """JSON-ready: dataclasses as dicts, non-finite floats as null."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return plain(dataclasses.asdict(value))
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def note(text: str) -> None:
    console.print(f"[yellow]{text}[/]")


def progress(label: str, run: Run, failed: int = 0) -> None:
    errors = f", {failed} matches failed" if failed else ""
    console.print(
        f"{label}: {run.count} in {run.wall_seconds:.1f} s, {run.per_second:.0f}/s, "
        f"CPU {run.cpu_ms_each:.3f} ms each, p50 {run.p50_ms:.1f} ms, p99 {run.p99_ms:.1f} ms{errors}",
        highlight=False,
        markup=False,
    )


def progress_replay(shape: str, replay: Replay) -> None:
    console.print(
        f"[{shape}] replay: {replay.events:.0f} events read and folded in {replay.rebuild_ms:.2f} ms "
        f"({replay.events_per_second:,.0f} events/s); cold request {replay.fold_ms:.1f} ms over a cached one "
        f"({replay.request_events_per_second:,.0f} events/s); CPU {replay.cpu_ms_per_fold:.1f} ms per fold",
        highlight=False,
        markup=False,
    )


def _x(value: float | None) -> str:
    return "-" if value is None or not math.isfinite(value) else f"{value:.2f}x"


def _f(value: float, pattern: str) -> str:
    return pattern.format(value) if math.isfinite(value) else "-"


def _table(title: str, headers: tuple[str, ...]) -> Table:
    table = Table(title=title, title_justify="left")
    for header in headers:
        table.add_column(header, justify="right")
    return table


def idle_table(idle: dict[str, float]) -> Table:
    table = _table("Idle CPU (read once, nothing driving)", ("side", "CPU ms per s", "of one core"))
    for side, ms_per_s in idle.items():
        table.add_row(side, f"{ms_per_s:.1f}", f"{ms_per_s / 10:.2f}%")
    return table


def floor_table(rows: list[dict[str, Any]]) -> Table:
    table = _table("Floor: bidi message in and out, 2 server-stream messages, 1 fsynced XADD (medians)",
                   ("matches", "actions/s", "CPU ms/action", "bare server ms", "redis ms", "p50 ms", "p99 ms",
                    "redis calls/action"))
    for row in rows:
        if row["side"] != FLOOR:
            continue
        split = row["cpu_ms_by_process"]
        table.add_row(str(row["matches"]), _f(row["per_second"], "{:.0f}"), _f(row["cpu_ms_each"], "{:.3f}"),
                      _f(split.get("bare_server", math.nan), "{:.3f}"), _f(split.get("redis", math.nan), "{:.3f}"),
                      _f(row["p50_ms"], "{:.2f}"), _f(row["p99_ms"], "{:.2f}"), _calls(row["redis_per_action"]))
    return table


def bgio_table(rows: list[dict[str, Any]]) -> Table:
    table = _table(f"boardgame.io 0.50.2 on {MINIMAL}, in memory (medians)",
                   ("matches", "moves/s", "CPU ms/move", "x floor", "p50 ms", "p99 ms", "failed"))
    for row in rows:
        if row["side"] != BGIO:
            continue
        table.add_row(str(row["matches"]), _f(row["per_second"], "{:.0f}"), _f(row["cpu_ms_each"], "{:.3f}"),
                      _x(row["vs_floor"]["cpu_ms_each"]), _f(row["p50_ms"], "{:.1f}"), _f(row["p99_ms"], "{:.1f}"),
                      str(row["failed"]))
    return table


def runs_table(rows: list[dict[str, Any]]) -> Table:
    table = _table("Tabletop through the gateway: medians; each x is the median of the ratios taken within each "
                   "repetition",
                   ("shape", "game", "matches", "actions/s", "x bgio", "CPU ms/action", "x bgio", "x floor",
                    f"x {MINIMAL}", "p50 ms", "x bgio", "p99 ms", "x bgio", "failed"))
    for row in rows:
        if row["side"] not in SHAPES:
            continue
        bgio = row["vs_bgio"]
        table.add_row(
            row["side"], row["game"], str(row["matches"]),
            _f(row["per_second"], "{:.0f}"), _x(bgio["per_second"]),
            _f(row["cpu_ms_each"], "{:.3f}"), _x(bgio["cpu_ms_each"]), _x(row["vs_floor"]["cpu_ms_each"]),
            _x(row.get("vs_minimal", {}).get("cpu_ms_each")),
            _f(row["p50_ms"], "{:.1f}"), _x(bgio["p50_ms"]), _f(row["p99_ms"], "{:.1f}"), _x(bgio["p99_ms"]),
            str(row["failed"]),
        )
    return table


def split_table(rows: list[dict[str, Any]]) -> Table:
    """Where the CPU of an action goes, process by process, at the most matches run."""
    most = max((row["matches"] for row in rows), default=0)
    shown = [row for row in rows if row["matches"] == most and row["side"] in SHAPES]
    names = sorted({name for row in shown for name in row["cpu_ms_by_process"]})
    table = _table(f"CPU ms/action by process at {most} matches (medians)", ("shape", "game", *names))
    for row in shown:
        split = row["cpu_ms_by_process"]
        table.add_row(row["side"], row["game"], *(f"{split[n]:.3f}" if n in split else "-" for n in names))
    return table


def _calls(calls: dict[str, float], least: float = 0.05) -> str:
    """The commands made at least `least` times per action, most first; the rest summed."""
    ordered = sorted(calls.items(), key=lambda item: -item[1])
    shown = [f"{command} {n:.2f}" for command, n in ordered if n >= least]
    rest = [n for _, n in ordered if n < least]
    return ", ".join(shown + ([f"{len(rest)} others {sum(rest):.2f}"] if rest else [])) or "-"


def redis_table(rows: list[dict[str, Any]]) -> Table:
    table = _table("Store calls per action (INFO commandstats around each run; medians)",
                   ("shape", "game", "matches", "total", "by command"))
    for row in rows:
        if row["side"] in SHAPES:
            calls = row["redis_per_action"]
            table.add_row(row["side"], row["game"], str(row["matches"]), f"{sum(calls.values()):.2f}", _calls(calls))
    return table


def replay_table(replay: dict[str, dict[str, float]], rows: list[dict[str, Any]]) -> Table:
    # Rebuild: timed by the match repository; request: a cold view request over a cached one.
    table = _table("Replay: a finished match folded from its log (reported, not a target)",
                   ("shape", "events/fold", "rebuild ms", "events/s", "request ms", "request events/s",
                    "events/CPU s", "events per floor action's CPU"))
    floors = sorted((row for row in rows if row["side"] == FLOOR), key=lambda row: row["matches"])
    floor_ms = floors[0]["cpu_ms_each"] if floors else math.nan
    for shape, found in replay.items():
        per_cpu = found["events_per_cpu_second"] or math.inf
        table.add_row(
            shape, f"{found['events']:.0f}", f"{found['rebuild_ms']:.2f}",
            f"{found['events_per_second'] or math.inf:,.0f}", f"{found['fold_ms']:.1f}",
            f"{found['request_events_per_second'] or math.inf:,.0f}", f"{per_cpu:,.0f}",
            # Events folded for the CPU one action of the floor costs.
            _f(floor_ms * per_cpu / 1000, "{:.0f}"),
        )
    return table


def targets_table(found: list[dict[str, Any]]) -> Table:
    table = Table(title="Targets (issue 28 item 2), all from this run", title_justify="left")
    for header in ("target", "", "figure", "by repetition"):
        table.add_column(header)
    for row in found:
        status = row.get("status") or ("met" if row["met"] else "not met")
        if "figures" in row:  # the matchmaking targets: several figures each
            shown, each = ", ".join(f"{where} {v:,.2f}" for where, v in row["figures"].items()), ""
        else:
            shown = row["why"] or _x(row["figure"])
            each = "" if row["why"] else " ".join(_x(v) for v in row["by_repeat"])
        table.add_row(row["target"], STATUS[status], shown, each)
    return table


def cluster_client_table(found: dict[str, dict[str, float]]) -> Table:
    """The cluster client's CPU per operation (bench/cluster_client.py), redis-py's and ours."""
    table = Table(title="Redis Cluster client CPU, us per script of eight keys + GET + pipeline of two (medians)")
    for header in ("client", "1 caller", "16 callers"):
        table.add_column(header, justify="right")
    for name, by in found.items():
        table.add_row(name, f"{by['callers_1']:.0f}", f"{by['callers_16']:.0f}")
    return table


def matchmaking_table(found: dict[str, Any]) -> Table:
    """Issue 14's figures: each ticket transport with one and two replicas, then the backlog."""
    table = Table(title="Matchmaking: 2-seat tickets, each queued over one stream and read until assigned "
                        "(one and two replicas each pooled over their sittings, taken in turn)")
    for header in ("transport", "replicas", "tickets/s", "2:1", "matchmaker ms/ticket", "all processes ms/ticket",
                   "p50 ms", "lone pair p50 ms", "sign-in ms (apart)"):
        table.add_column(header, justify="right")
    for shape in SHAPES_MM:
        pair = found[shape]
        for run in (pair["one_replica"], pair["two_replicas"]):
            table.add_row(shape, str(run["replicas"]), f"{run['tickets_per_s']:,.0f}",
                          f"{pair['throughput_ratio_2_to_1']:.2f}" if run["replicas"] == 2 else "",
                          f"{run['matchmaker_cpu_ms_per_ticket_total']:.3f}", f"{run['cpu_ms_per_ticket_all']:.2f}",
                          f"{run['p50_ms']:.0f}", f"{run['unloaded_p50_ms']:.0f}",
                          f"{run['cpu_ms_per_sign_in_all']:.2f}")
    for run in (found["backlog"]["one_replica"], found["backlog"]["two_replicas"]):
        table.add_row("backlog in Redis", str(run["replicas"]), f"{run['tickets_per_s']:,.0f}", "",
                      f"{run['matchmaker_cpu_ms_per_ticket_total']:.3f}", "", "", "", "")
    return table


def matchmaking_targets(found: dict[str, Any]) -> list[dict[str, Any]]:
    """Issue 14's targets, each with every figure it applies to."""
    cpu = {f"{shape} 1 replica": found[shape]["one_replica"]["matchmaker_cpu_ms_per_ticket_total"]
           for shape in SHAPES_MM}
    cpu["backlog 1 replica"] = found["backlog"]["one_replica"]["matchmaker_cpu_ms_per_ticket_total"]
    rates = {f"{shape} {n} replica(s)": found[shape][key]["tickets_per_s"]
             for shape in SHAPES_MM for n, key in ((1, "one_replica"), (2, "two_replicas"))}
    ratios = {f"{shape} 2:1": found[shape]["throughput_ratio_2_to_1"] for shape in SHAPES_MM}
    return [
        {"target": "matchmaker's own CPU per ticket <= 0.2 ms", "met": all(v <= 0.2 for v in cpu.values()),
         "figures": cpu},
        {"target": "end to end >= 2,000 tickets/s", "met": max(rates.values()) >= 2000, "figures": rates},
        {"target": "two replicas not slower than one", "met": all(v >= 1.0 for v in ratios.values()),
         "figures": ratios},
    ]


def finish(figures: dict[str, Any]) -> None:
    """Print every table, then write the JSON."""
    rows = figures["summary"] = summarise(figures["runs"])
    every_game = tuple(figures["plan"]["every_game"])
    figures["targets"] = evaluate(targets(every_game), rows, figures.get("bgio_missing", ""))
    tables = [idle_table(figures["idle"]), floor_table(rows),
              *([bgio_table(rows)] if any(row["side"] == BGIO for row in rows) else []),
              runs_table(rows), split_table(rows), redis_table(rows), replay_table(figures["replay"], rows)]
    matchmaking = figures.get("extras", {}).get("matchmaking")
    if matchmaking:
        tables.append(matchmaking_table(matchmaking))
        figures["targets"] += matchmaking_targets(matchmaking)
    if figures.get("extras", {}).get("cluster_client"):
        tables.append(cluster_client_table(figures["extras"]["cluster_client"]))
    for table in tables:
        console.print(table)
    console.print(targets_table(figures["targets"]))
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(plain(figures), indent=2, sort_keys=True) + "\n")
    written = RESULTS.relative_to(RESULTS.parent.parent.parent)
    console.print(f"figures written to {written}; the whole bench took {figures['seconds']:.0f} s")
