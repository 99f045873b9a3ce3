"""A match view as a person reads it: the summary, then the game's view as tables.

Game-agnostic: a view is the game's View message as a JSON object. Scalars print as
`name: value`; lists of objects (players, market piles, survivors) become tables, one
row each, with a column per field; short lists of scalars print on one line; nested
objects are shown under their field's name. `tabletop view --json` keeps the raw form.

With a game's words (DescribeGame, `Said`), the view reads as lines in that game's
language instead (`said_view`): every id named, nothing cut to the terminal's width;
legal actions become labels and log entries sentences.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypeAlias, TypeGuard

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from services.games.common import words as word
from services.games.common.words import GameWords, Term

# A list longer than this prints as its length and its first items.
SHORT = 12

# A JSON object as json_format's MessageToDict writes it (a summary, a view, a payload):
# its values are read with isinstance checks where their shape matters.
Json: TypeAlias = Mapping[str, object]


def _list(value: object) -> list[object]:
    """A JSON list field's items ([] for a missing one)."""
    return list(value) if isinstance(value, list) else []


def _objects(value: object) -> list[Json]:
    """A JSON list of objects' items ([] for a missing one)."""
    return [item for item in value if isinstance(item, Mapping)] if isinstance(value, list) else []


def _int(value: object) -> int:
    """A JSON number, or an int64 as MessageToDict writes it (a string), as an int."""
    if isinstance(value, (int, float, str)):
        return int(value)
    raise TypeError(f"not a number: {value!r}")


def match_view(summary: Json, view: Json | None) -> RenderableType:
    """The whole `tabletop view` page."""
    status = str(summary.get("status", "")).removeprefix("MATCH_STATUS_").lower()
    to_move = ", ".join(str(s) for s in _list(summary.get("to_move"))) or "nobody"
    seats = ", ".join(
        f"{s.get('seat')}: {s.get('display_name') or s.get('player_id') or 'free'}"
        for s in _objects(summary.get("seats"))
    )
    where = f"match {summary.get('match_id')}  {status}  version {summary.get('version')}  to move: {to_move}"
    head = Text.assemble((f"{summary.get('game')} ", "bold"), where, f"\nseats: {seats}")
    parts: list[RenderableType] = [head]
    if summary.get("clocks"):
        parts.append(Text(f"clocks: {clock_line(_objects(summary['clocks']), time.time())}"))
    if summary.get("outcome"):
        parts.append(Text(f"result: {_inline(summary['outcome'])}"))
    if view:
        parts.append(fields(view))
    return Group(*parts)


def clock_line(clocks: Sequence[Json], now_s: float) -> str:
    """Each seat's time left, as of `now_s` for a running clock (its deadline minus now)."""
    parts = []
    for clock in clocks:
        if clock.get("running"):
            left_ms = max(0, _int(clock.get("deadline_ms", 0)) - int(now_s * 1000))
            parts.append(f"seat {clock.get('seat', 0)} {_duration(left_ms)} left (running)")
        else:
            parts.append(f"seat {clock.get('seat', 0)} {_duration(_int(clock.get('remaining_ms', 0)))}")
    return ", ".join(parts)


def _duration(ms: int) -> str:
    seconds = ms // 1000
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


def fields(data: Json, prefix: str = "") -> RenderableType:
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


def _is_rows(value: object) -> TypeGuard[list[Json]]:
    return isinstance(value, list) and bool(value) and all(isinstance(item, Mapping) for item in value)


def _table(title: str, rows: Sequence[Json]) -> Table:
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


# ------------------------------------------------------------------ in the game's words

# View fields whose values are ids of another table's name (the CLI's reading of a view;
# a field named after a table, or its singular, needs no entry here).
FIELD_TABLES: dict[str, tuple[str, ...]] = {
    "hand": ("card", "project"),
    "discard": ("card",),
    "played": ("card",),
    "hand_and_draw": ("card",),
    "top": ("card",),
    "source": ("card", "token"),
    "tokens": ("token",),
    "offer": ("character",),
    "chosen": ("character",),
    "night_discard": ("night",),
    "threat_discard": ("threat",),
    "large": ("animal",),
    "tile": ("animal", "tile"),
    "coins_halves": ("halves",),
    "current": ("seat",),
    "current_seat": ("seat",),
    "leader": ("seat",),
    "to_act": ("seat",),
    "turn_order": ("seat",),
    "viewer": ("seat",),
    "start": ("seat",),
}


@dataclass(frozen=True)
class Said:
    """A game's words (DescribeGame) with its seats named after their players."""

    words: GameWords
    tables: Mapping[str, Mapping[str, Term]]

    @staticmethod
    def of(words: GameWords, summary: Json | None = None) -> Said:
        names = {}
        for seat in _objects((summary or {}).get("seats")):
            if seat.get("display_name"):
                names[_int(seat.get("seat", 0))] = f"{seat['display_name']} (seat {seat.get('seat', 0)})"
        return Said(words, word.with_seat_names(words, names))

    def action(self, type_name: str, payload: Json) -> str:
        """A legal action as a label; its JSON when the words have no template for it."""
        text = word.describe(self.words.actions, type_name, payload, self.tables)
        return text if text is not None else json.dumps(payload, sort_keys=True)

    def event(self, type_name: str, payload: Json) -> str:
        """A log line; "" for bookkeeping, the kind in words when there is no template."""
        text = word.describe(self.words.events, type_name, payload, self.tables)
        if text is None:
            return word.kind_of(type_name, payload)[0].replace("_", " ")
        return text

    def name(self, field: str, value: object) -> str:
        """`value` of the view's `field` named through the tables it belongs to, else as it is."""
        if isinstance(value, bool) or value is None:
            return _inline(value)
        key = str(value)
        singular = field[:-1] if field.endswith("s") else field
        for table in (field, singular, *FIELD_TABLES.get(field, ())):
            found = self.tables.get(table, {}).get(key)
            if found is not None:
                return found.name
        if isinstance(value, str) and not key.isdigit():
            for entries in self.tables.values():
                if key in entries:
                    return entries[key].name
        return key


def readable(view: Json, said: Said, indent: str = "") -> list[str]:
    """A view as lines in the game's words: `label: value`, one line per row of a list of
    objects, every value named; nothing is cut (the terminal wraps long lines)."""
    lines: list[str] = []
    for field, value in view.items():
        label = f"{indent}{field.replace('_', ' ')}"
        if _is_rows(value):
            lines.append(f"{label}:")
            for row in value:
                lines.append(f"{indent}  - " + "; ".join(_cell(said, k, v) for k, v in row.items()))
        elif isinstance(value, Mapping):
            if value:
                lines.append(f"{label}:")
                lines += readable(value, said, indent + "  ")
        else:
            lines.append(f"{label}: {_value(said, field, value)}")
    return lines


def _cell(said: Said, field: str, value: object) -> str:
    return f"{field.replace('_', ' ')} {_value(said, field, value)}"


def _value(said: Said, field: str, value: object) -> str:
    if isinstance(value, list):
        if not value:
            return "-"
        if _is_rows(value):
            return " | ".join(", ".join(_cell(said, k, v) for k, v in row.items()) for row in value)
        return ", ".join(said.name(field, item) for item in value)
    if isinstance(value, Mapping):
        return ", ".join(_cell(said, k, v) for k, v in value.items()) or "-"
    return said.name(field, value)


def said_view(summary: Json, view: Json | None, said: Said) -> RenderableType:
    """`tabletop view` in the game's words: who plays, whose move, then the view, uncut."""
    status = str(summary.get("status", "")).removeprefix("MATCH_STATUS_").lower()
    names = said.tables.get("seat", {})

    def seat_name(seat: object) -> str:
        return names[str(seat)].name if str(seat) in names else f"seat {seat}"

    to_move = ", ".join(seat_name(s) for s in _list(summary.get("to_move"))) or "nobody"
    seats = ", ".join(
        seat_name(s.get("seat", 0)) if s.get("player_id") else f"seat {s.get('seat', 0)} free"
        for s in _objects(summary.get("seats"))
    )
    lines = [
        f"{said.words.title} · match {summary.get('match_id')} · {status} · version {summary.get('version')}",
        f"players: {seats}",
        f"to move: {to_move}",
    ]
    if summary.get("clocks"):
        lines.append(f"clocks: {clock_line(_objects(summary['clocks']), time.time())}")
    outcome = summary.get("outcome")
    if outcome and isinstance(outcome, Mapping):
        places = _list(outcome.get("ranking"))
        scores = _list(outcome.get("scores"))
        lines.append("result: " + ", ".join(
            f"{seat_name(seat)} #{place}" + (f" ({scores[seat]} points)" if seat < len(scores) else "")
            for seat, place in enumerate(places)))
    if view:
        lines += readable(view, said)
    return Text("\n".join(lines))
