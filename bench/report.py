"""The bench's output: a line per run as it goes, then tables with every figure
beside its ratio to the same run's baseline, the issue's targets marked met or
unmet, and all figures as JSON in bench/results/latest.json."""

from __future__ import annotations

import dataclasses
import json
import math
import pathlib
from typing import Any

from rich.console import Console
from rich.table import Table

from bench.plan import MINIMAL, REPLAY, Target, targets_for
from bench.replay import Replay
from bench.stats import Run, ratio

# The ticket transports bench.matchmaking measures (its SHAPES), in its order.
SHAPES_MM = ("tickets_in_gateway", "tickets_via_matchmaker")
RESULTS = pathlib.Path(__file__).resolve().parent / "results" / "latest.json"
console = Console(width=160)

# The figures of a run, how they print, and whether more is better.
METRICS = (
    ("per_second", "actions/s", "{:.0f}"),
    ("cpu_ms_each", "CPU ms/action", "{:.2f}"),
    ("p50_ms", "p50 ms", "{:.1f}"),
    ("p99_ms", "p99 ms", "{:.1f}"),
)


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
        f"CPU {run.cpu_ms_each:.2f} ms each, p50 {run.p50_ms:.1f} ms, p99 {run.p99_ms:.1f} ms{errors}",
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


def with_ratio(row: dict[str, Any], metric: str, pattern: str) -> str:
    """A figure of `row` and its ratio to the baseline (see `annotate`)."""
    share = row["vs_baseline"].get(metric, math.nan)
    return pattern.format(row[metric]) + ("" if math.isnan(share) else f" ({share:.2f}x)")


def annotate(figures: dict[str, Any]) -> None:
    """Add to every run its ratios to the baseline with as many callers (boardgame.io's to the
    in-process stack's), and Tabletop's minimal-game runs over boardgame.io's."""
    for found in figures["shapes"].values():
        for row in found["runs"]:
            row["vs_baseline"] = _ratios(row, found["baseline"].get(str(row["matches"]), {}))
    bgio = figures["bgio"]
    if "skipped" in bgio:
        return
    shape = figures["shapes"].get("inprocess") or next(iter(figures["shapes"].values()))
    theirs = {row["matches"]: row for row in bgio["runs"]}
    for row in bgio["runs"]:
        row["vs_baseline"] = _ratios(row, shape["baseline"].get(str(row["matches"]), {}))
    bgio["tabletop_over_bgio"] = [
        {"shape": name, "matches": row["matches"], **_ratios(row, theirs[row["matches"]])}
        for name, found in figures["shapes"].items()
        for row in found["runs"]
        if row["game"] == MINIMAL and row["matches"] in theirs
    ]


def _ratios(row: dict[str, Any], base: dict[str, Any]) -> dict[str, float]:
    return {metric: ratio(row[metric], base.get(metric, 0.0)) for metric, _, _ in METRICS}


def marks(shape: str, row: dict[str, Any]) -> str:
    found = [(t, row.get(t.metric, math.nan)) for t in targets_for(shape, row["game"], row["matches"])]
    return ", ".join(f"{t.metric.split('_')[0]} <= {t.limit:g} {_mark(t.met(v))}" for t, v in found)


def _mark(met: bool) -> str:
    return "[green]met[/]" if met else "[red]unmet[/]"


def baseline_table(figures: dict[str, Any]) -> Table:
    table = Table(title="Baseline: one bare gRPC round trip + one XADD (fsync always) on the stack's server")
    for header in ("shape", "callers", "calls/s", "CPU ms/call", "p50 ms", "p99 ms"):
        table.add_column(header, justify="right")
    for shape, found in figures["shapes"].items():
        for matches, base in found["baseline"].items():
            table.add_row(shape, matches, *(p.format(base[m]) for m, _, p in METRICS))
    return table


def runs_table(figures: dict[str, Any]) -> Table:
    table = Table(title="Actions through the gateway (x = ratio to the baseline with as many callers)")
    for header in ("shape", "game", "matches", *(h for _, h, _ in METRICS), "failed", "targets"):
        table.add_column(header, justify="right")
    for shape, found in figures["shapes"].items():
        for row in found["runs"]:
            cells = (with_ratio(row, m, p) for m, _, p in METRICS)
            table.add_row(shape, row["game"], str(row["matches"]), *cells, str(row["failed"]), marks(shape, row))
    return table


def split_table(figures: dict[str, Any]) -> Table:
    """Where each game's CPU per action goes, process by process, at the most matches."""
    table = Table(title="CPU ms/action by process (at the most matches run)")
    names = sorted({n for f in figures["shapes"].values() for r in f["runs"] for n in r.get("cpu_ms_by_process", {})})
    for header in ("shape", "game", "matches", *names):
        table.add_column(header, justify="right")
    for shape, found in figures["shapes"].items():
        most = max((row["matches"] for row in found["runs"]), default=0)
        for row in found["runs"]:
            if row["matches"] != most:
                continue
            split = row.get("cpu_ms_by_process", {})
            table.add_row(shape, row["game"], str(most), *(f"{split[n]:.2f}" if n in split else "-" for n in names))
    return table


def bgio_tables(figures: dict[str, Any]) -> list[Table]:
    bgio = figures["bgio"]
    if "skipped" in bgio:
        return []
    own = Table(title="boardgame.io 0.50.2 on the same minimal game (x = ratio to the in-process run's baseline)")
    for header in ("matches", "moves/s", "CPU ms/move", "p50 ms", "p99 ms", "failed"):
        own.add_column(header, justify="right")
    for row in bgio["runs"]:
        cells = (with_ratio(row, m, p) for m, _, p in METRICS)
        own.add_row(str(row["matches"]), *cells, str(row["failed"]))
    side = Table(title=f"Tabletop / boardgame.io on {MINIMAL} (CPU and p99: lower is better; moves/s: higher)")
    for header in ("shape", "matches", "moves/s", "CPU ms/move", "p99 ms"):
        side.add_column(header, justify="right")
    for row in bgio["tabletop_over_bgio"]:
        cells = (f"{row[m]:.2f}x" for m in ("per_second", "cpu_ms_each", "p99_ms"))
        side.add_row(row["shape"], str(row["matches"]), *cells)
    return [own, side]


def replay_table(figures: dict[str, Any]) -> Table:
    table = Table(title="Replay: a finished match folded from its log (read the stream, fold through the rules); "
                        "rebuild timed by the match repository, request: a cold view request over a cached one")
    for header in ("shape", "events/fold", "rebuild ms", "events/s", "request ms", "request events/s",
                   "events/CPU s", "x baseline", "target"):
        table.add_column(header, justify="right")
    for shape, found in figures["shapes"].items():
        replay = found["replay"]
        base = found["baseline"].get("1") or next(iter(found["baseline"].values()))
        # Events folded for the CPU one baseline call costs.
        per_call = base["cpu_ms_each"] * (replay["events_per_cpu_second"] or math.inf) / 1000
        table.add_row(
            shape,
            f"{replay['events']:.0f}",
            f"{replay['rebuild_ms']:.2f}",
            f"{replay['events_per_second'] or math.inf:,.0f}",
            f"{replay['fold_ms']:.1f}",
            f"{replay['request_events_per_second'] or math.inf:,.0f}",
            f"{replay['events_per_cpu_second'] or math.inf:,.0f}",
            f"{per_call:.1f} events/call",
            f">= {REPLAY.limit:,.0f} {_mark(REPLAY.met(replay['events_per_second'] or math.inf))}",
        )
    return table


def target_summary(figures: dict[str, Any]) -> list[dict[str, Any]]:
    """Each target with every figure it applies to; met when all of them are."""
    seen: dict[str, tuple[Target, list[tuple[str, float]]]] = {}
    for shape, found in figures["shapes"].items():
        for row in found["runs"]:
            for target in targets_for(shape, row["game"], row["matches"]):
                where = f"{shape} {row['game']} x{row['matches']}"
                seen.setdefault(target.name, (target, []))[1].append((where, row[target.metric]))
        value = found["replay"]["events_per_second"]
        seen.setdefault(REPLAY.name, (REPLAY, []))[1].append((f"{shape} replay", math.inf if value is None else value))
    return [
        {
            "target": name,
            "met": all(target.met(v) for _, v in values),
            "figures": {where: v for where, v in values},
        }
        for name, (target, values) in seen.items()
    ]


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
    annotate(figures)
    figures["targets"] = target_summary(figures)
    tables = [baseline_table(figures), runs_table(figures), split_table(figures), *bgio_tables(figures),
              replay_table(figures)]
    matchmaking = figures.get("extras", {}).get("matchmaking")
    if matchmaking:
        tables.append(matchmaking_table(matchmaking))
        figures["targets"] += matchmaking_targets(matchmaking)
    for table in tables:
        console.print(table)
    targets = Table(title="Targets from the issue")
    for header in ("target", "", "figures"):
        targets.add_column(header)
    for row in figures["targets"]:
        shown = ", ".join(f"{where} {v:,.2f}" for where, v in row["figures"].items())
        targets.add_row(row["target"], _mark(row["met"]), shown)
    console.print(targets)
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(plain(figures), indent=2, sort_keys=True) + "\n")
    written = RESULTS.relative_to(RESULTS.parent.parent.parent)
    console.print(f"figures written to {written}; the whole bench took {figures['seconds']:.0f} s")
