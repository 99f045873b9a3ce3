"""How a game speaks: names, templates and a map legend, and the one formatter of templates.

Each game builds a `GameWords` from its content (services/games/<game>/words.py): a
name and a one-line text for every id a view, action or event may hold (cards,
characters, items, tiles, phases...), grouped in lookup tables; a template per
action type and per event type; a legend of the map's symbols. The gateway
serves it once per game (DescribeGame) and every client renders with the same
formatter: this module in Python, web/dist/js/words.js in the browser, both held
to tests/fixtures/words_vectors.json.

Template syntax:

    text     := (literal | "{{" | "}}" | field | choice)*
    field    := "{" path [":" table] ["|" one "|" many] "}"
    choice   := "{?" ["#"] path "|" text ["|" text] "}"
    path     := name ("." name)*

* `{seat:seat}`: the value at `seat`, named through the table `seat`; a value the
  table lacks prints as it is. A list prints each item, joined "a, b and c"; an
  empty list prints "none". true/false print "yes"/"no".
* `{count|coin|coins}`: "1 coin", "2 coins"; on a list, its length ("3 cards").
* `{?removed| and removes it|}`: the first text when the value is truthy (true, a
  non-zero number, a non-empty string or list), else the second (or nothing).
  `{?#source|...}` tests presence instead: a field with presence (proto3 `optional`)
  that is set, even to 0.
* A name is the field's proto name (snake_case); a payload keyed by the
  lowerCamelCase JSON names is read just the same.
* A field that is missing is zero: proto3 JSON leaves zero values out, so a
  missing `seat` is seat 0 (looked up as "0"), a missing count is 0, a missing
  flag false, a missing list empty.
* An empty template marks bookkeeping (undo points, clock settings...): clients
  leave it out of the player's log.

Pure: no grpc, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeAlias, Union

Payload: TypeAlias = Mapping[str, object]
# A lookup table as the formatter reads it: id -> Term, or id -> name.
Table: TypeAlias = Mapping[str, Union["Term", str]]
Tables: TypeAlias = Mapping[str, Table]


class TemplateError(ValueError):
    """A template that does not follow the syntax."""


@dataclass(frozen=True)
class Term:
    """What an id is called, and one line on what it does."""

    name: str
    text: str = ""


@dataclass(frozen=True)
class LegendEntry:
    """One symbol drawn on a board: what it looks like, what it is called, what it means."""

    group: str  # "terrain", "icon", ...
    symbol: str  # the glyph or colour a client draws
    name: str
    text: str = ""


@dataclass(frozen=True)
class GameWords:
    """Everything a client needs to speak a game's language (content only: nothing hidden)."""

    game: str
    title: str
    tables: Mapping[str, Mapping[str, Term]]
    actions: Mapping[str, str]  # action kind (snake_case oneof name) -> template
    events: Mapping[str, str]  # event kind -> template; "" for bookkeeping
    legend: tuple[LegendEntry, ...] = ()
    summary: str = ""  # one line on the game

    def names(self, table: str) -> Mapping[str, str]:
        """The names of one table, id -> name."""
        return {key: term.name for key, term in self.tables.get(table, {}).items()}


# ------------------------------------------------------------------ parsing


@dataclass(frozen=True)
class Literal:
    text: str


@dataclass(frozen=True)
class Field:
    path: tuple[str, ...]
    table: str = ""
    plural: tuple[str, str] | None = None


@dataclass(frozen=True)
class Choice:
    path: tuple[str, ...]
    then: tuple[Node, ...]
    otherwise: tuple[Node, ...] = ()
    presence: bool = False  # test that the field is there, not that it is truthy


Node: TypeAlias = Literal | Field | Choice
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


def parse(template: str) -> tuple[Node, ...]:
    """The template's parts; raises TemplateError on a malformed one."""
    nodes, at, stop = _parse_text(template, 0, inside=False)
    if stop is not None:
        raise TemplateError(f"unexpected {stop!r} at {at} in {template!r}")
    return nodes


def _parse_text(template: str, at: int, inside: bool) -> tuple[tuple[Node, ...], int, str | None]:
    """Parts up to the end, or (inside a choice) up to an unescaped '|' or '}' (returned as stop)."""
    nodes: list[Node] = []
    text: list[str] = []

    def flush() -> None:
        if text:
            nodes.append(Literal("".join(text)))
            text.clear()

    while at < len(template):
        char = template[at]
        pair = template[at : at + 2]
        if pair in ("{{", "}}"):
            text.append(char)
            at += 2
        elif char == "{":
            flush()
            node, at = _parse_brace(template, at)
            nodes.append(node)
        elif inside and char in "|}":
            flush()
            return tuple(nodes), at, char
        elif char == "}":
            raise TemplateError(f"unmatched '}}' at {at} in {template!r} (write '}}}}' for a brace)")
        else:
            text.append(char)
            at += 1
    flush()
    if inside:
        raise TemplateError(f"unclosed '{{?' in {template!r}")
    return tuple(nodes), at, None


def _parse_brace(template: str, at: int) -> tuple[Node, int]:
    if template.startswith("{?", at):
        return _parse_choice(template, at + 2)
    end = template.find("}", at)
    if end < 0:
        raise TemplateError(f"unclosed '{{' at {at} in {template!r}")
    return _parse_field(template[at + 1 : end], template), end + 1


def _path(text: str, template: str) -> tuple[str, ...]:
    if not _NAME.fullmatch(text):
        raise TemplateError(f"bad field path {text!r} in {template!r}")
    return tuple(text.split("."))


def _parse_field(body: str, template: str) -> Field:
    head, *forms = body.split("|")
    if forms and len(forms) != 2:
        raise TemplateError(f"a plural needs both forms, one|many: {{{body}}} in {template!r}")
    path, _, table = head.partition(":")
    if ":" in head and not _NAME.fullmatch(table):
        raise TemplateError(f"bad table name {table!r} in {template!r}")
    return Field(_path(path, template), table, (forms[0], forms[1]) if forms else None)


def _parse_choice(template: str, at: int) -> tuple[Choice, int]:
    presence = template.startswith("#", at)
    at += presence
    bar = template.find("|", at)
    if bar < 0:
        raise TemplateError(f"a choice needs '|' after its path in {template!r}")
    path = _path(template[at:bar], template)
    then, at, stop = _parse_text(template, bar + 1, inside=True)
    otherwise: tuple[Node, ...] = ()
    if stop == "|":
        otherwise, at, stop = _parse_text(template, at + 1, inside=True)
    if stop != "}":
        raise TemplateError(f"a choice has at most two texts in {template!r}")
    return Choice(path, then, otherwise, presence), at + 1


def tables_used(template: str) -> set[str]:
    """The lookup tables a template names (a test checks each game ships them)."""
    found: set[str] = set()

    def walk(nodes: Iterable[Node]) -> None:
        for node in nodes:
            if isinstance(node, Field) and node.table:
                found.add(node.table)
            elif isinstance(node, Choice):
                walk(node.then)
                walk(node.otherwise)

    walk(parse(template))
    return found


# ------------------------------------------------------------------ rendering


def render(template: str, payload: Payload, tables: Tables | None = None) -> str:
    """`template` filled from `payload`, ids named through `tables`."""
    return _render(parse(template), payload, tables or {})


def _render(nodes: Sequence[Node], payload: Payload, tables: Tables) -> str:
    out: list[str] = []
    for node in nodes:
        if isinstance(node, Literal):
            out.append(node.text)
        elif isinstance(node, Field):
            out.append(_field(node, _lookup(payload, node.path), tables))
        else:
            value = _lookup(payload, node.path)
            held = value is not _MISSING and value is not None if node.presence else _truthy(value)
            chosen = node.then if held else node.otherwise
            out.append(_render(chosen, payload, tables))
    return "".join(out)


def camel(name: str) -> str:
    """The proto3 JSON name of a snake_case field."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def snake(name: str) -> str:
    """The snake_case name of a lowerCamelCase one (a snake_case name is kept)."""
    return re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), name).lstrip("_")


_MISSING = object()


def _lookup(payload: object, path: Sequence[str]) -> object:
    value = payload
    for name in path:
        if not isinstance(value, Mapping):
            return _MISSING
        if name in value:
            value = value[name]
        elif camel(name) in value:
            value = value[camel(name)]
        else:
            return _MISSING
    return value


def _truthy(value: object) -> bool:
    if value is _MISSING or value is None:
        return False
    if isinstance(value, str):
        return value not in ("", "0", "false")
    if isinstance(value, bool | int | float):
        return bool(value)
    if isinstance(value, Sequence | Mapping):
        return len(value) > 0
    return True


def _field(node: Field, value: object, tables: Tables) -> str:
    if node.plural is not None:
        count = _count(value)
        return f"{count} {node.plural[0] if count == 1 else node.plural[1]}"
    if value is _MISSING or value is None:
        value = 0
    table = tables.get(node.table, {}) if node.table else {}
    if isinstance(value, list | tuple):
        return join([_scalar(item, table) for item in value])
    return _scalar(value, table)


def _count(value: object) -> int:
    if isinstance(value, list | tuple):
        return len(value)
    if value is _MISSING or value is None or value == "":
        return 0
    try:
        return int(str(value))
    except ValueError:
        return 0


def _scalar(value: object, table: Table) -> str:
    if isinstance(value, bool):
        key = "yes" if value else "no"
    elif isinstance(value, float) and value.is_integer():
        key = str(int(value))
    else:
        key = str(value)
    found = table.get(key)
    if found is None:
        return key
    return found.name if isinstance(found, Term) else found


def join(items: Sequence[str]) -> str:
    """"a", "a and b", "a, b and c"; "none" for nothing."""
    if not items:
        return "none"
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " and " + items[-1]


# ------------------------------------------------------------------ messages


def kind_of(type_name: str, payload: Payload) -> tuple[str, Payload]:
    """(kind, fields) of a payload: a game's Action/Event wraps one oneof field (the kind);
    a platform event is its own message (the kind is its name in snake_case).
    `type_name` is the full proto name or an Any type URL; `payload` may keep its "@type"."""
    name = type_name.rsplit("/", 1)[-1]
    if name.startswith("tabletop.games."):
        for key, value in payload.items():
            if key != "@type":
                return snake(key), value if isinstance(value, Mapping) else {}
        return "", {}
    body = {key: value for key, value in payload.items() if key != "@type"}
    return snake(name.rsplit(".", 1)[-1]), body


def describe(
    templates: Mapping[str, str], type_name: str, payload: Payload, tables: Tables
) -> str | None:
    """The payload in words: "" when its template marks it as bookkeeping, None when the
    kind has no template (a client then falls back to its own rendering)."""
    kind, body = kind_of(type_name, payload)
    template = templates.get(kind)
    if template is None:
        return None
    return render(template, body, tables) if template else ""


def with_seat_names(words: GameWords, names: Mapping[int, str]) -> dict[str, Mapping[str, Term]]:
    """The words' tables with the `seat` table naming each seat as given (players' names)."""
    tables: dict[str, Mapping[str, Term]] = dict(words.tables)
    seats = dict(tables.get("seat", {}))
    for seat, name in names.items():
        seats[str(seat)] = Term(name)
    tables["seat"] = seats
    return tables


# Platform events every match logs, whatever its game (services/match/lifecycle.py PLATFORM_EVENTS).
PLATFORM_EVENTS: Mapping[str, str] = {
    "match_created": "The table was set for {seat_count|player|players}",
    "player_joined": "{seat:seat} sat down{?display_name| as {display_name}}",
    "player_left": "{seat:seat} left the table",
    "match_started": "The game begins",
    "chance_resolved": "",
    "match_ended": "The game is over",
    "seed_revealed": "",
    "clock_set": "",
    "clock_expired": "{seat:seat} ran out of time",
    "undo_point": "",
    "actions_undone": "{seat:seat} took back {count|move|moves}",
    "lobby_expired": "The table closed: nobody started it",
}


def seat_table(max_seats: int) -> dict[str, Term]:
    """Seats as the CLI and the table number them ("seat 0"); clients put players' names over them."""
    return {str(seat): Term(f"seat {seat}") for seat in range(max_seats)}


def counted_table(prefix: str, count: int, first: int = 0, shift: int = 0) -> dict[str, Term]:
    """Numbered things shown from 1 though stored from 0 (slots, pieces): str(i) -> "prefix i+shift"."""
    return {str(i): Term(f"{prefix}{i + shift}".strip()) for i in range(first, first + count)}


def enum_table(prefix: str, values: Iterable[str], names: Mapping[str, str] | None = None) -> dict[str, Term]:
    """A proto enum's JSON names ("COLOUR_WHITE") -> words ("white"), from the engine's enum values."""
    return {
        f"{prefix}_{value.upper()}": Term((names or {}).get(value, value.replace("_", " ")))
        for value in values
    }


__all__ = [
    "PLATFORM_EVENTS",
    "GameWords",
    "LegendEntry",
    "TemplateError",
    "Term",
    "counted_table",
    "describe",
    "enum_table",
    "join",
    "kind_of",
    "parse",
    "render",
    "seat_table",
    "tables_used",
    "with_seat_names",
]
