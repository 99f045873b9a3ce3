"""Render proto/tabletop/games/discover/v1/*.proto from the engine's dataclasses.

The protos mirror the dataclasses (protocodec conventions), so they are written
by this script rather than by hand; `test_codec.py` checks they stay in sync.
Run `python -m tests.games.discover.protogen` from the repo root to rewrite them.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
import types
import typing
from enum import Enum
from pathlib import Path
from typing import Any

from services.games.common.protocodec import enum_prefix, snake
from services.games.discover import actions, events, view
from services.games.discover import state as st
from services.games.discover.vocab import Hex

PROTO_DIR = Path(__file__).resolve().parents[3] / "proto" / "tabletop" / "games" / "discover" / "v1"
PACKAGE = "tabletop.games.discover.v1"
HEADER = f'syntax = "proto3";\n\npackage {PACKAGE};\n'


def _comments(cls: type) -> dict[str, str]:
    """Trailing `# comment` of each field in the class source."""
    found: dict[str, str] = {}
    for line in inspect.getsource(cls).splitlines():
        match = re.match(r"\s+(\w+): [^#]+#\s*(.+)$", line)
        if match:
            found[match.group(1)] = match.group(2)
    return found


def _doc(cls: type) -> str:
    doc = inspect.getdoc(cls) or ""
    own = cls.__doc__ is not None and not doc.startswith(cls.__name__ + "(")
    return doc.splitlines()[0] if own and doc else ""


class Renderer:
    """Collects messages and enums in first-use order, then writes them per file."""

    def __init__(self, owner: dict[str, str]) -> None:
        self.owner = owner  # type name -> file it is declared in
        self.blocks: dict[str, list[str]] = {}

    def type_name(self, hint: Any, file: str) -> tuple[str, bool]:
        """(proto type, repeated) of a field hint."""
        origin = typing.get_origin(hint)
        args = typing.get_args(hint)
        if origin in (typing.Union, types.UnionType):
            rest = [a for a in args if a is not type(None)]
            if len(rest) == 1:
                return self.type_name(rest[0], file)
            raise TypeError(f"unnamed union {hint}")
        if origin in (tuple, frozenset):
            return self.type_name(args[0], file)[0], True
        if origin is dict:
            return f"map<{self.type_name(args[0], file)[0]}, {self.type_name(args[1], file)[0]}>", False
        if hint is int:
            return "int32", False
        if hint is str:
            return "string", False
        if hint is bool:
            return "bool", False
        if isinstance(hint, type) and issubclass(hint, Enum):
            self.enum(hint, file)
            return hint.__name__, False
        self.message(hint, file)
        return hint.__name__, False

    def enum(self, cls: type[Enum], file: str) -> None:
        name = cls.__name__
        if name in self.blocks:
            return
        prefix = enum_prefix(name)
        lines = [f"enum {name} {{", f"  {prefix}_UNSPECIFIED = 0;"]
        lines += [f"  {prefix}_{m.name.upper()} = {i};" for i, m in enumerate(cls, 1)]
        self._add(name, file, [*lines, "}"])

    def union(self, name: str, options: tuple[type, ...], file: str, doc: str) -> None:
        if name in self.blocks:
            return
        self.blocks[name] = []
        lines = [f"// {doc}", f"message {name} {{", "  oneof kind {"]
        for i, cls in enumerate(options, 1):
            self.message(cls, file)
            lines.append(f"    {cls.__name__} {snake(cls.__name__)} = {i};")
        self._add(name, file, [*lines, "  }", "}"])

    def message(self, cls: type, file: str) -> None:
        name = cls.__name__
        if name in self.blocks:
            return
        self.blocks[name] = []
        home = self.owner.get(name, file)
        hints = typing.get_type_hints(cls)
        comments = _comments(cls)
        lines = [f"// {_doc(cls)}"] if _doc(cls) else []
        lines.append(f"message {name} {{")
        for i, field in enumerate(dataclasses.fields(cls), 1):
            lines += self._field(field.name, hints[field.name], i, home, comments.get(field.name))
        self._add(name, home, [*lines, "}"])

    def _field(self, name: str, hint: Any, number: int, file: str, comment: str | None) -> list[str]:
        if hint is st.Step or (typing.get_args(hint) and typing.get_args(hint)[0] is st.Step):
            self.union("Step", typing.get_args(st.Step), "events", "An agenda step: what resolves next.")
            proto, repeated = "Step", typing.get_origin(hint) is tuple
        else:
            proto, repeated = self.type_name(hint, file)
        optional = type(None) in typing.get_args(hint) and proto in ("int32", "string", "bool")
        label = "repeated " if repeated else "optional " if optional else ""
        out = [f"  // {comment}"] if comment else []
        return [*out, f"  {label}{proto} {name} = {number};"]

    def _add(self, name: str, file: str, lines: list[str]) -> None:
        self.blocks[name] = lines
        self.owner.setdefault(name, file)


def render() -> dict[str, str]:
    """File name -> proto text."""
    owner = {"Hex": "actions", "DamageType": "actions"}
    r = Renderer(owner)
    r.message(Hex, "actions")
    r.union("Action", typing.get_args(actions.Action), "actions", "A survivor's move.")
    r.union("Event", typing.get_args(events.Event), "events", "Something that happened.")
    r.message(view.View, "views")
    imports = {"actions": [], "events": ["actions"], "views": ["actions", "events"]}
    files: dict[str, str] = {}
    for file, deps in imports.items():
        head = HEADER + "".join(f'\nimport "tabletop/games/discover/v1/{d}.proto";' for d in deps)
        body = [("\n".join(r.blocks[n])) for n in r.blocks if r.owner[n] == file]
        files[f"{file}.proto"] = head + ("\n" if deps else "") + "\n" + "\n\n".join(body) + "\n"
    return files


def main() -> None:
    PROTO_DIR.mkdir(parents=True, exist_ok=True)
    for name, text in render().items():
        (PROTO_DIR / name).write_text(text)


if __name__ == "__main__":
    main()
