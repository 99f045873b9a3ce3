"""Every repetition's runs brought together: each figure's median over the
repetitions, and each ratio taken within its repetition (boardgame.io's run, the
floor's and dice_hand's were made beside it, at the same level) before its
median is taken; then the targets held to those medians."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from bench.plan import BGIO, FLOOR, MINIMAL, Target
from bench.stats import median, median_of_ratios, ratio

METRICS = ("per_second", "cpu_ms_each", "p50_ms", "p99_ms")
Key = tuple[str, str, int]  # side, game, matches


def _key(run: dict[str, Any]) -> Key:
    return run["side"], run["game"], run["matches"]


def summarise(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per side, game and level, in the order first run."""
    by_repeat = {(run["repeat"], *_key(run)): run for run in runs}
    groups: dict[Key, list[dict[str, Any]]] = {}
    for run in sorted(runs, key=lambda r: r["repeat"]):
        groups.setdefault(_key(run), []).append(run)

    def against(found: list[dict[str, Any]], side: str, game: str, metrics: Iterable[str]) -> dict[str, Any]:
        """Each metric's ratio to (side, game) at the same level, repetition by repetition."""
        pairs: dict[str, list[tuple[float, float]]] = {m: [] for m in metrics}
        for run in found:
            other = by_repeat.get((run["repeat"], side, game, run["matches"]))
            for metric, kept in pairs.items():
                kept.append((run[metric], other[metric] if other else math.nan))
        return {
            "median": {m: median_of_ratios(kept) for m, kept in pairs.items()},
            "by_repeat": {m: [ratio(a, b) for a, b in kept] for m, kept in pairs.items()},
        }

    rows = []
    for (side, game, matches), found in groups.items():
        row: dict[str, Any] = {"side": side, "game": game, "matches": matches, "repeats": len(found),
                               "failed": sum(run.get("failed", 0) for run in found)}
        row.update({metric: median(run[metric] for run in found) for metric in METRICS})
        row["cpu_ms_by_process"] = _medians(run.get("cpu_ms_by_process", {}) for run in found)
        row["redis_per_action"] = _medians(run.get("redis_per_action", {}) for run in found)
        if side != FLOOR:
            _put(row, "vs_floor", against(found, FLOOR, MINIMAL, ("cpu_ms_each",)))
        if side not in (FLOOR, BGIO):
            _put(row, "vs_bgio", against(found, BGIO, MINIMAL, METRICS))
            if game != MINIMAL:
                _put(row, "vs_minimal", against(found, side, MINIMAL, ("cpu_ms_each",)))
        rows.append(row)
    return rows


def _put(row: dict[str, Any], name: str, ratios: dict[str, Any]) -> None:
    row[name], row[f"{name}_by_repeat"] = ratios["median"], ratios["by_repeat"]


def _medians(splits: Iterable[dict[str, float]]) -> dict[str, float]:
    """Each name's median over the repetitions (a repetition without it counts as 0)."""
    splits = list(splits)
    names = sorted({name for split in splits for name in split})
    return {name: median(split.get(name, 0.0) for split in splits) for name in names}


def evaluate(targets: list[Target], rows: list[dict[str, Any]], bgio_missing: str = "") -> list[dict[str, Any]]:
    """Each target met, not met, or not measured (and why)."""
    index = {_key(row): row for row in rows}
    found = []
    for target in targets:
        row = index.get((target.shape, target.game, target.matches))
        value = row.get(target.against, {}).get(target.metric, math.nan) if row else math.nan
        each = row.get(f"{target.against}_by_repeat", {}).get(target.metric, []) if row else []
        why = ""
        if target.against == "vs_bgio" and bgio_missing:
            why = bgio_missing
        elif row is None:
            why = f"{target.shape} {target.game} at {target.matches} matches is not in this run"
        elif math.isnan(value):
            beside = "boardgame.io" if target.against == "vs_bgio" else f"{target.shape} {MINIMAL}"
            why = f"no {beside} run beside it"
        status = "not measured" if why else ("met" if target.met(value) else "not met")
        found.append({"target": target.name, "status": status, "met": status == "met",
                      "figure": None if why else value, "by_repeat": each, "why": why})
    return found
