"""A match view as a person reads it: the summary, then the game's view as tables.

Game-agnostic: a view is the game's View message as a JSON object. Scalars print as
`name: value`; lists of objects (players, market piles, survivors) become tables, one
row each, with a column per field; short lists of scalars print on one line; nested
objects are shown under their field's name. `tabletop view --json` keeps the raw form.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

# A list longer than this prints as its length and its first items.
SHORT = 12


def match_view(summary: Mapping[str, Any], view: Mapping[str, Any] | None) -> RenderableType:
    """The whole `tabletop view` page."""
    status = str(summary.get("status", "")).removeprefix("MATCH_STATUS_").lower()
    to_move = ", ".join(str(s) for s in summary.get("to_move", [])) or "nobody"
    seats = ", ".join(
        f"{s.get('seat')}: {s.get('display_name') or s.get('player_id') or 'free'}" for s in summary.get("seats", [])
    )
    where = f"match {summary.get('match_id')}  {status}  version {summary.get('version')}  to move: {to_move}"
    head = Text.assemble((f"{summary.get('game')} ", "bold"), where, f"\nseats: {seats}")
    parts: list[RenderableType] = [head]
    if summary.get("clocks"):
        parts.append(Text(f"clocks: {clock_line(summary['clocks'], time.time())}"))
    if summary.get("outcome"):
        parts.append(Text(f"result: {_inline(summary['outcome'])}"))
    if view:
        parts.append(fields(view))
    return Group(*parts)


def clock_line(clocks: Sequence[Mapping[str, Any]], now_s: float) -> str:
    """Each seat's time left, as of `now_s` for a running clock (its deadline minus now)."""
    parts = []
    for clock in clocks:
        if clock.get("running"):
            left_ms = max(0, int(clock.get("deadline_ms", 0)) - int(now_s * 1000))
            parts.append(f"seat {clock.get('seat', 0)} {_duration(left_ms)} left (running)")
        else:
            parts.append(f"seat {clock.get('seat', 0)} {_duration(int(clock.get('remaining_ms', 0)))}")
    return ", ".join(parts)


def _duration(ms: int) -> str:
    seconds = ms // 1000
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


def fields(data: Mapping[str, Any], prefix: str = "") -> RenderableType:
    """An object's fields: scalar lines first, then one table or block per composite field."""
    lines: list[str] = []
    blocks: list[RenderableType] = []
    for name, value in data.items():
        label = f"{prefix}{name}"
        if _is_rows(value):
            blocks.append(_table(label, value))
        elif isinstance(value, Mapping) and value:
            blocks.append(Group(Text(f"{label}:", style="bold"), fields(value, "  ")))
        else:
            lines.append(f"{label}: {_inline(value)}")
    return Group(Text("\n".join(lines)), *blocks)


def _is_rows(value: object) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(item, Mapping) for item in value)


def _table(title: str, rows: Sequence[Mapping[str, Any]]) -> Table:
    columns: list[str] = []
    for row in rows:
        columns += [key for key in row if key not in columns]
    table = Table(*columns, title=title, title_justify="left", show_lines=False)
    for row in rows:
        table.add_row(*(_inline(row.get(column, "")) for column in columns))
    return table


def _inline(value: object) -> str:
    """One cell: scalars as they are, short lists joined, long ones counted, objects as key=value."""
    if isinstance(value, Mapping):
        return " ".join(f"{k}={_inline(v)}" for k, v in value.items()) or "-"
    if isinstance(value, list):
        if not value:
            return "-"
        shown = ", ".join(_inline(item) for item in value[:SHORT])
        return shown if len(value) <= SHORT else f"{shown}, ... ({len(value)})"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)
